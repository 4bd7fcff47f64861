"""`kgkit resolve | review | apply | undo` end to end, review answered through stdin: exit codes, messages,
--json, the terminal review and the embedding cache of `--embed`. What the resolution workflows decide and
write is tested in test_resolve_workflow.py."""

from __future__ import annotations

from test_resolve_fixtures import graph
from test_resolve_workflow import ambiguous_graph
from typer.testing import CliRunner

from kgkit import io
from kgkit.cli import app
from kgkit.io.decisions import read_decisions
from kgkit.workflows.graph import import_graph


def test_resolve_review_apply_undo(tmp_path):
    ws = tmp_path / "ws"
    import_graph(ws, ambiguous_graph(), write_view=False)  # a workspace's graph: communities found, committed
    before = (ws / "graph.json").read_bytes()
    runner = CliRunner()
    result = runner.invoke(app, ["resolve", "-w", str(ws), "--json"])
    assert result.exit_code == 0, result.output
    assert '"policy_merges": 1' in result.output and '"pending_review": 2' in result.output
    # review: first pending candidate -> merge with a note; second -> keep apart with the default note; then the
    # policy's merge, shown as such, left as it is
    result = runner.invoke(app, ["review", "-w", str(ws), "--who", "ana"], input="m\nsame author\nk\n\ns\n")
    assert result.exit_code == 0, result.output
    assert "recorded 2 decision(s)" in result.output and "kgkit apply" in result.output
    assert "2 undecided, 1 decided by the policy" in result.output and "policy merged: score" in result.output
    mine = [d for d in read_decisions(ws) if d.decided_by == "person"]
    assert sorted(d.kind for d in mine) == ["keep_apart", "merge"] and {d.who for d in mine} == {"ana"}
    assert "same author" in {d.why for d in mine}
    assert any(d.why.startswith("review: ") for d in mine)  # the default note: the candidate's first reason
    assert runner.invoke(app, ["resolve", "-w", str(ws)]).exit_code == 0
    result = runner.invoke(app, ["apply", "-w", str(ws)])
    assert result.exit_code == 0 and "journal" in result.output, result.output
    assert "4 -> 2 entities" in result.output and len(io.load_graph(ws / "graph.json").entities) == 2
    assert runner.invoke(app, ["apply", "-w", str(ws)]).output.startswith("nothing to apply")
    result = runner.invoke(app, ["undo", "-w", str(ws)])
    assert result.exit_code == 0 and "undone journal/0001.json" in result.output, result.output
    assert (ws / "graph.json").read_bytes() == before
    again = runner.invoke(app, ["undo", "-w", str(ws)])
    assert again.exit_code == 1 and "nothing to undo" in again.output


def test_review_vetoes_an_applied_policy_merge_and_apply_undoes_it(tmp_path):
    ws = tmp_path / "ws"
    import_graph(ws, ambiguous_graph(), write_view=False)
    runner = CliRunner()
    assert runner.invoke(app, ["resolve", "-w", str(ws)]).exit_code == 0
    result = runner.invoke(app, ["apply", "-w", str(ws)])  # the policy's merge, applied without review
    assert result.exit_code == 0 and "4 -> 3 entities" in result.output, result.output
    # the review shows it after the two undecided candidates; v vetoes it with a note
    result = runner.invoke(app, ["review", "-w", str(ws), "--who", "ana"], input="s\ns\nv\ntwo people\n")
    assert result.exit_code == 0, result.output
    assert "policy merged: score 1.00 — v to veto" in result.output and "recorded 1 decision(s)" in result.output
    assert "already applied to the graph" in result.output and "kgkit apply" in result.output
    (veto,) = [d for d in read_decisions(ws) if d.decided_by == "person"]
    assert veto.kind == "keep_apart" and veto.who == "ana" and veto.why.startswith("veto of the policy merge")
    assert "two people" in veto.why and set(veto.subjects) == {"Person:dr jane smith", "Person:jane smith"}
    # a re-resolve keeps the veto; the next apply undoes the merge
    assert runner.invoke(app, ["resolve", "-w", str(ws)]).exit_code == 0
    assert [d for d in read_decisions(ws) if d.decided_by == "person"] == [veto]
    result = runner.invoke(app, ["apply", "-w", str(ws)])
    assert result.exit_code == 0 and "undone journal/0001.json first" in result.output, result.output
    assert len(io.load_graph(ws / "graph.json").entities) == 4
    assert runner.invoke(app, ["apply", "-w", str(ws)]).output.startswith("nothing to apply")
    # nothing left in the graph for the review to warn about
    result = runner.invoke(app, ["review", "-w", str(ws)], input="s\ns\n")
    assert result.exit_code == 0 and "0 decided by the policy" in result.output, result.output


def test_bad_decisions_file_is_a_clear_error(tmp_path):
    ws = tmp_path / "ws"
    io.save_graph(graph(), ws / "graph.json")
    (ws / "decisions.yaml").write_text("format: kgkit.decisions/1\ndecisions:\n- {kind: merge, subjects: [a, b]}\n")
    result = CliRunner().invoke(app, ["apply", "-w", str(ws)])
    assert result.exit_code == 2 and "entry 1" in result.output and "decided_by" in result.output
    assert "nothing was changed" in result.output


def test_review_without_candidates_says_what_to_do(tmp_path):
    result = CliRunner().invoke(app, ["review", "-w", str(tmp_path)])
    assert result.exit_code == 1 and "kgkit resolve" in result.output


def test_resolve_with_cached_embeddings(tmp_path):
    # the embedding cache of `--embed` lives in the command (kgkit.cli.resolve.CachedEmbedder): tested here
    ws = tmp_path / "ws"
    io.save_graph(ambiguous_graph(), ws / "graph.json")
    runner = CliRunner()
    assert runner.invoke(app, ["resolve", "-w", str(ws), "--embed", "hashing"]).exit_code == 0
    cached = sorted(p for p in (ws / "cache").rglob("*") if p.is_file())
    assert cached
    result = runner.invoke(app, ["resolve", "-w", str(ws), "--embed", "hashing"])
    assert result.exit_code == 0 and sorted(p for p in (ws / "cache").rglob("*") if p.is_file()) == cached
    assert runner.invoke(app, ["resolve", "-w", str(ws), "--embed", "bogus"]).exit_code != 0
