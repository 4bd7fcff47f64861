"""The LLM commands end to end with a fake litellm provider (a CustomLLM answering through litellm's mock):
`kgkit run --model` (JSON costs, the summary table, exit codes, price and cap checks), `kgkit extract`,
`kgkit discover` and `kgkit narrate --model`. Sockets refused. What the runs produce is tested on the
library in test_llm_run.py, test_discover.py and test_narrate.py."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kgkit import io
from kgkit.cli import app

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
PRICED = ["--model", "kgkit-fake/extractor", "--price-in", "1", "--price-out", "2"]



def run(*args: str, exit_code: int = 0) -> dict:
    result = CliRunner().invoke(app, ["run", *args, "--json", "--no-view"])
    assert result.exit_code == exit_code, result.output
    return json.loads(result.stdout)


def test_run_with_a_model_prints_its_costs_and_exits_1_when_the_budget_refuses_everything(corpus_copy, tmp_path, offline):
    funded = run(str(corpus_copy), "-o", str(tmp_path / "ws"), *PRICED, "--max-cost", "0.50")
    assert funded["outcome"] == "complete" and funded["chunk_errors"] == [] and funded["entities"] > 0
    assert funded["extractors"][0].startswith("llm:kgkit-fake/extractor:extract-")
    llm = funded["llm"]
    assert llm["cap_usd"] == 0.5 and 0 < llm["spent_usd"] <= 0.5 and llm["stages"]["extract"]["calls"] == funded["chunks"]
    assert sum(r["cost_usd"] for r in funded["llm_costs"]) == pytest.approx(llm["spent_usd"])
    starved = run(str(corpus_copy), "-o", str(tmp_path / "starved"), *PRICED, "--max-cost", "0.000001", exit_code=1)
    assert starved["outcome"] == "rejected" and "budget:" in starved["chunk_errors"][0]
    assert starved["llm"]["refused"] > 0 and not (tmp_path / "starved" / "graph.json").exists()


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
    assert not (tmp_path / "a" / "graph.json").exists() and not (tmp_path / "b" / "graph.json").exists()
    free = run(str(corpus_copy), "-o", str(tmp_path / "c"), "--model", "kgkit-fake/extractor", "--free")
    assert free["llm"]["cap_usd"] is None and free["llm"]["spent_usd"] == 0


def test_extract_command_prints_its_costs_as_json(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    result = CliRunner().invoke(app, ["extract", str(corpus_copy), "-o", str(ws), *PRICED, "--max-cost", "0.5",
                                      "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["chunk_errors"] == [] and summary["extractor"].startswith("llm:kgkit-fake/extractor")
    assert summary["llm"]["stages"]["extract"]["calls"] == summary["chunks"] and summary["llm_costs"]
    assert summary == io.read_json(ws / "extract.json")
    assert (ws / "extractions.jsonl").is_file() and not (ws / "graph.json").exists()


def test_discover_command_writes_a_domain(corpus_copy, tmp_path, offline):
    ws = tmp_path / "ws"
    args = ["discover", str(corpus_copy), "-o", str(ws), "--model", "kgkit-fake/x", "--price-in", "1",
            "--price-out", "2", "--max-cost", "0.05", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    domain = io.load_domain(ws / "domain.yaml")
    assert report["domain"] == domain.id and report["path"] == str(ws / "domain.yaml")
    assert report["entity_types"] == sorted(domain.entity_types) and "Mission" in report["entity_types"]
    assert 0 < report["llm"]["spent_usd"] <= 0.05


def test_narrate_with_a_model_needs_a_cap_and_reports_its_spending(tmp_path, offline):
    from test_narrate import GRAPH, REL_IDS

    io.save_graph(GRAPH, tmp_path / "graph.json")
    paid = CliRunner().invoke(app, ["narrate", str(tmp_path), "--model", "kgkit-fake/n", "--price-in", "1",
                                    "--price-out", "1"])
    assert paid.exit_code == 2 and "--max-cost" in paid.output
    result = CliRunner().invoke(app, ["narrate", str(tmp_path), "--model", "kgkit-fake/n", "--free", "--json",
                                      "--entities", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["model"] == "kgkit-fake/n" and data["llm"]["spent_usd"] == 0 and set(data["sources"]) <= REL_IDS
    assert len(data["entities"]) == 1  # --entities reaches the narrative
    text = CliRunner().invoke(app, ["narrate", str(tmp_path), "--model", "kgkit-fake/n", "--free"])
    assert text.exit_code == 0 and "LLM spent $0.0000 / no cap" in text.output and "extractive fallback" in text.output
