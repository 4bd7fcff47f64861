"""`kgkit build`, `kgkit topology`, `kgkit query` end to end: exit codes, messages and the JSON shapes
docs/graph.md promises. What the build workflow writes is tested in test_build_workflow.py, neighbourhoods
(filters, pagination) in test_topology.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_build_workflow import write_extractions
from typer.testing import CliRunner

import kgkit
from kgkit.cli import app

runner = CliRunner()


@pytest.fixture
def extractions(tmp_path: Path) -> Path:
    """A folder holding extractions.jsonl: 6 entities, 4 relations, one isolated entity."""
    return write_extractions(tmp_path / "ws")


@pytest.fixture
def built(extractions: Path, tmp_path: Path) -> Path:
    """A workspace built from `extractions` by the library (no view)."""
    kgkit.build(tmp_path / "out", extractions / "extractions.jsonl", write_view=False)
    return tmp_path / "out"


def test_build_prints_a_json_summary_and_rejects_bad_input(extractions, tmp_path):
    stamp = "2026-02-01T00:00:00Z"
    result = runner.invoke(app, ["build", str(extractions / "extractions.jsonl"), "-o", str(tmp_path / "out"),
                                 "--json", "--learned-at", stamp])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["entities"] == 6 and summary["relations"] == 4 and summary["communities"] >= 2
    assert set(summary["outputs"]) == {"graph", "communities", "view"}
    assert all(Path(p).is_file() for p in summary["outputs"].values())
    assert summary["learned_at"] == stamp and summary["generation"] == 1 and summary["chunk_errors"] == 0
    text = runner.invoke(app, ["build", str(extractions), "-o", str(tmp_path / "w"), "--no-view"])  # a folder
    assert text.exit_code == 0 and "6 entities, 4 relations" in text.output, text.output
    assert not (tmp_path / "w" / "graph.html").exists()
    bad = runner.invoke(app, ["build", str(extractions), "-o", str(tmp_path / "d"), "--learned-at", "yesterday"])
    assert bad.exit_code == 2 and "ISO 8601" in bad.output
    missing = runner.invoke(app, ["build", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "e")])
    assert missing.exit_code == 2 and "cannot read extractions" in missing.output


def test_topology_json_shape_and_pagination(built):
    result = runner.invoke(app, ["topology", str(built / "graph.json"), "--json", "--limit", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "kgkit.topology/1"
    assert set(data) == {"format", "counts", "communities", "connections", "bridges", "isolated", "params"}
    for key in ("communities", "connections", "bridges", "isolated"):
        assert set(data[key]) == {"total", "offset", "limit", "items"} and len(data[key]["items"]) <= 1
    assert data["isolated"]["total"] == 1 and data["counts"]["entities"] == 6
    text = runner.invoke(app, ["topology", str(built)])  # a workspace folder works too
    assert text.exit_code == 0 and "6 entities" in text.output


def test_query_json_shape_and_not_found(built):
    graph = str(built / "graph.json")
    result = runner.invoke(app, ["query", "ada", "--graph", graph, "--depth", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "kgkit.neighbourhood/1" and data["status"] == "found"
    assert data["matches"] == ["Person:ada"] and data["entities"]["total"] == 5
    assert {e["id"]: e["hop"] for e in data["entities"]["items"]}["Person:bob"] == 2
    wrong = runner.invoke(app, ["query", "Person:ada", "-g", graph, "--type", "Organization", "--json"])
    assert wrong.exit_code == 1 and json.loads(wrong.stdout)["status"] == "not_found"
    missing = runner.invoke(app, ["query", "nobody", "-g", graph])
    assert missing.exit_code == 1 and "no entity matches" in missing.output
