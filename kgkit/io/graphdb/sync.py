"""Push a Graph into a graph database and pull it back: batched UNWIND + MERGE, the same Cypher for FalkorDB and Neo4j.

A push is idempotent and makes the database hold exactly the graph pushed: unique ids first
(`Backend.ensure_schema`), then entities, documents, relations and mentions MERGEd on their ids in batches, each
batch checked (a relation whose end is missing is an error, never a silent drop), then whatever an earlier push
left and this one did not write is removed, and last the ``(:KgkitGraph)`` node records the push's stamp, meta
and counts. A pull reads only rows of the recorded stamp and checks the counts, so an interrupted push reads as
an error rather than as a smaller graph.

Model: ``(:Entity:<Type> {id, name, type, aliases, ...})``, ``(:Document {id, path, ...})``,
``(:Entity)-[:<RELATION_TYPE> {id, source, target, type, confidence, valid_at, ..., flags}]->(:Entity)``,
``(:Entity)-[:MENTIONED_IN {item_id, kind, chunk_id, start, end, evidence, extractor_id, ...}]->(:Document)``
and ``(:KgkitGraph {id, meta, kgkit_push, entities, relations, mentions, documents})``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from kgkit.core.graph import GRAPH_FORMAT, Graph
from kgkit.io.graphdb.backends import Backend, GraphDBError
from kgkit.io.graphdb.rows import graph_from_rows, graph_rows

__all__ = ["BATCH", "PushReport", "load_cypher_script", "pull_graph", "push_graph"]

BATCH = 2000  # rows per UNWIND
Progress = Callable[[str, int, int], None]


class PushReport(dict):
    """What a push wrote: entities, documents, relations, mentions, removed (left by an earlier push), stamp."""


def _batches(rows: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i:i + size]


def _write(db: Backend, cypher: str, rows: list[dict[str, Any]], *, what: str, batch: int,
           progress: Progress | None, done: list[int], total: int) -> None:
    for part in _batches(rows, batch):
        result = db.query(cypher, {"rows": part})
        written = result[0][0] if result else 0
        if written != len(part):
            raise GraphDBError(f"{what}: wrote {written} of {len(part)} rows (an end entity or document is missing)")
        done[0] += len(part)
        if progress:
            progress("push", done[0], total)


def _grouped(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(row["label"], []).append(row)
    return dict(sorted(out.items()))


def push_graph(graph: Graph, db: Backend, *, batch: int = BATCH, progress: Progress | None = None) -> PushReport:
    """Write `graph` into the database so that it holds exactly this graph (see the module doc). Pushing the
    same graph twice leaves the database as pushing it once. Raises GraphDBError when a batch fails."""
    stamp = graph.sha256()[:16]
    rows = graph_rows(graph, stamp=stamp)
    db.ensure_schema()
    total = sum(len(rows[k]) for k in ("entities", "documents", "relations", "mentions"))
    done = [0]
    common = {"batch": batch, "progress": progress, "done": done, "total": total}
    for label, group in _grouped(rows["entities"]).items():
        _write(db, f"UNWIND $rows AS row MERGE (n:Entity {{id: row.id}}) SET n = row.props SET n:`{label}` "
                   "RETURN count(n)", group, what=f"entities ({label})", **common)
        db.query(f"MATCH (n:Entity:`{label}`) WHERE NOT n.id IN $ids REMOVE n:`{label}`",
                 {"ids": [r["id"] for r in group]})  # an entity whose type changed since an earlier push
    _write(db, "UNWIND $rows AS row MERGE (d:Document {id: row.id}) SET d = row.props RETURN count(d)",
           rows["documents"], what="documents", **common)
    known = {r["id"] for r in rows["documents"]}
    stubs = sorted({m["document"] for m in rows["mentions"]} - known)  # provenance of a document not in the table
    if stubs:
        db.query("UNWIND $ids AS id MERGE (d:Document {id: id}) SET d.kgkit_push = $stamp",
                 {"ids": stubs, "stamp": stamp})
    # into a graph with none of kgkit's relationships yet, CREATE cannot duplicate and is twice as fast as MERGE
    fresh = not db.query("MATCH (:Entity)-[r]->() RETURN 1 LIMIT 1")
    for label, group in _grouped(rows["relations"]).items():
        write = f"CREATE (a)-[r:`{label}`]->(b)" if fresh else f"MERGE (a)-[r:`{label}` {{id: row.id}}]->(b)"
        _write(db, "UNWIND $rows AS row MATCH (a:Entity {id: row.source}) MATCH (b:Entity {id: row.target}) "
                   f"{write} SET r = row.props RETURN count(r)", group, what=f"relations ({label})", **common)
    write = "CREATE (a)-[m:MENTIONED_IN]->(d)" if fresh else "MERGE (a)-[m:MENTIONED_IN {id: row.id}]->(d)"
    _write(db, "UNWIND $rows AS row MATCH (a:Entity {id: row.anchor}) MATCH (d:Document {id: row.document}) "
               f"{write} SET m = row.props RETURN count(m)", rows["mentions"], what="mentions", **common)
    removed = _remove_stale(db, stamp)
    counts = {k: len(rows[k]) for k in ("entities", "documents", "relations", "mentions")}
    db.query("MERGE (g:KgkitGraph {id: $name}) SET g.meta = $meta, g.format = $format, g.kgkit_push = $stamp, "
             "g.entities = $entities, g.documents = $documents, g.relations = $relations, g.mentions = $mentions",
             {"name": getattr(db, "name", "kgkit"), "meta": rows["meta"], "format": GRAPH_FORMAT, "stamp": stamp,
              **counts})
    return PushReport(**counts, removed=removed, stamp=stamp)


def _remove_stale(db: Backend, stamp: str) -> int:
    """Delete kgkit's nodes and relationships that an earlier push wrote and this one did not."""
    edges = db.query("MATCH (:Entity)-[r]->() WHERE r.kgkit_push <> $stamp DELETE r RETURN count(r)", {"stamp": stamp})
    nodes = db.query("MATCH (n) WHERE (n:Entity OR n:Document) AND n.kgkit_push <> $stamp DETACH DELETE n "
                     "RETURN count(n)", {"stamp": stamp})
    return (edges[0][0] if edges else 0) + (nodes[0][0] if nodes else 0)


