"""Topology and neighbourhood queries: bounded, paginated, with filters applied on every path.

`topology_report(graph)` summarises the graph's shape as a TopologyReport: counts by type, communities,
community connections (relations between communities), bridges (entities whose relations reach several
communities) and isolated entities; `topology(graph)` is its JSON form (``kgkit.topology/1``). Every list is
paginated (``offset``/``limit``, with its ``total``); all of it is O(relations) with numpy and pandas, reading
the communities the graph carries (its ``community`` column) or detecting them when absent.

`neighbourhood(graph, entity)` answers "what is around this entity" (a Neighbourhood): a breadth-first search to ``depth`` over
an adjacency index (CSR arrays) built once per Graph object and cached. Filters define the subgraph searched:
only entities of ``types`` and relations of ``relation_types`` are ever visited, so every path in the answer
satisfies them, and the start entity itself must pass ``types`` (also when given by exact id). Only rows of
the entity table can come back as entities: document ids, provenance ids and relation endpoints missing from
the entity table never do.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import relation_row
>>> ents = pd.DataFrame({"id": ["O:acme", "P:ada", "P:bob"], "name": ["Acme", "Ada", "Bob"],
...     "type": ["Org", "Person", "Person"], "aliases": [[]] * 3, "mentions": 1, "documents": 1, "confidence": 1.0,
...     "identity": "derived", "degree": [2, 1, 1]})
>>> rels = pd.DataFrame([{**relation_row("r1"), "source": "P:ada", "target": "O:acme"},
...                      {**relation_row("r2"), "source": "P:bob", "target": "O:acme"}])
>>> g = Graph.empty().replace(entities=ents, relations=rels)
>>> hood = neighbourhood(g, "ada", depth=2)
>>> hood.status, list(zip(hood.entities["id"], hood.entities["hop"])), hood.total_relations
('found', [('P:ada', 0), ('O:acme', 1), ('P:bob', 2)], 2)
>>> neighbourhood(g, "ada", depth=2, types=["Person"]).entities["id"].tolist()
['P:ada']
>>> neighbourhood(g, "P:ada", types=["Org"]).status
'not_found'
>>> report = topology_report(g, limit=5)
>>> report.counts.entities, report.isolated.total, topology(g, limit=5) == report.to_json_dict()
(3, 0, True)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import ConfigDict

from kgkit.core.graph import Graph, json_cell
from kgkit.core.names import normalise_name
from kgkit.core.records import Page, Record
from kgkit.stages.communities import communities_of

__all__ = ["Neighbourhood", "NeighbourhoodParams", "TopologyCounts", "TopologyParams", "TopologyReport",
           "find_entities", "neighbourhood", "topology", "topology_report"]

MAX_DEPTH = 6
MAX_LIMIT = 10_000
TOPOLOGY_FORMAT = "kgkit.topology/1"
NEIGHBOURHOOD_FORMAT = "kgkit.neighbourhood/1"


def _rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Table rows as JSON-ready dicts."""
    return [{k: json_cell(v) for k, v in r.items()} for r in df.to_dict("records")]


def _page(df: pd.DataFrame, offset: int, limit: int) -> Page:
    """One page of a sorted table, with the total and the window asked for."""
    return Page(total=len(df), offset=offset, limit=limit, items=_rows(df.iloc[offset: offset + limit]))


def _check_window(offset: int, limit: int) -> None:
    if offset < 0 or limit < 0 or limit > MAX_LIMIT:
        raise ValueError(f"need 0 <= offset and 0 <= limit <= {MAX_LIMIT} (got offset={offset}, limit={limit})")


class TopologyCounts(Record):
    """How many of each: entities, relations, documents, communities, isolated entities, bridges, and per type."""

    entities: int
    relations: int
    documents: int
    communities: int
    isolated: int
    bridges: int
    entity_types: dict[str, int]
    relation_types: dict[str, int]


class TopologyParams(Record):
    """The window asked for, and the parameters of the communities read or found."""

    limit: int
    offset: int
    communities: dict[str, Any]


class TopologyReport(Record):
    """The graph's shape: counts, and one page each of communities, connections, bridges and isolated entities."""

    format: Literal["kgkit.topology/1"] = TOPOLOGY_FORMAT
    counts: TopologyCounts
    communities: Page
    connections: Page
    bridges: Page
    isolated: Page
    params: TopologyParams

    def to_json_dict(self) -> dict[str, Any]:
        """The stable JSON form (``kgkit.topology/1``, schema in docs/graph.md)."""
        return self.model_dump(mode="json")


