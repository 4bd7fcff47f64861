"""The graph explorer inside a running marimo notebook, in real headless Chromium (network blocked but for the
loopback address): `marimo run notebooks/exploration.py` on a workspace made from the fixture corpus; the
Explorer widget (anywidget, `mo.ui.anywidget`) draws the whole graph; an entity found with the explorer's search
box and clicked reaches Python through the widget's `selected` trait, and the reactive cell below it shows
that entity's details (documents by path, relations). Screenshot: $KGKIT_ARTEFACTS (default bench/out/)."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import browser_tools as bt
import pytest
from cdp_tools import Browser, Page

from kgkit import io
from kgkit.io.cache import Cache
from kgkit.io.workspace import Workspace

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[1]

# the explorer's root element, wherever marimo put it (an anywidget renders inside <marimo-anywidget>'s shadow DOM)
EXPLORER = """(() => { const walk = (n) => { for (const e of n.querySelectorAll('*')) {
    if (e.matches('[data-kg-explorer]')) return e; if (e.shadowRoot) { const f = walk(e.shadowRoot); if (f) return f; } }
    return null; }; return walk(document); })()"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_server(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"marimo exited with {proc.returncode}: {proc.stdout.read()[-2000:]}")
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"marimo did not answer at {url} within {timeout}s")


def _click_in_explorer(page: Page, selector: str) -> None:
    """A real mouse click in the middle of the first element matching `selector` inside the explorer."""
    box = page.eval(f"""(() => {{ const e = {EXPLORER}?.querySelector({json.dumps(selector)}); if (!e) return null;
        e.scrollIntoView({{block: "center"}}); const r = e.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
    assert box is not None, f"no {selector} in the explorer"
    page.click_at(*box)


def _coloured_pixels(page: Page, tmp_path: Path) -> int:
    """How many pixels of the explorer's drawing area are clearly coloured (nodes), from a real screenshot, so
    whatever draws the graph (canvas 2D, WebGL, SVG) is seen as a person sees it."""
    rect = page.eval(f"""(() => {{ const c = {EXPLORER}.querySelector('canvas, svg'); c.scrollIntoView({{block: "center"}});
        const r = c.getBoundingClientRect(); return {{x: r.left, y: r.top, width: r.width, height: r.height}}; }})()""")
    shot = tmp_path / "drawing.png"
    shot.write_bytes(base64.b64decode(page.call("Page.captureScreenshot", format="png", clip={**rect, "scale": 1})["data"]))
    _, _, rows = bt.read_png(shot)
    return sum(1 for row in rows for x in range(0, len(row), 4) if max(row[x: x + 3]) - min(row[x: x + 3]) > 60)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, offline_extractor) -> Path:
    """A workspace made by the `run` workflow from the fixture corpus, as `kgkit run` would."""
    import shutil

    from kgkit.workflows.run import run

    base = tmp_path_factory.mktemp("nb-explorer")
    shutil.copytree(ROOT / "tests" / "fixtures" / "corpus", base / "corpus")
    ws = Workspace(base / "ws")
    run(ws, base / "corpus", domain=io.load_domain("general"), extractor=offline_extractor, cache=Cache(ws.cache_dir))
    return ws.root


def test_explorer_draws_in_marimo_and_a_selection_reaches_python(chromium, workspace, tmp_path):
    from kgkit.workflows.graph import read_graph

    graph = read_graph(Workspace(workspace))
    hub = graph.entities.sort_values(["degree", "id"], ascending=[False, True]).iloc[0]
    port = _free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("KGKIT_")},
           "XDG_CACHE_HOME": str(tmp_path / "user-cache"), "HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "marimo", "run", str(ROOT / "notebooks" / "exploration.py"), "--headless",
         "--host", "127.0.0.1", "--port", str(port), "--no-token", "--no-skew-protection", "--",
         "--workspace", str(workspace)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path, start_new_session=True)
    try:
        _wait_for_server(f"http://127.0.0.1:{port}/", proc)
        with Browser(chromium, size=(1400, 900), loopback=True) as browser:
            page = browser.open(f"http://127.0.0.1:{port}/")
            # the widget's module ran inside marimo and the explorer drew the whole graph
            page.wait_for(f"{EXPLORER}?.getAttribute('data-kg-ready') === '1'", timeout=90)
            shown = page.eval(f"{EXPLORER}.kgExplorer.visible().nodes.size")
            assert shown == len(graph.entities)
            assert _coloured_pixels(page, tmp_path) > 300  # nodes are drawn, not only an empty canvas
            assert "Select an entity in the explorer" in page.eval("document.body.innerText")
            # a person finds the hub with the explorer's search box and picks it: the details cell shows it
            _click_in_explorer(page, "[data-role=search]")
            page.type_text(str(hub["name"]))
            _click_in_explorer(page, f"[data-role=suggestions] button[data-entity={json.dumps(hub['id'])}]")
            details = f"document.querySelector({json.dumps(f'.kg-entity-details[data-entity={json.dumps(hub.id)}]')})"
            page.wait_for(f"!!{details}", timeout=30)
            text = page.eval(f"{details}.innerText")
            documents = set(graph.documents["path"])
            assert str(hub["name"]) in text and "Relations (" in text
            assert any(path in text for path in documents)  # documents by their relative path ...
            assert not any(doc_id in text for doc_id in graph.documents["id"])  # ... never by hash id
            page.eval(f"{details}.scrollIntoView({{block: 'center'}})")
            out = Path(os.environ.get("KGKIT_ARTEFACTS", ROOT / "bench" / "out"))
            out.mkdir(parents=True, exist_ok=True)
            page.screenshot(out / "test_notebook_explorer_marimo.png")
    finally:
        os.killpg(proc.pid, 9)
        proc.wait(timeout=10)
