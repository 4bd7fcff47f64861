"""`kgkit resolve | review | apply | undo` end to end, review answered through stdin."""

from __future__ import annotations

import pandas as pd
from test_resolve_fixtures import graph
from typer.testing import CliRunner

import kgkit.cli.resolve  # noqa: F401 (registers the commands)
from kgkit import io
from kgkit.cli import app
from kgkit.core.graph import Graph
from kgkit.io.decisions import read_decisions
from kgkit.testing.builders import entity_row
from kgkit.workflows.run import import_graph


def _ambiguous_graph() -> Graph:
    return Graph.empty().replace(entities=pd.DataFrame([
        entity_row("Person:jane smith", "Jane Smith", "Person", 3), entity_row("Person:john smith", "John Smith", "Person", 3),
        entity_row("Person:j smith", "J. Smith", "Person", 1), entity_row("Person:dr jane smith", "Dr. Jane Smith", "Person", 1)]))


def test_resolve_review_apply_undo(tmp_path):
    ws = tmp_path / "ws"
    import_graph(ws, _ambiguous_graph(), write_view=False)  # a workspace's graph: communities found, committed
    before = (ws / "graph.json").read_bytes()
    runner = CliRunner()
    result = runner.invoke(app, ["resolve", "-w", str(ws), "--json"])
    assert result.exit_code == 0, result.output
    assert '"policy_merges": 1' in result.output and '"pending_review": 2' in result.output
    # review: first pending candidate -> merge with a note; second -> keep apart with the default note
    result = runner.invoke(app, ["review", "-w", str(ws), "--who", "ana"], input="m\nsame author\nk\n\n")
    assert result.exit_code == 0, result.output
    mine = [d for d in read_decisions(ws) if d.decided_by == "person"]
    assert sorted(d.kind for d in mine) == ["keep_apart", "merge"] and {d.who for d in mine} == {"ana"}
    assert "same author" in {d.why for d in mine}
    # re-running resolve keeps the person decisions exactly
    assert runner.invoke(app, ["resolve", "-w", str(ws)]).exit_code == 0
    assert [d for d in read_decisions(ws) if d.decided_by == "person"] == mine
    result = runner.invoke(app, ["apply", "-w", str(ws)])
    assert result.exit_code == 0 and "journal" in result.output, result.output
    assert len(io.load_graph(ws / "graph.json").entities) == 2
    assert runner.invoke(app, ["apply", "-w", str(ws)]).output.startswith("nothing to apply")
    result = runner.invoke(app, ["undo", "-w", str(ws)])
    assert result.exit_code == 0, result.output
    assert (ws / "graph.json").read_bytes() == before
    assert runner.invoke(app, ["undo", "-w", str(ws)]).exit_code == 1  # nothing left to undo


def test_bad_decisions_file_changes_nothing(tmp_path):
    ws = tmp_path / "ws"
    io.save_graph(graph(), ws / "graph.json")
    before = (ws / "graph.json").read_bytes()
    (ws / "decisions.yaml").write_text("format: kgkit.decisions/1\ndecisions:\n- {kind: merge, subjects: [a, b]}\n")
    result = CliRunner().invoke(app, ["apply", "-w", str(ws)])
    assert result.exit_code == 2 and "entry 1" in result.output and "decided_by" in result.output
    assert (ws / "graph.json").read_bytes() == before and not (ws / "journal").exists()


def test_review_without_candidates_says_what_to_do(tmp_path):
    result = CliRunner().invoke(app, ["review", "-w", str(tmp_path)])
    assert result.exit_code == 1 and "kgkit resolve" in result.output


def test_resolve_with_cached_embeddings(tmp_path):
    ws = tmp_path / "ws"
    io.save_graph(_ambiguous_graph(), ws / "graph.json")
    runner = CliRunner()
    assert runner.invoke(app, ["resolve", "-w", str(ws), "--embed", "hashing"]).exit_code == 0
    cached = sorted(p for p in (ws / "cache").rglob("*") if p.is_file())
    assert cached
    result = runner.invoke(app, ["resolve", "-w", str(ws), "--embed", "hashing"])
    assert result.exit_code == 0 and sorted(p for p in (ws / "cache").rglob("*") if p.is_file()) == cached
    assert runner.invoke(app, ["resolve", "-w", str(ws), "--embed", "bogus"]).exit_code != 0
