"""The search index's settings and contracts: the channels, the hit columns, `SearchConfig` (ranking
settings), `Filters`, `IndexChanges` (what a write changed) and `SearchStore` (what a SearchIndex needs of its
store). kgkit.stages.search.search_index re-exports them.

>>> SearchConfig().depth, Filters.make(kind="entity").kind, Filters().empty
(100, ('entity',), True)
>>> IndexChanges(added=2).to_json_dict()
{'added': 2, 'replaced': 0, 'unchanged': 0, 'removed': 0}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from kgkit.core.records import Record
from kgkit.stages.search.items import KINDS, SearchItem

__all__ = ["CHANNELS", "HIT_COLUMNS", "Filters", "IndexChanges", "Progress", "SearchConfig", "SearchStore"]

CHANNELS = ("keyword", "dense", "graph")
Progress = Callable[[str, int, int], None]
"""A progress callback: (stage, done, total), as kgkit.workflows.corpus.Progress."""
HIT_COLUMNS = ["rank", "id", "kind", "score", "title", "type", "document_id", "chunk_id", "start", "end", "evidence",
               "text", "documents", "entities", "keyword_rank", "keyword_score", "dense_rank", "dense_score",
               "graph_rank", "graph_score", "match"]


class IndexChanges(Record):
    """What one `SearchIndex.add` or `remove` changed: items added, replaced (content changed), unchanged, removed."""

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    removed: int = 0

    def to_json_dict(self) -> dict[str, int]:
        return self.model_dump()


@dataclass(frozen=True)
class SearchConfig:
    """Ranking settings (measured on every shared set at once: bench/RESULTS.md, "Search (issue 16)").

    `fusion`: "convex" (default): score = w_keyword * BM25F / the best BM25F + w_dense * cosine, with
    w_keyword = weights["keyword"] + (1 - weights["keyword"]) * coverage ** `coverage_power` and w_dense =
    1 - w_keyword, where coverage is the largest share of the query's terms one keyword hit has (a query whose
    words one item nearly all has is trusted to its words, a question whose words are spread is trusted to its
    meaning). "rrf": weighted reciprocal rank fusion, sum of weights[c] / (k + rank), the weights as given.
    `depth`: how many candidates each channel contributes (the fused list, and so every page, is drawn from
    those).

    `lookup_dense` scales the dense weight for a lookup: a query whose every term some keyword hit contains
    (the words are in the index together, so the exact-word channel is trusted; 0 leaves the dense channel out
    of such a query's fusion, and then it does not run: no query embedding).

    Graph channel (kgkit.stages.search.graph_channel), when the query names entities and weights["graph"] is not 0:
    `graph_restart` is the PageRank restart probability; a named entity seeds 1 / the chunks that mention it,
    and the `graph_text_seeds` best dense hits (fused hits when the dense channel did not run) are seeds too,
    weighing `graph_text_weight` together, each 1/rank; the items the walk reaches then rank first, by
    PageRank, the rest follow.

    `query_cache`: how many query vectors (by query text) the index keeps, most recently used first, so the
    next page of a question or a repeated question skips the query embedding (~2-3 ms int8, ~14 ms torch); 0: none.

    `dense_approximate`: from this many rows the dense channel scans a product-quantised copy of the vectors
    (faiss, when installed) and re-scores its `dense_candidates` best rows exactly, instead of the exact product
    (kgkit.stages.search.dense); None: always exact.

    `names`: items named by the query (an exact name, or a name holding the query as a phrase) rank first
    (kgkit.stages.search.names); False ranks by the fused score alone.

    `overlap`: a question no item has every word of is embedded on the embedder's own thread while the keyword
    channel runs, when the embedder allows it (kgkit.stages.search.query: LeanMiniLM's onnxruntime encoder,
    once loaded); False: one after the other (a process with one core gains nothing from it)."""

    weights: dict[str, float] = field(default_factory=lambda: {"keyword": 0.2, "dense": 0.8, "graph": 1.0})
    fusion: str = "convex"
    k: float = 60.0
    depth: int = 100
    lookup_dense: float = 0.0
    query_cache: int = 256
    dense_approximate: int | None = 20_000
    dense_candidates: int = 1_000
    names: bool = True
    overlap: bool = True
    coverage_power: float = 4.0
    graph_restart: float = 0.3
    graph_text_seeds: int = 5
    graph_text_weight: float = 0.1


@dataclass(frozen=True)
class Filters:
    """Filters every channel applies: item kinds, types (entity or relation type; chunks have none),
    documents (an item from any of them), and graph time (relations believed at `as_of`)."""

    kind: tuple[str, ...] = ()
    type: tuple[str, ...] = ()
    document: tuple[str, ...] = ()
    as_of: str | None = None

    @classmethod
    def make(cls, *, kind: str | Sequence[str] | None = None, type: str | Sequence[str] | None = None,
             document: str | Sequence[str] | None = None, as_of: str | None = None) -> Filters:
        def tup(v: str | Sequence[str] | None) -> tuple[str, ...]:
            return () if v is None else (v,) if isinstance(v, str) else tuple(v)

        bad = [k for k in tup(kind) if k not in KINDS]
        if bad:
            raise ValueError(f"unknown item kind {bad[0]!r}; kinds are {', '.join(KINDS)}")
        return cls(tup(kind), tup(type), tup(document), as_of or None)

    @property
    def empty(self) -> bool:
        return not (self.kind or self.type or self.document or self.as_of)


class SearchStore(Protocol):
    """Where a SearchIndex keeps its items, vectors and keyword snapshot between runs: what the index needs of
    a store (`kgkit.io.search_store.IndexStore`, opened by `kgkit.io.search_store.open_index`, is one)."""

    def load(self) -> tuple[list[SearchItem], list[np.ndarray | None], dict[str, Any]]:
        """Every stored item in stored order, its vector (None when not embedded) and the store's meta."""
        ...

    def ids(self) -> list[str]: ...

    def set_meta(self, values: dict[str, Any]) -> None: ...

    def write(self, upserts: Sequence[tuple[SearchItem, np.ndarray | None]], *, remove: Sequence[str] = (),
              meta: dict[str, Any] | None = None, _between_rows: Callable[[int], None] | None = None) -> None:
        """Atomically and durably: delete `remove`, replace-or-insert `upserts`, update `meta`."""
        ...

    def save_snapshot(self, arrays: dict[str, np.ndarray], *, ids: Sequence[str]) -> None: ...

    def load_snapshot(self, ids: Sequence[str]) -> tuple[dict[str, np.ndarray], int] | None:
        """The keyword snapshot and how many of `ids` (a prefix) it covers, or None when it is stale or absent."""
        ...

    def close(self) -> None: ...
