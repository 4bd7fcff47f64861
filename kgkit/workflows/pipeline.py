"""The end-to-end run: read a corpus, load, chunk, extract, build, view — each stage through the cache.

This is a composition layer (like the CLI and the notebooks): it reads and writes files through kgkit.io
and calls pure stages through a Cache. Nothing here is itself a stage.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "docs").mkdir(), (root / "docs" / "a.txt").write_text("Ada met Charles.")
>>> class Names:  # any Extractor works; the default is the offline spaCy one
...     id = "names:1"
...     def extract(self, texts, *, domain):
...         return [TextExtraction(extractor_id=self.id, entities=tuple(ExtractedEntity(name=w.strip("."),
...                 type="Person") for w in t.split() if w[0].isupper())) for t in texts]
>>> result = run_pipeline(root / "docs", root / "ws", extractor=Names(), write_view=False)
>>> result.summary()["entities"], result.summary()["extractor_calls"]
(2, 1)
>>> run_pipeline(root / "docs", root / "ws", extractor=Names(), write_view=False).summary()["extractor_calls"]
0
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgkit import io
from kgkit.stages.build import build_graph
from kgkit.io.cache import Cache
from kgkit.stages.chunk import chunk_document
from kgkit.core.domain import Domain
from kgkit.core.executor import Executor
from kgkit.stages.extract import Extractor, extract_texts, locate, merge_document
from kgkit.core.graph import Graph
from kgkit.stages.load import DEFAULT_MAX_BYTES, load_document
from kgkit.core.stage import stage
from kgkit.core.records import (
    Chunk,
    ChunkExtraction,
    Document,
    DocumentError,
    DocumentExtraction,
    ExtractedEntity,
    RawFile,
    TextExtraction,
)

__all__ = ["ExtractedEntity", "RunResult", "TextExtraction", "default_extractor", "run_pipeline"]

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@stage(name="load", version=getattr(load_document, "stage_version", "1"))
def load_files(raws: Sequence[RawFile], *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Document | DocumentError]:
    """Batch form of `load_document` for Cache.map."""
    return [load_document(raw, max_bytes=max_bytes) for raw in raws]


def default_extractor() -> Extractor:
    """The offline extractor (spaCy small English model + dependency rules); loads spaCy on first use."""
    from kgkit.extractors.offline import OfflineExtractor

    return OfflineExtractor()


@dataclass
class RunResult:
    """What a run produced and what it cost: the graph, per-document failures, counters and timings."""

    graph: Graph
    documents: list[Document]
    errors: list[DocumentError]
    chunks: list[Chunk]
    extractions: list[DocumentExtraction]
    cache: Cache
    timings: dict[str, float] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    ledger: Any = None  # kgkit.llm.BudgetLedger when the extractor calls an LLM (cost report, budget)

    @property
    def chunk_errors(self) -> list[str]:
        return [e for d in self.extractions for e in d.errors]

    @property
    def extractor_calls(self) -> int:
        """Texts the extractor actually processed in this run (0 on a fully cached re-run)."""
        return self.cache.stats.computed[extract_texts.stage_name]

    def cost_report(self) -> Any:
        """Tokens and dollars per stage and per document (a DataFrame; empty without an LLM extractor)."""
        from kgkit.llm.report import cost_report

        return cost_report(self.ledger.charges if self.ledger is not None else [], self.extractions)

    def summary(self) -> dict[str, Any]:
        stats = self.cache.stats
        llm = {} if self.ledger is None else {"llm": self.ledger.summary(),
                                              "llm_costs": self.cost_report().to_dict("records")}
        return {**llm,
            "documents_ok": len(self.documents),
            "documents_failed": len(self.errors),
            "failures": [{"path": e.path, "kind": e.kind, "reason": e.reason} for e in self.errors],
            "chunks": len(self.chunks),
            "chunk_errors": self.chunk_errors,
            "entities": len(self.graph.entities),
            "relations": len(self.graph.relations),
            "extractor_calls": self.extractor_calls,
            "cache_hits": sum(stats.hits.values()),
            "cache_misses": sum(stats.misses.values()),
            "cache": stats.as_dict(),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "outputs": self.outputs,
            "domain": self.graph.meta.get("domain"),
            "extractors": self.graph.meta.get("extractors", []),
        }


def load_corpus(
    corpus: str | Path, *, cache: Cache, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[list[Document], list[DocumentError]]:
    """Read a folder (io) and load every file through the cache: (documents, per-file errors)."""
    loaded = cache.map(load_files, io.read_corpus(corpus, max_bytes=max_bytes), batch_size=64, max_bytes=max_bytes)
    return [d for d in loaded if isinstance(d, Document)], [d for d in loaded if isinstance(d, DocumentError)]


def extract_documents(
    documents: Sequence[Document],
    *,
    cache: Cache,
    domain: Domain,
    extractor: Extractor,
    max_chars: int = 2000,
    overlap_chars: int = 200,
    batch_size: int = 16,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> tuple[list[Chunk], list[DocumentExtraction]]:
    """Chunk each document and extract every chunk through the cache (per chunk text); returns the chunks
    and one DocumentExtraction per document, in document order."""
    per_doc = {d.id: chunk_document(d, max_chars=max_chars, overlap_chars=overlap_chars) for d in documents}
    chunks = [c for cs in per_doc.values() for c in cs]
    done = 0

    def report(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress("extract", done, len(chunks))

    prepare = getattr(extractor, "prepare_inputs", None)  # LLM extractors: shared document context, cost labels
    inputs = prepare(per_doc) if callable(prepare) else [c.text for c in chunks]
    texts = cache.map(extract_texts, inputs, batch_size=batch_size, executor=executor,
                      on_batch=report, domain=domain, extractor=extractor)
    located: dict[str, list[ChunkExtraction]] = {d.id: [] for d in documents}
    for te, c in zip(texts, chunks):
        located[c.document_id].append(locate(te, c))
    return chunks, [merge_document(d, located[d.id]) for d in documents]


def run_pipeline(
    corpus: str | Path,
    workspace: str | Path,
    *,
    domain: Domain | str = "general",
    extractor: Extractor | None = None,
    cache: Cache | None = None,
    executor: Executor | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_chars: int = 2000,
    overlap_chars: int = 200,
    batch_size: int = 16,
    learned_at: str | None = None,
    max_view_nodes: int = 400,
    write_view: bool = True,
    progress: Progress | None = None,
) -> RunResult:
    """Run the whole pipeline on a folder and write graph.json, extractions.jsonl, run.json (and graph.html)
    into the workspace. Every expensive stage goes through the cache (default: WORKSPACE/cache)."""
    workspace = Path(workspace)
    domain = io.load_domain(domain) if isinstance(domain, str) else domain
    extractor = extractor or default_extractor()
    cache = cache or Cache(workspace / "cache")
    timings: dict[str, float] = {}
    clock = time.perf_counter

    t = clock()
    documents, errors = load_corpus(corpus, cache=cache, max_bytes=max_bytes)
    timings["load"] = clock() - t

    t = clock()
    chunks, extractions = extract_documents(documents, cache=cache, domain=domain, extractor=extractor,
                                            max_chars=max_chars, overlap_chars=overlap_chars, batch_size=batch_size,
                                            executor=executor, progress=progress)
    timings["extract"] = clock() - t

    t = clock()
    graph = cache.run(build_graph, extractions, domain=domain, learned_at=learned_at)
    timings["build"] = clock() - t

    client = getattr(extractor, "client", None)
    result = RunResult(graph=graph, documents=documents, errors=errors, chunks=chunks, extractions=extractions,
                       cache=cache, timings=timings, ledger=getattr(client, "ledger", None))
    t = clock()
    result.outputs = write_outputs(result, workspace, write_view=write_view, max_view_nodes=max_view_nodes)
    timings["write"] = clock() - t
    io.write_json(workspace / "run.json", result.summary(), indent=2)
    return result


def write_outputs(result: RunResult, workspace: Path, *, write_view: bool, max_view_nodes: int) -> dict[str, str]:
    """Write the graph, the extractions and (optionally) the HTML view; return their paths."""
    outputs = {"graph": str(workspace / "graph.json"), "extractions": str(workspace / "extractions.jsonl"),
               "summary": str(workspace / "run.json")}
    io.save_graph(result.graph, outputs["graph"])
    io.write_jsonl(outputs["extractions"], [e.model_dump(mode="json") for e in result.extractions])
    if write_view:
        from kgkit.views.graph import graph_html

        outputs["view"] = str(workspace / "graph.html")
        io.atomic_write_text(outputs["view"], graph_html(result.graph, max_nodes=max_view_nodes))
    return outputs
