"""Communities: seeded Louvain (networkx) or optional Leiden, with stable ids and offline labels.

The graph is seen as undirected and weighted: one edge per pair of entities that are related, weighted by
the relations' support (or confidence), co-occurrence types (``MENTIONED_WITH``) counting less
(``weak_factor``). Negated relations and relations the graph no longer believes (``expired_at`` set) add
nothing. Entities become integers in sorted-id order before the algorithm runs, so the result depends on
the graph and the seed only (never on PYTHONHASHSEED or row order).

Communities are numbered by size (largest first), then by their smallest entity id: ``c0``, ``c1``, ...
Each gets its top entities (by degree, then id), a label made from their names and its distinctive terms
(name words frequent in it and rare elsewhere) — all deterministic, no model involved.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import relation_row
>>> pairs = [("a", "b"), ("b", "c"), ("a", "c"), ("x", "y"), ("y", "z"), ("x", "z"), ("c", "x")]
>>> ents = pd.DataFrame({"id": list("abcxyz"), "name": ["Ann", "Bob", "Cy", "Xi", "Yu", "Zoe"], "type": "Person",
...     "aliases": [[]] * 6, "mentions": 1, "documents": 1, "confidence": 1.0, "identity": "derived", "degree": 2})
>>> rels = pd.DataFrame([{**relation_row(f"r{i}"), "source": s, "target": t} for i, (s, t) in enumerate(pairs)])
>>> found = detect_communities(Graph.empty().replace(entities=ents, relations=rels), seed=0)
>>> found.membership.groupby("community")["entity"].apply(list).to_dict()
{'c0': ['a', 'b', 'c'], 'c1': ['x', 'y', 'z']}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from kgkit.core.constants import WEAK_TYPES
from kgkit.core.graph import Graph, json_cell
from kgkit.core.stage import stage

STOP_TERMS = frozenset({"the", "of", "and", "for", "in", "on", "at", "a", "an", "to", "de", "la", "&"})


@dataclass(frozen=True, eq=False)
class Communities:
    """Entity -> community (``membership``: entity, community) and one row per community (``summary``:
    community, size, relations (inside it), label, top_entities, top_names, terms), plus how it was made."""

    membership: pd.DataFrame
    summary: pd.DataFrame
    params: dict[str, Any] = field(default_factory=dict)

    def to_json_dict(self) -> dict[str, Any]:
        """The stable JSON form (``kgkit.communities/1``, see docs/graph.md)."""
        rows = [{k: json_cell(v) for k, v in row.items()} for row in self.summary.to_dict("records")]
        return {"format": "kgkit.communities/1", "params": self.params, "communities": rows,
                "membership": dict(zip(self.membership["entity"], self.membership["community"]))}


def weighted_pairs(graph: Graph, *, weight: Literal["support", "confidence"] = "support",
                   weak_types: tuple[str, ...] = WEAK_TYPES, weak_factor: float = 0.2) -> pd.DataFrame:
    """The undirected weighted view: columns a, b (entity row positions, a < b) and weight, sorted."""
    ents, rels = graph.entities, graph.relations
    pos = pd.Series(np.arange(len(ents)), index=ents["id"].to_numpy())
    live = rels[~rels["negated"].to_numpy(bool) & rels["expired_at"].isna().to_numpy()]
    a, b = live["source"].map(pos), live["target"].map(pos)
    ok = (a.notna() & b.notna() & (a != b)).to_numpy()
    a, b = a[ok].to_numpy(np.int64), b[ok].to_numpy(np.int64)
    w = live[weight].to_numpy(float)[ok] * np.where(live["type"].isin(weak_types).to_numpy()[ok], weak_factor, 1.0)
    frame = pd.DataFrame({"a": np.minimum(a, b), "b": np.maximum(a, b), "weight": w})
    return frame.groupby(["a", "b"], sort=True, as_index=False)["weight"].sum()


def _sorted_positions(graph: Graph) -> pd.DataFrame:
    """Entities re-ordered by id (a loaded graph may not be sorted)."""
    return graph.entities.sort_values("id", kind="stable").reset_index(drop=True)


def _louvain(n: int, pairs: pd.DataFrame, *, seed: int, resolution: float) -> list[list[int]]:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(pairs.itertuples(index=False, name=None))
    return [sorted(c) for c in nx.community.louvain_communities(g, weight="weight", resolution=resolution, seed=seed)]


def _leiden(n: int, pairs: pd.DataFrame, *, seed: int, resolution: float) -> list[list[int]]:
    try:
        import igraph
        import leidenalg
    except ImportError:
        raise ImportError("method='leiden' needs the optional packages leidenalg and igraph (python-igraph), "
                          "which are not installed; use method='louvain' (the default)") from None
    g = igraph.Graph(n=n, edges=list(zip(pairs["a"].tolist(), pairs["b"].tolist())))
    part = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition, weights=pairs["weight"].tolist(),
                                    resolution_parameter=resolution, seed=seed)
    return [sorted(c) for c in part]


@stage(version="1")
def detect_communities(
    graph: Graph, *, method: Literal["louvain", "leiden"] = "louvain", seed: int = 0, resolution: float = 1.0,
    weight: Literal["support", "confidence"] = "support", weak_types: tuple[str, ...] = WEAK_TYPES,
    weak_factor: float = 0.2, top: int = 5,
) -> Communities:
    """Partition the entities into communities (every entity gets one; an isolated entity is its own)."""
    ents = _sorted_positions(graph)
    pairs = weighted_pairs(graph.replace(entities=ents), weight=weight, weak_types=weak_types, weak_factor=weak_factor)
    if method == "louvain":
        groups = _louvain(len(ents), pairs, seed=seed, resolution=resolution)
    elif method == "leiden":
        groups = _leiden(len(ents), pairs, seed=seed, resolution=resolution)
    else:
        raise ValueError(f"unknown community method {method!r}: use 'louvain' or 'leiden'")
    groups.sort(key=lambda c: (-len(c), c[0]))  # ids sorted, so c[0] is the smallest entity id
    label = np.empty(len(ents), dtype=np.int64)
    for i, members in enumerate(groups):
        label[members] = i
    membership = pd.DataFrame({"entity": ents["id"].to_numpy(dtype=object),
                               "community": pd.Series([f"c{i}" for i in label], dtype=object)})
    params = {"method": method, "seed": seed, "resolution": resolution, "weight": weight,
              "weak_types": list(weak_types), "weak_factor": weak_factor}
    return Communities(membership=membership, summary=summarise(graph, membership, top=top), params=params)


def summarise(graph: Graph, membership: pd.DataFrame, *, top: int = 5, terms: int = 5,
              page: tuple[int, int] | None = None) -> pd.DataFrame:
    """One row per community: size, relations inside it, label, top entities (by degree, then id), their names,
    and distinctive terms (a word's share of the community's names times log(communities / communities using
    it)). Communities ordered by their ids' number (c0, c1, ...). `page` = (offset, limit): terms only for
    those communities (the others get []), which keeps a paginated topology cheap on big graphs."""
    ents = graph.entities[["id", "name", "degree"]].merge(membership, left_on="id", right_on="entity")
    if ents.empty:
        return pd.DataFrame(columns=["community", "size", "relations", "label", "top_entities", "top_names", "terms"])
    ents["n"] = _numbers(ents["community"])
    ents = ents.sort_values(["n", "degree", "id"], ascending=[True, False, True], kind="stable")
    grouped = ents.groupby("n", sort=True)
    heads = ents[grouped.cumcount().to_numpy() < top]
    out = pd.DataFrame({"size": grouped.size()})
    out["top_entities"] = heads.groupby("n")["id"].agg(list)
    out["top_names"] = heads.groupby("n")["name"].agg(list)
    out["label"] = [" / ".join(names[:3]) for names in out["top_names"]]
    com = pd.Series(ents["n"].to_numpy(), index=ents["id"].to_numpy())
    rels = graph.relations
    cs, ct = rels["source"].map(com), rels["target"].map(com)
    inside = cs[(cs == ct) & cs.notna()].astype(int).value_counts()
    out["relations"] = out.index.map(inside).fillna(0).astype(int)
    out["terms"] = _terms(ents, len(out), terms, page)
    out.index = out.index.map(ents.drop_duplicates("n").set_index("n")["community"])  # back to the ids given
    out = out.rename_axis("community").reset_index()
    return out[["community", "size", "relations", "label", "top_entities", "top_names", "terms"]]


def _numbers(ids: pd.Series) -> np.ndarray:
    """Community ids -> 0-based numbers: "c7" -> 7 for kgkit's ids; other ids by sorted order."""
    text = ids.astype(str)
    if text.str.fullmatch(r"c\d+").all():
        return text.str[1:].astype(int).to_numpy()
    return pd.factorize(text, sort=True)[0]


