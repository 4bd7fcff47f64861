"""Neo4j exports: a Cypher script (cypher-shell -f) and bulk-import CSVs for ``neo4j-admin database import``.

Entities become ``(:Entity:<Type>)`` nodes, documents ``(:Document)`` nodes, relations typed relationships
(``[:EMPLOYED_BY]``) carrying every relation column, and entity provenance ``[:MENTIONED_IN]`` edges from an
entity to its document (chunk, span, evidence, extractor as properties, and an ``id``). The script only
MERGEs (on ids), so it can be run again on the same database without duplicating anything.

Injection safety: every value is a Cypher string literal with backslash, quote and control characters
escaped (the script could equally take parameters, but a literal escaped this way cannot end early);
labels, relationship types and property keys are reduced to ``[A-Za-z0-9_]`` and backquoted, so no text
from a document can end a statement. The original type stays in the ``type`` property.

>>> cypher_string("'); MATCH (n) DETACH DELETE n; //")
"'\\\\'); MATCH (n) DETACH DELETE n; //'"
>>> cypher_name("has space`x")
'`has_space_x`'
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from kgkit.core.graph import Graph
from kgkit.core.records import short_hash
from kgkit.io import atomic_write_text
from kgkit.io.export._common import column_kinds, records

BATCH = 500  # rows per UNWIND statement
_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CYPHER_TABLE = {ord(k): v for k, v in _ESCAPES.items()}
_CYPHER_TABLE.update({c: f"\\u{c:04x}" for c in [*list(range(32)), 127, 8232, 8233] if chr(c) not in _ESCAPES})
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")
_NEO4J_TYPES = {"str": "string", "int": "long", "float": "double", "bool": "boolean", "list": "string[]"}


def cypher_string(text: str) -> str:
    """A single-quoted Cypher string literal with every special character escaped."""
    return "'" + text.translate(_CYPHER_TABLE).encode("utf-8", "replace").decode("utf-8") + "'"


def _name(text: str) -> str:
    clean = _NOT_NAME.sub("_", str(text)) or "_"
    return f"T_{clean}" if clean[0].isdigit() else clean


def cypher_name(text: str) -> str:
    """A label, relationship type or property key: only [A-Za-z0-9_] survive, then backquoted."""
    return f"`{_name(text)}`"


def cypher_value(value: Any) -> str | None:
    """A Cypher literal for a cell (None for null / non-finite, which are left out of maps)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(v for v in (cypher_value(x) for x in value) if v is not None) + "]"
    return cypher_string(str(value))


def _map(row: dict[str, Any]) -> str:
    parts = [f"{cypher_name(k)}: {v}" for k, v in ((k, cypher_value(x)) for k, x in row.items()) if v is not None]
    return "{" + ", ".join(parts) + "}"


def _unwind(rows: list[dict[str, Any]], body: str) -> Iterable[str]:
    for i in range(0, len(rows), BATCH):
        batch = ",\n  ".join(_map(r) for r in rows[i:i + BATCH])
        yield f"UNWIND [\n  {batch}\n] AS row\n{body};\n"


def cypher_script(graph: Graph, *, provenance: bool = True) -> str:
    """The graph as a Cypher script, idempotent: every node and relationship is MERGEd on its id (mentions
    on `mention_id`), so running it twice leaves the database as running it once; the only CREATEs are
    ``CREATE CONSTRAINT ... IF NOT EXISTS``. Run: ``cypher-shell -f graph.cypher``."""
    out = ["// kgkit graph export. Run with: cypher-shell -u neo4j -f graph.cypher\n",
           "CREATE CONSTRAINT kgkit_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;\n",
           "CREATE CONSTRAINT kgkit_document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE;\n"]
    ents = list(records(graph.entities))
    by_label: dict[str, list[dict[str, Any]]] = {}
    for row in ents:
        by_label.setdefault(cypher_name(row.get("type") or "Other"), []).append(row)
    for label, rows in sorted(by_label.items()):
        out += _unwind(rows, f"MERGE (n:Entity {{id: row.id}}) SET n += row, n:{label}")
    out += _unwind(list(records(graph.documents)), "MERGE (d:Document {id: row.id}) SET d += row")
    by_type: dict[str, list[dict[str, Any]]] = {}
    for row in records(graph.relations):
        by_type.setdefault(cypher_name(row.get("type") or "RELATED_TO"), []).append(row)
    for rel_type, rows in sorted(by_type.items()):
        out += _unwind(rows, "MATCH (a:Entity {id: row.source}) MATCH (b:Entity {id: row.target})\n"
                             f"MERGE (a)-[r:{rel_type} {{id: row.id}}]->(b) SET r += row")
    if provenance:
        seen: dict[str, int] = {}
        mentions = []
        for r in records(graph.provenance):
            if r.get("kind") == "entity":
                base = mention_id(r)
                seen[base] = seen.get(base, 0) + 1  # identical rows (no span) stay distinct mentions
                mentions.append({**r, "id": base if seen[base] == 1 else f"{base}.{seen[base]}"})
        out += _unwind(mentions, "MATCH (a:Entity {id: row.item_id}) MATCH (d:Document {id: row.document_id})\n"
                                 "MERGE (a)-[m:MENTIONED_IN {id: row.id}]->(d) SET m += row")
    return "".join(out)


