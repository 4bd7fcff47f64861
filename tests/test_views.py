"""kgkit.views.graph_page.graph_html (the explorer page): escaping, offline page, determinism, truncation, colours."""

from __future__ import annotations

import json
import re
from typing import Any

import pandas as pd
import pytest

from kgkit.core.graph import DOCUMENT_COLUMNS, PROVENANCE_COLUMNS, Graph, empty_table
from kgkit.views.graph_page import FLAGGED_COLOUR, PINNED, graph_html, type_colour

XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_ALIAS = "<script>alert('alias')</script>"
XSS_EVIDENCE = "He said </script><script>alert('evidence')</script><!-- and left"
XSS_TYPE = "<svg onload=alert('type')>"
XSS_ENTITY_TYPE = "<b onmouseover=alert('etype')>Bad</b>"
XSS_TITLE = '<script>alert("title")</script>'


def entity(eid: str, name: str, etype: str = "Person", *, degree: int = 0, mentions: int = 1, **kw: Any) -> dict:
    row = {"id": eid, "name": name, "type": etype, "aliases": [], "mentions": mentions, "documents": 1,
           "confidence": 1.0, "identity": "derived", "degree": degree}  # fmt: skip
    return row | kw


def relation(rid: str, source: str, target: str, rtype: str = "KNOWS", **kw: Any) -> dict:
    row = {"id": rid, "source": source, "target": target, "type": rtype, "predicate": "knows", "negated": False,
           "confidence": 0.9, "support": 1, "evidence": "A knows B.", "valid_at": None, "invalid_at": None,
           "created_at": None, "expired_at": None, "flags": []}  # fmt: skip
    return row | kw


def make_graph(entities: list[dict], relations: list[dict] = ()) -> Graph:
    from kgkit.core.graph import RELATION_COLUMNS

    rels = pd.DataFrame(list(relations)) if relations else empty_table(RELATION_COLUMNS)
    return Graph(pd.DataFrame(entities), rels, empty_table(PROVENANCE_COLUMNS), empty_table(DOCUMENT_COLUMNS))


def payload(page: str) -> dict:
    """The explorer's data block in the page."""
    match = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', page, re.DOTALL)
    assert match, "no data block in page"
    return json.loads(match.group(1))


def embedded(page: str, var: str) -> list[dict]:
    """The `nodes` or `edges` the page hands to the explorer."""
    return payload(page)[var]


@pytest.fixture(scope="module")
def xss_page() -> str:
    ents = [
        entity("person:evil", XSS_NAME, aliases=[XSS_ALIAS, "Evil & Co"], degree=1),
        entity("thing:ok", "Plain", XSS_ENTITY_TYPE, degree=1),
    ]
    rels = [relation("rel:1", "person:evil", "thing:ok", XSS_TYPE, predicate="<i>pred</i>", evidence=XSS_EVIDENCE)]
    return graph_html(make_graph(ents, rels), title=XSS_TITLE)


def test_document_strings_never_appear_unescaped(xss_page: str) -> None:
    for raw in ("<img src=x onerror", "<script>alert", "<svg onload", "<b onmouseover", "<i>pred", "Evil & Co"):
        assert raw not in xss_page, raw
    assert "<!--" not in xss_page
    # only the page's own three <script> blocks (data, renderer, explorer) are ever closed
    assert xss_page.lower().count("</script") == 3
    # the escaped forms are there: JSON-escaped in the data block, HTML-escaped in the title
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in xss_page
    assert "\\u003c/script\\u003e\\u003cscript\\u003ealert(\\u0027evidence\\u0027)" in xss_page
    assert "<title>&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;</title>" in xss_page
    assert "\\u003cb onmouseover=alert(\\u0027etype\\u0027)\\u003eBad\\u003c/b\\u003e" in xss_page


def test_escaped_data_decodes_to_the_original_text(xss_page: str) -> None:
    data = payload(xss_page)
    nodes = {n["id"]: n for n in data["nodes"]}
    (edge,) = data["edges"]
    assert nodes["person:evil"]["name"] == XSS_NAME  # inserted with textContent / drawn on a canvas: plain text
    assert nodes["person:evil"]["aliases"] == [XSS_ALIAS, "Evil & Co"]
    assert edge["type"] == XSS_TYPE and edge["evidence"] == XSS_EVIDENCE and edge["predicate"] == "<i>pred</i>"
    assert data["title"] == XSS_TITLE and [t for t, _, _ in data["types"]] == [XSS_ENTITY_TYPE, "Person"]


def test_text_is_never_inserted_as_html() -> None:
    # the explorer builds every element with createElement + text (tooltips too); the renderer (sigma.js) draws
    # names on canvases with fillText and has no HTML sink at all
    page = graph_html(make_graph([entity("a", 'see <a href="javascript:alert(1)">x</a>')]))
    own_script = page[page.rindex('<script type="module">') :]
    assert "mount(" in own_script
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in own_script, sink
    renderer = page[page.index("var KGKIT_SIGMA=") : page.rindex('<script type="module">')]
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in renderer, sink


