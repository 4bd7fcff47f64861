"""Split decisions (issue 14: same name, different things): proposed where contexts fall apart, decided by a
person, made at build time with exact relation figures, kept by every rebuild, undone exactly, withdrawable."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.core.decisions import Decision
from kgkit.io import load_domain
from kgkit.io.decisions import dump_decisions, parse_decisions, read_decisions
from kgkit.io.workspace import GRAPH
from kgkit.stages.build import build_graph
from kgkit.stages.resolve.split import split_candidates, split_decision, split_specs
from kgkit.testing.builders import paris_extractions, split_graph
from kgkit.testing.workspaces import paris_workspace
from kgkit.workflows.graph import build
from kgkit.workflows.resolve import apply, undo
from kgkit.workflows.split import split, withdraw_split

PARIS, TEXAS = "Location:paris", "Location:paris~texas"


def _rels(graph):
    return {(r.source, r.target): (r.support, r.confidence) for r in graph.relations.itertuples()}


def test_a_split_keeps_each_part_s_relations_exact():
    texas = split_decision(PARIS, documents=["doc:tx1"], label="Texas")
    graph = build_graph(paris_extractions(), domain=load_domain("general"), splits=split_specs([texas]))
    rels = _rels(graph)
    assert rels[(PARIS, "Location:france")] == (2, 0.92)  # noisy-or of 0.8 and 0.6, both French documents
    assert rels[(TEXAS, "Location:texas")] == (1, 0.7)
    assert (PARIS, "Location:texas") not in rels
    parts = graph.entities.set_index("id").loc[[PARIS, TEXAS], ["name", "mentions", "documents"]]
    assert parts.to_dict("index") == {PARIS: {"name": "Paris", "mentions": 2, "documents": 2},
                                      TEXAS: {"name": "Paris", "mentions": 1, "documents": 1}}
    assert graph.meta["splits"] == [TEXAS]


def test_proposals_need_contexts_that_share_nothing():
    (found,) = split_candidates(split_graph())
    assert found.entity == PARIS and found.groups == [["doc:fr1", "doc:fr2"], ["doc:tx1"]]
    assert found.context[0][:2] == ["France", "Seine"]  # the most co-mentioned first
    assert split_candidates(split_graph(), min_context=4) == []  # Texas's side has only three
    # one shared neighbour joins the groups: no proposal
    joined = paris_extractions()
    tx = joined[2].chunks[0]
    shared = tx.extraction.model_copy(update={"entities": (*tx.extraction.entities,
                                                            joined[0].chunks[0].extraction.entities[2])})
    joined[2] = joined[2].model_copy(update={"chunks": (tx.model_copy(update={"extraction": shared}),)})
    assert split_candidates(build_graph(joined, domain=load_domain("general"))) == []


def test_split_decisions_are_checked_and_round_trip():
    with pytest.raises(ValueError, match="documents or chunks"):
        Decision(kind="split", subjects=(PARIS, TEXAS), decided_by="person")
    with pytest.raises(ValueError, match="new id"):
        Decision(kind="split", subjects=(PARIS, "Location:lyon"), documents=("d",), decided_by="person")
    with pytest.raises(ValueError, match="only a split"):
        Decision(kind="merge", subjects=(PARIS, "Location:lyon"), documents=("d",), decided_by="person")
    made = split_decision(PARIS, documents=["doc:tx1"], label="Texas", why="Paris, Texas", at="2026-01-01")
    text = dump_decisions([made])
    assert parse_decisions(text) == [made] and "documents:\n  - doc:tx1" in text
    merge = Decision(kind="merge", subjects=("a", "b"), decided_by="person")
    assert "documents" not in dump_decisions([merge])  # other decisions' entries do not change


def test_split_survives_rebuild_undoes_exactly_and_can_be_withdrawn(tmp_path):
    ws = paris_workspace(tmp_path)
    original = ws.read_bytes(GRAPH)
    split(ws, "Paris", documents=["tx1.txt"], label="Texas", at="2026-01-01T00:00:00Z")
    applied = apply(ws)
    assert applied.changed and set(applied.graph.entities.query("name == 'Paris'")["id"]) == {PARIS, TEXAS}
    after_apply = ws.read_bytes(GRAPH)
    undo(ws)
    assert ws.read_bytes(GRAPH) == original
    assert apply(ws).changed and ws.read_bytes(GRAPH) == after_apply
    build(ws, write_view=False)  # a rebuild makes the split again (at build: no journal): same bytes as the apply
    assert ws.read_bytes(GRAPH) == after_apply
    assert not apply(ws).changed and ws.journal_names() == []  # nothing left to do; withdraw to take it back
    (gone,) = withdraw_split(ws, TEXAS)
    assert gone.verdict == "reject" and [d.verdict for d in read_decisions(ws)] == ["reject"]
    apply(ws)
    assert ws.read_bytes(GRAPH) == original  # joined again, exactly as built


def test_cli_lists_records_and_refuses_unknown_names(tmp_path):
    ws = paris_workspace(tmp_path)
    runner = CliRunner()
    listed = runner.invoke(app, ["split", "-w", str(ws.root), "--json"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.output)[0]["groups"] == [["fr1.txt", "fr2.txt"], ["tx1.txt"]]
    bad = runner.invoke(app, ["split", "Lyon", "-d", "tx1.txt", "-w", str(ws.root)])
    assert bad.exit_code == 2 and "'Lyon' names none" in bad.output
    bad_doc = runner.invoke(app, ["split", "Paris", "-d", "nowhere.txt", "-w", str(ws.root)])
    assert bad_doc.exit_code == 2 and "not a document" in bad_doc.output
    assert read_decisions(ws) == []  # nothing recorded by a refused command
    done = runner.invoke(app, ["split", "Paris", "-d", "tx1.txt", "--label", "Texas", "-w", str(ws.root)])
    assert done.exit_code == 0 and TEXAS in done.output
    assert runner.invoke(app, ["apply", "-w", str(ws.root)]).exit_code == 0
    assert TEXAS in set(json.loads(ws.read_bytes(GRAPH))["entities"][i]["id"]
                        for i in range(len(json.loads(ws.read_bytes(GRAPH))["entities"])))
