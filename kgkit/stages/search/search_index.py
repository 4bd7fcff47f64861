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
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kgkit.stages.search.bm25 import GrowingArray, KeywordIndex
from kgkit.stages.search.config import (
    CHANNELS,
    HIT_COLUMNS,
    Filters,
    IndexChanges,
    Progress,
    SearchConfig,
    SearchStore,
)
from kgkit.stages.search.dense import DenseIndex
from kgkit.stages.search.fusion import convex, mmr, rrf
from kgkit.stages.search.graph_channel import EntityGraph
from kgkit.stages.search.items import KINDS, SearchItem
from kgkit.stages.search.names import name_coverage, query_tokens
from kgkit.stages.search.query import QueryVectors, beside
from kgkit.stages.search.text import query_terms

if TYPE_CHECKING:
    import pandas as pd

    from kgkit.core.protocols import StageCache
    from kgkit.stages.embed import Embedder

__all__ = ["CHANNELS", "HIT_COLUMNS", "Filters", "IndexChanges", "Progress", "SearchConfig", "SearchIndex",
           "SearchStore"]

RELATION = KINDS.index("relation")


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
        self.query_vectors = QueryVectors()  # recent queries' vectors (kgkit.stages.search.query)
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

    def _embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """The embedder's vectors for `texts` (kgkit.stages.embed.embed_batched: through the cache, shortest first)."""
        from kgkit.stages.embed import embed_batched

        return embed_batched(texts, embedder=self.embedder, cache=self.cache, progress=progress)

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
        """The entity graph of the live items (kgkit.stages.search.graph_channel), None when no item names an entity.
        Built at the first graph search after a write, then kept."""
        if not self._with_entities:
            return None
        with self._lock:
            if self._graph is None:
                self._graph = EntityGraph(self.items, self.keyword.alive.view())
            return self._graph

    # ----------------------------------------------------------------- search

    def _keyword(self, query: str, terms: list[str], allowed: np.ndarray | None
                 ) -> tuple[tuple[np.ndarray, np.ndarray], dict[str, float], bool, float]:
        """The keyword channel's (rows, scores), the fusion weights its hits imply (SearchConfig: coverage and
        lookup), whether the query is a lookup, and its wall ms."""
        started, config = time.perf_counter(), self.config
        weights = dict(config.weights)
        rows, scores, matched = self.keyword.search(terms, mask=allowed, limit=config.depth,
                                                    pairs=self.keyword.query_pairs(query))
        coverage = int(matched.max()) / len(terms) if len(matched) else 0.0
        lookup = coverage >= 1.0
        if config.fusion == "convex" and config.coverage_power:
            floor = weights.get("keyword", 0.0)
            weights["keyword"] = floor + (1.0 - floor) * coverage**config.coverage_power
            weights["dense"] = 1.0 - weights["keyword"]
        if lookup:
            weights["dense"] = weights.get("dense", 1.0) * config.lookup_dense
        return (rows, scores), weights, lookup, round((time.perf_counter() - started) * 1000, 3)

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
        weights, lookup, vector = dict(config.weights), False, None
        dense = ("dense" in channels and self.dense is not None and bool(query.strip()) and len(self.dense) > 0
                 and bool(weights.get("dense", 1.0)))
        text = query[:2000]
        if "keyword" in channels and terms:
            # a question no row has every word of (so no lookup) is embedded on the embedder's own thread while
            # the keyword channel runs here (kgkit.stages.search.query); any other after it, when it is no lookup
            job = self.query_vectors.job(self.embedder, text, size=config.query_cache) \
                if dense and config.overlap and self.keyword.lookup_possible(terms, mask=allowed) is False else None
            if job is not None:
                (found, weights, lookup, took), vector = beside(
                    job, lambda: self._keyword(query, terms, allowed), stop=lambda out: not out[1].get("dense"))
                if vector is not None:
                    vector = self.query_vectors.put(self.embedder, text, vector, size=config.query_cache)
                timings["keyword"] = took
                t = lap("keyword+embed", t)
            else:
                found, weights, lookup, _ = self._keyword(query, terms, allowed)
                t = lap("keyword", t)
            ranked["keyword"] = found
        if dense and weights.get("dense", 1.0):
            if vector is None:
                vector = self.query_vectors.vector(self.embedder, text, size=config.query_cache)
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
        frame = hits_frame(page, self.items, _page_detail(page, ranked), offset=offset, matches=matches)
        lap("assemble", t)
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        timings["cpu_total"] = round((time.process_time() - cpu_started) * 1000, 3)
        frame.attrs.update(total=len(fused), timings_ms=timings, terms=terms, channels=list(ranked), lookup=lookup,
                           weights={c: weights.get(c, 1.0) for c in ranked},
                           named=graph.entity_ids(named) if named else [])
        return frame


def _page_detail(page: Sequence[tuple[int, float]], ranked: dict[str, tuple[np.ndarray, np.ndarray]]
                 ) -> dict[str, dict[int, tuple[int, float]]]:
    """Per channel, each page row's (1-based rank, score) in that channel's list, for the rows it has (looked
    up for the page's rows only, not built for every candidate)."""
    wanted = np.array([row for row, _ in page], dtype=np.int64)
    detail = {}
    for channel, (rows, scores) in ranked.items():
        at, rank = np.nonzero(wanted[:, None] == np.asarray(rows)[None, :])
        detail[channel] = {int(wanted[i]): (int(r) + 1, float(scores[r])) for i, r in zip(at, rank)}
    return detail
