"""SearchIndex: entities, relations and chunks behind three channels (keyword BM25F, dense, graph): the text
channels fused by a convex combination of their normalised scores weighted by how much of the query one item
has, the graph channel's personalised PageRank when the query names entities, items the query names first;
filters apply inside every channel.

In memory by default; `kgkit.io.search_store.open_index(folder)` keeps it in a workspace (kgkit.io.search_store), where `add`
appends new items, replaces items whose content hash changed and skips the rest, each call one durable
transaction. Embeddings come from the `embedder` (through `cache` when given: one entry per text hash).

>>> from kgkit.stages.embed import HashingEmbedder
>>> from kgkit.stages.search.items import SearchItem
>>> index = SearchIndex(embedder=HashingEmbedder(dim=64))
>>> index.add([SearchItem(id="e1", kind="entity", title="Ada Lovelace", body="Person", type="Person"),
...            SearchItem(id="c1", kind="chunk", title="", body="Ada wrote the first program.", document_id="d1")])
IndexChanges(added=2, replaced=0, unchanged=0, removed=0)
>>> index.search("first program", limit=1)["id"].tolist()
['c1']
>>> index.search("ada", kind="entity")["id"].tolist()
['e1']
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from kgkit.core.records import Record
from kgkit.stages.search.bm25 import GrowingArray, KeywordIndex
from kgkit.stages.search.dense import DenseIndex
from kgkit.stages.search.fusion import convex, mmr, rrf
from kgkit.stages.search.graph import EntityGraph
from kgkit.stages.search.items import KINDS, SearchItem
from kgkit.stages.search.names import name_coverage, query_tokens
from kgkit.stages.search.text import query_terms

if TYPE_CHECKING:
    import pandas as pd

    from kgkit.core.protocols import StageCache
    from kgkit.stages.embed import Embedder

CHANNELS = ("keyword", "dense", "graph")
RELATION = KINDS.index("relation")
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

    Graph channel (kgkit.stages.search.graph), when the query names entities and weights["graph"] is not 0:
    `graph_restart` is the PageRank restart probability; a named entity seeds 1 / the chunks that mention it,
    and the `graph_text_seeds` best dense hits (fused hits when the dense channel did not run) are seeds too,
    weighing `graph_text_weight` together, each 1/rank; the items the walk reaches then rank first, by
    PageRank, the rest follow.

    `query_cache`: how many query vectors (by query text) the index keeps, most recently used first, so the
    next page of a question or a repeated question skips the query embedding (~12 ms with MiniLM); 0: none.

    `dense_approximate`: from this many rows the dense channel scans a product-quantised copy of the vectors
    (faiss, when installed) and re-scores its `dense_candidates` best rows exactly, instead of the exact product
    (kgkit.stages.search.dense); None: always exact.

    `names`: items named by the query (an exact name, or a name holding the query as a phrase) rank first
    (kgkit.stages.search.names); False ranks by the fused score alone."""

    weights: dict[str, float] = field(default_factory=lambda: {"keyword": 0.2, "dense": 0.8, "graph": 1.0})
    fusion: str = "convex"
    k: float = 60.0
    depth: int = 100
    lookup_dense: float = 0.0
    query_cache: int = 256
    dense_approximate: int | None = 20_000
    dense_candidates: int = 1_000
    names: bool = True
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


