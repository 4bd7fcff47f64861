"""The extraction workflows over a Workspace: run (= extract + build + communities + view) and extract (the
extractions only); the graph steps they share live in kgkit.workflows.graph. Each holds the workspace's writer lock, reads what it needs through the Workspace and
commits its outputs as one generation, with the run configuration in the manifest so later steps never ask
for it again.

>>> import tempfile, pathlib
>>> from kgkit.core.records import ExtractedEntity, TextExtraction
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "docs").mkdir(), (root / "docs" / "a.txt").write_text("Ada met Charles.")
>>> class Names:  # any Extractor works; the default is the offline spaCy one
...     id = "names:1"
...     def extract(self, texts, *, domain):
...         return [TextExtraction(extractor_id=self.id, entities=tuple(ExtractedEntity(name=w.strip("."),
...                 type="Person") for w in t.split() if w[0].isupper())) for t in texts]
>>> result = run(root / "ws", root / "docs", extractor=Names(), write_view=False)
>>> result.summary()["entities"], result.summary()["extractor_calls"], result.outcome
(2, 1, 'complete')
>>> run(root / "ws", root / "docs", extractor=Names(), write_view=False).summary()["extractor_calls"]
0
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kgkit import io
from kgkit.core.constants import DEFAULT_MAX_BYTES, MAX_CHUNK_CHARS, OFFLINE_BATCH_SIZE, OVERLAP_CHARS, VIEW_NODES
from kgkit.core.domain import Domain
from kgkit.core.executor import Executor
from kgkit.core.graph import Graph
from kgkit.core.records import Chunk, Document, DocumentError, DocumentExtraction
from kgkit.io.cache import Cache
from kgkit.io.workspace import (
    EXTRACT_SUMMARY,
    EXTRACTIONS,
    REJECTED_RUN,
    RUN,
    Workspace,
)
from kgkit.stages.build import build_graph
from kgkit.stages.communities import Communities, assign_communities, detect_communities
from kgkit.stages.extract import Extractor, capabilities, extract_texts
from kgkit.workflows.corpus import Progress, default_extractor, extract_documents, load_corpus
from kgkit.workflows.executors import open_executor
from kgkit.workflows.graph import (
    as_workspace,
    domain_of,
    mark_stale_if_changed,
    replay_decisions,
    split_options,
    write_graph_outputs,
)
from kgkit.workflows.pipeline import EXTRACTION_FIELDS, Settings, Step, execute
from kgkit.workflows.records import Outcome, RunSummary

__all__ = ["ExtractResult", "RunResult", "RunSummary", "extract", "run"]

@dataclass
class ExtractResult:
    """What an extraction produced: documents, per-file errors, chunks, per-document extractions, counters."""

    documents: list[Document]
    errors: list[DocumentError]
    chunks: list[Chunk]
    extractions: list[DocumentExtraction]
    cache: Cache
    extractor_id: str = ""
    domain_id: str = ""
    ledger: Any = None  # kgkit.llm.BudgetLedger when the extractor calls an LLM (cost report, budget)
    timings: dict[str, float] = field(default_factory=dict)
    calls_before: int = 0  # the cache's extractor count when this run started (a cache may serve many runs)

    @property
    def chunk_errors(self) -> list[str]:
        return [e for d in self.extractions for e in d.errors]

    @property
    def error_groups(self) -> list[dict[str, Any]]:
        """The chunk errors grouped by cause, most frequent first: [{"cause", "count", "fix"}]."""
        errors = [c.error for d in self.extractions for c in d.chunks if c.error]
        if not errors:  # nothing to group: kgkit.llm (asyncio, ssl ...) is not imported for it
            return []
        from kgkit.llm.errors import group_errors

        return group_errors(errors)

    @property
    def extractor_calls(self) -> int:
        """Texts the extractor actually processed in this run (0 on a fully cached re-run)."""
        return self.cache.stats.computed[extract_texts.stage_name] - self.calls_before

    def cost_report(self) -> Any:
        """Tokens and dollars per stage and per document (a DataFrame; empty without an LLM extractor)."""
        from kgkit.llm.report import cost_report

        return cost_report(self.ledger.charges if self.ledger is not None else [], self.extractions)

    def failed_share(self) -> float:
        """Failed chunks as a share of all chunks (0.0 with no chunks)."""
        return len(self.chunk_errors) / len(self.chunks) if self.chunks else 0.0


@dataclass
class RunResult(ExtractResult):
    """A run: the extraction, the graph built from it, its communities, what was written and the outcome
    (complete; failures: written, but some files or chunks failed; rejected: worse than the current
    generation, so nothing replaced it)."""

    graph: Graph = field(default_factory=Graph.empty)
    communities: Communities | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    outcome: Outcome = "complete"
    generation: int = 0
    notes: list[str] = field(default_factory=list)

    def run_summary(self) -> RunSummary:
        """The run as a RunSummary record (its JSON form is run.json)."""
        llm = {} if self.ledger is None else {"llm": self.ledger.summary(),
                                              "llm_costs": self.cost_report().to_dict("records")}
        return RunSummary(
            **llm, documents_ok=len(self.documents), failures=self.errors, chunks=len(self.chunks),
            chunk_errors=self.chunk_errors, error_groups=self.error_groups, entities=len(self.graph.entities), relations=len(self.graph.relations),
            communities=0 if self.communities is None else len(self.communities.summary),
            extractor_calls=self.extractor_calls, cache=self.cache.stats.snapshot(),
            timings={k: round(v, 3) for k, v in self.timings.items()}, outputs=self.outputs, outcome=self.outcome,
            generation=self.generation, notes=self.notes, domain=self.graph.meta.get("domain"),
            extractors=self.graph.meta.get("extractors", []))

    def summary(self) -> dict[str, Any]:
        """The JSON form of `run_summary()` (run.json)."""
        return self.run_summary().to_json_dict()


def _load(ws: Workspace, corpus: str | Path, cache: Cache, settings: Settings) -> tuple[list, list]:
    return load_corpus(corpus, cache=cache, max_bytes=settings.max_bytes, exclude=[ws.root])


def _extract(documents: list[Document], cache: Cache, domain: Domain, extractor: Extractor, settings: Settings,
             batch_size: int, executor: Executor | str | None, progress: Progress | None) -> tuple[list, list]:
    with open_executor(executor) as mapper:  # a name ("local:4", "tcp://host:8786") opens and closes a cluster
        chunks, extractions = extract_documents(documents, cache=cache, domain=domain, extractor=extractor,
                                                max_chars=settings.max_chars, overlap_chars=settings.overlap_chars,
                                                batch_size=batch_size, executor=mapper, progress=progress)
    _raise_preflight_failure(extractor)
    return chunks, extractions


def _build(ws: Workspace, extractions: list[DocumentExtraction], cache: Cache, domain: Domain,
           settings: Settings) -> tuple[Graph, list]:
    graph = cache.run(build_graph, extractions, domain=domain, learned_at=settings.learned_at, **split_options(ws))
    return replay_decisions(ws, graph, domain)


def _communities(graph: Graph, settings: Settings) -> tuple[Graph, Communities]:
    comms = detect_communities(graph, seed=settings.seed, method=settings.community_method)
    return assign_communities(graph, comms), comms


EXTRACT_STEPS = (
    Step("load", _load, inputs=("ws", "corpus", "cache", "settings"), outputs=("documents", "errors")),
    Step("extract", _extract, inputs=("documents", "cache", "domain", "extractor", "settings", "batch_size",
                                      "executor", "progress"), outputs=("chunks", "extractions")),
)
"""`extract`: the corpus read and extracted."""
RUN_STEPS = (
    *EXTRACT_STEPS,
    Step("build", _build, inputs=("ws", "extractions", "cache", "domain", "settings"), outputs=("graph", "journals")),
    Step("communities", _communities, inputs=("graph", "settings"), outputs=("graph", "communities")),
)
"""`run`: the extraction, then the graph built (decisions replayed) and its communities; then committed."""


def _raise_preflight_failure(extractor: Extractor) -> None:
    """An LLM extractor whose model failed its preflight check sent nothing: raise its PreflightError (the
    CLI exits with code 2) instead of recording every chunk as failed. The check runs before the first request
    the cache cannot answer, so a fully cached re-run needs neither the model nor its key."""
    failure = capabilities(extractor).preflight_failure
    if failure is not None:
        raise failure


def _settings(corpus: str | Path, domain: Domain, domain_source: Domain | str, extractor: Extractor,
              **sizes: Any) -> Settings:
    """The run's settings record (what the manifest keeps)."""
    return Settings(corpus=os.path.abspath(corpus), domain=domain.id,
                    domain_source=domain_source if isinstance(domain_source, str) else domain.name,
                    extractor=extractor.id, model=_client_field(extractor, "model"), **sizes)


