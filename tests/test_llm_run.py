"""Runs with an LLM extractor (`kgkit.run` / `kgkit.extract` with `LLMExtractor.from_options`) against a fake
litellm provider (a CustomLLM answering through litellm's mock): the graph, the cost report, zero-cost re-runs,
budget refusals as chunk errors, a free local model. Sockets refused. `kgkit run --model` and `kgkit extract`
(flags, JSON, the summary table, exit codes) are tested end to end in test_cli_llm.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kgkit
from kgkit.extractors.llm import LLMExtractor
from kgkit.io import read_jsonl
from kgkit.io.cache import Cache
from kgkit.io.workspace import REJECTED_RUN
from kgkit.llm.options import LLMOptions, extraction_batch_size

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
PRICED = {"model": "kgkit-fake/extractor", "price_in": 1.0, "price_out": 2.0}



def llm_step(step: Any, corpus: Path, ws: Path, **options: Any) -> Any:
    """`step` (kgkit.run or kgkit.extract) with the LLM extractor for `options`, its requests cached in the
    workspace cache (as `kgkit run --model` composes it)."""
    opts = LLMOptions(**{**PRICED, **options})
    cache = Cache(kgkit.Workspace(ws).cache_dir)
    extra = {"write_view": False} if step is kgkit.run else {}
    return step(ws, corpus, extractor=LLMExtractor.from_options(opts, cache=cache), cache=cache,
                batch_size=extraction_batch_size(opts), **extra)


def test_run_with_a_model_extracts_reports_costs_and_reruns_for_free(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    first = llm_step(kgkit.run, corpus_copy, ws, max_cost=0.5)
    assert len(first.graph.entities) > 0 and len(first.graph.relations) > 0 and first.chunk_errors == []
    assert first.outcome == "complete" and first.graph.meta["extractors"][0].startswith("llm:kgkit-fake/extractor:extract-")
    llm = first.ledger.summary()
    assert llm["cap_usd"] == 0.5 and 0 < llm["spent_usd"] <= 0.5 and llm["refused"] == 0
    # one request per chunk: a document's summary comes with its first chunk's extraction
    assert llm["stages"]["extract"]["calls"] == len(first.chunks) and "context" not in llm["stages"]
    rows = first.cost_report()
    assert rows["cost_usd"].sum() == pytest.approx(llm["spent_usd"])
    # one preflight request checked the model before the first chunk was sent
    assert llm["stages"]["preflight"]["calls"] == 1 and list(rows["stage"]).count("preflight") == 1
    rows = rows[rows["stage"] != "preflight"]
    assert set(rows["stage"]) == {"extract"} and all(d.startswith("doc:") for d in rows["document_id"])
    graph = json.loads((ws / "graph.json").read_text())
    assert graph["meta"]["extractors"] == first.graph.meta["extractors"]

    second = llm_step(kgkit.run, corpus_copy, ws, max_cost=0.5)
    assert second.extractor_calls == 0 and second.ledger.summary()["spent_usd"] == 0
    assert len(second.graph.entities) == len(first.graph.entities)


def test_a_budget_too_small_gives_chunk_errors_and_a_bigger_one_retries_only_them(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    starved = llm_step(kgkit.run, corpus_copy, ws, max_cost=0.000001, document_context=False)
    assert len(starved.chunk_errors) == len(starved.chunks) and "budget:" in starved.chunk_errors[0]
    # every chunk failed: an error, never an empty success; nothing was committed
    assert starved.outcome == "rejected" and not (ws / "graph.json").exists() and (ws / REJECTED_RUN).is_file()
    llm = starved.ledger.summary()
    assert llm["spent_usd"] == 0 and llm["refused"] == len(starved.chunks)
    calls = offline.calls
    funded = llm_step(kgkit.run, corpus_copy, ws, max_cost=0.5, document_context=False)
    assert funded.chunk_errors == [] and offline.calls - calls == len(funded.chunks) + 1  # + the preflight
    assert funded.outcome == "complete" and (ws / "graph.json").is_file()


def test_a_free_model_needs_no_cap_and_spends_nothing(corpus_copy, tmp_path, offline):
    free = llm_step(kgkit.run, corpus_copy, tmp_path / "ws", model="kgkit-fake/extractor", price_in=None,
                    price_out=None, free=True)
    llm = free.ledger.summary()
    assert llm["cap_usd"] is None and llm["spent_usd"] == 0 and len(free.graph.entities) > 0


def test_extract_writes_extractions_and_costs_without_a_graph_and_run_reuses_them(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    extracted = llm_step(kgkit.extract, corpus_copy, ws, max_cost=0.5)
    assert extracted.chunk_errors == [] and extracted.extractor_id.startswith("llm:kgkit-fake/extractor")
    assert extracted.ledger.summary()["stages"]["extract"]["calls"] == len(extracted.chunks)
    assert len(extracted.cost_report()) > 0
    rows = read_jsonl(ws / "extractions.jsonl")
    assert len(rows) == len(extracted.documents) and not (ws / "graph.json").exists()
    # the same cache as `run`: running the full pipeline afterwards extracts nothing again
    assert llm_step(kgkit.run, corpus_copy, ws, max_cost=0.5).extractor_calls == 0