def _terms(ents: pd.DataFrame, size: int, k: int, page: tuple[int, int] | None) -> list[list[str]]:
    """Distinctive name words per community (only for the communities of `page` when given)."""
    out: list[list[str]] = [[] for _ in range(size)]
    names = ents["name"].astype(str).str.lower().str.replace(r"[^\w&]+", " ", regex=True).str.split()
    words = pd.DataFrame({"e": np.arange(len(ents)), "n": ents["n"].to_numpy(), "term": names.to_numpy(object)})
    words = words.explode("term").dropna()
    words = words[(words["term"].str.len() > 1) & ~words["term"].isin(STOP_TERMS)].drop_duplicates()
    words = words.drop(columns="e")
    if words.empty:
        return out
    spread = words.groupby("term")["n"].nunique()  # communities using the word, over the whole graph
    if page is not None:
        words = words[(words["n"] >= page[0]) & (words["n"] < page[0] + page[1])]
    count = words.groupby(["n", "term"]).size().rename("count").reset_index()
    count["score"] = count["count"] * np.log((size + 1) / count["term"].map(spread).to_numpy())
    count = count.sort_values(["n", "score", "term"], ascending=[True, False, True], kind="stable")
    best = count[count.groupby("n").cumcount() < k]
    for n, term in zip(best["n"].tolist(), best["term"].tolist()):
        out[n].append(term)
    return out