def _client_field(extractor: Extractor, name: str) -> Any:
    """The model or ledger of the extractor's LLM client (None without one)."""
    client = capabilities(extractor).client
    return None if client is None else {"model": client.model, "ledger": client.ledger}[name]


def reject_if_worse(ws: Workspace, result: RunResult, *, max_failures: float, keep_partial: bool,
                    emptied: Sequence[str] = (), step: str = "run", flag: str = " (--keep-partial)") -> bool:
    """Mark `result` rejected (outcome, current generation, a note, .kgkit/rejected-run.json) and return True when
    it is worse than what it would replace, unless `keep_partial`: every chunk failed, more than `max_failures`
    of them did, or every chunk of a file in `emptied` did. The caller then commits nothing."""
    failed, chunks = result.chunk_errors, result.chunks
    all_failed = bool(chunks) and len(failed) == len(chunks)
    if keep_partial or not (emptied or all_failed or result.failed_share() > max_failures):
        return False
    result.outcome = "rejected"
    result.generation = ws.manifest().generation
    why = f"every chunk of {', '.join(emptied)} failed" if emptied else f"{len(failed)} of {len(chunks)} chunks failed"
    result.notes.append(f"{why}: nothing was replaced"
                        + (f" (generation {result.generation} is still current)" if result.generation else "")
                        + f"; fix the cause and {step} again, or keep it anyway with keep_partial=True{flag}")
    io.write_json(ws.path(REJECTED_RUN), result.summary(), indent=2)
    return True


