"""`kgkit run --model` with a fake litellm provider (a CustomLLM answering through litellm's mock): the graph,
the cost report, zero-cost re-runs, budget refusals as chunk errors, price and cap checks. Sockets refused."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.testing.fake_llm import register_fake_provider

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
PRICED = ["--model", "kgkit-fake/extractor", "--price-in", "1", "--price-out", "2"]


def _refuse(*args, **kwargs):
    raise AssertionError(f"network access attempted: {args[:2]}")


@pytest.fixture
def offline(monkeypatch):
    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    return register_fake_provider()


def run(*args: str, exit_code: int = 0) -> dict:
    result = CliRunner().invoke(app, ["run", *args, "--json", "--no-view"])
    assert result.exit_code == exit_code, result.output
    return json.loads(result.stdout)


def test_run_with_a_model_extracts_reports_costs_and_reruns_for_free(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    first = run(str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.50")
    assert first["entities"] > 0 and first["relations"] > 0 and first["chunk_errors"] == []
    assert first["extractors"][0].startswith("llm:kgkit-fake/extractor:extract-")
    llm = first["llm"]
    assert llm["cap_usd"] == 0.5 and 0 < llm["spent_usd"] <= 0.5 and llm["refused"] == 0
    # one request per chunk: a document's summary comes with its first chunk's extraction
    assert llm["stages"]["extract"]["calls"] == first["chunks"] and "context" not in llm["stages"]
    rows = first["llm_costs"]
    assert {r["stage"] for r in rows} == {"extract"} and all(r["document_id"].startswith("doc:") for r in rows)
    assert sum(r["cost_usd"] for r in rows) == pytest.approx(llm["spent_usd"])
    graph = json.loads((ws / "graph.json").read_text())
    assert graph["meta"]["extractors"] == first["extractors"]

    second = run(str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.50")
    assert second["extractor_calls"] == 0 and second["llm"]["spent_usd"] == 0
    assert second["entities"] == first["entities"]


def test_a_budget_too_small_gives_chunk_errors_and_a_bigger_one_retries_only_them(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    starved = run(str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.000001", "--no-context", exit_code=1)
    assert len(starved["chunk_errors"]) == starved["chunks"] and "budget:" in starved["chunk_errors"][0]
    # every chunk failed: an error, never an empty success; nothing was committed
    assert starved["outcome"] == "rejected" and not (ws / "graph.json").exists()
    assert starved["llm"]["spent_usd"] == 0 and starved["llm"]["refused"] == starved["chunks"]
    calls = offline.calls
    funded = run(str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.50", "--no-context")
    assert funded["chunk_errors"] == [] and offline.calls - calls == funded["chunks"]


def test_summary_table_shows_the_costs(corpus_copy, tmp_path, offline):
    result = CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(tmp_path / "ws"), *PRICED,
                                      "--max-cost", "0.50", "--no-view"])
    assert result.exit_code == 0, result.output
    assert "LLM spent / cap" in result.output and "extract" in result.output and "$0.5000" in result.output
    assert "apollo.txt" in result.output and "tokens, $" in result.output  # per document


def test_unknown_price_and_missing_cap_are_clear_errors(corpus_copy, tmp_path, offline):
    unpriced = CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(tmp_path / "a"), "--model",
                                        "kgkit-fake/extractor", "--max-cost", "1"])
    assert unpriced.exit_code == 2 and "not in litellm's price map" in unpriced.output
    uncapped = CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(tmp_path / "b"), *PRICED])
    assert uncapped.exit_code == 2 and "--max-cost" in uncapped.output
    free = run(str(corpus_copy), "-o", str(tmp_path / "c"), "--model", "kgkit-fake/extractor", "--free")
    assert free["llm"]["cap_usd"] is None and free["llm"]["spent_usd"] == 0 and free["entities"] > 0


def test_extract_command_writes_extractions_and_costs_without_a_graph(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    result = CliRunner().invoke(app, ["extract", str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.5",
                                      "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["chunk_errors"] == [] and summary["extractor"].startswith("llm:kgkit-fake/extractor")
    assert summary["llm"]["stages"]["extract"]["calls"] == summary["chunks"] and summary["llm_costs"]
    rows = [json.loads(line) for line in (ws / "extractions.jsonl").read_text().splitlines()]
    assert len(rows) == summary["documents_ok"] and not (ws / "graph.json").exists()
    # the same cache as `run`: running the full pipeline afterwards extracts nothing again
    assert run(str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.5")["extractor_calls"] == 0