def topology(graph: Graph, *, limit: int = 20, offset: int = 0, seed: int = 0) -> dict[str, Any]:
    """The graph's shape as a JSON-ready dict: `topology_report(...).to_json_dict()`."""
    return topology_report(graph, limit=limit, offset=offset, seed=seed).to_json_dict()


def topology_report(graph: Graph, *, limit: int = 20, offset: int = 0, seed: int = 0) -> TopologyReport:
    """The graph's shape (see the module docstring); ValueError for a window out of range."""
    _check_window(offset, limit)
    ents, rels = graph.entities, graph.relations
    comms = communities_of(graph, seed=seed, page=(offset, limit))
    com = pd.Series(comms.membership["community"].to_numpy(), index=comms.membership["entity"].to_numpy())
    live = rels[rels["expired_at"].isna().to_numpy() & ~rels["negated"].to_numpy(bool)]
    ends = live[live["source"].isin(com.index) & live["target"].isin(com.index)]
    cs, ct = ends["source"].map(com).to_numpy(object), ends["target"].map(com).to_numpy(object)
    # community connections: relations between two different communities, per unordered pair
    cross = cs != ct
    a, b = np.where(cs < ct, cs, ct)[cross], np.where(cs < ct, ct, cs)[cross]
    conn = pd.DataFrame({"source": a, "target": b}).value_counts().rename("relations").reset_index()
    conn = conn.sort_values(["relations", "source", "target"], ascending=[False, True, True], kind="stable")
    # bridges: entities whose relations reach communities other than their own
    side = pd.DataFrame({"entity": np.concatenate([ends["source"].to_numpy(object), ends["target"].to_numpy(object)]),
                         "other": np.concatenate([ct, cs])})
    per = side.value_counts().rename("k").reset_index()
    per["own"] = per["entity"].map(com).to_numpy() == per["other"].to_numpy()
    per["share2"] = (per["k"] / per.groupby("entity")["k"].transform("sum")) ** 2
    per["outside"] = (~per["own"]).astype(int)
    per["cross"] = per["k"] * per["outside"]
    grouped = per.groupby("entity", sort=False)
    stats = pd.DataFrame({"communities": grouped.size(), "participation": 1.0 - grouped["share2"].sum(),
                          "outside": grouped["outside"].sum(), "cross_relations": grouped["cross"].sum()})
    bridges = stats[stats["outside"] > 0].join(ents.set_index("id")[["name", "type", "degree", "community"]])
    bridges["participation"] = bridges["participation"].round(4)
    bridges = bridges.rename_axis("id").reset_index().sort_values(
        ["communities", "cross_relations", "degree", "id"], ascending=[False, False, False, True], kind="stable")
    bridges = bridges[["id", "name", "type", "community", "degree", "communities", "cross_relations", "participation"]]
    isolated = ents[ents["degree"] == 0].sort_values(["mentions", "id"], ascending=[False, True], kind="stable")
    summary = comms.summary.drop(columns=["top_names"])
    counts = TopologyCounts(
        entities=len(ents), relations=len(rels), documents=len(graph.documents), communities=len(summary),
        isolated=len(isolated), bridges=len(bridges),
        entity_types={k: int(v) for k, v in sorted(ents["type"].value_counts().items())},
        relation_types={k: int(v) for k, v in sorted(rels["type"].value_counts().items())})
    return TopologyReport(
        counts=counts, communities=_page(summary, offset, limit), connections=_page(conn, offset, limit),
        bridges=_page(bridges, offset, limit),
        isolated=_page(isolated[["id", "name", "type", "mentions", "community"]], offset, limit),
        params=TopologyParams(limit=limit, offset=offset, communities=comms.params))


# --------------------------------------------------------------------------- neighbourhood


@dataclass(frozen=True, eq=False)
class _Index:
    """Adjacency of one Graph in CSR form (both directions), ranks for sorting, lookups by id and name."""

    ids: np.ndarray
    types: np.ndarray
    row: np.ndarray  # position of each indexed entity in graph.entities
    rank: np.ndarray  # entity order within a hop: degree (descending), then id
    position: dict[str, int]
    indptr: np.ndarray
    neighbour: np.ndarray
    relation_row: np.ndarray
    relation_types: np.ndarray  # per CSR slot
    rel_ends: np.ndarray  # per relation row: (source node, target node), -1 when outside the index
    rel_rank: np.ndarray  # relation order within a hop: support (descending), then id
    names: dict[str, list[int]] = field(default_factory=dict)  # normalised name -> nodes, filled on first use
    name_source: list[Any] = field(default_factory=list)

    def by_name(self, key: str) -> list[int]:
        if self.name_source:  # build the name lookup once, only when a name is asked for
            names, ids = self.name_source
            for i, (eid, name) in enumerate(zip(ids, names)):
                for k in {normalise_name(name or ""), normalise_name(eid.split(":", 1)[-1])}:
                    self.names.setdefault(k, []).append(i)
            self.name_source.clear()
        return self.names.get(key, [])