def run(
    workspace: Workspace | str | os.PathLike[str],
    corpus: str | Path,
    *,
    domain: Domain | str = "general",
    extractor: Extractor | None = None,
    cache: Cache | None = None,
    executor: Executor | str | None = None,  # kgkit.workflows.executors: "local:4", "tcp://host:8786", ...
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_chars: int = MAX_CHUNK_CHARS,
    overlap_chars: int = OVERLAP_CHARS,
    batch_size: int = OFFLINE_BATCH_SIZE,
    learned_at: str | None = None,
    seed: int = 0,
    community_method: Literal["louvain", "leiden"] = "louvain",
    max_view_nodes: int = VIEW_NODES,
    write_view: bool = True,
    max_failures: float = 0.1,
    keep_partial: bool = False,
    lock_timeout: float = 60.0,
    progress: Progress | None = None,
) -> RunResult:
    """Load, chunk, extract, build, find communities and draw the view; commit graph.json (with communities),
    communities.json, extractions.jsonl, run.json and graph.html as one generation.

    A run whose chunks all failed, or more than `max_failures` (a share, 0.1 = 10%) of them, is not committed
    unless `keep_partial`: the previous generation stays current, the run's summary goes to
    .kgkit/rejected-run.json and `outcome` is "rejected"."""
    ws = as_workspace(workspace)
    dom = domain_of(domain)
    extractor = extractor or default_extractor()
    cache = cache or Cache(ws.cache_dir)
    settings = _settings(corpus, dom, domain, extractor, max_bytes=max_bytes, max_chars=max_chars,
                         overlap_chars=overlap_chars, learned_at=learned_at, seed=seed,
                         community_method=community_method, view_nodes=max_view_nodes)
    timings: dict[str, float] = {}
    clock = time.perf_counter
    with ws.writer(lock_timeout=lock_timeout, step="run"):
        calls_before = cache.stats.computed[extract_texts.stage_name]
        done = execute(RUN_STEPS, {"ws": ws, "corpus": corpus, "cache": cache, "settings": settings, "domain": dom,
                                   "extractor": extractor, "batch_size": batch_size, "executor": executor,
                                   "progress": progress}, timings=timings)
        documents, errors, chunks, extractions = (done[k] for k in ("documents", "errors", "chunks", "extractions"))
        graph, comms, journals = done["graph"], done["communities"], done["journals"]
        result = RunResult(calls_before=calls_before, documents=documents, errors=errors, chunks=chunks,
                           extractions=extractions, cache=cache,
                           extractor_id=extractor.id, domain_id=dom.id, ledger=_client_field(extractor, "ledger"),
                           timings=timings, graph=graph, communities=comms, notes=list(ws.notes))
        if reject_if_worse(ws, result, max_failures=max_failures, keep_partial=keep_partial):
            return result
        failed = result.chunk_errors
        result.outcome = "failures" if (errors or failed) else "complete"
        t = clock()
        gen = ws.begin("run", config=settings.manifest_config())
        graph_bytes = graph.to_json_bytes(end=b"\n")
        mark_stale_if_changed(gen, graph_bytes)
        result.outputs = write_graph_outputs(gen, graph, comms, write_view=write_view, view_nodes=max_view_nodes)
        gen.write_jsonl(EXTRACTIONS, [e.model_dump(mode="json") for e in extractions])
        gen.stage(journals)
        result.outputs.update(extractions=str(ws.path(EXTRACTIONS)), summary=str(ws.path(RUN)))
        timings["write"] = clock() - t
        result.generation = ws.manifest().generation + 1
        gen.write_json(RUN, result.summary(), indent=2)
        gen.commit()
        return result


