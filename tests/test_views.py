"""kgkit.views.graph.graph_html: escaping, offline page, determinism, truncation, colours."""

from __future__ import annotations

import json
import re
from typing import Any

import pandas as pd
import pytest

from kgkit.core.graph import DOCUMENT_COLUMNS, PROVENANCE_COLUMNS, Graph, empty_table
from kgkit.views.graph import FLAGGED_COLOUR, PINNED, graph_html, type_colour

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


def embedded(page: str, var: str) -> list[dict]:
    """The JSON array the page hands to vis.DataSet for `nodes` or `edges`."""
    match = re.search(rf"^var {var} = new vis\.DataSet\((.*)\);$", page, re.MULTILINE)
    assert match, f"no {var} DataSet in page"
    return json.loads(match.group(1))


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
    # only the page's own two <script> blocks are ever closed: no data breaks out of the JSON
    assert xss_page.lower().count("</script") == 2
    # the escaped forms are there: JSON-escaped inside the script, HTML-escaped in the header and legend
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in xss_page
    assert "\\u003c/script\\u003e\\u003cscript\\u003ealert(\\u0027evidence\\u0027)" in xss_page
    assert "<title>&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;</title>" in xss_page
    assert "<h1>&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;</h1>" in xss_page
    assert "&lt;b onmouseover=alert(&#39;etype&#39;)&gt;Bad&lt;/b&gt; (1)" in xss_page


def test_escaped_data_decodes_to_the_original_text(xss_page: str) -> None:
    nodes = {n["id"]: n for n in embedded(xss_page, "nodes")}
    (edge,) = embedded(xss_page, "edges")
    assert nodes["person:evil"]["label"] == XSS_NAME  # vis-network draws labels on a canvas: plain text
    assert XSS_ALIAS in nodes["person:evil"]["title"] and "Evil & Co" in nodes["person:evil"]["title"]
    assert edge["label"] == XSS_TYPE and XSS_EVIDENCE in edge["title"] and "<i>pred</i>" in edge["title"]


def test_tooltips_are_text_not_html() -> None:
    # vis-network 9 shows a string title with innerText; pyvis' link-popup mode (innerHTML) must not be used
    page = graph_html(make_graph([entity("a", 'see <a href="javascript:alert(1)">x</a>')]))
    own_script = page[page.rindex("<script>") :]  # the page's own code, after the inlined library
    assert "vis.DataSet" in own_script and "innerHTML" not in own_script and "popup" not in own_script
    assert "this.frame.innerText=t" in page  # the inlined vis-network really is the text-only version


def test_page_is_offline() -> None:
    page = graph_html(make_graph([entity("a", "A", degree=1), entity("b", "B", degree=1)], [relation("r", "a", "b")]))
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc\s*=", page, re.IGNORECASE)
    assert not re.search(r"<link[^>]*\shref\s*=", page, re.IGNORECASE)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"url\(\s*[\"']?\s*(https?:)?//|@import", page, re.IGNORECASE)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "new vis.Network(" in page and "vis-network" in page  # the library is inlined


def test_same_graph_gives_identical_bytes_whatever_the_row_order() -> None:
    ents = [entity(f"t:{i}", f"E{i}", ["Person", "Place"][i % 2], degree=i % 4, mentions=i) for i in range(12)]
    rels = [relation(f"r{i}", f"t:{i}", f"t:{(i * 5 + 1) % 12}", negated=i % 3 == 0) for i in range(12)]
    first = graph_html(make_graph(ents, rels), seed=3)
    assert first == graph_html(make_graph(ents, rels), seed=3)
    assert first == graph_html(make_graph(ents[::-1], rels[::-1]), seed=3)
    assert '"randomSeed": 3' in first
    assert first != graph_html(make_graph(ents, rels), seed=4)


def test_max_nodes_keeps_the_top_entities_and_says_so() -> None:
    ents = [entity(f"e:{i:02d}", f"E{i}", degree=i // 2, mentions=i % 3) for i in range(30)]
    rels = [relation(f"r{i}", f"e:{i:02d}", f"e:{(i + 2) % 30:02d}") for i in range(30)]
    page = graph_html(make_graph(ents, rels), max_nodes=5)
    assert "showing 5 of 30 entities" in page
    ranked = sorted(ents, key=lambda e: (-e["degree"], -e["mentions"], e["id"]))
    assert [n["id"] for n in embedded(page, "nodes")] == [e["id"] for e in ranked[:5]]
    kept = {e["id"] for e in ranked[:5]}
    edges = embedded(page, "edges")
    assert edges and all(e["from"] in kept and e["to"] in kept for e in edges)
    assert "showing" not in graph_html(make_graph(ents, rels), max_nodes=30)


def test_colours_are_fixed_per_type() -> None:
    assert type_colour("Person") == PINNED["Person"] == "#4e79a7"
    assert type_colour("Spaceship") == type_colour("Spaceship")
    one = graph_html(make_graph([entity("a", "A", "Spaceship"), entity("b", "B", "Person")]))
    two = graph_html(make_graph([entity("c", "C", "Spaceship"), entity("d", "D", "Planet"), entity("e", "E", "Zoo")]))
    colour = {n["label"]: n["color"] for page in (one, two) for n in embedded(page, "nodes")}
    assert colour["A"] == colour["C"] == type_colour("Spaceship")
    assert colour["B"] == "#4e79a7"
    assert f'<span class="kg-swatch" style="background:{type_colour("Spaceship")}"></span>Spaceship (1)' in one


def test_nodes_edges_styles() -> None:
    ents = [entity("a", "A", degree=9, aliases=["Alpha"], mentions=4), entity("b", "B", "Place", degree=1)]
    rels = [
        relation("r1", "a", "b", "VISITED", negated=True, flags=["negated"]),
        relation("r2", "b", "a", "OWNS", flags=["signature_violation"], support=3, evidence="B owns A."),
    ]
    page = graph_html(make_graph(ents, rels))
    nodes = {n["id"]: n for n in embedded(page, "nodes")}
    edges = {e["id"]: e for e in embedded(page, "edges")}
    assert nodes["a"]["size"] > nodes["b"]["size"]
    assert "aliases: Alpha" in nodes["a"]["title"] and "mentions: 4" in nodes["a"]["title"]
    assert edges["r1"]["dashes"] is True and edges["r1"]["label"] == "not VISITED"
    assert edges["r1"]["color"] != FLAGGED_COLOUR  # "negated" alone is shown by the dashes
    assert edges["r2"]["color"] == FLAGGED_COLOUR and edges["r2"]["dashes"] is False
    assert "signature_violation" in edges["r2"]["title"] and "B owns A." in edges["r2"]["title"]
    assert "2 entities \u00b7 2 relations" in page


def test_empty_graph_and_arguments() -> None:
    page = graph_html(Graph.empty())
    assert page.startswith("<!DOCTYPE html>") and "The graph is empty" in page and "vis.Network" not in page
    graph = make_graph([entity("a", "A", identity="source")])
    assert f"background:{type_colour('source')}" in graph_html(graph, color_by="identity")
    with pytest.raises(ValueError):
        graph_html(graph, color_by="nope")
    with pytest.raises(ValueError):
        graph_html(graph, height="1px;}</style><script>")
    assert "height:600px" in graph_html(graph, height="600px", physics=False)
