"""The read-only questions the MCP server answers, as plain functions over a Workspace: every answer is a JSON
dict with a versioned "schema"/"format" field, bounded (at most MAX_LIMIT rows a page, texts cut) and paginated
(offset/limit, total, next_offset). Search, neighbourhood and topology return exactly the CLI's --json documents
(kgkit.search/1, kgkit.neighbourhood/1, kgkit.topology/1); entity, path, documents, facts and pending are
documented in docs/mcp.md. A bad argument raises QueryError with a message saying what to change.

>>> import tempfile
>>> from kgkit.testing.workspaces import sample_workspace
>>> reader = GraphReader(sample_workspace(tempfile.mkdtemp()))
>>> out = entity(reader.graph(), "Ada Lovelace", limit=2)
>>> out["schema"], out["entity"]["id"], out["provenance"]["total"] > 0
('kgkit.entity/1', 'Person:ada lovelace', True)
>>> path(reader.graph(), "Ada Lovelace", "Ada Lovelace")["hops"]
0
"""

from __future__ import annotations

import threading
from itertools import pairwise
from typing import Any

import pandas as pd

from kgkit.core.graph import Graph, json_cell
from kgkit.io.workspace import Workspace
from kgkit.stages.search.text import snippet
from kgkit.stages.topology import find_entities, neighbourhood, topology_report
from kgkit.workflows.graph import read_graph

__all__ = ["MAX_LIMIT", "GraphReader", "QueryError", "documents", "entity", "facts", "hood", "path", "pending",
           "search", "topology"]

MAX_LIMIT = 100
MAX_TEXT = 500
MAX_HOPS = 6


class QueryError(ValueError):
    """A question the server cannot answer as asked (unknown entity, bad time, no index): the text says why."""


