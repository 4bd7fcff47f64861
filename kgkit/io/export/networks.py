"""Graph-shaped exports: node-link JSON (networkx), Cytoscape JSON, GraphML and GEXF, plus readers.

GraphML and GEXF are written directly as streamed XML (no layout step, no networkx round trip): every
string is XML-escaped, characters XML 1.0 forbids become U+FFFD. List columns (aliases, flags) are JSON
arrays in GraphML/GEXF string attributes (the key carries ``<desc>json</desc>`` so readers can decode).

>>> from kgkit.core.graph import Graph
>>> text = node_link_json(Graph.empty())
>>> read_node_link(text).summary()["entities"]
0
>>> graphml(Graph.empty()).startswith('<?xml version="1.0" encoding="UTF-8"?>')
True
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pandas as pd

from kgkit.core.graph import Graph
from kgkit.io import dumps_json
from kgkit.io.export._common import column_kinds, dumps_list, graph_from_tables, records, text_of, xml_escape

_NODE_SKIP = ("id",)
_EDGE_SKIP = ("id", "source", "target")
_GRAPHML_TYPES = {"str": "string", "int": "long", "float": "double", "bool": "boolean", "list": "string"}
_GEXF_TYPES = {"str": "string", "int": "long", "float": "double", "bool": "boolean", "list": "string"}


# --------------------------------------------------------------------------- JSON forms


def node_link_dict(graph: Graph, *, tables: bool = True, edges_key: str = "edges") -> dict[str, Any]:
    """networkx node-link data (directed multigraph): ``nx.node_link_graph(d, edges=edges_key)`` reads it.

    Entities are nodes, relations are edges (key = relation id). With ``tables`` the provenance and
    documents tables ride along in the graph attributes, so :func:`read_node_link` restores all four.
    """
    attrs: dict[str, Any] = {"kgkit_meta": graph.meta}
    if tables:
        attrs["kgkit_provenance"] = list(records(graph.provenance))
        attrs["kgkit_documents"] = list(records(graph.documents))
    edges = [{**row, "key": row["id"]} for row in records(graph.relations)]
    return {"directed": True, "multigraph": True, "graph": attrs, "nodes": list(records(graph.entities)),
            edges_key: edges}


def node_link_json(graph: Graph, *, tables: bool = True, edges_key: str = "edges") -> str:
    """Node-link JSON text (canonical: same graph -> same bytes)."""
    return dumps_json(node_link_dict(graph, tables=tables, edges_key=edges_key)) + "\n"


def read_node_link(text_or_data: str | dict[str, Any]) -> Graph:
    """A Graph from node-link JSON written by :func:`node_link_json` (``edges`` or ``links`` key)."""
    data = json.loads(text_or_data) if isinstance(text_or_data, str) else text_or_data
    attrs = data.get("graph") or {}
    edges = data.get("edges", data.get("links")) or []
    rels = pd.DataFrame([{k: v for k, v in e.items() if k != "key"} for e in edges])
    tables = {"entities": pd.DataFrame(data.get("nodes") or []), "relations": rels,
              "provenance": pd.DataFrame(attrs.get("kgkit_provenance") or []),
              "documents": pd.DataFrame(attrs.get("kgkit_documents") or [])}
    return graph_from_tables(tables, attrs.get("kgkit_meta") or {})


def cytoscape_dict(graph: Graph) -> dict[str, Any]:
    """cytoscape.js elements JSON: ``{"data": meta, "elements": {"nodes": [{"data":...}], "edges": [...]}}``.

    Loads with ``cytoscape({elements: d.elements})`` and in Cytoscape desktop (File > Import > Network).
    Node data keep every entity column (``id``, ``name``, ``type``...); edge data every relation column.
    """
    nodes = [{"data": row} for row in records(graph.entities)]
    edges = [{"data": row} for row in records(graph.relations)]
    return {"data": {"name": "kgkit", **graph.meta}, "directed": True, "multigraph": True,
            "elements": {"nodes": nodes, "edges": edges}}


def cytoscape_json(graph: Graph) -> str:
    return dumps_json(cytoscape_dict(graph)) + "\n"


# --------------------------------------------------------------------------- XML forms


def _value(kind: str, value: Any) -> str | None:
    if value is None:
        return None
    return xml_escape(dumps_list(value) if kind == "list" else text_of(value))


def _graphml_keys(df: pd.DataFrame, domain: str, prefix: str, skip: tuple[str, ...]) -> tuple[list[str], list[tuple[str, str, str]]]:
    kinds = column_kinds(df)
    lines, keys = [], []
    for i, col in enumerate(c for c in df.columns if c not in skip):
        key = f"{prefix}{i}"
        desc = "<desc>json</desc>" if kinds[col] == "list" else ""
        lines.append(f'  <key id="{key}" for="{domain}" attr.name="{xml_escape(str(col))}" '
                     f'attr.type="{_GRAPHML_TYPES[kinds[col]]}">{desc}</key>')
        keys.append((col, key, kinds[col]))
    return lines, keys


def _data_elements(row: dict[str, Any], keys: list[tuple[str, str, str]]) -> str:
    parts = []
    for col, key, kind in keys:
        text = _value(kind, row[col])
        if text is not None:
            parts.append(f'<data key="{key}">{text}</data>')
    return "".join(parts)


def graphml(graph: Graph) -> str:
    """GraphML text (directed; node id = entity id, edge id = relation id, plus a ``label`` attribute =
    entity name / relation type for Gephi and yEd). Opens in Gephi, yEd, Cytoscape,
    ``networkx.read_graphml`` and :func:`read_graphml`; graph-level ``kgkit_meta`` is JSON."""
    return "".join(iter_graphml(graph))


def iter_graphml(graph: Graph) -> Iterator[str]:
    """GraphML as a stream of lines (what ``export_graph`` writes, so a big graph is never one string)."""
    ents, rels = graph.entities, graph.relations
    if "label" not in ents.columns and "name" in ents.columns:  # Gephi and yEd show the "label" attribute
        ents = ents.assign(label=ents["name"])
    if "label" not in rels.columns and "type" in rels.columns:
        rels = rels.assign(label=rels["type"])
    node_keys_xml, node_keys = _graphml_keys(ents, "node", "n", _NODE_SKIP)
    edge_keys_xml, edge_keys = _graphml_keys(rels, "edge", "e", _EDGE_SKIP)
    head = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
            'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
            '  <key id="g0" for="graph" attr.name="kgkit_meta" attr.type="string"><desc>json</desc></key>',
            *node_keys_xml, *edge_keys_xml,
            '  <graph id="kgkit" edgedefault="directed">',
            f'    <data key="g0">{xml_escape(dumps_json(graph.meta))}</data>']
    yield from (line + "\n" for line in head)
    for row in records(ents):
        yield f'    <node id="{xml_escape(str(row["id"]))}">{_data_elements(row, node_keys)}</node>\n'
    for row in records(rels):
        yield (f'    <edge id="{xml_escape(str(row["id"]))}" source="{xml_escape(str(row["source"]))}" '
               f'target="{xml_escape(str(row["target"]))}">{_data_elements(row, edge_keys)}</edge>\n')
    yield "  </graph>\n</graphml>\n"


_NS = "{http://graphml.graphdrawing.org/xmlns}"
_PARSE = {"string": str, "long": int, "int": int, "double": float, "float": float,
          "boolean": lambda s: s.strip().lower() == "true"}


def read_graphml(source: str | bytes) -> Graph:
    """A Graph from GraphML written by :func:`graphml` (entities, relations and meta; GraphML has no
    place for provenance or documents, so those tables come back empty). ``source``: path or XML text."""
    if isinstance(source, bytes) or (isinstance(source, str) and source.lstrip().startswith("<")):
        root = ET.fromstring(source)
    else:
        root = ET.parse(source).getroot()
    keys: dict[str, tuple[str, Any, bool]] = {}
    for key in root.iter(f"{_NS}key"):
        desc = key.find(f"{_NS}desc")
        is_json = desc is not None and (desc.text or "").strip() == "json"
        keys[key.get("id")] = (key.get("attr.name"), _PARSE.get(key.get("attr.type", "string"), str), is_json)

    def data_of(elem: ET.Element) -> dict[str, Any]:
        row: dict[str, Any] = {}
        for d in elem.findall(f"{_NS}data"):
            name, parse, is_json = keys[d.get("key")]
            text = d.text or ""
            row[name] = json.loads(text) if is_json else parse(text)
        return row

    g = root.find(f"{_NS}graph")
    meta = data_of(g).get("kgkit_meta") or {}
    ents = [{"id": n.get("id"), **data_of(n)} for n in g.iter(f"{_NS}node")]
    rels = [{"id": e.get("id"), "source": e.get("source"), "target": e.get("target"), **data_of(e)}
            for e in g.iter(f"{_NS}edge")]
    return graph_from_tables({"entities": pd.DataFrame(ents), "relations": pd.DataFrame(rels)}, meta)


def gexf(graph: Graph) -> str:
    """GEXF 1.2 text for Gephi (directed, static; label = entity name / relation type, weight = support
    when present). Every column is an attribute; list columns are JSON arrays in string attributes."""
    return "".join(iter_gexf(graph))


def iter_gexf(graph: Graph) -> Iterator[str]:
    """GEXF as a stream of lines (what ``export_graph`` writes)."""
    ent_kinds, rel_kinds = column_kinds(graph.entities), column_kinds(graph.relations)
    node_cols = [c for c in graph.entities.columns if c not in _NODE_SKIP]
    edge_cols = [c for c in graph.relations.columns if c not in _EDGE_SKIP]

    def attributes(klass: str, cols: list[str], kinds: dict[str, str]) -> list[str]:
        lines = [f'    <attributes class="{klass}" mode="static">']
        lines += [f'      <attribute id="{i}" title="{xml_escape(str(c))}" type="{_GEXF_TYPES[kinds[c]]}"/>'
                  for i, c in enumerate(cols)]
        return [*lines, "    </attributes>"]

    def attvalues(row: dict[str, Any], cols: list[str], kinds: dict[str, str]) -> str:
        vals = []
        for i, col in enumerate(cols):
            text = _value(kinds[col], row[col])
            if text is not None:
                vals.append(f'<attvalue for="{i}" value="{text}"/>')
        return f"<attvalues>{''.join(vals)}</attvalues>"

    head = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">',
            f'  <meta><creator>kgkit</creator><description>{xml_escape(dumps_json(graph.meta))}</description></meta>',
            '  <graph defaultedgetype="directed" mode="static">',
            *attributes("node", node_cols, ent_kinds), *attributes("edge", edge_cols, rel_kinds), "    <nodes>"]
    yield from (line + "\n" for line in head)
    for row in records(graph.entities):
        label = xml_escape(text_of(row.get("name", row["id"]) or row["id"]))
        yield (f'      <node id="{xml_escape(str(row["id"]))}" label="{label}">'
               f"{attvalues(row, node_cols, ent_kinds)}</node>\n")
    yield "    </nodes>\n    <edges>\n"
    for row in records(graph.relations):
        weight = f' weight="{float(row["support"])!r}"' if row.get("support") is not None else ""
        label = xml_escape(text_of(row.get("type") or ""))
        yield (f'      <edge id="{xml_escape(str(row["id"]))}" source="{xml_escape(str(row["source"]))}" '
               f'target="{xml_escape(str(row["target"]))}" label="{label}"{weight}>'
               f"{attvalues(row, edge_cols, rel_kinds)}</edge>\n")
    yield "    </edges>\n  </graph>\n</gexf>\n"
