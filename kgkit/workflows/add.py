"""Incremental ingestion over a Workspace: add, update or retract documents of the corpus its last run read, with
that run's settings (domain, extractor, chunk sizes, seed ... from the manifest).

Only new or changed text is extracted: the extraction cache is keyed by chunk text, so every unchanged chunk is
a cache read. The graph is then built again from the per-document extractions of the whole corpus (cheap, and
what makes the result equal a full rebuild, byte for byte: corpus-level naming and support counts see every
document), with communities, view, extractions.jsonl and run.json, as one generation; an existing search index
is brought up to date in the same writer lock.

A file that left the corpus (`remove`, or deleted by hand) is *retracted*: its relations that no remaining
document supports stay in the graph with `expired_at` set to the time of the retraction, so `graph.as_of(t)`
before it still shows them. They are kept in RETRACTED (retracted.json) so later adds keep them; a document added
again brings its relations back to life. A full `kgkit run` rebuilds without them (the next add brings them
back from RETRACTED; delete it to forget them).

>>> import tempfile, pathlib
>>> from kgkit.testing.workspaces import CapitalisedNames, sample_workspace
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> ws = sample_workspace(root)
>>> _ = (root / "menabrea.txt").write_text("Luigi Menabrea wrote on the Analytical Engine.")
>>> added = add(ws, [root / "menabrea.txt"], extractor=CapitalisedNames(), at="2026-01-01T00:00:00Z")
>>> added.added, added.extractor_calls, "Person:luigi menabrea" in set(added.graph.entities["id"])
(['menabrea.txt'], 1, True)
>>> gone = add(ws, remove=["babbage.txt"], extractor=CapitalisedNames(), at="2026-02-01T00:00:00Z")
>>> gone.retracted, gone.expired_relations > 0
(['babbage.txt'], True)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from kgkit.core.constants import OFFLINE_BATCH_SIZE
from kgkit.core.executor import Executor
from kgkit.core.graph import Graph
from kgkit.io.cache import Cache
from kgkit.io.generation import dumps_json
from kgkit.io.search_store import DB_NAME
from kgkit.io.workspace import EXTRACTIONS, GRAPH, REMOVED_DIR, RUN, VIEW, Workspace, WorkspaceError
from kgkit.stages.build import build_graph
from kgkit.stages.communities import assign_communities, detect_communities, without_communities
from kgkit.stages.extract import Extractor, extract_texts
from kgkit.workflows.corpus import Progress, default_extractor, extract_documents, load_corpus
from kgkit.workflows.executors import open_executor
from kgkit.workflows.forked_call import ForkedCall
from kgkit.workflows.graph import (
    as_workspace,
    domain_of,
    mark_stale_if_changed,
    read_graph,
    replay_decisions,
    split_options,
    view_html,
    write_graph_outputs,
)
from kgkit.workflows.pipeline import Settings
from kgkit.workflows.prefork import ForkedWorkers
from kgkit.workflows.run import RunResult, reject_if_worse

__all__ = ["RETRACTED", "Added", "add"]

RETRACTED = "retracted.json"
"""Relations of retracted documents (expired, with their endpoints and provenance), kept across adds."""


@dataclass
class Added(RunResult):
    """An add: the run it amounts to (RunResult: documents, chunks, graph, outcome ...) and what changed."""

    added: list[str] = field(default_factory=list)  # corpus paths new or changed
    retracted: list[str] = field(default_factory=list)  # corpus paths that left the corpus in this add
    expired_relations: int = 0  # relations expired by this add's retractions
    index: dict[str, Any] | None = None  # the search index update (None: the workspace has no index)
    extraction_processes: int = 0  # worker processes that extracted (the CLI's forked ones); 0: this process

    def summary(self) -> dict[str, Any]:
        """run.json's fields plus added, retracted, expired_relations, index and extraction_processes."""
        return {**super().summary(), "schema": "kgkit.add/1", "added": self.added, "retracted": self.retracted,
                "expired_relations": self.expired_relations, "index": self.index,
                "extraction_processes": self.extraction_processes}


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _into_corpus(files: Sequence[str | os.PathLike[str]], corpus: Path) -> list[str]:
    """Copy each file into the corpus folder unless it is already in it; its path relative to the corpus."""
    out = []
    for name in files:
        source = Path(name).resolve()
        if not source.is_file():
            raise FileNotFoundError(f"{name}: no such file")
        try:
            out.append(source.relative_to(corpus).as_posix())
        except ValueError:
            target = corpus / source.name
            if target.exists() and target.read_bytes() != source.read_bytes():
                raise WorkspaceError(f"{target} already exists with other content: rename {name}, or copy it "
                                     "over the corpus file and add that") from None
            shutil.copyfile(source, target)
            out.append(source.name)
    return out


