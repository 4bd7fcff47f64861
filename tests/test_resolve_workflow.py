"""Entity resolution over a workspace (`kgkit.resolve | record | apply | undo`): the policy decides what it is
sure of, a person's decisions survive a re-run, apply merges and journals, undo restores the bytes, and a bad
decisions file changes nothing. The commands (and the terminal review) are tested end to end in
test_cli_resolve.py."""

from __future__ import annotations

import pandas as pd
import pytest
from test_resolve_fixtures import graph

import kgkit
from kgkit import io
from kgkit.core.graph import Graph
from kgkit.io.decisions import DecisionFileError, read_decisions
from kgkit.io.workspace import WorkspaceError
from kgkit.stages.resolve import person_decision
from kgkit.testing.builders import entity_row
from kgkit.workflows.graph import import_graph
from kgkit.workflows.resolve import merged_away

AT, LATER = "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"


def ambiguous_graph() -> Graph:
    """Jane Smith, John Smith, J. Smith and Dr. Jane Smith: one sure merge, two candidates for a person."""
    return Graph.empty().replace(entities=pd.DataFrame([
        entity_row("Person:jane smith", "Jane Smith", "Person", 3), entity_row("Person:john smith", "John Smith", "Person", 3),
        entity_row("Person:j smith", "J. Smith", "Person", 1), entity_row("Person:dr jane smith", "Dr. Jane Smith", "Person", 1)]))


def test_resolve_record_apply_undo(tmp_path):
    ws = tmp_path / "ws"
    import_graph(ws, ambiguous_graph(), write_view=False)  # a workspace's graph: communities found, committed
    before = (ws / "graph.json").read_bytes()
    found = kgkit.resolve(ws, at=AT)
    assert found.summary()["policy_merges"] == 1 and found.summary()["pending_review"] == 2 == len(found.pending)
    # a person: the first pending candidate -> merge with a note; the second -> keep apart
    first, second = found.pending
    kgkit.record(ws, [person_decision("merge", (first.source, first.target), why="same author", who="ana", at=AT),
                      person_decision("keep_apart", (second.source, second.target), why="review", who="ana", at=AT)])
    mine = [d for d in read_decisions(ws) if d.decided_by == "person"]
    assert sorted(d.kind for d in mine) == ["keep_apart", "merge"] and {d.who for d in mine} == {"ana"}
    # re-running resolve keeps the person decisions exactly, and nothing is left to review
    again = kgkit.resolve(ws, at=LATER)
    assert [d for d in read_decisions(ws) if d.decided_by == "person"] == mine and again.pending == []
    applied = kgkit.apply(ws)
    assert applied.changed and applied.journal == "journal/0001.json" and (ws / applied.journal).is_file()
    assert len(applied.before.entities) == 4 and len(kgkit.read_graph(ws).entities) == 2
    assert not kgkit.apply(ws).changed  # the graph already reflects every decision
    undone = kgkit.undo(ws)
    assert undone.journal == "journal/0001.json" and (ws / "graph.json").read_bytes() == before
    with pytest.raises(WorkspaceError, match="nothing to undo"):
        kgkit.undo(ws)


def test_bad_decisions_file_changes_nothing(tmp_path):
    ws = tmp_path / "ws"
    io.save_graph(graph(), ws / "graph.json")
    before = (ws / "graph.json").read_bytes()
    (ws / "decisions.yaml").write_text("format: kgkit.decisions/1\ndecisions:\n- {kind: merge, subjects: [a, b]}\n")
    with pytest.raises(DecisionFileError, match=r"entry 1\b.*decided_by"):
        kgkit.apply(ws)
    assert (ws / "graph.json").read_bytes() == before and not (ws / "journal").exists()


def test_a_veto_of_an_applied_merge_is_undone_at_the_next_apply(tmp_path):
    ws = tmp_path / "ws"
    import_graph(ws, ambiguous_graph(), write_view=False)
    before = (ws / "graph.json").read_bytes()
    found = kgkit.resolve(ws, at=AT)
    (policy,) = [d for d in found.decisions if d.decided_by == "policy"]
    assert kgkit.apply(ws).journal == "journal/0001.json"            # the policy merge, applied unreviewed
    first = found.pending[0]
    kgkit.record(ws, [person_decision("merge", (first.source, first.target), who="ana", at=AT)])
    assert kgkit.apply(ws).journal == "journal/0002.json" and len(kgkit.read_graph(ws).entities) == 2
    assert merged_away(ws, policy.subjects)
    # the veto: a person keeps the policy's pair apart; re-resolve keeps it; apply undoes both applies and
    # applies every decision again (the person's merge stays, the vetoed one goes)
    kgkit.record(ws, [person_decision("keep_apart", policy.subjects, why="veto", who="ana", at=LATER)])
    kgkit.resolve(ws, at=LATER)
    done = kgkit.apply(ws)
    assert done.changed and done.undone == ["journal/0001.json", "journal/0002.json"]
    assert done.journal == "journal/0001.json" and ws_journals(ws) == [
        "0001.json", "0001.undone-", "0002.undone-"]
    ids = set(kgkit.read_graph(ws).entities["id"])
    assert set(policy.subjects) <= ids and len(ids) == 3
    assert not merged_away(ws, policy.subjects)
    assert not kgkit.apply(ws).changed
    kgkit.undo(ws)
    assert (ws / "graph.json").read_bytes() == before


def ws_journals(ws) -> list[str]:
    return sorted(p.name if ".undone-" not in p.name else p.name[:12] for p in (ws / "journal").iterdir())
