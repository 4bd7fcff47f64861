"""The graph channel: the entities a query names seed a personalised PageRank over the graph of entities and
the chunks that mention them (HippoRAG, Gutiérrez et al. 2024), so a chunk one or two hops away from what the
query names (through a chunk that mentions both, or a relation) ranks high; the text channels' best hits are
weaker seeds (HippoRAG 2's passage nodes), so the walk starts where the words pointed too.

- Nodes: entities (an entity item's row, or an entity only named by chunks) and the chunks that mention
  entities. Edges: chunk - entity (a mention), entity - entity (a relation item). A walk leaves a node along
  one of its edges, chosen uniformly.
- Linking: an entity is named when one of its names (name or alias) occurs word for word in the query, longest
  names first, never two overlapping; in a query with any capital, a name must have a capitalised word there
  too ("the Bubye River", not "the river"; in "What is the state sport?" nothing is named). Its seed weight is 1 / the number of chunks that mention it (a rare
  entity says more than a common one, as HippoRAG's node specificity).
- PageRank by pushes (Andersen, Chung and Lang 2006): only nodes holding more than `eps` times their degree
  of residual mass push it on, so a query touches the neighbourhood of its seeds, not the whole graph.
- Scores: an entity's or chunk's PageRank mass; a relation's, the geometric mean of its two entities' masses.

Pure: built from the index's items, read-only afterwards (the index builds a new one after writes).

>>> from kgkit.stages.search.items import SearchItem
>>> items = [SearchItem(id="E:a", kind="entity", title="Bubye River", body="", entities=("E:a",)),
...          SearchItem(id="E:b", kind="entity", title="Limpopo", body="", entities=("E:b",)),
...          SearchItem(id="c1", kind="chunk", title="", body="...", entities=("E:a", "E:b")),
...          SearchItem(id="c2", kind="chunk", title="", body="...", entities=("E:b",)),
...          SearchItem(id="c3", kind="chunk", title="", body="...")]
>>> g = EntityGraph(items)
>>> g.link("Where does the Bubye River flow?")
{0: 1.0}
>>> rows, scores = g.rank({0: 1.0}, limit=10)
>>> rows.tolist()  # the entity, the chunk naming it, the other entity there, the chunk two hops away
[0, 2, 1, 3]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from kgkit.stages.search.text import STOPWORDS, cased_tokens, fold

if TYPE_CHECKING:
    from kgkit.stages.search.items import SearchItem

__all__ = ["EntityGraph"]

MAX_NAME_WORDS = 12


class EntityGraph:
    """The entity graph of a list of items (index rows; `alive[row]` False leaves a row out)."""

    def __init__(self, items: Sequence[SearchItem], alive: Sequence[bool] | np.ndarray | None = None) -> None:
        node_of: dict[str, int] = {}  # entity id -> node
        rows: list[int] = []  # node -> index row (-1: an entity no item stands for)
        live = [True] * len(items) if alive is None else alive

        def entity(entity_id: str, row: int = -1) -> int:
            node = node_of.get(entity_id)
            if node is None:
                node = node_of[entity_id] = len(rows)
                rows.append(row)
            elif row >= 0 and rows[node] < 0:
                rows[node] = row
            return node

        names: dict[tuple[str, ...], set[int]] = defaultdict(set)
        for row, item in enumerate(items):
            if live[row] and item.kind == "entity":
                node = entity(item.entities[0] if item.entities else item.id, row)
                for name in item.title.split(" ; "):
                    words = tuple(fold(w) for w in cased_tokens(name))
                    if words and len(words) <= MAX_NAME_WORDS and not all(w in STOPWORDS for w in words):
                        names[words].add(node)
        src: list[int] = []
        dst: list[int] = []
        via: list[int] = []  # the relation row an edge stands for, -1 for a mention
        relations: list[tuple[int, int, int]] = []  # (row, node a, node b)
        mentions: dict[int, int] = defaultdict(int)  # entity node -> chunks mentioning it
        for row, item in enumerate(items):
            if not live[row] or not item.entities:
                continue
            if item.kind == "chunk":
                node = len(rows)
                rows.append(row)
                for entity_id in dict.fromkeys(item.entities):
                    other = entity(entity_id)
                    mentions[other] += 1
                    src += [node, other]
                    dst += [other, node]
                    via += [-1, -1]
            elif item.kind == "relation" and len(item.entities) >= 2:
                a, b = entity(item.entities[0]), entity(item.entities[1])
                relations.append((row, a, b))
                if a != b:
                    src += [a, b]
                    dst += [b, a]
                    via += [row, row]
        n = len(rows)
        self.entity_of = {node: entity_id for entity_id, node in node_of.items()}
        self.names = {k: sorted(v) for k, v in names.items()}
        self.longest = max((len(k) for k in self.names), default=0)
        self.node_row = np.array(rows, dtype=np.int64)
        self.row_node = {r: i for i, r in enumerate(rows) if r >= 0}
        self.mentions = np.array([mentions.get(i, 0) for i in range(n)], dtype=np.float64)
        self.relations = np.array(relations, dtype=np.int64).reshape(-1, 3)
        order = np.argsort(np.array(src, dtype=np.int64), kind="stable")
        self.indices = np.array(dst, dtype=np.int64)[order]
        self.via = np.array(via, dtype=np.int64)[order]
        self.degree = np.bincount(np.array(src, dtype=np.int64), minlength=n).astype(np.int64)
        self.indptr = np.concatenate([[0], np.cumsum(self.degree)])

    def __len__(self) -> int:
        return len(self.node_row)

    def nodes_of(self, row: int) -> list[int]:
        """The nodes an index row stands for: its own (an entity, a chunk naming entities) or, for a relation,
        its two entities'; [] for a row outside the graph."""
        node = self.row_node.get(row)
        if node is not None:
            return [node]
        found = np.flatnonzero(self.relations[:, 0] == row) if len(self.relations) else []
        return [int(x) for x in self.relations[found[0], 1:]] if len(found) else []

    def entity_ids(self, nodes: Mapping[int, float] | Sequence[int]) -> list[str]:
        """The entity ids of entity nodes, in the order given."""
        return [self.entity_of[n] for n in nodes if n in self.entity_of]

    # ----------------------------------------------------------------- linking

    def link(self, query: str) -> dict[int, float]:
        """Entity node -> seed weight for the entities the query names (module docstring)."""
        if not self.names:
            return {}
        raw = cased_tokens(query[:2000])
        words = [fold(w) for w in raw]
        capital = [w[:1].isupper() and f not in STOPWORDS for w, f in zip(raw, words)]
        cased = any(c.isupper() for w in raw for c in w)  # a query with capitals writes names with them
        taken = [False] * len(words)
        seeds: dict[int, float] = {}
        for size in range(min(self.longest, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                nodes = self.names.get(tuple(words[start : start + size]))
                if not nodes or any(taken[start : start + size]) or (cased and not any(capital[start : start + size])):
                    continue
                taken[start : start + size] = [True] * size
                for node in nodes:
                    seeds[node] = 1.0 / max(float(self.mentions[node]), 1.0)
        return seeds

    # ----------------------------------------------------------------- walking

    def pagerank(self, seeds: Mapping[int, float], *, restart: float = 0.5, eps: float = 1e-5,
                 indptr: np.ndarray | None = None, indices: np.ndarray | None = None) -> np.ndarray:
        """Personalised PageRank mass of every node for the seed weights (normalised to 1), by pushes."""
        n = len(self.node_row)
        p, r = np.zeros(n), np.zeros(n)
        total = sum(seeds.values())
        if total <= 0 or n == 0:
            return p
        for node, weight in seeds.items():
            r[node] += weight / total
        indptr = self.indptr if indptr is None else indptr
        indices = self.indices if indices is None else indices
        degree = np.diff(indptr)
        threshold = eps * np.maximum(degree, 1)
        for _ in range(200):
            active = np.flatnonzero(r > threshold)
            if len(active) == 0:
                break
            push = r[active]
            r[active] = 0.0
            p[active] += restart * push
            counts = degree[active]
            if not counts.sum():
                continue
            starts = np.repeat(indptr[active] - np.cumsum(counts) + counts, counts)
            edges = starts + np.arange(int(counts.sum()))
            share = np.repeat((1.0 - restart) * push / np.maximum(counts, 1), counts)
            r += np.bincount(indices[edges], weights=share, minlength=n)
        return p

    def without_relations(self, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, indices) without the edges of relations whose row `allowed` (a row mask) leaves out (as-of
        filters: a relation not believed then is not walked)."""
        keep = (self.via < 0) | allowed[np.maximum(self.via, 0)]
        if keep.all():
            return self.indptr, self.indices
        src = np.repeat(np.arange(len(self.node_row)), self.degree)
        degree = np.bincount(src[keep], minlength=len(self.node_row))
        return np.concatenate([[0], np.cumsum(degree)]), self.indices[keep]

    def rank(self, seeds: Mapping[int, float], *, allowed: np.ndarray | None = None, limit: int = 100,
             restart: float = 0.5, indptr: np.ndarray | None = None, indices: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the `limit` best index rows (allowed by the `allowed` row mask) by PageRank from
        `seeds`, best first (ties: lower row first). Rows the walk did not reach are left out."""
        mass = self.pagerank(seeds, restart=restart, indptr=indptr, indices=indices)
        reached = np.flatnonzero(mass > 0)
        rows, scores = self.node_row[reached], mass[reached]
        keep = rows >= 0
        rows, scores = rows[keep], scores[keep]
        if len(self.relations):
            rel_rows, a, b = self.relations.T
            both = np.sqrt(mass[a] * mass[b])
            rows, scores = np.concatenate([rows, rel_rows[both > 0]]), np.concatenate([scores, both[both > 0]])
        if allowed is not None and len(rows):
            keep = allowed[rows]
            rows, scores = rows[keep], scores[keep]
        order = np.lexsort((rows, -scores))[:limit]
        return rows[order], scores[order]
