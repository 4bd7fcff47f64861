"""The explorer's payload, layout and palette (no browser): what the page and the widget are given."""

from __future__ import annotations

import json
import math

import pytest
from explorer_graphs import ADA_SENTENCE, XSS, large_graph, small_graph

from kgkit.views.explorer import PALETTE, PINNED, explorer_esm, explorer_html, explorer_payload, type_colours
from kgkit.views.explorer.layout import community_layout


@pytest.fixture(scope="module")
def payload() -> dict:
    return explorer_payload(small_graph())


def _luminance(hex_colour: str) -> float:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_mentions_carry_their_sentence_document_and_exact_span(payload: dict) -> None:
    docs, sentences = payload["documents"], payload["sentences"]
    assert docs == ["letters/ada.txt", "notes/engine <b>notes</b>.txt"]  # relative paths, sorted
    shown = [(docs[d], sentences[s][a:b]) for d, s, a, b in payload["mentions"]["Person:ada"]]
    assert shown == [("letters/ada.txt", "Ada Lovelace"), ("notes/engine <b>notes</b>.txt", "Ada Lovelace")]
    (d, s, a, b), = payload["mentions"]["Person:babbage"]
    assert sentences[s] == ADA_SENTENCE and sentences[s][a:b] == "Charles Babbage"
    (d, s, a, b), = payload["mentions"]["Person:xss"]
    assert s == -1 and docs[d] == "notes/engine <b>notes</b>.txt"  # no sentence: the document still named


def test_entities_and_relations_carry_what_the_panels_show(payload: dict) -> None:
    nodes = {n["id"]: n for n in payload["nodes"]}
    ada = nodes["Person:ada"]
    assert ada["aliases"] == ["Countess of Lovelace"] and ada["identity"] == "source" and ada["community"] == "c0"
    assert [payload["documents"][i] for i in ada["docs"]] == ["letters/ada.txt", "notes/engine <b>notes</b>.txt"]
    assert nodes["Person:xss"]["name"] == XSS
    edges = {e["id"]: e for e in payload["edges"]}
    lived = edges["rel:lived"]
    assert (lived["valid_at"], lived["invalid_at"], lived["docs"]) == ("1835-07-08", "1852-11-27", [1])
    assert edges["rel:member"]["review"] and edges["rel:member"]["flags"] == ["signature_violation"]
    assert edges["rel:co"]["weak"] and not edges["rel:wrote"]["weak"]
    assert payload["time"]["steps"] == ["1816-01-01", "1835-07-08", "1843-01-01", "1852-11-27"]
    assert payload["document_ids"] == ["doc:letters", "doc:notes"]  # hashes kept for tooltips only
    assert [c[:2] for c in payload["communities"]] == [["c0", 3], ["c1", 3]]


def test_no_time_slider_without_times_and_json_is_html_safe() -> None:
    g = small_graph()
    g = g.replace(relations=g.relations.assign(valid_at=None, invalid_at=None))
    assert explorer_payload(g)["time"] is None
    page = explorer_html(small_graph())
    assert "<img" not in page and "<script>document" not in page and "<b>notes" not in page


def test_palette_is_distinct_and_readable() -> None:
    assert len(set(PALETTE)) == len(PALETTE) and len(set(PINNED.values())) == len(PINNED)
    assert PINNED["Person"] != PINNED["Product"]
    demo_types = ["Event", "Group", "Law", "Location", "Organization", "Person", "Product", "Work", "Date", "Concept"]
    colours = type_colours([*demo_types, "Spaceship", "Planet", "Moon"])
    assert len(set(colours.values())) == 13
    assert all(_luminance(c) < 0.93 for c in colours.values())  # none vanishes on the white background


def test_layout_is_seeded_and_keeps_communities_apart() -> None:
    ids = [f"n{i}" for i in range(60)]
    community = {i: f"c{int(i[1:]) % 3}" for i in ids}
    edges = [(ids[i], ids[(i + 3) % 60]) for i in range(60)]
    one = community_layout(ids, edges, community, seed=1)
    assert one == community_layout(ids, edges, community, seed=1)
    assert one != community_layout(ids, edges, community, seed=2)
    centre = {c: [sum(one[i][k] for i in ids if community[i] == c) / 20 for k in (0, 1)] for c in ("c0", "c1", "c2")}
    spread = max(math.dist(one[i], centre[community[i]]) for i in ids)
    # every entity is nearer its own community's centre than any other community's
    for i in ids:
        own = math.dist(one[i], centre[community[i]])
        assert all(own < math.dist(one[i], centre[c]) for c in centre if c != community[i]), (i, spread)


def test_large_graph_payload_is_complete() -> None:
    g = large_graph(600, 2000)
    p = explorer_payload(g, max_nodes=None)
    assert len(p["nodes"]) == 600 and len(p["edges"]) == 2000
    assert len({(n["x"], n["y"]) for n in p["nodes"]}) == 600  # no two entities on one spot
    assert json.loads(json.dumps(p)) == p


