"""The graph page in real headless Chromium, with the network blocked: it draws nodes, runs no injected
markup and asks the network for nothing. Needs the Debian package `chromium` (CI installs it).

Screenshots are kept under $KGKIT_ARTEFACTS (default: bench/out/) for people to look at.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import browser_tools as bt
import pytest

from kgkit.views.graph_page import graph_html, type_colour

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[1]
TYPES = ["Person", "Organization", "Location", "Event", "Concept"]
XSS_TITLE = "<img src=x onerror=document.body.setAttribute('data-pwned',3)>"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    graph = bt.synthetic_graph(50, 80)
    assert len(graph.entities) == 50 and len(graph.relations) == 80
    path = tmp_path_factory.mktemp("views") / "graph.html"
    path.write_text(graph_html(graph, title=XSS_TITLE), encoding="utf-8")
    return path


def artefact_dir() -> Path:
    out = Path(os.environ.get("KGKIT_ARTEFACTS", ROOT / "bench" / "out"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def test_graph_page_draws_nodes_with_the_network_blocked(chromium: str, page: Path, tmp_path: Path) -> None:
    run = bt.run_chromium(page, png=tmp_path / "graph.png", chromium=chromium, size=(1200, 900))
    assert run.returncode == 0 and run.png is not None, run.stderr[-3000:]
    kept = shutil.copy(run.png, artefact_dir() / "test_browser_graph.png")
    print(f"\nscreenshot: {kept}")
    assert run.page_requests == [], f"the page asked the network for {run.page_requests}"

    colours = [type_colour(t) for t in TYPES]
    counts, total = bt.colour_counts(run.png, colours, box=(0, 70, 1200, 900))  # below header + legend
    node_pixels = sum(counts.values())
    assert node_pixels / total > 0.005, f"canvas looks blank: {counts} of {total} pixels"
    assert sum(1 for n in counts.values() if n > 200) >= 4, f"expected several type colours, got {counts}"


def test_injected_markup_never_runs_and_the_renderer_draws(chromium: str, page: Path) -> None:
    # The page marks itself drawn two animation frames after the first render. --dump-dom dumps when the
    # virtual-time budget is spent, and on a loaded machine SwiftShader's first frame can come later than
    # that (seen once in a full suite on 2 busy cores), so a page not yet drawn gets one more load.
    for _attempt in range(2):
        run = bt.run_chromium(page, dump_dom=True, chromium=chromium)
        assert run.returncode == 0, run.stderr[-3000:]
        body = re.search(r"<body[^>]*>", run.stdout)
        assert body, run.stdout[:2000]
        if 'data-kg-drawn="1"' in body.group(0):
            break
    assert 'data-kg-drawn="1"' in body.group(0), "the renderer never finished drawing"
    assert "data-pwned" not in body.group(0), "document text was executed as HTML"
    assert "<img" not in run.stdout
    assert "&lt;img src=x onerror=" in run.stdout  # the title shows as text in the header
    assert run.page_requests == []


def test_network_probe_sees_a_page_request(chromium: str, tmp_path: Path) -> None:
    # control: the NetLog check above is not vacuous -- a page with a CDN script is caught
    probe = tmp_path / "probe.html"
    probe.write_text('<html><body><script src="https://cdn.example.invalid/vis.js"></script>x</body></html>')
    run = bt.run_chromium(probe, dump_dom=True, chromium=chromium, budget_ms=2000)
    assert run.page_requests == ["https://cdn.example.invalid/vis.js"]


def test_demo_graph_page_draws_offline(chromium: str, demo_run, tmp_path: Path) -> None:
    # the page `make demo` writes, from the real demo corpus, opened with the network blocked
    ws, _cold, _warm = demo_run
    run = bt.run_chromium(ws / "graph.html", png=tmp_path / "demo.png", chromium=chromium, size=(1400, 1000),
                          budget_ms=20000)
    assert run.returncode == 0 and run.png is not None, run.stderr[-3000:]
    kept = shutil.copy(run.png, artefact_dir() / "test_browser_demo.png")
    print(f"\nscreenshot: {kept}")
    assert run.page_requests == []
    colours = [type_colour(t) for t in ("Person", "Organization", "Location")]
    counts, total = bt.colour_counts(run.png, colours, box=(0, 70, 1400, 1000))
    assert sum(counts.values()) / total > 0.002, f"demo canvas looks blank: {counts} of {total} pixels"