def pull_graph(db: Backend) -> Graph:
    """The graph the last complete push wrote, equal to the graph pushed (same canonical JSON). Raises
    GraphDBError when the database holds no kgkit graph or an incomplete one."""
    head = db.query("MATCH (g:KgkitGraph {id: $name}) RETURN g.meta, g.kgkit_push, g.entities, g.documents, "
                    "g.relations, g.mentions", {"name": getattr(db, "name", "kgkit")})
    if not head:
        raise GraphDBError("no kgkit graph here (push one first: kgkit push WS URL)")
    meta, stamp, *expected = head[0]
    found = {
        "entities": db.properties("MATCH (n:Entity) WHERE n.kgkit_push = $s", "n", {"s": stamp}),
        "documents": db.properties("MATCH (n:Document) WHERE n.kgkit_push = $s AND n.kgkit_row IS NOT NULL", "n",
                                   {"s": stamp}),
        "relations": db.properties("MATCH (:Entity)-[r]->(:Entity) WHERE r.kgkit_push = $s", "r", {"s": stamp}),
        "mentions": db.properties("MATCH (:Entity)-[m:MENTIONED_IN]->(:Document) WHERE m.kgkit_push = $s", "m",
                                  {"s": stamp}),
    }
    for (name, rows), count in zip(found.items(), expected):
        if len(rows) != count:
            raise GraphDBError(f"incomplete kgkit graph: {len(rows)} {name} of {count} (a push was interrupted: "
                               "push again)")
    rows = {name: [{"props": props} for props in found_rows] for name, found_rows in found.items()}
    return graph_from_rows({**rows, "meta": meta or json.dumps({})})


def load_cypher_script(db: Backend, script: str) -> int:
    """Run a Cypher script (kgkit.io.export.cypher_script) statement by statement; returns the statements run.

    Statements end with ``;`` at a line end (strings in the script never hold a raw newline). Neo4j's
    ``CREATE CONSTRAINT`` statements become `Backend.ensure_schema()` on FalkorDB, which has no such syntax."""
    count = 0
    for statement in script.split(";\n"):
        text = "\n".join(line for line in statement.splitlines() if not line.lstrip().startswith("//")).strip()
        if not text:
            continue
        if text.startswith("CREATE CONSTRAINT") and db.kind == "falkordb":
            db.ensure_schema()
        else:
            db.query(text)
        count += 1
    return count

