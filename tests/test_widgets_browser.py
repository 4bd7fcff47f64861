"""MergeReview in real headless Chromium: a static harness page loads the widget's bundled ES module with a
minimal fake anywidget model whose `save_changes` posts to a localhost server run by the test; the page
script clicks accept on one candidate and reject on another; the test asserts that the two Decision
records arrive on the Python side (through `MergeReview.set_state`, the path front-end updates take).
The network is blocked apart from that loopback server. Screenshot: $KGKIT_ARTEFACTS or bench/out/.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import browser_tools as bt
import pytest

from kgkit.core.decisions import MergeCandidate
from kgkit.views.widgets import actions_to_decisions, bundle_esm, merge_review_esm

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[1]
XSS = "<img src=x onerror=document.body.setAttribute('data-pwned',1)>"

HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>MergeReview harness</title></head>
<body style="margin:8px;background:#fff"><div id="widget"></div>
<script type="module">
const BASE = "__BASE__";
const state = await (await fetch(BASE + "/state")).json();
const { default: widget } = await import(BASE + "/merge_review.js");
const listeners = {};
const pending = {};
const posts = [];
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; pending[k] = v; (listeners["change:" + k] || []).forEach((f) => f()); },
  on: (ev, f) => { (listeners[ev] = listeners[ev] || []).push(f); },
  off: (ev, f) => { listeners[ev] = (listeners[ev] || []).filter((g) => g !== f); },
  save_changes: () => {
    const body = JSON.stringify({ ...pending });
    for (const k of Object.keys(pending)) delete pending[k];
    posts.push(fetch(BASE + "/save", { method: "POST", body, headers: { "Content-Type": "text/plain" } }));
  },
};
const el = document.getElementById("widget");
widget.render({ model, el });
const button = (i, action) => el.querySelector(`[data-index="${i}"] [data-action="${action}"]`);
button(0, "accept").click();
button(1, "reject").click();
await Promise.all(posts);
document.body.setAttribute("data-saved", String(posts.length));
</script></body></html>
"""


def _cand(source: str, target: str, sname: str, tname: str, score: float) -> MergeCandidate:
    return MergeCandidate(source=source, target=target, source_name=sname, target_name=tname, source_type="Person",
                          target_type="Person", score=score, step="rule", verdict="unique",
                          features={"jaro_winkler": 0.9}, reasons=("initials agree",))


class _Server:
    """Serves the widget module and the candidates; POST /save sets the posted traits on a real widget."""

    def __init__(self, widget, module: str = "merge_review"):
        self.widget, self.saves, self.module = widget, [], module
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, body: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                if self.path == "/merge_review.js":
                    code = merge_review_esm() if outer.module == "merge_review" else bundle_esm(outer.module)
                    self._send(code.encode(), "text/javascript; charset=utf-8")
                elif self.path == "/state":
                    w = outer.widget
                    state = {k: getattr(w, k) for k in w.keys if not k.startswith("_") and k not in
                             ("comm", "layout", "log", "tabbable", "tooltip")}
                    self._send(json.dumps(state).encode(), "application/json")
                else:
                    self.send_error(404)

            def do_POST(self):
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.saves.append(data)
                outer.widget.set_state(data)  # what an ipywidgets comm update does
                self._send(b"{}", "application/json")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """bt.run_chromium's flags, except that 127.0.0.1 (the test's own server) resolves; every other host
    still resolves to nothing and the dead proxy still catches the rest."""
    flags = [f if not f.startswith("--host-resolver-rules=") else f + ", EXCLUDE 127.0.0.1" for f in bt.CHROMIUM_FLAGS]
    monkeypatch.setattr(bt, "CHROMIUM_FLAGS", flags)


