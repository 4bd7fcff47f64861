"""Exports: round trips (JSON, GraphML, Parquet, SQLite, RDF), hostile strings escaped in every format,
and every format written (`kgkit export` is tested end to end in test_cli.py)."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import xml.etree.ElementTree as ET

import networkx as nx
import pandas as pd
import pytest

from kgkit.core.domain import parse_domain
from kgkit.core.records import (
    ChunkExtraction,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Span,
    TextExtraction,
)
from kgkit.io.export import FORMATS, export_graph, read_export
from kgkit.io.export.neo4j import cypher_script, cypher_string
from kgkit.io.export.networks import gexf, graphml
from kgkit.io.export.rdf import entity_iri, rdf_text
from kgkit.stages.build import build_graph

XSS = "<img src=x onerror=alert(1)>"
CYPHER = "'); MATCH (n) DETACH DELETE n; //"
HOSTILE = f'Bobby "Tables" O\'Brien {XSS}\nsecond line, with comma\r\t\\u0027 `tick`'
DOMAIN = parse_domain("name: d\nentity_types: {Person: a, Organization: b, Other: c}\n"
                      "relation_types: {EMPLOYED_BY: {description: x, signatures: [[Person, Organization]]}}")


@pytest.fixture(scope="module")
def hostile_graph():
    ents = (ExtractedEntity(name=HOSTILE, type="Person", span=Span(start=0, end=5), confidence=0.9),
            ExtractedEntity(name=f"Acme {CYPHER}", type="Organization"),
            ExtractedEntity(name="ACME " + CYPHER.upper(), type="Organization"),  # an alias
            ExtractedEntity(name="Ada Lovelace", type="Person"),
            ExtractedEntity(name="Ünïcode & <Co>", type="Weird Type`) //"))
    rels = (ExtractedRelation(source=HOSTILE, source_type="Person", target=f"Acme {CYPHER}",
                              target_type="Organization", type="EMPLOYED_BY", evidence=f"He said \"yes\" {CYPHER}\n{XSS}",
                              confidence=0.3, valid_at="2020-01-01"),
            ExtractedRelation(source="Ada Lovelace", source_type="Person", target="Ünïcode & <Co>",
                              target_type="Weird Type`) //", type="FOUNDED`]->() DELETE n //", negated=True))
    te = TextExtraction(extractor_id="test", entities=ents, relations=rels)
    docs = [DocumentExtraction(document_id=f"doc:{i}", path=f"a/{i}<x>.txt", sha256="ab",
                               chunks=(ChunkExtraction(chunk_id=f"doc:{i}#0", document_id=f"doc:{i}", extraction=te),))
            for i in range(2)]
    return build_graph(docs, domain=DOMAIN, learned_at="2026-01-01T00:00:00Z")


def _nulls_as_none(df: pd.DataFrame) -> pd.DataFrame:
    """build_graph may leave NaN in object columns (pd.concat); every format writes it as null -> None."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = pd.Series([None if isinstance(v, float) and v != v else v for v in out[col]], dtype=object)
    return out


def assert_same_tables(a, b, tables=("entities", "relations", "provenance", "documents")):
    for name in tables:
        pd.testing.assert_frame_equal(_nulls_as_none(getattr(a, name)), getattr(b, name), check_dtype=True, obj=name)
    assert a.meta == b.meta


def test_hostile_graph_has_lists_nulls_and_flags(hostile_graph):
    g = hostile_graph
    assert any(len(a) for a in g.entities["aliases"])
    assert any("negated" in f for f in g.relations["flags"])
    assert g.provenance["start"].isna().any() and g.provenance["start"].notna().any()


@pytest.mark.parametrize("fmt", ["json", "parquet", "sqlite", "turtle", "json-ld"])
def test_round_trip_gives_the_same_tables(hostile_graph, tmp_path, fmt):
    dest = tmp_path / FORMATS[fmt][2]
    export_graph(hostile_graph, fmt, dest)
    assert_same_tables(hostile_graph, read_export(fmt, dest))


def test_graphml_round_trip_gives_entities_relations_and_meta(hostile_graph, tmp_path):
    dest = tmp_path / "g.graphml"
    export_graph(hostile_graph, "graphml", dest)
    assert_same_tables(hostile_graph, read_export("graphml", dest), tables=("entities", "relations"))


def test_graphml_and_gexf_parse_as_xml_and_load_in_networkx(hostile_graph, tmp_path):
    for fmt, reader in (("graphml", nx.read_graphml), ("gexf", nx.read_gexf)):
        dest = tmp_path / f"g.{fmt}"
        export_graph(hostile_graph, fmt, dest)
        ET.parse(dest)  # well-formed
        assert XSS not in dest.read_text()  # the markup never appears unescaped
        g = reader(dest)
        assert g.number_of_nodes() == len(hostile_graph.entities)
        assert g.number_of_edges() == len(hostile_graph.relations)
    names = {d.get("name") for _, d in nx.read_graphml(tmp_path / "g.graphml").nodes(data=True)}
    assert HOSTILE in names