class SearchIndex:
    """Hybrid search over SearchItems. `add`/`remove` may be called from several threads (their store commits
    are grouped); a search running while another thread writes is not supported. A write is visible to the
    next search at once."""

    def __init__(self, *, embedder: Embedder | None = None, cache: StageCache | None = None,
                 config: SearchConfig | None = None, store: SearchStore | None = None) -> None:
        self.embedder, self.cache, self.store = embedder, cache, store
        self.config = config or SearchConfig()
        self.keyword = KeywordIndex()
        self.dense = DenseIndex(embedder.dim) if embedder is not None else None
        self.items: list[SearchItem] = []
        self.row_of: dict[str, int] = {}
        self._kind = GrowingArray(np.int8, -1)
        self._rows_by_type: dict[str, list[int]] = defaultdict(list)
        self._rows_by_document: dict[str, list[int]] = defaultdict(list)
        self._relation_rows: list[int] = []
        self._with_entities = 0  # rows (live or not) that name entities: the graph channel has something to walk
        self._graph: EntityGraph | None = None  # built at the first graph search after a write
        self._query_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()  # LRU by (embedder, text)
        self._query_lock = threading.Lock()
        self._lock = threading.Lock()  # concurrent writers: the store groups their commits, memory takes turns
        self._dirty = False  # written since the last keyword snapshot
        self.opened_from = "memory"  # after open: "snapshot" (keyword index loaded), "rows" (rebuilt) or
        # "snapshot+rows" (loaded, then the rows stored after it added)

    # ----------------------------------------------------------------- building

    @classmethod
    def from_store(cls, store: SearchStore, *, embedder: Embedder | None = None, cache: StageCache | None = None,
                   config: SearchConfig | None = None, progress: Progress | None = None) -> SearchIndex:
        """The index kept in `store` (kgkit.io.search_store.open_index opens one from a folder). Items embedded
        by another embedder are re-embedded (`progress` is told how far)."""
        index = cls(embedder=embedder, cache=cache, config=config, store=store)
        items, vectors, meta = store.load()
        same_model = embedder is not None and meta.get("embedder") == embedder.id
        if embedder is not None and not same_model and items:
            vectors = list(index._embed([i.text for i in items], progress))
            store.write(list(zip(items, vectors)), meta={"embedder": embedder.id})
            items, vectors, meta = store.load()
        elif embedder is not None and not same_model:
            store.set_meta({"embedder": embedder.id})
        snapshot = store.load_snapshot([i.id for i in items]) if items else None
        covered = 0
        if snapshot is not None:
            index.keyword, covered = KeywordIndex.from_state(snapshot[0]), snapshot[1]
        index.keyword.add_many([(i.title, i.body) for i in items[covered:]])
        for row, (item, vector) in enumerate(zip(items, vectors)):
            index._append(item, vector, row)
        index.keyword.settle()
        index.opened_from = "rows" if covered == 0 else "snapshot" if covered == len(items) else "snapshot+rows"
        if covered < len(items):
            index.save_snapshot()
        return index

    def save_snapshot(self) -> bool:
        """Write the keyword snapshot beside the store (kgkit.io.search_store) so the next open skips rebuilding
        the keyword index. Done by `open` after a rebuild and by `close` after writes; skipped (False) when the
        live rows in memory are not the stored rows in the stored order (possible after concurrent writers: the
        next open rebuilds and saves)."""
        if self.store is None:
            return False
        ids = self.store.ids()
        with self._lock:
            alive = self.keyword.alive.view()
            if ids != [item.id for item, live in zip(self.items, alive) if live]:
                return False
            self.store.save_snapshot(self.keyword.state(), ids=ids)
            self._dirty = False
        return True

    def close(self) -> None:
        """Save the keyword snapshot if there were writes, then close the store."""
        if self.store is not None:
            if self._dirty:
                self.save_snapshot()
            self.store.close()

    def __len__(self) -> int:
        return len(self.row_of)

    def _query_vector(self, text: str) -> np.ndarray:
        """The embedder's vector for a query text, from the LRU of recent queries when it is there. An embedder
        with a `query(text)` method (LeanMiniLM: onnxruntime int8) embeds the query through it."""
        query = getattr(self.embedder, "query", None)  # an embedder's own path for one query (LeanMiniLM.query)
        mode = getattr(self.embedder, "query_encoder", "")
        size, key = self.config.query_cache, (self.embedder.id, mode, text)  # type: ignore[union-attr]
        if size > 0:
            with self._query_lock:
                vector = self._query_vectors.get(key)
                if vector is not None:
                    self._query_vectors.move_to_end(key)
                    return vector
        vector = np.asarray(query(text) if callable(query) else self.embedder([text])[0],  # type: ignore[misc]
                            dtype=np.float32)
        vector.setflags(write=False)
        if size > 0:
            with self._query_lock:
                self._query_vectors[key] = vector
                while len(self._query_vectors) > size:
                    self._query_vectors.popitem(last=False)
        return vector

    def _embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """The embedder's vectors for `texts` (through the cache when there is one: one entry per text).
        Texts go shortest first in batches of 64, so a batch pads to texts of about its own length; identical
        texts are embedded once. `progress("embed", done, total)` after each batch."""
        if self.embedder is None:
            return np.zeros((len(texts), 0), dtype=np.float32)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        from kgkit.stages.embed import embed_rows

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        unique = list(dict.fromkeys(ordered))
        done, skipped = 0, 0  # texts embedded; texts the cache answered
        stats = getattr(self.cache, "stats", None)  # kgkit.io.cache.Cache counts a map's misses before computing
        misses_before = stats.misses.get("embed", 0) if stats is not None else 0

        def report(n: int) -> None:
            nonlocal done, skipped
            if done == 0 and stats is not None:
                skipped = len(unique) - (stats.misses.get("embed", 0) - misses_before)
            done += n
            if progress is not None:
                progress("embed", min(skipped + done, len(unique)), len(unique))

        if self.cache is not None:
            rows = self.cache.map(embed_rows, ordered, batch_size=64, on_batch=report, embedder=self.embedder)
        else:
            found: dict[str, np.ndarray] = {}
            for start in range(0, len(unique), 64):
                batch = unique[start : start + 64]
                found.update(zip(batch, embed_rows(batch, embedder=self.embedder)))
                report(len(batch))
            rows = [found[t] for t in ordered]
        if progress is not None and done:
            progress("embed", len(unique), len(unique))
        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        out[order] = np.stack(rows)
        return out

    def add(self, items: Iterable[SearchItem], *, vectors: np.ndarray | None = None, progress: Progress | None = None,
            _between_rows: Any = None) -> IndexChanges:
        """Add new items, replace those whose content hash changed, skip unchanged ones (one transaction).
        `vectors` (one row per item, from the index's embedder) skips embedding; by default items are embedded
        (`progress(stage, done, total)` is told how far)."""
        items = list(items)
        if vectors is not None and len(vectors) != len(items):
            raise ValueError(f"{len(vectors)} vectors for {len(items)} items")
        todo: dict[str, int] = {}
        unchanged = 0
        for position, item in enumerate(items):
            row = self.row_of.get(item.id)
            if row is not None and self.items[row].hash == item.hash and item.id not in todo:
                unchanged += 1
            else:
                todo[item.id] = position
        fresh = [items[p] for p in todo.values()]
        if self.embedder is None:
            vectors = [None] * len(fresh)
        elif vectors is not None:
            vectors = np.asarray(vectors, dtype=np.float32)[list(todo.values())]
        else:
            vectors = self._embed([i.text for i in fresh], progress)
        for item, vector in zip(fresh, vectors) if self.dense is not None else ():
            if vector is None or len(vector) != self.dense.dim:
                raise ValueError(f"item {item.id} has no {self.dense.dim}-d vector")
        if self.store is not None:
            meta = {"embedder": self.embedder.id} if self.embedder is not None else None
            self.store.write(list(zip(fresh, vectors)), meta=meta, _between_rows=_between_rows)
        with self._lock:
            replaced = sum(1 for i in fresh if i.id in self.row_of)
            for item in fresh:
                self._retire(item.id)
            first = self.keyword.add_many([(i.title, i.body) for i in fresh])
            for offset, (item, vector) in enumerate(zip(fresh, vectors)):
                self._append(item, vector, first + offset)
            self.keyword.settle()
            self._dirty = self._dirty or bool(fresh)
        return IndexChanges(added=len(fresh) - replaced, replaced=replaced, unchanged=unchanged)

    def remove(self, ids: Iterable[str]) -> IndexChanges:
        """Remove items by id (one transaction); unknown ids are ignored."""
        present = [i for i in dict.fromkeys(ids) if i in self.row_of]
        if self.store is not None and present:
            self.store.write([], remove=present)
        with self._lock:
            for item_id in present:
                self._retire(item_id)
            self._dirty = self._dirty or bool(present)
        return IndexChanges(removed=len(present))

    def _append(self, item: SearchItem, vector: np.ndarray | None, row: int) -> None:
        """Record `item` as `row` (its keyword row, added by the caller) in every per-row structure."""
        assert row == len(self.items), "rows are appended in order"
        self.items.append(item)
        self.row_of[item.id] = row
        self._kind.append(KINDS.index(item.kind))
        if item.type:
            self._rows_by_type[item.type].append(row)
        for doc in item.documents or ((item.document_id,) if item.document_id else ()):
            self._rows_by_document[doc].append(row)
        if item.entities:
            self._with_entities += 1
            self._graph = None
        if item.kind == "relation":
            self._relation_rows.append(row)
        if self.dense is not None:
            self.dense.add(vector)

    def _retire(self, item_id: str) -> None:
        row = self.row_of.pop(item_id, None)
        if row is not None:
            self.keyword.retire(row)
            if self.items[row].entities:
                self._graph = None

    # ----------------------------------------------------------------- filters

    def mask(self, filters: Filters) -> np.ndarray:
        """Boolean row mask: live rows passing every filter."""
        n = len(self.items)
        keep = self.keyword.alive.view().copy()
        if filters.kind:
            keep &= np.isin(self._kind.view(), [KINDS.index(k) for k in filters.kind])
        for rows_by, wanted in ((self._rows_by_type, filters.type), (self._rows_by_document, filters.document)):
            if wanted:
                hit = np.zeros(n, dtype=bool)
                for value in wanted:
                    hit[rows_by.get(value, [])] = True
                keep &= hit
        if filters.as_of:
            t = filters.as_of
            for row in self._relation_rows:
                item = self.items[row]
                if (item.created_at is not None and item.created_at > t) or (
                        item.expired_at is not None and item.expired_at <= t):
                    keep[row] = False
        return keep

    def graph(self) -> EntityGraph | None:
        """The entity graph of the live items (kgkit.stages.search.graph), None when no item names an entity.
        Built at the first graph search after a write, then kept."""
        if not self._with_entities:
            return None
        with self._lock:
            if self._graph is None:
                self._graph = EntityGraph(self.items, self.keyword.alive.view())
            return self._graph

    # ----------------------------------------------------------------- search

    def _name_first(self, query: str, terms: list[str], fused: list[tuple[int, float]], allowed: np.ndarray | None,
                    relations: Sequence[int] = ()) -> tuple[list[tuple[int, float]], dict[int, str]]:
        """Items named by the query first (kgkit.stages.search.names): exact names, then names holding the query
        as a phrase, those the query is more of first ("Marshal Stalin" before "Attlee ; Marshal Stalin" for
        "stalin"), then by fused score; then every other hit in fused order. Candidates: the `depth` rows with
        the shortest titles that have every query term, and the relations among the keyword channel's hits (a
        relation's fact has its type outside the title)."""
        wanted = query_tokens(query)
        if not wanted:
            return fused, {}
        coverage: dict[int, float] = {}
        candidates = self.keyword.title_rows(terms, mask=allowed, limit=self.config.depth).tolist()
        for row in dict.fromkeys([*candidates, *relations]):
            share = name_coverage(wanted, self.items[row])
            if share is not None:
                coverage[row] = share
        if not coverage:
            return fused, {}
        score = dict(fused)
        named = sorted(coverage, key=lambda r: (-coverage[r], -score.get(r, 0.0), r))
        first = [(r, score.get(r, 0.0)) for r in named]
        matches = {r: "exact" if coverage[r] == 1.0 else "phrase" for r in named}
        return first + [(r, s) for r, s in fused if r not in coverage], matches

    def search(self, query: str, *, kind: str | Sequence[str] | None = None, type: str | Sequence[str] | None = None,
               document: str | Sequence[str] | None = None, as_of: str | None = None, limit: int = 10,
               offset: int = 0, channels: Sequence[str] = CHANNELS, mmr_lambda: float | None = None) -> pd.DataFrame:
        """Hits as a DataFrame (HIT_COLUMNS), best first: items the query names (`match`), then by score
        (docs/search.md, "How it ranks"). `df.attrs` holds `total` (fused candidates), `timings_ms` (wall per
        stage, and `cpu_total`), `terms`, `channels` (those that ran), `lookup` (some keyword hit has every
        term), `weights` (the fusion weights used for each channel that ran) and `named` (the entity ids the
        query names: the graph channel's seeds)."""
        from kgkit.stages.search.hits import hits_frame

        started, cpu_started = time.perf_counter(), time.process_time()
        timings: dict[str, float] = {}

        def lap(name: str, since: float) -> float:
            now = time.perf_counter()
            timings[name] = round((now - since) * 1000, 3)
            return now

        if limit < 0 or offset < 0:
            raise ValueError("limit and offset must be >= 0")
        unknown = [c for c in channels if c not in CHANNELS]
        if unknown:
            raise ValueError(f"unknown channel {unknown[0]!r}; channels are {', '.join(CHANNELS)}")
        filters = Filters.make(kind=kind, type=type, document=document, as_of=as_of)
        terms = query_terms(query)
        t = lap("parse", started)
        allowed = None if filters.empty else self.mask(filters)
        t = lap("filter", t)
        depth = self.config.depth  # fixed, so `total` and every page are the same whatever the offset
        config = self.config
        ranked: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        weights = dict(config.weights)
        lookup = False
        if "keyword" in channels and terms:
            rows, scores, matched = self.keyword.search(terms, mask=allowed, limit=depth,
                                                        pairs=self.keyword.query_pairs(query))
            coverage = int(matched.max()) / len(terms) if len(matched) else 0.0
            lookup = coverage >= 1.0
            if config.fusion == "convex" and config.coverage_power:
                floor = weights.get("keyword", 0.0)
                weights["keyword"] = floor + (1.0 - floor) * coverage**config.coverage_power
                weights["dense"] = 1.0 - weights["keyword"]
            if lookup:
                weights["dense"] = weights.get("dense", 1.0) * config.lookup_dense
            ranked["keyword"] = (rows, scores)
            t = lap("keyword", t)
        if "dense" in channels and self.dense is not None and query.strip() and len(self.dense) and weights["dense"]:
            vector = self._query_vector(query[:2000])
            t = lap("embed", t)
            dmask = self.keyword.alive.view() if allowed is None else allowed
            ranked["dense"] = self.dense.search(vector, mask=dmask, limit=depth, approximate_from=config.dense_approximate,
                                                candidates=config.dense_candidates)
            t = lap("dense", t)
        text = {c: v for c, v in ranked.items() if weights.get(c, 1.0)}
        if config.fusion == "convex":
            fused = convex(text, weights=weights)
        else:
            fused = rrf({c: rows.tolist() for c, (rows, _) in text.items()}, weights=weights, k=config.k)
        t = lap("fusion", t)
        graph = self.graph() if "graph" in channels and weights.get("graph", 1.0) else None
        named = graph.link(query) if graph is not None else {}
        if named:
            seeds = dict(named)
            # the items the text points to are weaker seeds: by meaning when the dense channel ran (as
            # HippoRAG 2 seeds passage nodes by embedding similarity), else by the fused words; together they
            # weigh graph_text_weight, each 1/rank (a named entity weighs 1 / the chunks that mention it)
            first = ranked["dense"][0].tolist() if "dense" in text else [row for row, _ in fused]
            top = first[: config.graph_text_seeds]
            decay = sum(1.0 / (i + 1) for i in range(len(top)))
            for i, row in enumerate(top):
                nodes = graph.nodes_of(row)
                for node in nodes:
                    seeds[node] = seeds.get(node, 0.0) + config.graph_text_weight / (i + 1) / decay / len(nodes)
            walk = {}
            if filters.as_of is not None:
                live = self.mask(Filters(as_of=filters.as_of))
                walk = dict(zip(("indptr", "indices"), graph.without_relations(live)))
            live_rows = self.keyword.alive.view() if allowed is None else allowed
            rows, scores = graph.rank(seeds, allowed=live_rows, limit=depth, restart=config.graph_restart, **walk)
            ranked["graph"] = (rows, scores)
            best = float(scores[0]) if len(scores) else 1.0
            reached = {int(r): 1.0 + float(v) / best for r, v in zip(rows, scores)}
            fused = list(reached.items()) + [(r, v) for r, v in fused if r not in reached]
            t = lap("graph", t)
        detail = {c: {int(r): (i + 1, float(v)) for i, (r, v) in enumerate(zip(rows, scores))}
                  for c, (rows, scores) in ranked.items()}
        matches: dict[int, str] = {}
        if config.names and terms:
            relations = [r for r in ranked["keyword"][0].tolist() if self._kind.data[r] == RELATION] \
                if "keyword" in ranked else []
            fused, matches = self._name_first(query, terms, fused, allowed, relations)
            t = lap("names", t)
        if mmr_lambda is not None and self.dense is not None and fused:
            pool = fused
            rows = np.array([r for r, _ in pool])
            picked = mmr(np.array([s for _, s in pool]), self.dense.vectors(rows), limit=offset + limit,
                         lambda_=mmr_lambda)
            fused = [pool[i] for i in picked]
            t = lap("mmr", t)
        page = fused[offset : offset + limit]
        frame = hits_frame(page, self.items, detail, offset=offset, matches=matches)
        lap("assemble", t)
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        timings["cpu_total"] = round((time.process_time() - cpu_started) * 1000, 3)
        frame.attrs.update(total=len(fused), timings_ms=timings, terms=terms, channels=list(ranked), lookup=lookup,
                           weights={c: weights.get(c, 1.0) for c in ranked},
                           named=graph.entity_ids(named) if named else [])
        return frame