_INDEXES: weakref.WeakKeyDictionary[Graph, _Index] = weakref.WeakKeyDictionary()


def _index(graph: Graph) -> _Index:
    """The graph's adjacency index, built on first use and cached for as long as the Graph lives."""
    found = _INDEXES.get(graph)
    if found is None:
        found = _INDEXES[graph] = _build_index(graph)
    return found


def _rank(ids: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Rank of each row when sorted by weight (descending), then id."""
    order = np.lexsort((pd.factorize(ids, sort=True)[0], -weight))
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    return rank


def _build_index(graph: Graph) -> _Index:
    ents, rels = graph.entities, graph.relations
    keep = ~ents["id"].isin(set(graph.documents["id"])).to_numpy()  # a document never poses as an entity
    ids = ents["id"].to_numpy(object)[keep]
    pos = pd.Index(ids, dtype=object)
    s, t = pos.get_indexer(rels["source"].to_numpy(object)), pos.get_indexer(rels["target"].to_numpy(object))
    ok = (s >= 0) & (t >= 0)  # endpoints outside the entity table are never walked
    rows = np.flatnonzero(ok)
    node = np.concatenate([s[ok], t[ok]])
    order = np.argsort(node, kind="stable")
    relation_row = np.concatenate([rows, rows])[order]
    indptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(node, minlength=len(ids)), out=indptr[1:])
    return _Index(
        ids=ids, types=ents["type"].to_numpy(object)[keep], row=np.flatnonzero(keep),
        rank=_rank(ids, ents["degree"].to_numpy(np.int64)[keep]), position={e: i for i, e in enumerate(ids.tolist())},
        indptr=indptr, neighbour=np.concatenate([t[ok], s[ok]])[order], relation_row=relation_row,
        relation_types=rels["type"].to_numpy(object)[relation_row], rel_ends=np.stack([s, t], axis=1),
        rel_rank=_rank(rels["id"].to_numpy(object), rels["support"].to_numpy(np.int64)),
        name_source=[ents["name"].to_numpy(object)[keep].tolist(), ids.tolist()],
    )


def find_entities(graph: Graph, query: str, *, types: list[str] | None = None) -> list[str]:
    """Entity ids for a query: the exact id if it exists (and passes `types`), else entities whose name or id
    has the same normalised form (kgkit.core.names), filtered by `types`. Sorted ids; [] when nothing matches."""
    idx = _index(graph)
    allowed = set(types) if types else None
    if query in idx.position:
        i = idx.position[query]
        return [query] if allowed is None or idx.types[i] in allowed else []
    hits = idx.by_name(normalise_name(query))
    return sorted(str(idx.ids[i]) for i in hits if allowed is None or idx.types[i] in allowed)


class NeighbourhoodParams(Record):
    """What a neighbourhood query asked for: depth, type filters (sorted, None = any) and the window."""

    depth: int
    types: list[str] | None
    relation_types: list[str] | None
    limit: int
    offset: int


class Neighbourhood(Record):
    """A neighbourhood query's answer. ``status``: found | ambiguous (several entities match: they are listed
    at hop 0 and nothing is walked; narrow with a type or an id) | not_found. Holds one page of each table."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    query: str
    status: Literal["found", "ambiguous", "not_found"]
    matches: list[str]
    entities: pd.DataFrame  # entity rows + hop, one page
    relations: pd.DataFrame  # relation rows + hop (the nearer endpoint's), one page
    total_entities: int
    total_relations: int
    params: NeighbourhoodParams

    def to_json_dict(self) -> dict[str, Any]:
        """The stable JSON form (``kgkit.neighbourhood/1``, schema in docs/graph.md)."""
        window = {"offset": self.params.offset, "limit": self.params.limit}
        return {"format": NEIGHBOURHOOD_FORMAT, "query": self.query, "status": self.status,
                "matches": self.matches, "params": self.params.model_dump(mode="json"),
                "entities": Page(total=self.total_entities, **window, items=_rows(self.entities)).model_dump(),
                "relations": Page(total=self.total_relations, **window, items=_rows(self.relations)).model_dump()}