def assign_communities(graph: Graph, communities: Communities) -> Graph:
    """A new Graph whose entities carry their community id (the input is not changed)."""
    mapping = dict(zip(communities.membership["entity"], communities.membership["community"]))
    entities = graph.entities.assign(community=graph.entities["id"].map(mapping).astype(object))
    entities["community"] = entities["community"].where(entities["community"].notna(), None)
    return graph.replace(entities=entities, meta={**graph.meta, "communities": communities.params})


def communities_of(graph: Graph, *, seed: int = 0, top: int = 5, page: tuple[int, int] | None = None) -> Communities:
    """The communities a graph carries (its ``community`` column), or freshly detected ones (Louvain, `seed`)
    when it carries none."""
    column = graph.entities["community"]
    if len(column) and column.notna().all():
        membership = pd.DataFrame({"entity": graph.entities["id"].to_numpy(dtype=object),
                                   "community": column.to_numpy(dtype=object)})
        membership = membership.sort_values("entity", kind="stable").reset_index(drop=True)
        return Communities(membership, summarise(graph, membership, top=top, page=page),
                           dict(graph.meta.get("communities") or {}))
    return detect_communities(graph, seed=seed, top=top)




def without_communities(graph: Graph) -> Graph:
    """The graph with no community assignment (communities are derived: found again after a change).

    >>> from kgkit.core.graph import Graph
    >>> without_communities(Graph.empty()).entities["community"].tolist()
    []
    """
    entities = graph.entities.assign(community=pd.Series([None] * len(graph.entities), dtype=object,
                                                         index=graph.entities.index))
    return graph.replace(entities=entities, meta={k: v for k, v in graph.meta.items() if k != "communities"})


def communities_from_json(graph: Graph, data: dict[str, Any]) -> Communities | None:
    """Communities from their JSON form (``kgkit.communities/1``, as `Communities.to_json_dict` writes) for
    `graph`, or None when they were found for another graph (their members are not its entities).

    >>> from kgkit.core.graph import Graph
    >>> communities_from_json(Graph.empty(), {"membership": {}}).membership.empty
    True
    """
    ids = set(graph.entities["id"])
    membership = pd.DataFrame(sorted((e, c) for e, c in (data.get("membership") or {}).items() if e in ids),
                              columns=["entity", "community"])
    if set(membership["entity"]) != ids:
        return None
    return Communities(membership, summarise(graph, membership), dict(data.get("params") or {}))