def test_page_is_offline() -> None:
    page = graph_html(make_graph([entity("a", "A", degree=1), entity("b", "B", degree=1)], [relation("r", "a", "b")]))
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc\s*=", page, re.IGNORECASE)
    assert not re.search(r"<link[^>]*\shref\s*=", page, re.IGNORECASE)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"url\(\s*[\"']?\s*(https?:)?//|@import", page, re.IGNORECASE)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "var KGKIT_SIGMA=" in page and "new lib.Sigma(" in page  # the renderer is inlined
    assert "sourceMappingURL" not in page


def test_same_graph_gives_identical_bytes_whatever_the_row_order() -> None:
    ents = [entity(f"t:{i}", f"E{i}", ["Person", "Place"][i % 2], degree=i % 4, mentions=i) for i in range(12)]
    rels = [relation(f"r{i}", f"t:{i}", f"t:{(i * 5 + 1) % 12}", negated=i % 3 == 0) for i in range(12)]
    first = graph_html(make_graph(ents, rels), seed=3)
    assert first == graph_html(make_graph(ents, rels), seed=3)
    assert first == graph_html(make_graph(ents[::-1], rels[::-1]), seed=3)
    other = graph_html(make_graph(ents, rels), seed=4)  # the seed moves the layout, nothing else
    assert first != other
    assert [(n["id"], n["name"]) for n in embedded(first, "nodes")] == [(n["id"], n["name"]) for n in embedded(other, "nodes")]


def test_max_nodes_keeps_the_top_entities_and_says_so() -> None:
    ents = [entity(f"e:{i:02d}", f"E{i}", degree=i // 2, mentions=i % 3) for i in range(30)]
    rels = [relation(f"r{i}", f"e:{i:02d}", f"e:{(i + 2) % 30:02d}") for i in range(30)]
    page = graph_html(make_graph(ents, rels), max_nodes=5)
    assert payload(page)["note"].startswith("showing 5 of 30 entities")
    ranked = sorted(ents, key=lambda e: (-e["degree"], -e["mentions"], e["id"]))
    assert sorted(embedded(page, "nodes"), key=lambda n: n["rank"]) == sorted(embedded(page, "nodes"), key=lambda n: [e["id"] for e in ranked].index(n["id"]))
    assert {n["id"] for n in embedded(page, "nodes")} == {e["id"] for e in ranked[:5]}
    kept = {e["id"] for e in ranked[:5]}
    edges = embedded(page, "edges")
    assert edges and all(e["source"] in kept and e["target"] in kept for e in edges)
    assert "showing" not in payload(graph_html(make_graph(ents, rels), max_nodes=30))["note"]


def test_colours_are_fixed_per_type_and_distinct_within_a_graph() -> None:
    assert type_colour("Person") == PINNED["Person"] == "#0072B2"
    assert type_colour("Spaceship") == type_colour("Spaceship")
    assert len(set(PINNED.values())) == len(PINNED)  # Person and Product no longer share a colour
    one = graph_html(make_graph([entity("a", "A", "Spaceship"), entity("b", "B", "Person")]))
    two = graph_html(make_graph([entity("c", "C", "Spaceship"), entity("d", "D", "Planet"), entity("e", "E", "Zoo")]))
    colour = {n["name"]: n["colour"] for page in (one, two) for n in embedded(page, "nodes")}
    assert colour["A"] == colour["C"] == type_colour("Spaceship")
    assert colour["B"] == "#0072B2"
    assert len({colour["C"], colour["D"], colour["E"]}) == 3
    assert ["Spaceship", type_colour("Spaceship"), 1] in payload(one)["types"]


def test_nodes_edges_styles() -> None:
    ents = [entity("a", "A", degree=9, aliases=["Alpha"], mentions=4), entity("b", "B", "Place", degree=1)]
    rels = [
        relation("r1", "a", "b", "VISITED", negated=True, flags=["negated"]),
        relation("r2", "b", "a", "OWNS", flags=["signature_violation"], support=3, evidence="B owns A."),
    ]
    page = graph_html(make_graph(ents, rels))
    nodes = {n["id"]: n for n in embedded(page, "nodes")}
    edges = {e["id"]: e for e in embedded(page, "edges")}
    assert nodes["a"]["degree"] == 9 and nodes["a"]["aliases"] == ["Alpha"] and nodes["a"]["mentions"] == 4
    assert edges["r1"]["negated"] is True and edges["r1"]["type"] == "VISITED"
    assert edges["r1"]["colour"] != FLAGGED_COLOUR and not edges["r1"]["review"]  # "negated" alone: dashes
    assert edges["r2"]["colour"] == FLAGGED_COLOUR and edges["r2"]["review"] and not edges["r2"]["negated"]
    assert edges["r2"]["flags"] == ["signature_violation"] and edges["r2"]["evidence"] == "B owns A."
    assert payload(page)["note"] == "2 entities \u00b7 2 relations"


def test_empty_graph_and_arguments() -> None:
    page = graph_html(Graph.empty())
    assert page.startswith("<!DOCTYPE html>") and "The graph is empty" in page and "vis.Network" not in page
    graph = make_graph([entity("a", "A", identity="source")])
    assert payload(graph_html(graph, color_by="identity"))["legend"] == [["source", type_colour("source"), 1]]
    with pytest.raises(ValueError):
        graph_html(graph, color_by="nope")
    with pytest.raises(ValueError):
        graph_html(graph, height="1px;}</style><script>")
    assert 'height: "600px"' in graph_html(graph, height="600px", physics=False)