def _gather(idx: _Index, frontier: np.ndarray) -> np.ndarray:
    """CSR slots of every edge leaving the frontier nodes (vectorised range concatenation)."""
    starts, ends = idx.indptr[frontier], idx.indptr[frontier + 1]
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return shift + np.arange(total)


def _first(items: np.ndarray, keys: np.ndarray, k: int) -> np.ndarray:
    """The k items with the smallest (distinct) keys, in key order: a partial selection, then a small sort."""
    if k < len(items):
        part = np.argpartition(keys, k)[:k]
        items, keys = items[part], keys[part]
    return items[np.argsort(keys, kind="stable")]


def neighbourhood(
    graph: Graph, entity: str, *, depth: int = 1, types: list[str] | None = None,
    relation_types: list[str] | None = None, limit: int = 50, offset: int = 0,
) -> Neighbourhood:
    """Entities and relations within `depth` hops of `entity` (an id, or a name matched exactly after
    normalisation), in the subgraph of `types` entities and `relation_types` relations. Entities come sorted by
    hop, then degree (descending), then id; relations by hop, support (descending), id. One page of each
    (`offset`, `limit`) with their totals."""
    _check_window(offset, limit)
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be between 0 and {MAX_DEPTH} (got {depth})")
    params = NeighbourhoodParams(depth=depth, types=sorted(types) if types else None,
                                 relation_types=sorted(relation_types) if relation_types else None, limit=limit,
                                 offset=offset)
    matches = find_entities(graph, entity, types=types)
    ents, rels = graph.entities, graph.relations
    empty_e, empty_r = ents.iloc[:0].assign(hop=pd.Series(dtype="int64")), rels.iloc[:0].assign(hop=pd.Series(dtype="int64"))
    if not matches:
        return Neighbourhood(query=entity, status="not_found", matches=[], entities=empty_e, relations=empty_r,
                             total_entities=0, total_relations=0, params=params)
    idx = _index(graph)
    if len(matches) > 1:
        found = ents.iloc[idx.row[[idx.position[m] for m in matches]]].assign(hop=0)
        return Neighbourhood(query=entity, status="ambiguous", matches=matches, entities=found.iloc[offset: offset + limit],
                             relations=empty_r, total_entities=len(found), total_relations=0, params=params)
    node_ok = np.isin(idx.types, list(types)) if types else np.ones(len(idx.ids), dtype=bool)
    edge_ok = np.isin(idx.relation_types, list(relation_types)) if relation_types else None
    hop = np.full(len(idx.ids), -1, dtype=np.int64)
    frontier = np.array([idx.position[matches[0]]], dtype=np.int64)
    hop[frontier] = 0
    walked = np.zeros(len(rels), dtype=bool)  # masks instead of np.unique: O(size) however big the hop
    for d in range(1, depth + 1):
        slots = _gather(idx, frontier)
        if edge_ok is not None:
            slots = slots[edge_ok[slots]]
        slots = slots[node_ok[idx.neighbour[slots]]]
        walked[idx.relation_row[slots]] = True
        reached_now = idx.neighbour[slots]
        reached_now = reached_now[hop[reached_now] == -1]
        hop[reached_now] = d
        frontier = np.flatnonzero(hop == d)
        if len(frontier) == 0:
            break
    # order by (hop, precomputed rank); select only the first offset + limit, then materialise that page
    reached = np.flatnonzero(hop >= 0)
    page = _first(reached, hop[reached] * len(idx.ids) + idx.rank[reached], offset + limit)[offset:]
    found = ents.iloc[idx.row[page]].assign(hop=hop[page]).reset_index(drop=True)
    rel_rows = np.flatnonzero(walked)
    rel_hop = np.minimum(hop[idx.rel_ends[rel_rows, 0]], hop[idx.rel_ends[rel_rows, 1]])
    chosen = _first(np.arange(len(rel_rows)), rel_hop * len(rels) + idx.rel_rank[rel_rows], offset + limit)[offset:]
    hood = rels.iloc[rel_rows[chosen]].assign(hop=rel_hop[chosen]).reset_index(drop=True)
    return Neighbourhood(query=entity, status="found", matches=matches, entities=found, relations=hood,
                         total_entities=len(reached), total_relations=len(rel_rows), params=params)