def test_xml_keeps_newlines_and_replaces_forbidden_characters(hostile_graph):
    from kgkit.io.export._common import xml_escape

    assert xml_escape("a\x01b\ud800c\uffff") == "a\ufffdb\ufffdc\ufffd"
    root = ET.fromstring(graphml(hostile_graph).encode())
    texts = [d.text for d in root.iter("{http://graphml.graphdrawing.org/xmlns}data")]
    assert HOSTILE in texts  # newline, \r and tab survive as character references
    gexf_root = ET.fromstring(gexf(hostile_graph).encode())
    labels = {n.get("label") for n in gexf_root.iter("{http://www.gexf.net/1.2draft}node")}
    assert HOSTILE in labels


def test_node_link_loads_in_networkx(hostile_graph):
    from kgkit.io.export import node_link_dict

    g = nx.node_link_graph(node_link_dict(hostile_graph), edges="edges")
    assert g.is_directed() and g.is_multigraph()
    assert g.number_of_edges() == len(hostile_graph.relations)
    assert g.nodes[hostile_graph.entities["id"][0]]["aliases"] == hostile_graph.entities["aliases"][0]


def test_cytoscape_elements_format(hostile_graph, tmp_path):
    export_graph(hostile_graph, "cytoscape", tmp_path / "g.cyjs")
    data = json.loads((tmp_path / "g.cyjs").read_text())
    nodes, edges = data["elements"]["nodes"], data["elements"]["edges"]
    assert {n["data"]["id"] for n in nodes} == set(hostile_graph.entities["id"])
    assert all({"id", "source", "target"} <= set(e["data"]) for e in edges)
    assert any(n["data"]["name"] == HOSTILE for n in nodes)


def test_csv_quotes_every_hostile_string(hostile_graph, tmp_path):
    export_graph(hostile_graph, "csv", tmp_path / "csv")
    with open(tmp_path / "csv" / "nodes.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert HOSTILE in {r["name"] for r in rows}
    assert all(isinstance(json.loads(r["aliases"]), list) for r in rows)
    with open(tmp_path / "csv" / "edges.csv", newline="", encoding="utf-8") as fh:
        edges = list(csv.DictReader(fh))
    assert len(edges) == len(hostile_graph.relations)
    assert set(hostile_graph.relations["evidence"].dropna()) <= {e["evidence"] for e in edges}
    assert (tmp_path / "csv" / "provenance.csv").exists()


def test_sqlite_has_indexes_and_bound_values(hostile_graph, tmp_path):
    export_graph(hostile_graph, "sqlite", tmp_path / "g.sqlite")
    con = sqlite3.connect(tmp_path / "g.sqlite")
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"entities_id", "relations_source", "relations_target", "provenance_item_id"} <= indexes
    assert con.execute("SELECT count(*) FROM entities WHERE name = ?", (HOSTILE,)).fetchone()[0] == 1


def test_cypher_literals_cannot_end_early():
    lit = cypher_string(CYPHER + "\\'")
    body = lit[1:-1]
    # every quote inside the literal is escaped by an odd run of backslashes
    i = 0
    while (i := body.find("'", i)) != -1:
        run = len(body[:i]) - len(body[:i].rstrip("\\"))
        assert run % 2 == 1
        i += 1
    assert "\n" not in cypher_string("a\nb") and "\\u0000" in cypher_string("\x00")


def test_cypher_script_escapes_values_labels_and_types(hostile_graph):
    script = cypher_script(hostile_graph)
    for line in script.splitlines():
        # a hostile string only ever appears inside an escaped literal: outside quotes no statement ends early
        outside = re.sub(r"`[A-Za-z0-9_]*`", "`name`", _outside_literals(line))  # names are [A-Za-z0-9_] only
        assert "DETACH" not in outside and "DELETE" not in outside and "//" not in outside.replace("// kgkit", "")
    assert "SET n += row, n:`Weird_Type_____`" in script
    assert "[r:`FOUNDED_______DELETE_n___` {id: row.id}]" in script


def _outside_literals(line: str) -> str:
    out, in_str, i = [], False, 0
    while i < len(line):
        ch = line[i]
        if in_str and ch == "\\":
            i += 2
            continue
        if ch == "'":
            in_str = not in_str
        elif not in_str:
            out.append(ch)
        i += 1
    assert not in_str, line
    return "".join(out)


