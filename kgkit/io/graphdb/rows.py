"""A Graph as property rows for a graph database, and back: pure, shared by the FalkorDB and Neo4j backends.

Every table row becomes the properties of one node or relationship, all of its columns kept (provenance and the
bi-temporal valid_at / invalid_at / created_at / expired_at as ISO strings), plus:

- ``kgkit_row``: the row's position in its table, so a pull rebuilds the tables in the same order;
- ``kgkit_push``: the push's stamp (the graph's content hash), so a push removes what an earlier push left;
- ``kgkit_cells``: JSON of the cells a property cannot hold exactly (a float FalkorDB would print with 15
  digits, a map, a list holding nulls), only when a row has one. The plain property is kept beside it for queries.

A null cell is no property at all (both databases drop null properties). Provenance rows become
``MENTIONED_IN`` relationships to their document, from the entity (``kind: "entity"``) or, for a relation's
evidence, from the relation's source entity (``kind: "relation"``, ``item_id`` = the relation's id); their
``id`` is ``mention:<row>`` (provenance rows have no id of their own; a changed graph has a new stamp, so a
push replaces them all).

>>> from kgkit.testing.builders import ada_works_for_acme
>>> g = ada_works_for_acme()
>>> rows = graph_rows(g, stamp="s1")
>>> sorted(rows), rows["entities"][1]["props"]["kgkit_row"], rows["relations"][0]["label"]
(['documents', 'entities', 'mentions', 'meta', 'relations'], 1, 'WORKS_FOR')
>>> graph_from_rows(rows).sha256() == g.sha256()
True
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

from kgkit.core.graph import GRAPH_FORMAT, LIST_COLUMNS, TABLES, Graph

__all__ = ["ROW", "STAMP", "graph_from_rows", "graph_rows", "label_of", "property_row", "table_rows"]

ROW, STAMP, CELLS = "kgkit_row", "kgkit_push", "kgkit_cells"
BOOKKEEPING = (ROW, STAMP, CELLS)


@cache
def label_of(text: Any, default: str) -> str:
    """A label or relationship type from a type name: only [A-Za-z0-9_] kept (T_ before a digit).

    >>> label_of("Employed by", "RELATED_TO"), label_of(None, "Other"), label_of("3D", "Other")
    ('Employed_by', 'Other', 'T_3D')
    """
    clean = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in str(text or "")) or default
    return f"T_{clean}" if clean[0].isdigit() else clean


def _storable(value: Any) -> bool:
    """Whether both databases store and return the value exactly as a property."""
    if value is None or type(value) in (str, bool, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value) and float(f"{value:.15g}") == value  # FalkorDB prints 15 significant digits
    if isinstance(value, list):
        kinds = {type(v) for v in value}
        return len(kinds) <= 1 and all(v is not None and not isinstance(v, (list, dict)) and _storable(v) for v in value)
    return False


def property_row(row: dict[str, Any], position: int, stamp: str) -> dict[str, Any]:
    """One table row as node or relationship properties (see the module doc).

    >>> property_row({"id": "e1", "confidence": 0.1 + 0.2, "community": None}, 4, "s")
    {'id': 'e1', 'confidence': 0.30000000000000004, 'kgkit_row': 4, 'kgkit_push': 's', 'kgkit_cells': '{"confidence": 0.30000000000000004}'}
    """
    props: dict[str, Any] = {}
    exact: dict[str, Any] = {}
    for key, value in row.items():
        if value is None:
            continue
        if type(value) is not str and not _storable(value):
            exact[key] = value
            if isinstance(value, (dict, list)):
                continue
        props[key] = value
    props[ROW], props[STAMP] = position, stamp
    if exact:
        props[CELLS] = json.dumps(exact, sort_keys=True, ensure_ascii=False)
    return props


def _mentions(graph: Graph, provenance: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Provenance rows with the entity they hang from (the relation's source for a relation's evidence)."""
    sources = dict(zip(graph.relations["id"], graph.relations["source"]))
    return [{"row": row, "anchor": row["item_id"] if row["kind"] != "relation" else sources.get(row["item_id"])}
            for row in provenance]


def graph_rows(graph: Graph, *, stamp: str) -> dict[str, Any]:
    """The graph as rows to MERGE: entities (with their label), documents, relations (with their relationship
    type), mentions (with the entity they hang from) and meta (JSON), each row's properties under "props"."""
    tables = graph.to_json_dict()  # plain cells, column at a time
    entities = [{"id": r["id"], "label": label_of(r.get("type"), "Other"), "props": property_row(r, i, stamp)}
                for i, r in enumerate(tables["entities"])]
    documents = [{"id": r["id"], "props": property_row(r, i, stamp)} for i, r in enumerate(tables["documents"])]
    relations = [{"id": r["id"], "source": r["source"], "target": r["target"],
                  "label": label_of(r.get("type"), "RELATED_TO"), "props": property_row(r, i, stamp)}
                 for i, r in enumerate(tables["relations"])]
    mentions = [{"id": f"mention:{i}", "anchor": m["anchor"], "document": m["row"]["document_id"],
                 "props": {**property_row(m["row"], i, stamp), "id": f"mention:{i}"}}
                for i, m in enumerate(_mentions(graph, tables["provenance"]))]
    return {"entities": entities, "documents": documents, "relations": relations, "mentions": mentions,
            "meta": json.dumps(graph.meta, sort_keys=True, ensure_ascii=False)}


def table_rows(props: list[dict[str, Any]], columns: dict[str, str]) -> list[dict[str, Any]]:
    """Property rows read back (in any order) as a table's rows in the pushed order: every column (a missing
    property is null, an empty list for a list column), exact cells restored, bookkeeping dropped."""
    out = []
    for p in sorted(props, key=lambda p: p[ROW]):
        if p.get(CELLS):
            p = {**p, **json.loads(p[CELLS])}
        out.append({c: p.get(c, [] if c in LIST_COLUMNS else None) for c in columns})
    return out


def graph_from_rows(rows: dict[str, Any]) -> Graph:
    """Inverse of `graph_rows` (from the "props" of each row, as a pull reads them)."""
    data: dict[str, Any] = {"format": GRAPH_FORMAT, "meta": json.loads(rows["meta"]) if rows.get("meta") else {}}
    for table, key in (("entities", "entities"), ("documents", "documents"), ("relations", "relations"),
                       ("provenance", "mentions")):
        data[table] = table_rows([r["props"] for r in rows[key]], TABLES[table])
    return Graph.from_json_dict(data)
