"""The index workflow and search over a Workspace: entities and relations from the current graph, chunks from
the corpus the run read (its folder and chunk sizes come from the manifest, so nothing is asked twice).

>>> import tempfile
>>> from kgkit.stages.embed import HashingEmbedder
>>> from kgkit.testing.workspaces import sample_workspace
>>> ws = sample_workspace(tempfile.mkdtemp())
>>> report = index_report(ws, embedder=HashingEmbedder(dim=32))
>>> report.items > 0, report.unchanged == 0, ws.manifest().stale
(True, True, {})
>>> index(ws, embedder=HashingEmbedder(dim=32))["unchanged"] == report.items
True
>>> search(ws, "Ada Lovelace", kind=["entity"], embedder=HashingEmbedder(dim=32)).iloc[0]["title"]
'Ada Lovelace'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgkit.core.executor import Executor
from kgkit.io.cache import Cache
from kgkit.io.search_store import DB_NAME, IndexStore, open_index
from kgkit.io.workspace import GRAPH, INDEX_DIR, Workspace, WorkspaceError
from kgkit.stages.chunk import chunk_document
from kgkit.stages.embed import embed_batched
from kgkit.stages.search import entities_by_chunk, items_from_chunks, items_from_graph
from kgkit.stages.search.minilm import search_embedder
from kgkit.workflows.corpus import Progress, load_corpus
from kgkit.workflows.executors import open_executor
from kgkit.workflows.graph import as_workspace, read_graph
from kgkit.workflows.pipeline import Settings
from kgkit.workflows.records import IndexReport

if TYPE_CHECKING:
    from kgkit.core.graph import Graph
    from kgkit.core.records import Chunk, Document, DocumentError

__all__ = ["IndexReport", "IndexUpdate", "index", "index_report", "open_search_index", "prepare_index_update",
           "query_embedder", "search"]


def index(
    workspace: Workspace | str | os.PathLike[str], corpus: str | os.PathLike[str] | None = None, *,
    embedder: Any = None, embedder_name: str | None = None, lock_timeout: float = 60.0,
    progress: Progress | None = None, executor: Executor | str | None = None,
    cache: Cache | str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """`index_report(...)` as its JSON form (what `kgkit index` prints): the counts."""
    return index_report(workspace, corpus, embedder=embedder, embedder_name=embedder_name,
                        lock_timeout=lock_timeout, progress=progress, executor=executor, cache=cache).to_json_dict()


def index_report(
    workspace: Workspace | str | os.PathLike[str], corpus: str | os.PathLike[str] | None = None, *,
    embedder: Any = None, embedder_name: str | None = None, lock_timeout: float = 60.0,
    progress: Progress | None = None, executor: Executor | str | None = None,
    cache: Cache | str | os.PathLike[str] | None = None, graph: Graph | None = None,
    corpus_chunks: tuple[Sequence[Document], Sequence[DocumentError], Sequence[Chunk]] | None = None,
) -> IndexReport:
    """Add or update the workspace's search index (WORKSPACE/index): entities and relations of graph.json,
    chunks of `corpus` (default: the corpus of the last run, chunked with its sizes). Unchanged items are
    skipped, changed ones replaced, items no longer there removed. Returns what changed.

    `embedder`: the dense channel's (kgkit.stages.search.minilm.search_embedder names them; None: no dense
    channel). `progress(stage, done, total)` is called as items are embedded (stage "embed"), once per batch
    of 64 texts as it finishes, for a progress bar (the CLI draws one) or a notebook.

    `executor`: where the embedding batches run (kgkit.workflows.executors: "serial", "threads:N", "local:N"
    for a Dask LocalCluster, "tcp://host:8786" for a running scheduler, or an Executor such as
    `DaskExecutor(client)`); the stored vectors are the serial ones. `cache`: the content-hash cache (a
    Cache, a folder or an fsspec URL; default WORKSPACE/cache), read and written by this process only.

    `graph` and `corpus_chunks` (documents, unreadable files, chunks): what a caller that holds the writer lock
    already has (an add: the graph it wrote, the corpus it read and chunked with the manifest's sizes), used
    instead of reading graph.json and loading and chunking the corpus again; the index is the same."""
    ws = as_workspace(workspace)
    # an executor's name ("local:2", "tcp://host:8786") opens and closes a cluster
    with ws.writer(lock_timeout=lock_timeout, step="index"), open_executor(executor) as mapper, \
            prepare_index_update(ws, corpus, embedder=embedder, progress=progress, cache=cache, mapper=mapper,
                                 graph=graph, corpus_chunks=corpus_chunks) as update:
        return update.apply(embedder_name=embedder_name)


def prepare_index_update(
    ws: Workspace, corpus: str | os.PathLike[str] | None = None, *, embedder: Any = None,
    progress: Progress | None = None, cache: Cache | str | os.PathLike[str] | None = None, mapper: Any = None,
    graph: Graph | None = None,
    corpus_chunks: tuple[Sequence[Document], Sequence[DocumentError], Sequence[Chunk]] | None = None,
    embed_now: bool = False, opened: Any = None,
) -> IndexUpdate:
    """The first half of `index_report` (same arguments; `mapper`: an open Executor, or None for serial), inside
    the caller's writer lock: the items made and the index opened; nothing in it is written yet. `apply()`
    writes it. `embed_now`: the new or changed items' texts are embedded into the cache here, so that `apply()`
    reads them back (an add prepares while its view is drawn in another process, before it commits the graph
    the index then follows; a large first index does not: it would read every vector back). `opened`: the
    index opened already (`open_index(ws.index_dir, embedder=embedder, cache=...)`), closed by this update."""
    cache = cache if isinstance(cache, Cache) else Cache(cache if cache is not None else ws.cache_dir)
    search_index = opened
    try:
        items, kinds, failed = _items(ws, corpus, graph, corpus_chunks, cache)
        if search_index is None:
            search_index = open_index(ws.index_dir, embedder=embedder, cache=cache.using(mapper), progress=progress)
        if embed_now and search_index.embedder is not None:  # what `add` embeds, now (a cache entry per text)
            row_of, stored = search_index.row_of, search_index.items
            texts = list(dict.fromkeys(i.text for i in items if i.id not in row_of
                                       or stored[row_of[i.id]].hash != i.hash))
            embed_batched(texts, embedder=search_index.embedder, cache=search_index.cache)
    except BaseException:
        if search_index is not None:
            search_index.close()
        raise
    return IndexUpdate(ws, search_index, items, kinds, failed, progress)


def _items(ws: Workspace, corpus: str | os.PathLike[str] | None, graph: Graph | None, corpus_chunks: Any,
           cache: Cache) -> tuple[list[Any], set[str], int]:
    """The items to index (entities and relations of the graph, chunks of the corpus), the kinds they cover and
    how many corpus files could not be read."""
    config = Settings.of(ws)
    folder = corpus if corpus is not None else config.corpus
    has_graph = ws.exists(GRAPH)
    if folder is None and not has_graph:
        raise WorkspaceError(f"nothing to index in {ws.root}: no graph.json and no corpus folder")
    if folder is not None and not Path(folder).exists():
        raise FileNotFoundError(f"{folder}: no such file or folder (the corpus to index)")
    if graph is None and has_graph:
        graph = read_graph(ws)
    items, kinds = [], set()
    mentions: dict[str, list[str]] = {}
    if graph is not None:
        items += items_from_graph(graph)
        mentions = entities_by_chunk(graph)
        kinds |= {"entity", "relation"}
    failed = 0
    if corpus_chunks is None and folder is not None:
        documents, errors = load_corpus(folder, cache=cache, max_bytes=config.max_bytes,
                                        exclude=[ws.root])
        corpus_chunks = documents, errors, [c for d in documents for c in chunk_document(
            d, max_chars=config.max_chars, overlap_chars=config.overlap_chars)]
    if corpus_chunks is not None:
        documents, errors, chunks = corpus_chunks
        failed = len(errors)
        items += items_from_chunks(chunks, entities_by_chunk=mentions, paths={d.id: d.path for d in documents})
        kinds.add("chunk")
    return items, kinds, failed


class IndexUpdate:
    """A prepared index update (`prepare_index_update`): `apply()` writes it, `close()` (or leaving the `with`
    block) closes the index either way."""

    def __init__(self, ws: Workspace, search_index: Any, items: list[Any], kinds: set[str], failed: int,
                 progress: Progress | None) -> None:
        self.ws, self.search_index, self.items, self.kinds = ws, search_index, items, kinds
        self.failed, self.progress = failed, progress

    def apply(self, *, embedder_name: str | None = None) -> IndexReport:
        """Add or replace the items, remove those no longer there, save and close the index, and commit an
        "index" generation that marks it fresh (inside the caller's writer lock); what changed."""
        search_index, items, kinds = self.search_index, self.items, self.kinds
        try:
            if embedder_name is not None:
                search_index.store.set_meta({"embedder_name": embedder_name})
            changes = search_index.add(items, progress=self.progress)
            keep = {i.id for i in items}
            stale = [i.id for row, i in enumerate(search_index.items)
                     if i.kind in kinds and i.id not in keep and search_index.row_of.get(i.id) == row]
            removed = search_index.remove(stale).removed
            report = IndexReport(**changes.model_dump(exclude={"removed"}), removed=removed,
                                 items=len(search_index), documents_unreadable=self.failed,
                                 index=str(self.ws.index_dir))
        finally:
            self.close()
        gen = self.ws.begin("index", config={"index_embedder": embedder_name})
        gen.mark_fresh(INDEX_DIR)
        gen.commit()
        return report

    def close(self) -> None:
        if self.search_index is not None:
            self.search_index.close()
            self.search_index = None

    def __enter__(self) -> IndexUpdate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_search_index(workspace: Workspace | str | os.PathLike[str], *, embedder: Any = None) -> Any:
    """The workspace's search index for reading (WorkspaceError when it has none yet)."""
    ws = as_workspace(workspace)
    if not (ws.index_dir / DB_NAME).exists():
        raise WorkspaceError(f"no search index in {ws.root}: run `kgkit index DOCS -w {ws.root}` first")
    return open_index(ws.index_dir, embedder=embedder)


def query_embedder(workspace: Workspace | str | os.PathLike[str]) -> Any:
    """The embedder that embeds a query like the workspace's index was embedded (the name and cut it was built
    with; None when it has no dense channel). Nothing loads until a query needs a vector."""
    ws = as_workspace(workspace)
    if not (ws.index_dir / DB_NAME).exists():
        return None
    store = IndexStore(ws.index_dir)
    try:
        meta = store.meta()
    finally:
        store.close()
    return search_embedder(meta.get("embedder_name", "none"), stored_id=meta.get("embedder"))


def search(workspace: Workspace | str | os.PathLike[str], query: str, *, embedder: Any = None, **options: Any) -> Any:
    """Search the workspace's index (a DataFrame of hits; see kgkit.stages.search.SearchIndex.search)."""
    found = open_search_index(workspace, embedder=embedder)
    try:
        return found.search(query, **options)
    finally:
        found.close()