def test_clicks_in_chromium_arrive_as_decisions(chromium: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kgkit.views.widgets import MergeReview

    _loopback_only(monkeypatch)

    cands = [_cand("P:j smith", "P:jane smith", "J. Smith", "Jane Smith", 0.95),
             _cand("P:bob", "P:rob", XSS, "Rob", 0.72), _cand("P:al", "P:alan", "Al", "Alan", 0.61)]
    widget = MergeReview.from_candidates(cands)
    with _Server(widget) as server:
        page = tmp_path / "harness.html"
        page.write_text(HARNESS.replace("__BASE__", server.base), encoding="utf-8")
        run = bt.run_chromium(page, png=tmp_path / "merge_review.png", chromium=chromium, size=(1000, 700))
        dom = bt.run_chromium(page, dump_dom=True, chromium=chromium)
    assert run.returncode == 0 and run.png is not None, run.stderr[-3000:]
    out = Path(os.environ.get("KGKIT_ARTEFACTS", ROOT / "bench" / "out"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshot: {shutil.copy(run.png, out / 'test_browser_merge_review.png')}")

    decisions = actions_to_decisions(widget.candidates, widget.actions, who="browser")
    assert [(d.kind, d.subjects, d.decided_by) for d in decisions] == [
        ("merge", ("P:j smith", "P:jane smith"), "person"), ("keep_apart", ("P:bob", "P:rob"), "person")]
    assert widget.cursor == 2 and server.saves  # the focus moved on to the undecided third candidate
    assert 'data-saved="2"' in dom.stdout and "data-pwned" not in dom.stdout.split("<div", 1)[0]
    assert "&lt;img src=x" in dom.stdout and "<img" not in dom.stdout  # the document name shows as text
    assert all(u.startswith(server.base) for u in run.page_requests + dom.page_requests), run.page_requests


BOX_HARNESS = HARNESS.replace("""const button = (i, action) => el.querySelector(`[data-index="${i}"] [data-action="${action}"]`);
button(0, "accept").click();
button(1, "reject").click();""", """const svg = el.querySelector("svg");
const r = svg.getBoundingClientRect();
const at = (type, x, y) => svg.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: r.left + x, clientY: r.top + y }));
at("mousedown", 0, 0); at("mousemove", 200, 150); at("mouseup", 200, 150);""")


def test_box_selection_in_chromium_arrives_as_selected_ids(chromium: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np
    import pandas as pd

    from kgkit.views.cluster import cluster_points
    from kgkit.views.widgets import ClusterMap

    _loopback_only(monkeypatch)
    ents = pd.DataFrame({"id": ["a", "b", "c", "d"], "name": [XSS, "B", "C", "D"], "type": ["Person"] * 4})
    # canvas 400 x 300, padding 20: x in [0, 1] -> [20, 380], y in [0, 1] -> [280, 20] (y up)
    points = cluster_points(ents, np.array([[0.0, 1.0], [0.3, 0.6], [1.0, 0.0], [0.9, 0.9]]))
    widget = ClusterMap.from_points(points, candidates=[("a", "c")], width=400, height=300)
    with _Server(widget, module="cluster_map") as server:
        page = tmp_path / "box.html"
        page.write_text(BOX_HARNESS.replace("__BASE__", server.base), encoding="utf-8")
        run = bt.run_chromium(page, png=tmp_path / "cluster_map.png", chromium=chromium, size=(700, 420))
    assert run.returncode == 0 and run.png is not None, run.stderr[-3000:]
    out = Path(os.environ.get("KGKIT_ARTEFACTS", ROOT / "bench" / "out"))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(run.png, out / "test_browser_cluster_map.png")
    assert widget.selected == ["a", "b"], server.saves  # the box (0,0)-(200,150) holds a (20,20) and b (128,124)


VETO_HARNESS = HARNESS.replace("""const button = (i, action) => el.querySelector(`[data-index="${i}"] [data-action="${action}"]`);
button(0, "accept").click();
button(1, "reject").click();""", """const key = (k) => el.querySelector(".kgmr").dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
key("j"); key("j"); key("v");""")


def test_policy_merge_is_shown_and_v_vetoes_it_in_chromium(chromium: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    from kgkit.core.graph import Graph
    from kgkit.stages.resolve.decisions import decide
    from kgkit.testing.builders import entity_row
    from kgkit.views.widgets import MergeReview

    _loopback_only(monkeypatch)
    cands = [_cand("P:j smith", "P:jane smith", "J. Smith", "Jane Smith", 0.97),
             _cand("P:bob", "P:rob", "Bob", "Rob", 0.72), _cand("P:al", "P:alan", "Al", "Alan", 0.61)]
    made = decide(cands, at="2026-01-01T00:00:00Z")
    assert [d.decided_by for d in made] == ["policy"]
    prov = pd.DataFrame([{"item_id": "P:j smith", "kind": "entity", "document_id": "doc:1", "chunk_id": "c",
                          "start": 0, "end": 8, "evidence": "J. Smith wrote to Bob.", "extractor_id": "x",
                          "model": None, "prompt_hash": None}])
    docs = pd.DataFrame([{"id": "doc:1", "path": f"letters/{XSS}.txt", "sha256": "0", "media_type": "text/plain",
                          "chunks": 1, "errors": 0}])
    graph = Graph.empty().replace(entities=pd.DataFrame([entity_row(i, n, "Person", 1) for i, n in [
        ("P:j smith", "J. Smith"), ("P:jane smith", "Jane Smith")]]), provenance=prov, documents=docs)
    widget = MergeReview.from_candidates(cands, graph=graph, decisions=made)
    assert [c["key"] for c in widget.candidates][-1] == "P:j smith|P:jane smith"  # decided ones after the open ones
    with _Server(widget) as server:
        page = tmp_path / "veto.html"
        page.write_text(VETO_HARNESS.replace("__BASE__", server.base), encoding="utf-8")
        run = bt.run_chromium(page, png=tmp_path / "merge_review_veto.png", chromium=chromium, size=(1000, 700))
        dom = bt.run_chromium(page, dump_dom=True, chromium=chromium)
    assert run.returncode == 0 and run.png is not None, run.stderr[-3000:]
    out = Path(os.environ.get("KGKIT_ARTEFACTS", ROOT / "bench" / "out"))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(run.png, out / "test_browser_merge_review_veto.png")
    (veto,) = actions_to_decisions(widget.candidates, widget.actions, who="browser")
    assert (veto.kind, veto.subjects, veto.decided_by) == ("keep_apart", ("P:j smith", "P:jane smith"), "person")
    assert "vetoed the policy merge" in veto.why
    assert "vetoed: kept apart (was policy merged, score 0.97)" in dom.stdout
    assert "J. Smith wrote to Bob." in dom.stdout and "letters/&lt;img src=x" in dom.stdout  # the document, as text
    assert "<img" not in dom.stdout and "data-pwned" not in dom.stdout.split("<div", 1)[0]
    assert all(u.startswith(server.base) for u in run.page_requests + dom.page_requests), run.page_requests