def extract(
    workspace: Workspace | str | os.PathLike[str],
    corpus: str | Path,
    *,
    domain: Domain | str = "general",
    extractor: Extractor | None = None,
    cache: Cache | None = None,
    executor: Executor | str | None = None,  # kgkit.workflows.executors: "local:4", "tcp://host:8786", ...
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_chars: int = MAX_CHUNK_CHARS,
    overlap_chars: int = OVERLAP_CHARS,
    batch_size: int = OFFLINE_BATCH_SIZE,
    lock_timeout: float = 60.0,
    progress: Progress | None = None,
) -> ExtractResult:
    """Load, chunk and extract only: commit extractions.jsonl and extract.json (counts and costs)."""
    ws = as_workspace(workspace)
    dom = domain_of(domain)
    extractor = extractor or default_extractor()
    cache = cache or Cache(ws.cache_dir)
    settings = _settings(corpus, dom, domain, extractor, max_bytes=max_bytes, max_chars=max_chars,
                         overlap_chars=overlap_chars)
    timings: dict[str, float] = {}
    with ws.writer(lock_timeout=lock_timeout, step="extract"):
        calls_before = cache.stats.computed[extract_texts.stage_name]
        done = execute(EXTRACT_STEPS, {"ws": ws, "corpus": corpus, "cache": cache, "settings": settings,
                                       "domain": dom, "extractor": extractor, "batch_size": batch_size,
                                       "executor": executor, "progress": progress}, timings=timings)
        documents, errors, chunks, extractions = (done[k] for k in ("documents", "errors", "chunks", "extractions"))
        result = ExtractResult(calls_before=calls_before, documents=documents, errors=errors, chunks=chunks,
                               extractions=extractions,
                               cache=cache, extractor_id=extractor.id, domain_id=dom.id,
                               ledger=_client_field(extractor, "ledger"), timings=timings)
        summary: dict[str, Any] = {
            "documents_ok": len(documents), "documents_failed": len(errors), "chunks": len(chunks),
            "chunk_errors": result.chunk_errors, "error_groups": result.error_groups, "extractor": extractor.id, "extractor_calls": result.extractor_calls,
            "domain": dom.id,
        }
        if result.ledger is not None:
            summary["llm"] = result.ledger.summary()
            summary["llm_costs"] = result.cost_report().to_dict("records")
        gen = ws.begin("extract", config=settings.manifest_config(EXTRACTION_FIELDS))
        gen.write_jsonl(EXTRACTIONS, [e.model_dump(mode="json") for e in extractions])
        gen.write_json(EXTRACT_SUMMARY, summary, indent=2)
        gen.commit()
        return result


