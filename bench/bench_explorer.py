"""Benchmark: the graph explorer (graph.html) in headless Chromium — time to interactive and frame time while
panning, for the demo graph and a 5,000-entity / 20,000-relation graph, against the previous view (pyvis
with physics, `git show HEAD:kgkit/views/graph.py`) measured in the same run.

    .venv/bin/python bench/bench_explorer.py [--entities 5000 --relations 20000] [--workspace workspace/demo]

- build: seconds in Python for the page (payload + seeded layout + HTML);
- interactive: navigation start -> first frame drawn with every control live (performance.now() in the page;
  for the baseline, the wall time until its first frame, which vis-network draws after stabilisation);
- all relations drawn: a large graph's relations (above 3,000) join the canvas in batches after the first frame
  (vis-network spends a fraction of a millisecond on each); the time the last batch is drawn;
- pan: 60 real mouse moves (DevTools Input events) dragging the canvas; draw = vis-network's canvas redraw
  per frame (beforeDrawing -> afterDrawing), interval = requestAnimationFrame spacing; median and p95.
The demo graph is the workspace's (run `make demo` first) or, without one, built by `kgkit run` in a temporary
folder. The large graph is synthetic (tests/explorer_graphs.large_graph: planted communities, Louvain).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests")]

from cdp_tools import Browser, Page  # noqa: E402  (test tooling: one headless Chromium over DevTools)
from explorer_graphs import large_graph  # noqa: E402

import kgkit  # noqa: E402
from kgkit.core.constants import VIEW_NODES  # noqa: E402
from kgkit.views.graph import graph_html  # noqa: E402

PAN = """(async () => {
  const net = (document.querySelector('.kgx') && document.querySelector('.kgx').kgExplorer) ?
    document.querySelector('.kgx').kgExplorer.network : globalThis.network;
  globalThis.__draw = []; globalThis.__raf = [];
  let t0 = 0;
  net.on('beforeDrawing', () => { t0 = performance.now(); });
  net.on('afterDrawing', () => { globalThis.__draw.push(performance.now() - t0); });
  let last = performance.now(); globalThis.__panning = true;
  const tick = (t) => { globalThis.__raf.push(t - last); last = t; if (globalThis.__panning) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const r = document.querySelector('canvas').getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
})()"""


def baseline_module():
    """The view as it was at HEAD (pyvis, physics), loaded from git without touching the working tree."""
    code = subprocess.run(["git", "show", "HEAD:kgkit/views/graph.py"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout
    spec = importlib.util.spec_from_loader("kgkit_views_graph_head", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(code, "HEAD:kgkit/views/graph.py", "exec"), module.__dict__)
    return module


def q(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def measure(browser: Browser, html: Path, *, timeout: float) -> dict:
    start = time.perf_counter()
    page: Page = browser.open(html.as_uri())
    try:
        page.wait_for("document.body.dataset.kgDrawn === '1'", timeout=timeout, interval=0.02)
    except TimeoutError:
        browser.close_page(page)
        return {"interactive_s": None, "note": f"not drawn within {timeout:.0f} s"}
    wall = time.perf_counter() - start
    in_page = page.eval("Number(document.body.dataset.kgMs || 0)")
    relations = None
    if page.eval("!!document.querySelector('.kgx')"):  # the explorer: a large graph's relations arrive in batches
        page.wait_for("document.querySelector('.kgx').dataset.kgRelations === '1'", timeout=timeout, interval=0.05)
        relations = page.eval("(performance.getEntriesByName('kgx:relations')[0] || {startTime: 0}).startTime")
    x, y = page.eval(PAN)
    page.mouse("mouseMoved", x, y)
    page.mouse("mousePressed", x, y, buttons=1, clicks=1)
    for i in range(60):
        page.mouse("mouseMoved", x + 4 * (i + 1) * (1 if i < 30 else -1) % 240, y + 2 * (i % 20), buttons=1)
        time.sleep(0.016)
    page.mouse("mouseReleased", x, y, clicks=1)
    time.sleep(0.2)
    draw, raf = page.eval("[globalThis.__draw, (globalThis.__panning = false, globalThis.__raf.slice(1))]")
    browser.close_page(page)
    return {"interactive_s": round(in_page / 1000, 2) if in_page else round(wall, 2), "wall_s": round(wall, 2),
            "relations_s": round(max(relations, in_page) / 1000, 2) if relations is not None else None,
            "frames": len(draw), "draw_ms_median": round(statistics.median(draw), 1) if draw else None,
            "draw_ms_p95": round(q(draw, 0.95), 1), "interval_ms_median": round(statistics.median(raf), 1) if raf else None,
            "interval_ms_p95": round(q(raf, 0.95), 1)}


def demo_graph(workspace: str | None):
    if workspace and (Path(workspace) / "graph.json").exists():
        return kgkit.read_graph(workspace)
    out = Path(tempfile.mkdtemp(prefix="kgkit-bench-explorer-")) / "demo"
    subprocess.run([sys.executable, "-m", "kgkit.cli", "run", str(ROOT / "data/demo/sotu_1934_1946"), "-o", str(out)],
                   check=True, capture_output=True)
    return kgkit.read_graph(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entities", type=int, default=5000)
    parser.add_argument("--relations", type=int, default=20000)
    parser.add_argument("--workspace", default=str(ROOT / "workspace" / "demo"))
    parser.add_argument("--baseline-timeout", type=float, default=90.0)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()

    graphs = {"demo": demo_graph(args.workspace)}
    t = time.perf_counter()
    graphs[f"{args.entities}/{args.relations}"] = large_graph(args.entities, args.relations)
    print(f"synthetic graph generated in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    old = None if args.no_baseline else baseline_module()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, Browser(size=(1400, 900)) as browser:
        for name, graph in graphs.items():
            n_ent, n_rel = len(graph.entities), len(graph.relations)
            views = [("explorer", lambda g=graph, t=name: graph_html(g, max_nodes=None, title=t))]
            if n_ent > VIEW_NODES:  # what graph.html shows by default: the VIEW_NODES most connected entities
                views.append((f"explorer, top {VIEW_NODES}", lambda g=graph, t=name: graph_html(g, title=t)))
            if old is not None:  # the previous view, at the same size (all entities)
                views.append(("pyvis (HEAD)", lambda g=graph, t=name: old.graph_html(g, max_nodes=len(g.entities), title=t)))
            for view, make in views:
                t = time.perf_counter()
                page = make()
                build = time.perf_counter() - t
                path = Path(tmp) / f"{len(rows)}.html"
                path.write_text(page, encoding="utf-8")
                result = measure(browser, path, timeout=args.baseline_timeout if view.startswith("pyvis") else 120)
                rows.append({"graph": name, "entities": n_ent, "relations": n_rel, "view": view,
                             "build_s": round(build, 2), "page_mb": round(len(page.encode()) / 1e6, 2), **result})
                print(json.dumps(rows[-1]), file=sys.stderr)
    print("| graph | entities | relations | view | build (s) | page (MB) | interactive (s) | all relations drawn (s) |"
          " pan: draw ms median / p95 | pan: frame interval ms median / p95 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        inter = r["interactive_s"] if r["interactive_s"] is not None else r.get("note")
        print(f"| {r['graph']} | {r['entities']} | {r['relations']} | {r['view']} | {r['build_s']} | {r['page_mb']} | "
              f"{inter} | {r.get('relations_s') or inter} | {r.get('draw_ms_median')} / {r.get('draw_ms_p95')} | "
              f"{r.get('interval_ms_median')} / {r.get('interval_ms_p95')} |")
    by = {(r["graph"], r["view"]): r for r in rows}
    for name in graphs:
        new, base = by.get((name, "explorer")), by.get((name, "pyvis (HEAD)"))
        if new and base and new["interactive_s"] and base["interactive_s"]:
            print(f"{name}: interactive {base['interactive_s'] / new['interactive_s']:.1f}x sooner than the previous view")
    for r in rows:
        if r["view"] != "explorer":
            continue
        first = r["interactive_s"]
        ok = first is not None and first <= 3
        print(f"target interactive <= 3 s, {r['graph']}: {'met' if ok else 'NOT met'} (first frame {first} s, "
              f"all relations {r.get('relations_s')} s; panning: draw median {r.get('draw_ms_median')} ms, "
              f"p95 {r.get('draw_ms_p95')} ms; smooth = under 16.7 ms)")

if __name__ == "__main__":
    main()