def test_widget_traits_and_module() -> None:
    from kgkit.views.widgets import Explorer

    w = Explorer.from_graph(small_graph())
    assert w.selected == [] and w.payload["format"] == "kgkit.explorer/1" and len(w.payload["nodes"]) == 6
    esm = explorer_esm()
    assert esm.startswith("/*! kgkit explorer renderer: sigma 3.0.3") and "var KGKIT_SIGMA=" in esm
    assert "export default" in esm and "./explorer_logic.js" not in esm and "./explorer_view.js" not in esm


def test_graph_html_follows_apply_and_undo(tmp_path) -> None:
    import re

    from kgkit.core.decisions import person_decision
    from kgkit.io.workspace import VIEW
    from kgkit.testing.workspaces import sample_workspace
    from kgkit.workflows.graph import view
    from kgkit.workflows.resolve import apply, record, undo

    def shown(ws) -> set[str]:
        page = ws.path(VIEW).read_text(encoding="utf-8")
        data = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', page, re.DOTALL)
        return {n["id"] for n in json.loads(data.group(1))["nodes"]}

    ws = sample_workspace(tmp_path)
    record(ws, [person_decision("merge", ("Person:charles babage", "Person:charles babbage"), who="t")])
    view(ws)
    assert "Person:charles babage" in shown(ws)
    assert "graph.html" in apply(ws).stale and not ws.exists(VIEW)  # no view of the graph before is left
    view(ws)  # the next view draws the merged graph
    assert "Person:charles babage" not in shown(ws) and "Person:charles babbage" in shown(ws)
    assert "graph.html" in undo(ws).stale and not ws.exists(VIEW)
    view(ws)
    assert {"Person:charles babage", "Person:charles babbage"} <= shown(ws)


def test_merge_preview_and_overlay_mark_what_changes() -> None:
    from kgkit.core.decisions import person_decision
    from kgkit.views.explorer import DIFF_COLOURS
    from kgkit.views.widgets import Explorer

    graph = small_graph()
    merge = person_decision("merge", ("Person:xss", "Person:babbage"), who="t")
    w = Explorer.merge_preview(graph, [merge])
    nodes = {n["id"]: n for n in w.payload["nodes"]}
    assert nodes["Person:xss"]["diff"] == "removed" and nodes["Person:xss"]["colour"] == DIFF_COLOURS["removed"]
    assert nodes["Person:babbage"]["diff"] == "kept" and nodes["Person:ada"]["colour"] == DIFF_COLOURS["kept"]
    edges = {e["id"]: e for e in w.payload["edges"]}
    assert edges["rel:xss"]["diff"] == "removed"  # rewired: Babbage visited London now
    added = [e for e in edges.values() if e["diff"] == "added"]
    assert [(e["source"], e["target"], e["type"]) for e in added] == [("Person:babbage", "Location:london", "VISITED")]
    assert w.payload["note"].startswith("after apply against now: entities +0 \u22121, relations +1 \u22121")
    assert ["removed", DIFF_COLOURS["removed"], 1] in w.payload["legend"]
    same = Explorer.overlay(graph, graph).payload
    assert {n["diff"] for n in same["nodes"]} == {"kept"} and {e["diff"] for e in same["edges"]} == {"kept"}


def test_the_vendored_renderer_carries_its_licenses_and_build_recipe() -> None:
    import hashlib
    from pathlib import Path

    from kgkit.views.explorer.page import renderer_js

    vendor = Path(__file__).resolve().parents[1] / "kgkit" / "views" / "explorer" / "vendor"
    bundle = (vendor / "sigma-graphology.min.js").read_bytes()
    readme = (vendor / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256(bundle).hexdigest() in readme  # the README names the bytes its recipe gives
    lock = json.loads((vendor / "src" / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    for package, version in [("sigma", "3.0.3"), ("graphology", "0.26.0"), ("graphology-utils", "2.5.2"), ("events", "3.3.0")]:
        assert lock[f"node_modules/{package}"]["version"] == version
        assert f"{package} {version}" in bundle.decode()[:300] and f"| {version} |" in readme
        mit = (vendor / "licenses" / f"{package}.txt").read_text(encoding="utf-8")
        assert "Permission is hereby granted, free of charge" in " ".join(mit.split())  # the MIT license text
    assert renderer_js().startswith("/*! kgkit explorer renderer") and "var KGKIT_SIGMA=" in renderer_js()


def test_an_apply_that_leaves_the_graph_as_it_was_keeps_its_view(tmp_path) -> None:
    from kgkit.core.decisions import person_decision
    from kgkit.io.workspace import VIEW
    from kgkit.testing.workspaces import sample_workspace
    from kgkit.workflows.graph import view
    from kgkit.workflows.resolve import apply, record

    ws = sample_workspace(tmp_path)
    record(ws, [person_decision("keep_apart", ("Person:charles babage", "Person:charles babbage"), who="t")])
    view(ws)
    before = ws.path(VIEW).read_bytes()
    assert "graph.html" not in apply(ws).stale and ws.path(VIEW).read_bytes() == before  # still the graph's view