def mention_id(row: dict[str, Any]) -> str:
    """A stable id for one provenance row (a hash of all its cells), so MENTIONED_IN edges can be MERGEd:
    running the script again finds them instead of adding copies (the script numbers identical rows:
    id, id.2, id.3 ...).

    >>> mention_id({"item_id": "e1", "chunk_id": "c#0", "start": 3}) == mention_id({"start": 3, "chunk_id": "c#0", "item_id": "e1"})
    True
    """
    return "mention:" + short_hash(json.dumps(row, sort_keys=True, default=str, ensure_ascii=False))


# --------------------------------------------------------------------------- neo4j-admin import


def _header(df: pd.DataFrame, skip: tuple[str, ...] = ()) -> tuple[list[str], list[str], dict[str, str]]:
    kinds = column_kinds(df)
    cols = [c for c in df.columns if c not in skip]
    return cols, [f"{_name(c)}:{_NEO4J_TYPES[kinds[c]]}" for c in cols], kinds


def _field(kind: str, value: Any, delimiter: str) -> Any:
    if value is None:
        return ""
    if kind == "list":
        return delimiter.join(str(v) for v in value)
    if kind == "bool":
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return value


def _csv_text(header: list[str], rows: Iterable[list[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")  # RFC 4180: quotes doubled; neo4j-admin's default quoting
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def write_neo4j_csv(graph: Graph, dest: str | os.PathLike[str], *, array_delimiter: str = ";") -> list[Path]:
    """entities.csv, documents.csv, relations.csv, mentions.csv and import.sh (the neo4j-admin command,
    with --multiline-fields=true because evidence may span lines) in folder ``dest``.

    List columns use ``array_delimiter`` (neo4j-admin's default ``;``): an alias containing it would be
    split in two, so pick another delimiter for such data."""
    folder = Path(dest)
    files: dict[str, str] = {}
    cols, head, kinds = _header(graph.entities, ("id",))
    files["entities.csv"] = _csv_text(
        ["id:ID(Entity)", *head, ":LABEL"],
        ([row["id"], *(_field(kinds[c], row[c], array_delimiter) for c in cols), f"Entity;{_name(row.get('type') or 'Other')}"]
         for row in records(graph.entities)))
    cols, head, kinds = _header(graph.documents, ("id",))
    files["documents.csv"] = _csv_text(
        ["id:ID(Document)", *head, ":LABEL"],
        ([row["id"], *(_field(kinds[c], row[c], array_delimiter) for c in cols), "Document"]
         for row in records(graph.documents)))
    cols, head, kinds = _header(graph.relations, ("source", "target"))
    files["relations.csv"] = _csv_text(
        [":START_ID(Entity)", ":END_ID(Entity)", ":TYPE", *head],
        ([row["source"], row["target"], _name(row.get("type") or "RELATED_TO"),
          *(_field(kinds[c], row[c], array_delimiter) for c in cols)] for row in records(graph.relations)))
    prov = graph.provenance[graph.provenance["kind"] == "entity"]
    cols, head, kinds = _header(prov, ("item_id", "document_id", "kind"))
    files["mentions.csv"] = _csv_text(
        [":START_ID(Entity)", ":END_ID(Document)", ":TYPE", *head],
        ([row["item_id"], row["document_id"], "MENTIONED_IN", *(_field(kinds[c], row[c], array_delimiter) for c in cols)]
         for row in records(prov)))
    delim = array_delimiter.replace("'", "'\\''")
    files["import.sh"] = (
        "#!/bin/sh\n# Load into an empty database (Neo4j 5): run from this folder, Neo4j stopped.\n"
        "neo4j-admin database import full \\\n  --nodes=entities.csv --nodes=documents.csv \\\n"
        "  --relationships=relations.csv --relationships=mentions.csv \\\n"
        f"  --multiline-fields=true --array-delimiter='{delim}' --skip-bad-relationships=true \\\n"
        '  "${1:-neo4j}"\n')
    paths = []
    for name, text in files.items():
        atomic_write_text(folder / name, text)
        paths.append(folder / name)
    return paths