def _out_of_corpus(files: Sequence[str | os.PathLike[str]], corpus: Path, keep: Path) -> list[str]:
    """Move each named corpus file (a path, or a path relative to the corpus) out of the corpus folder into
    `keep` (the workspace's removed/ folder, same relative path): a person's file is never deleted."""
    out = []
    for name in files:
        path = Path(name)
        path = (corpus / path if not path.is_absolute() and (corpus / path).exists() else path).resolve()
        try:
            relative = path.relative_to(corpus).as_posix()
        except ValueError:
            raise WorkspaceError(f"{name} is not in the corpus {corpus}") from None
        if path.exists():
            target = keep / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, target)
        out.append(relative)
    return out


def _retract(previous: Graph | None, built: Graph, kept: dict[str, pd.DataFrame], gone_docs: set[str],
             at: str) -> tuple[dict[str, pd.DataFrame], int]:
    """The retracted store after this add: relations of `previous` (alive there) that only documents now gone
    supported, expired at `at`, with their provenance and endpoint entities, added to those `kept` from earlier
    adds; any whose id the new graph has again is dropped (its document came back)."""
    fresh = 0
    if previous is not None and gone_docs:
        rel, prov = previous.relations, previous.provenance
        alive = rel[rel["expired_at"].isna() & ~rel["id"].isin(set(built.relations["id"]))]
        rel_prov = prov[(prov["kind"] == "relation") & prov["item_id"].isin(set(alive["id"]))]
        from_gone = set(rel_prov.loc[rel_prov["document_id"].isin(gone_docs), "item_id"])
        expired = alive[alive["id"].isin(from_gone)].assign(expired_at=at)
        fresh = len(expired)
        ends = set(expired["source"]) | set(expired["target"])
        kept = {"relations": pd.concat([kept["relations"], expired]),
                "provenance": pd.concat([kept["provenance"], rel_prov[rel_prov["item_id"].isin(from_gone)]]),
                "entities": pd.concat([kept["entities"], previous.entities[previous.entities["id"].isin(ends)]])}
    back = set(built.relations["id"])
    rel = kept["relations"][~kept["relations"]["id"].isin(back)].drop_duplicates("id", keep="last")
    prov = kept["provenance"][kept["provenance"]["item_id"].isin(set(rel["id"]))].drop_duplicates()
    ends = set(rel["source"]) | set(rel["target"])
    ents = kept["entities"][kept["entities"]["id"].isin(ends)].drop_duplicates("id", keep="last")
    return {"relations": rel.reset_index(drop=True), "provenance": prov.reset_index(drop=True),
            "entities": ents.reset_index(drop=True)}, fresh