class GraphReader:
    """The workspace's current graph, read again only when the manifest's generation changes (thread-safe)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._cached: tuple[int, Graph] | None = None

    def graph(self) -> Graph:
        generation = self.ws.manifest().generation
        with self._lock:
            if self._cached is None or self._cached[0] != generation:
                try:
                    self._cached = (generation, read_graph(self.ws))
                except FileNotFoundError:
                    raise QueryError(f"no graph in {self.ws.root}: run `kgkit run DOCS -o {self.ws.root}` first") from None
            return self._cached[1]


def _rows(df: pd.DataFrame, *, cut: tuple[str, ...] = ("evidence",)) -> list[dict[str, Any]]:
    rows = [{k: json_cell(v) for k, v in r.items()} for r in df.to_dict("records")]
    for row in rows:
        for key in cut:
            if isinstance(row.get(key), str):
                row[key] = snippet(row[key], MAX_TEXT)
    return rows


def _page(df: pd.DataFrame, offset: int, limit: int) -> dict[str, Any]:
    end = min(offset + limit, len(df))
    return {"total": len(df), "offset": offset, "limit": limit, "next_offset": end if end < len(df) else None,
            "items": _rows(df.iloc[offset:end])}


def _one_entity(graph: Graph, query: str, types: list[str] | None = None) -> str:
    """The id of the one entity `query` names (an id, or a name after normalisation); QueryError otherwise."""
    matches = find_entities(graph, query, types=types)
    if not matches:
        raise QueryError(f"no entity matches {query!r}: use an id (Person:ada lovelace) or an exact name; "
                         "the search tool finds entities by partial names")
    if len(matches) > 1:
        raise QueryError(f"{query!r} is ambiguous; use one of these ids: {', '.join(matches[:20])}")
    return matches[0]


def _check_time(t: str) -> str:
    from datetime import datetime

    try:
        datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise QueryError(f"not an ISO 8601 time: {t!r} (e.g. 2026-01-31 or 2026-01-31T12:00:00Z)") from None
    return t


def search(ws: Workspace, query: str, *, kind: list[str] | None = None, type: list[str] | None = None,
           document: list[str] | None = None, as_of: str | None = None, limit: int = 10, offset: int = 0,
           channels: list[str] | None = None, mmr: float | None = None, rollup: str | None = None) -> dict[str, Any]:
    """`kgkit search --json` (kgkit.search/1) on the index as it is: a stale index is searched as it is and
    the answer says so ("stale"), since the read-only server never writes."""
    from kgkit.io.workspace import WorkspaceError
    from kgkit.stages.search.schema import rollup_json, search_json
    from kgkit.workflows.index import open_search_index, query_embedder

    if rollup not in (None, "document", "entity"):
        raise QueryError("rollup is 'document' or 'entity'")
    if as_of is not None:
        _check_time(as_of)
    try:
        index = open_search_index(ws, embedder=query_embedder(ws))
    except WorkspaceError as exc:
        raise QueryError(str(exc)) from None
    try:
        frame = index.search(query, kind=kind or None, type=type or None, document=document or None, as_of=as_of,
                             limit=limit, offset=offset, channels=channels or ["keyword", "dense", "graph"],
                             mmr_lambda=mmr)
    except ValueError as exc:
        raise QueryError(str(exc)) from None
    finally:
        index.close()
    filters = {"kind": kind or [], "type": type or [], "document": document or [], "as_of": as_of}
    out = search_json(frame, query=query, filters=filters, limit=limit, offset=offset)
    stale = ws.manifest().stale.get("index")
    if stale:
        out["stale"] = stale
    if rollup:
        out["rollup"] = rollup_json(frame, by=rollup)
    return out


def entity(graph: Graph, query: str, *, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """One entity (by id or exact name): its row, one page of its provenance (document, chunk, span, evidence
    sentence, extractor) and one page of the relations touching it with their evidence (kgkit.entity/1)."""
    eid = _one_entity(graph, query)
    row = graph.entities[graph.entities["id"] == eid]
    prov = graph.provenance[graph.provenance["item_id"] == eid].sort_values(["document_id", "start"], kind="stable")
    rel = graph.relations
    touching = rel[(rel["source"] == eid) | (rel["target"] == eid)]
    touching = touching.sort_values(["support", "id"], ascending=[False, True], kind="stable")
    return {"schema": "kgkit.entity/1", "query": query, "entity": _rows(row, cut=())[0],
            "provenance": _page(prov, offset, limit), "relations": _page(touching, offset, limit)}


def hood(graph: Graph, query: str, *, depth: int = 1, types: list[str] | None = None,
         relation_types: list[str] | None = None, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """`kgkit query --json` (kgkit.neighbourhood/1); an entity nothing matches is an error, not an empty page."""
    try:
        out = neighbourhood(graph, query, depth=depth, types=types, relation_types=relation_types, limit=limit,
                            offset=offset)
    except ValueError as exc:
        raise QueryError(str(exc)) from None
    if out.status == "not_found":
        _one_entity(graph, query, types)  # raises with the reason
    return out.to_json_dict()


def topology(graph: Graph, *, limit: int = 20, offset: int = 0, seed: int = 0) -> dict[str, Any]:
    """`kgkit topology --json` (kgkit.topology/1): counts, communities, connections, bridges, isolated."""
    try:
        return topology_report(graph, limit=limit, offset=offset, seed=seed).to_json_dict()
    except ValueError as exc:
        raise QueryError(str(exc)) from None


def path(graph: Graph, source: str, target: str, *, max_hops: int = MAX_HOPS,
         relation_types: list[str] | None = None) -> dict[str, Any]:
    """The shortest chain of relations between two entities, either direction (kgkit.path/1): the entities in
    order and, for each hop, the strongest relation joining them with its evidence. QueryError when either
    entity is unknown or no chain of at most `max_hops` relations joins them."""
    import networkx as nx

    if not 1 <= max_hops <= MAX_HOPS:
        raise QueryError(f"max_hops must be between 1 and {MAX_HOPS} (got {max_hops})")
    a, b = _one_entity(graph, source), _one_entity(graph, target)
    rel = graph.relations
    if relation_types:
        rel = rel[rel["type"].isin(relation_types)]
    ranked = rel.sort_values(["support", "id"], ascending=[False, True], kind="stable")
    links = nx.Graph()
    links.add_nodes_from([a, b])
    for row in ranked[["source", "target", "id"]].itertuples(index=False):
        if not links.has_edge(row.source, row.target):  # the strongest relation per pair comes first
            links.add_edge(row.source, row.target, relation=row.id)
    try:
        chain = nx.shortest_path(links, a, b)
    except nx.NetworkXNoPath:
        raise QueryError(f"no chain of relations joins {a!r} and {b!r}"
                         + (f" through {', '.join(relation_types)}" if relation_types else "")) from None
    if len(chain) - 1 > max_hops:
        raise QueryError(f"the shortest chain between {a!r} and {b!r} has {len(chain) - 1} hops, more than "
                         f"max_hops={max_hops}")
    ids = [links.edges[u, v]["relation"] for u, v in pairwise(chain)]
    by_id = rel.set_index("id")
    ents = graph.entities.set_index("id")
    return {"schema": "kgkit.path/1", "source": a, "target": b, "hops": len(ids),
            "entities": [{"id": e, "name": json_cell(ents.at[e, "name"]) if e in ents.index else None,
                          "type": json_cell(ents.at[e, "type"]) if e in ents.index else None} for e in chain],
            "relations": _rows(by_id.loc[ids].reset_index()) if ids else []}


def documents(graph: Graph, *, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """The graph's documents (id, path, sha256, media type, chunks, errors), sorted by path (kgkit.documents/1)."""
    docs = graph.documents.sort_values(["path", "id"], kind="stable")
    return {"schema": "kgkit.documents/1", **_page(docs, offset, limit)}