def test_neo4j_bulk_csv_headers_and_quoting(hostile_graph, tmp_path):
    paths = export_graph(hostile_graph, "neo4j-csv", tmp_path / "neo4j")
    assert {p.name for p in paths} == {"entities.csv", "documents.csv", "relations.csv", "mentions.csv", "import.sh"}
    with open(tmp_path / "neo4j" / "entities.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "id:ID(Entity)" and rows[0][-1] == ":LABEL" and "aliases:string[]" in rows[0]
    assert "mentions:long" in rows[0] and "confidence:double" in rows[0]
    assert any(r[1] == HOSTILE for r in rows[1:])
    with open(tmp_path / "neo4j" / "relations.csv", newline="", encoding="utf-8") as fh:
        rel_rows = list(csv.reader(fh))
    assert rel_rows[0][:3] == [":START_ID(Entity)", ":END_ID(Entity)", ":TYPE"]
    assert all(set(r[2]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") for r in rel_rows[1:])
    assert "--multiline-fields=true" in (tmp_path / "neo4j" / "import.sh").read_text()


def test_rdf_iris_are_percent_encoded_and_strings_escaped(hostile_graph):
    iri = str(entity_iri("Person:a b/<c>#"))
    assert iri == "urn:kgkit:entity/Person%3Aa%20b%2F%3Cc%3E%23"
    ttl = rdf_text(hostile_graph, "turtle")
    assert XSS in ttl  # in a quoted literal, which Turtle allows
    import rdflib

    g = rdflib.Graph().parse(data=ttl, format="turtle")
    assert any(str(o) == HOSTILE for o in g.objects())


def test_export_is_deterministic(hostile_graph, tmp_path):
    for fmt in ("json", "graphml", "gexf", "cypher", "cytoscape"):
        a, b = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
        export_graph(hostile_graph, fmt, a)
        export_graph(hostile_graph, fmt, b)
        assert a.read_bytes() == b.read_bytes(), fmt


def test_unknown_format_is_a_clear_error(hostile_graph, tmp_path):
    with pytest.raises(ValueError, match="unknown export format"):
        export_graph(hostile_graph, "xlsx", tmp_path / "x")


def test_every_format_writes_its_file_or_folder(hostile_graph, tmp_path):
    for fmt, (_, kind, default, _) in FORMATS.items():
        dest = tmp_path / "out" / default
        written = export_graph(hostile_graph, fmt, dest)
        assert dest.is_dir() if kind == "folder" else dest.is_file(), fmt
        assert written and all(p.is_file() and p.stat().st_size > 0 for p in written), fmt


@pytest.mark.parametrize("fmt", ["json", "parquet", "sqlite", "turtle", "graphml"])
def test_added_columns_are_exported_and_read_back(hostile_graph, tmp_path, fmt):
    ents = hostile_graph.entities.copy()
    ents["community"] = [f"c{i % 2}" for i in range(len(ents))]
    graph = hostile_graph.replace(entities=ents)
    dest = tmp_path / FORMATS[fmt][2]
    export_graph(graph, fmt, dest)
    back = read_export(fmt, dest)
    assert list(back.entities["community"]) == list(ents["community"])


# --------------------------------------------------------------------------- Cypher: idempotent (issue 13)


def _cypher_statements(script: str) -> list[str]:
    """Statements of a kgkit Cypher script: `;` at a line end closes one (literals never hold a raw newline)."""
    body = "\n".join(line for line in script.splitlines() if not line.startswith("//")) + "\n"
    return [s.strip() for s in body.split(";\n") if s.strip()]


def test_every_cypher_statement_that_creates_something_merges(hostile_graph):
    statements = _cypher_statements(cypher_script(hostile_graph))
    assert len(statements) > 4
    for statement in statements:
        outside = _outside_literals(statement.replace("\n", " "))
        for word in re.findall(r"\b(CREATE|MERGE)\b", outside):
            if word == "CREATE":  # only schema: constraints that already exist are kept
                assert re.fullmatch(r"CREATE CONSTRAINT \w+ IF NOT EXISTS FOR \(n:\w+\) REQUIRE n\.id IS UNIQUE",
                                    outside), statement[:200]
        if "(" in outside and not outside.startswith("CREATE CONSTRAINT"):
            assert "MERGE" in outside and "{id: row." in outside, statement[:200]
    assert "MENTIONED_IN {id: row.id}" in cypher_script(hostile_graph)


class _TinyNeo4j:
    """Just enough of a property graph to run kgkit's Cypher scripts: the statement shapes the exporter writes,
    with MERGE (find or create by label/type and id) and CREATE (always create) told apart."""

    NODE = re.compile(r"UNWIND \[\n(?P<rows>.*)\n\] AS row\nMERGE \((?P<v>\w+):(?P<label>\w+) \{id: row\.id\}\) "
                      r"SET (?P=v) \+= row(?:, (?P=v):`(?P<extra>\w+)`)?", re.S)
    EDGE = re.compile(r"UNWIND \[\n(?P<rows>.*)\n\] AS row\nMATCH \((?P<a>\w+):(?P<la>\w+) \{id: row\.(?P<ka>\w+)\}\) "
                      r"MATCH \((?P<b>\w+):(?P<lb>\w+) \{id: row\.(?P<kb>\w+)\}\)\n(?P<verb>MERGE|CREATE) "
                      r"\((?P=a)\)-\[(?P<v>\w+):`?(?P<type>\w+)`?(?: \{id: row\.id\})?\]->\((?P=b)\) SET (?P=v) \+= row",
                      re.S)

    def __init__(self) -> None:
        self.nodes: dict[tuple[str, str], dict] = {}  # (first label, id) -> {"labels", "props"}
        self.edges: list[dict] = []

    def run(self, script: str) -> None:
        for statement in _cypher_statements(script):
            if statement.startswith("CREATE CONSTRAINT"):
                continue
            if m := self.NODE.fullmatch(statement):
                for row in _cypher_literal(f"[{m['rows']}]"):
                    node = self.nodes.setdefault((m["label"], row["id"]), {"labels": {m["label"]}, "props": {}})
                    node["props"].update(row)
                    node["labels"].add(m["extra"] or m["label"])
            elif m := self.EDGE.fullmatch(statement):
                for row in _cypher_literal(f"[{m['rows']}]"):
                    a, b = self.nodes.get((m["la"], row[m["ka"]])), self.nodes.get((m["lb"], row[m["kb"]]))
                    if a is None or b is None:
                        continue
                    key = (m["type"], row[m["ka"]], row[m["kb"]], row.get("id"))
                    found = [e for e in self.edges if e["key"] == key] if m["verb"] == "MERGE" else []
                    if not found:
                        found = [{"key": key, "props": {}}]
                        self.edges.append(found[0])
                    found[0]["props"].update(row)
            else:
                raise AssertionError(f"statement shape unknown to the test model: {statement[:300]}")

    def state(self) -> tuple:
        return (sorted((k, sorted(n["labels"]), sorted(map(repr, n["props"].items()))) for k, n in self.nodes.items()),
                sorted((e["key"], sorted(map(repr, e["props"].items()))) for e in self.edges))


def _cypher_literal(text: str):
    """Parse the Cypher literals kgkit writes: maps with backquoted keys, lists, strings, numbers, booleans."""
    pos = 0

    def skip() -> None:
        nonlocal pos
        while pos < len(text) and text[pos] in " \n\t,":
            pos += 1

    def value():
        nonlocal pos
        skip()
        ch = text[pos]
        if ch == "{":
            pos += 1
            out = {}
            while (skip(), text[pos])[1] != "}":
                end = text.index("`", pos + 1)
                key = text[pos + 1:end]
                pos = text.index(":", end) + 1
                out[key] = value()
            pos += 1
            return out
        if ch == "[":
            pos += 1
            items = []
            while (skip(), text[pos])[1] != "]":
                items.append(value())
            pos += 1
            return items
        if ch == "'":
            pos += 1
            chars = []
            while text[pos] != "'":
                if text[pos] == "\\":
                    esc = text[pos + 1]
                    if esc == "u":
                        chars.append(chr(int(text[pos + 2:pos + 6], 16)))
                        pos += 6
                        continue
                    chars.append({"n": "\n", "r": "\r", "t": "\t"}.get(esc, esc))
                    pos += 2
                    continue
                chars.append(text[pos])
                pos += 1
            pos += 1
            return "".join(chars)
        m = re.compile(r"true|false|null|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?").match(text, pos)
        assert m, text[pos:pos + 40]
        pos = m.end()
        word = m.group()
        if word in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[word]
        return float(word) if any(c in word for c in ".eE") else int(word)

    return value()


def test_cypher_script_applied_twice_equals_applied_once(hostile_graph):
    script = cypher_script(hostile_graph)
    db = _TinyNeo4j()
    db.run(script)
    once = db.state()
    mentions = int((hostile_graph.provenance["kind"] == "entity").sum())
    assert len(db.nodes) == len(hostile_graph.entities) + len(hostile_graph.documents)
    assert len(db.edges) == len(hostile_graph.relations) + mentions
    db.run(script)
    assert db.state() == once
    hostile_names = {n["props"]["name"] for n in db.nodes.values() if "name" in n["props"]}
    assert HOSTILE in hostile_names  # the literals parse back to the very strings


def test_the_tiny_model_would_catch_a_create(hostile_graph):
    db = _TinyNeo4j()
    script = cypher_script(hostile_graph).replace("MERGE (a)-[m:MENTIONED_IN {id: row.id}]", "CREATE (a)-[m:MENTIONED_IN]")
    db.run(script)
    edges = len(db.edges)
    db.run(script)
    assert len(db.edges) > edges  # so the test above proves something