def _with_retracted(graph: Graph, store: dict[str, pd.DataFrame]) -> Graph:
    """The built graph plus the retracted relations (expired), their provenance and missing endpoints."""
    if store["relations"].empty:
        return graph
    known = set(graph.entities["id"])
    extra = store["entities"][~store["entities"]["id"].isin(known)]
    extra = extra[[c for c in graph.entities.columns if c in extra.columns]]
    cols = graph.relations.columns
    return graph.replace(
        entities=pd.concat([graph.entities, extra], ignore_index=True),
        relations=pd.concat([graph.relations, store["relations"][[c for c in cols if c in store["relations"]]]],
                            ignore_index=True).sort_values("id", kind="stable").reset_index(drop=True),
        provenance=pd.concat([graph.provenance, store["provenance"][graph.provenance.columns]], ignore_index=True))


def _read_store(ws: Workspace, graph: Graph | None) -> dict[str, pd.DataFrame]:
    empty = graph or Graph.empty()
    if not ws.exists(RETRACTED):
        return {"relations": empty.relations.iloc[:0], "provenance": empty.provenance.iloc[:0],
                "entities": empty.entities.iloc[:0]}
    stored = Graph.from_json_dict(ws.read_json(RETRACTED))
    return {"relations": stored.relations, "provenance": stored.provenance, "entities": stored.entities}


class _Before:
    """What an add needs besides the extractions, done once: the current graph and the retracted store read,
    the search index opened (`index`: the cache, given when it is to be), and networkx imported (communities).
    Run while extraction workers in other processes parse (their `while_waiting`), else after the extraction.
    `close()` closes an index not taken (`take_index`)."""

    def __init__(self, ws: Workspace, *, index: Cache | None) -> None:
        self.ws, self.index = ws, index
        self.called, self.error = False, None
        self.previous: Graph | None = None
        self.kept: dict[str, pd.DataFrame] = {}
        self.opened: Any = None

    def __call__(self) -> None:
        if self.called:
            return
        self.called = True
        try:
            self.previous = read_graph(self.ws) if self.ws.exists(GRAPH) else None
            self.kept = _read_store(self.ws, self.previous)
            import networkx  # noqa: F401  (communities needs it: imported while the workers parse)

            if self.index is not None:
                from kgkit.io.search_store import open_index
                from kgkit.workflows.index import query_embedder

                self.opened = open_index(self.ws.index_dir, embedder=query_embedder(self.ws),
                                         cache=self.index.using(None))
        except Exception as exc:  # raised by result(), in the add, not inside the extraction's map
            self.error = exc

    def take_index(self) -> Any:
        """The opened search index, now the caller's to close (None when none was opened)."""
        opened, self.opened = self.opened, None
        return opened

    def close(self) -> None:
        if self.opened is not None:
            self.take_index().close()

    def result(self) -> tuple[Graph | None, dict[str, pd.DataFrame]]:
        self()
        if self.error is not None:
            raise self.error
        return self.previous, self.kept