def facts(graph: Graph, *, as_of: str | None = None, entity: str | None = None, type: list[str] | None = None,
          include_expired: bool = False, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """Relations as the graph believed them at graph time `as_of` (all current ones without it); with
    `include_expired`, also those retracted or superseded since (each row has created_at/expired_at and
    `believed`: true when it held at `as_of`, or now). Optionally only those touching `entity` or of `type`
    (kgkit.facts/1)."""
    rel = graph.relations
    if as_of is not None:
        believed_ids = set(graph.as_of(_check_time(as_of)).relations["id"])
    else:
        believed_ids = set(rel.loc[rel["expired_at"].isna(), "id"])
    rows = rel.assign(believed=rel["id"].isin(believed_ids))
    if not include_expired:
        rows = rows[rows["believed"]]
    if entity is not None:
        eid = _one_entity(graph, entity)
        rows = rows[(rows["source"] == eid) | (rows["target"] == eid)]
    if type:
        rows = rows[rows["type"].isin(type)]
    rows = rows.sort_values(["support", "id"], ascending=[False, True], kind="stable")
    return {"schema": "kgkit.facts/1", "as_of": as_of, "include_expired": include_expired,
            "expired_total": int((~rows["believed"]).sum()), **_page(rows, offset, limit)}


def pending(ws: Workspace, *, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """Merge candidates no decision covers yet, best first: what waits for a person (kgkit.pending/1)."""
    from kgkit.stages.resolve import pending as undecided
    from kgkit.workflows.resolve import candidates, decisions

    try:
        found, made = candidates(ws), decisions(ws)
    except (ValueError, OSError) as exc:
        raise QueryError(f"cannot read the decisions: {exc}") from None
    waiting = undecided(found, made)
    end = min(offset + limit, len(waiting))
    return {"schema": "kgkit.pending/1", "candidates": len(found), "decisions": len(made),
            "total": len(waiting), "offset": offset, "limit": limit, "next_offset": end if end < len(waiting) else None,
            "items": [c.model_dump(mode="json") for c in waiting[offset:end]],
            "hint": None if found else "no candidates: `kgkit resolve -w WS` proposes them"}
