"""Screenshot what each notebook shows, in headless Chromium with the network blocked.

    .venv/bin/python notebooks/tools/screenshots.py                      # demo corpus -> docs/notebooks/*.png
    .venv/bin/python notebooks/tools/screenshots.py --corpus tests/fixtures/corpus --out bench/out
    .venv/bin/python notebooks/tools/screenshots.py --workspace /tmp/shots-ws   # the notebooks' workspace

Each notebook is run headless (``app.run`` with its ``config`` cell replaced: workspace, corpus, cache, ...),
all on one workspace (``--workspace``, else ``KGKIT_WORKSPACE``, else ``~/.cache/kgkit/notebooks/screenshots``:
never a folder of the repository; its cache makes a second run fast), then the views
its cells show are written as one standalone page per notebook and screenshotted: extraction -> the
extraction diff and the two runs' graphs overlaid in the explorer; resolution -> the cluster map, the
MergeReview widget (its real ES module, a fake model) and the merge preview; exploration and tour -> the
explorer with the payload their Explorer widget holds. marimo's own UI (tables, dropdowns) is not in these
pictures (tests/test_notebook_explorer.py screenshots a running `marimo run` notebook instead).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import browser_tools as bt  # noqa: E402  (test tooling: hardened headless Chromium runner)

WIDGET_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:8px;font-family:system-ui,sans-serif"><h3 style="margin:4px 0">__TITLE__</h3><div id="w"></div>
<script type="module">
const code = __CODE__;
const state = __STATE__;
const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
const { default: widget } = await import(url);
const on = {};
const model = { get: (k) => state[k], set: (k, v) => { state[k] = v; (on["change:" + k] || []).forEach((f) => f()); },
  on: (e, f) => { (on[e] = on[e] || []).push(f); }, off: () => {}, save_changes: () => {} };
widget.render({ model, el: document.getElementById("w") });
</script></body></html>"""


def _json(value: object) -> str:
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _load(name: str):
    path = ROOT / "notebooks" / name
    spec = importlib.util.spec_from_file_location(f"nb_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # nothing written beside the notebooks
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module.app


def pages(corpus: Path, workspace: Path | None = None) -> dict[str, str]:
    """{name: standalone HTML} for each notebook, from a headless run on `corpus` in `workspace` (default: the
    one kgkit.notebook.open_workspace chooses for "screenshots")."""
    import kgkit.notebook as kn
    from kgkit.views.explorer import explorer_page
    from kgkit.views.widgets import bundle_esm, cluster_payload, merge_review_esm

    ws = kn.open_workspace("screenshots", workspace)
    base = {"workspace": ws, "cache": kn.Cache(ws.cache_dir), "corpus_dir": corpus, "domain": kn.load_domain("general"),
            "model": None, "extractor": kn.make_extractor()}
    out: dict[str, str] = {}
    _, d = _load("extraction.py").run(defs={**base, "domain_b": kn.load_domain("people_orgs_events")})
    out["extraction"] = kn.diff_html(d["extraction_diff"], max_chunks=6,
                                     title="Extraction diff: general vs people_orgs_events")
    out["extraction_overlay"] = explorer_page(d["graph_overlay"].widget.payload, height="760px")
    _, d = _load("resolution.py").run(defs={**base, "autosave": False, "embedder": kn.HashingEmbedder()})
    out["resolution_map"] = kn.cluster_html(d["points"], candidates=d["candidates"],
                                            title="Entities by name embedding (PCA)")
    rows, pairs = cluster_payload(d["points"], candidates=d["candidates"])
    state = {"points": rows, "pairs": pairs, "selected": [r["id"] for r in rows if r["candidate"]], "width": 1100,
             "height": 720}
    out["resolution_cluster_widget"] = (WIDGET_PAGE.replace("__CODE__", _json(bundle_esm("cluster_map")))
                                        .replace("__STATE__", _json(state)).replace("__TITLE__", "ClusterMap"))
    state = {"candidates": d["review"].widget.candidates[:6], "actions": {}, "cursor": 0, "threshold": 0.9}
    out["resolution_widget"] = (WIDGET_PAGE.replace("__CODE__", _json(merge_review_esm()))
                                .replace("__STATE__", _json(state)).replace("__TITLE__", "MergeReview"))
    out["resolution_preview"] = explorer_page(d["merge_preview"].widget.payload, height="760px")
    _, d = _load("exploration.py").run(defs={**base, "embedder": kn.HashingEmbedder()})
    out["exploration"] = explorer_page(d["explorer"].widget.payload, height="760px")
    _, d = _load("tour.py").run(defs=base)
    out["tour"] = explorer_page(d["explorer"].widget.payload, height="760px")
    return out


def drawn(png: Path) -> bool:
    """Whether a screenshot shows something: at least 0.5% of its pixels are not near-white (a page whose script
    failed, or that had not drawn yet, is blank)."""
    width, height, rows = bt.read_png(png)
    inked = sum(1 for row in rows for x in range(0, len(row), 4) if min(row[x: x + 3]) < 200)
    return inked > 0.005 * width * height


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "data" / "demo" / "sotu_1934_1946")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "notebooks")
    parser.add_argument("--workspace", type=Path, default=None,
                        help="the notebooks' workspace (default: $KGKIT_WORKSPACE, else the user cache)")
    args = parser.parse_args(argv)
    if bt.find_chromium() is None:
        print("chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="kgkit-shots-") as tmp:
        for name, page in pages(args.corpus.resolve(), args.workspace).items():
            html = Path(tmp) / f"{name}.html"
            html.write_text(page, encoding="utf-8")
            run = bt.run_chromium(html, png=args.out / f"{name}.png", size=(1200, 850), budget_ms=15000)
            ok = run.returncode == 0 and run.png is not None and not run.page_requests and drawn(run.png)
            failed += not ok
            print(f"{name}: {run.png if ok else 'FAILED'} {run.page_requests or ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