def add(
    workspace: Workspace | str | os.PathLike[str],
    files: Sequence[str | os.PathLike[str]] = (),
    *,
    remove: Sequence[str | os.PathLike[str]] = (),
    extractor: Extractor | None = None,
    executor: Executor | str | None = None,
    at: str | None = None,
    update_index: bool = True,
    max_failures: float = 0.1,
    keep_partial: bool = False,
    lock_timeout: float = 60.0,
    progress: Progress | None = None,
) -> Added:
    """Add `files` to the workspace's corpus (copied into its folder when outside it; a changed corpus file is
    re-read), retract `remove` (moved from the corpus folder into the workspace's removed/ folder) and any file deleted by hand, then bring graph,
    communities, view, extractions.jsonl, run.json and an existing search index up to date with the last run's
    settings. `extractor`: needed only when the run did not use the offline extractor (its id must match the
    run's). `executor`: where the new chunks are extracted (kgkit.workflows.executors: "serial" by default,
    "local:N", a scheduler's address, or an Executor such as the CLI's kgkit.workflows.prefork.ForkedWorkers,
    whose `batch_size` is then used). `at`: the retraction time stamped as `expired_at` (default: now, UTC). WorkspaceError when the
    workspace has no run to add to.

    As with `run`, a result worse than the current generation is not committed unless `keep_partial`: when more
    than `max_failures` of the corpus's chunks failed, or every chunk of a file named in `files` failed (its
    content would be missing, or its earlier version's replaced by nothing), `outcome` is "rejected", the
    summary goes to .kgkit/rejected-run.json and the workspace is left as it was."""
    ws = as_workspace(workspace)
    clock = time.perf_counter
    timings: dict[str, float] = {}
    with ws.writer(lock_timeout=lock_timeout, step="add"), contextlib.ExitStack() as stack:
        config = Settings.of(ws)
        if not config.corpus or not config.extractor:
            raise WorkspaceError(f"{ws.root} has no run to add to: run `kgkit run DOCS -o {ws.root}` first")
        corpus = Path(config.corpus).resolve()
        if not corpus.is_dir():
            raise WorkspaceError(f"the corpus folder of {ws.root} ({corpus}) is gone or not a folder")
        if extractor is None and config.model:
            raise WorkspaceError(f"{ws.root} was extracted with the model {config.model}: pass its extractor "
                                 "(kgkit.add(..., extractor=...)) to add with it")
        extractor = extractor or default_extractor()
        if extractor.id != config.extractor:
            raise WorkspaceError(f"the extractor {extractor.id} is not the one {ws.root} was built with "
                                 f"({config.extractor}): the graph would not equal a rebuild")
        added = _into_corpus(files, corpus)
        removed = _out_of_corpus(remove, corpus, ws.path(REMOVED_DIR))
        dom = domain_of(config.domain_name)
        if config.domain and dom.id != config.domain:
            raise WorkspaceError(f"the domain {config.domain_source} changed since {ws.root} was built "
                                 f"({dom.id}, was {config.domain}): run `kgkit run` again to rebuild with it")
        cache = Cache(ws.cache_dir)
        calls_before = cache.stats.computed[extract_texts.stage_name]
        t = clock()
        documents, errors = load_corpus(corpus, cache=cache, max_bytes=config.max_bytes,
                                        exclude=[ws.root])
        indexed = update_index and (ws.index_dir / DB_NAME).exists()
        timings["load"] = clock() - t
        t = clock()
        before = _Before(ws, index=cache if indexed else None)
        stack.callback(before.close)
        with open_executor(executor) as mapper:
            workers = mapper if isinstance(mapper, ForkedWorkers) else None  # the CLI's, forked at start
            if workers is not None:  # workers in other processes: read the graph and open the index while they parse
                workers.while_waiting(before)
            chunks, extractions = extract_documents(
                documents, cache=cache, domain=dom, extractor=extractor,
                max_chars=config.max_chars, overlap_chars=config.overlap_chars,
                batch_size=workers.batch_size if workers else OFFLINE_BATCH_SIZE, executor=mapper, progress=progress)
            processes = workers.processes if workers is not None and workers.used else 0
        previous, kept = before.result()
        timings["extract"] = clock() - t
        t = clock()
        # built directly, not through the cache: an add's extractions are new, so the cache would miss, and its
        # key (a fingerprint of every extraction) costs twice the build; a cached build is byte-identical anyway
        built = build_graph(extractions, domain=dom, learned_at=config.learned_at, **split_options(ws))
        built, journals = replay_decisions(ws, built, dom)
        paths_now = {d.path for d in documents} | {e.path for e in errors}
        gone = set() if previous is None else {
            str(r.id) for r in previous.documents.itertuples() if r.path not in paths_now}
        store, expired = _retract(previous, without_communities(built), kept, gone, at or _now())
        graph = _with_retracted(built, store)
        timings["build"] = clock() - t
        t = clock()
        comms = detect_communities(graph, seed=config.seed, method=config.community_method)
        graph = assign_communities(graph, comms)
        timings["communities"] = clock() - t
        t = clock()
        result = Added(calls_before=calls_before, documents=documents, errors=errors, chunks=chunks,
                       extractions=extractions, cache=cache, extractor_id=extractor.id, domain_id=dom.id,
                       timings=timings, graph=graph, communities=comms, notes=list(ws.notes),
                       added=added, retracted=sorted({p for p in removed} | {
                           str(r.path) for r in (previous.documents.itertuples() if previous is not None else [])
                           if str(r.id) in gone}), expired_relations=expired, extraction_processes=processes)
        emptied = [d.path for d in extractions if d.path in set(added) and d.chunks
                   and all(c.error is not None for c in d.chunks)]
        if reject_if_worse(ws, result, max_failures=max_failures, keep_partial=keep_partial, emptied=emptied,
                           step="add", flag=""):
            return result
        result.outcome = "failures" if (errors or result.chunk_errors) else "complete"
        view_nodes = config.view_nodes
        write_view = ws.exists(VIEW)
        # with extraction workers forked (the CLI), a child process forked now draws the view and writes out the
        # extractions while this one prepares the index update and the rest; the same bytes either way
        forks = isinstance(executor, ForkedWorkers) and threading.active_count() == 1
        t = clock()
        with ForkedCall.start(lambda g=graph: _drawn(ws, g, view_nodes if write_view else None, extractions),
                              fork=forks) as drawn, \
                _index_update(ws, indexed, graph, (documents, errors, chunks), cache, embed_now=forks,
                              opened=before.take_index()) as update:
            timings["index"] = clock() - t
            t = clock()
            gen = ws.begin("add")
            graph_bytes = graph.to_json_bytes(end=b"\n")
            mark_stale_if_changed(gen, graph_bytes)
            gen.stage(journals)
            if store["relations"].empty:
                if ws.exists(RETRACTED):
                    gen.remove(RETRACTED)
            else:
                gen.write_bytes(RETRACTED, Graph.empty().replace(**store).to_json_bytes(end=b"\n"))
            view, extractions_bytes = drawn.result()
            gen.write_bytes(EXTRACTIONS, extractions_bytes)
            result.outputs = write_graph_outputs(gen, graph, comms, write_view=write_view, view_nodes=view_nodes,
                                                 graph_bytes=graph_bytes, view=view)
            result.outputs.update(extractions=str(ws.path(EXTRACTIONS)), summary=str(ws.path(RUN)))
            timings["write"] = clock() - t
            result.generation = ws.manifest().generation + 1
            gen.write_json(RUN, result.run_summary().to_json_dict(), indent=2)
            gen.commit()
            if update is not None:
                t = clock()
                result.index = update.apply().to_json_dict()
                timings["index"] += clock() - t
                result.generation = ws.manifest().generation
    return result


def _drawn(ws: Workspace, graph: Graph, view_nodes: int | None, extractions: Sequence[Any]) -> tuple[str | None, bytes]:
    """graph.html's text (None when `view_nodes` is None: no view) and extractions.jsonl's bytes."""
    rows = "".join(dumps_json(e.model_dump(mode="json")) + "\n" for e in extractions)  # as Generation.write_jsonl
    return (view_html(ws, graph, view_nodes) if view_nodes is not None else None), rows.encode("utf-8")


@contextlib.contextmanager
def _index_update(ws: Workspace, indexed: bool, graph: Graph, corpus_chunks: Any, cache: Cache, *,
                  embed_now: bool, opened: Any) -> Iterator[Any]:
    """The search index update prepared (kgkit.workflows.index.prepare_index_update; None without an index):
    the graph about to be written and the corpus just read and chunked, not read and chunked again; `opened`:
    the index, opened while the extraction ran (it closes it)."""
    if not indexed:
        yield None
        return
    from kgkit.workflows.index import prepare_index_update, query_embedder

    with prepare_index_update(ws, embedder=None if opened else query_embedder(ws), graph=graph,
                              corpus_chunks=corpus_chunks, cache=cache, embed_now=embed_now, opened=opened) as update:
        yield update
