"""Same name, different things: split an entity the build merged by name, and propose where to split.

The build gives every mention of one (type, name) one entity. When the mentions are of two things (Paris the
French capital and Paris, Texas), a person records a split decision: the mentions in some documents (or
chunks) become a new entity, id ``<entity>~<label>``. The split is made at build time (`build_graph(...,
splits=split_specs(decisions))`), so the relations of each part keep exact confidence and support, and it is
made again on every rebuild, like every decision. `split_candidates` proposes splits where the documents'
contexts fall apart: the documents mentioning the entity form groups that share no co-mentioned entity.

>>> d = split_decision("L:paris", documents=["doc:b"], label="Texas", why="Paris, Texas", at="2026-01-01")
>>> d.kind, d.subjects, d.documents
('split', ('L:paris', 'L:paris~texas'), ('doc:b',))
>>> import numpy as np
>>> ids = np.array(["L:paris", "L:paris", "P:ada"], dtype=object)
>>> split_ids(ids, np.array(["doc:a", "doc:b", "doc:b"], dtype=object), None, split_specs([d])).tolist()
['L:paris', 'L:paris~texas', 'P:ada']
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Literal

from kgkit.core.decisions import SPLIT_MARK, Decision, SplitSpec, split_specs
from kgkit.core.graph import Graph
from kgkit.core.names import normalise_name
from kgkit.core.records import Record, short_hash
from kgkit.core.stage import stage
from kgkit.stages.splits import split_ids

__all__ = ["SplitCandidate", "SplitSpec", "split_candidates", "split_decision", "split_ids", "split_specs"]


def _label(text: str) -> str:
    return re.sub(r"\s+", "-", normalise_name(text))


def split_decision(entity_id: str, *, documents: Iterable[str] = (), chunks: Iterable[str] = (),
                   label: str | None = None, why: str = "", who: str | None = None, at: str | None = None,
                   verdict: Literal["accept", "reject"] = "accept") -> Decision:
    """A person's split: the mentions of `entity_id` in `documents` (document ids) or `chunks` (chunk ids) become
    the entity ``<entity_id>~<label>`` (label: a few words naming the other thing; default a short hash of
    what moves). verdict "reject" withdraws the split.

    >>> split_decision("P:michael jordan", chunks=["c1"]).subjects[1].startswith("P:michael jordan~")
    True
    """
    docs, parts = tuple(sorted(set(documents))), tuple(sorted(set(chunks)))
    tag = _label(label) if label and _label(label) else short_hash(*docs, "|", *parts, length=6)
    return Decision(kind="split", subjects=(entity_id, f"{entity_id}{SPLIT_MARK}{tag}"), documents=docs,
                    chunks=parts, verdict=verdict, decided_by="person", who=who, at=at, why=why)


class SplitCandidate(Record):
    """A proposed split: the entity's documents fall into groups whose contexts (entities co-mentioned in
    the same chunks) share nothing. `groups`: document ids per group, largest first; `context`: the most
    frequent co-mentioned names per group (what a person reads to decide)."""

    entity: str
    name: str
    type: str
    groups: list[list[str]]
    context: list[list[str]]


def _contexts(graph: Graph) -> tuple[dict[str, dict[str, set[str]]], dict[str, set[str]]]:
    """entity -> document -> entities mentioned in the same chunks; and entity -> every entity it shares a
    chunk with anywhere (the corpus-wide co-mentions)."""
    prov = graph.provenance
    ents = prov[prov["kind"] == "entity"][["item_id", "document_id", "chunk_id"]].drop_duplicates()
    by_chunk: dict[str, list[str]] = defaultdict(list)
    for item, chunk in zip(ents["item_id"], ents["chunk_id"]):
        by_chunk[chunk].append(item)
    out: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    near: dict[str, set[str]] = defaultdict(set)
    for item, doc, chunk in zip(ents["item_id"], ents["document_id"], ents["chunk_id"]):
        out[item][doc].update(x for x in by_chunk[chunk] if x != item)
        near[item].update(by_chunk[chunk])
    return out, near


def _crossing(a: set[str], b: set[str], near: dict[str, set[str]]) -> float:
    """The share of (a, b) context pairs mentioned together somewhere in the corpus: two things called by one
    name keep apart company; one thing seen in two settings has settings that meet elsewhere."""
    return sum(len(near[x] & b) for x in a) / (len(a) * len(b))


def _components(per_doc: dict[str, set[str]]) -> list[list[str]]:
    """Documents joined when their contexts share an entity (documents with no context join none)."""
    import networkx as nx

    links = nx.Graph()
    first: dict[str, str] = {}
    for d in sorted(d for d, ctx in per_doc.items() if ctx):
        links.add_node(d)
        for other in per_doc[d]:
            if first.setdefault(other, d) != d:
                links.add_edge(d, first[other])
    return sorted((sorted(c) for c in nx.connected_components(links)), key=lambda g: (-len(g), g))


@stage(version="1")
def split_candidates(graph: Graph, *, min_context: int = 3, max_crossing: float = 0.02,
                     limit: int = 200) -> list[SplitCandidate]:
    """Entities whose documents fall into two or more groups with no co-mentioned entity in common, each
    group's context at least `min_context` entities (a thin context separates nothing), and the contexts of
    the two largest groups hardly ever mentioned together anywhere in the corpus (at most `max_crossing` of
    their pairs). Most documents first, at most `limit`.

    >>> from kgkit.testing.builders import split_graph
    >>> [(c.name, c.groups) for c in split_candidates(split_graph())]
    [('Paris', [['doc:fr1', 'doc:fr2'], ['doc:tx1']])]
    """
    names = dict(zip(graph.entities["id"], graph.entities["name"]))
    types = dict(zip(graph.entities["id"], graph.entities["type"]))
    out = []
    contexts, near = _contexts(graph)
    for entity, per_doc in contexts.items():
        if len(per_doc) < 2:
            continue
        groups = _components(per_doc)
        if len(groups) < 2:
            continue
        context = [[x for x, _ in sorted(Counter(x for d in g for x in per_doc[d]).items(),
                                         key=lambda kv: (-kv[1], names.get(kv[0], kv[0])))] for g in groups]
        if min(len(c) for c in context) < min_context or _crossing(*map(set, context[:2]), near) > max_crossing:
            continue
        out.append(SplitCandidate(entity=entity, name=names.get(entity, entity), type=types.get(entity, ""),
                                  groups=groups, context=[[names.get(x, x) for x in c][:8] for c in context]))
    out.sort(key=lambda c: (-sum(len(g) for g in c.groups), c.entity))
    return out[:limit]
