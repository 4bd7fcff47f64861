"""A spelling a person keeps apart from its exact-key group's representative gets candidates of its own, and
review asks last about pairs a person's decisions already settle."""

from __future__ import annotations

import pandas as pd

from kgkit.core.graph import Graph
from kgkit.stages.resolve import Policy, decide, merge_candidates, pending, person_decision
from kgkit.stages.resolve.decisions import settled
from kgkit.stages.resolve.regroup import kept_apart_candidates
from kgkit.testing.builders import entity_row

AT = "2026-01-01T00:00:00+00:00"
REP, JUDGE, DR, FULL = "Person:michelle allen", "Person:judge michelle allen", "Person:dr michelle allen", "Person:michelle w allen"


def _graph() -> Graph:
    ents = pd.DataFrame([entity_row(REP, "Michelle Allen", "Person", 9), entity_row(JUDGE, "Judge Michelle Allen", "Person", 2),
                         entity_row(DR, "Dr. Michelle Allen", "Person", 1),
                         entity_row(FULL, "Michelle W. Allen", "Person", 3)])
    return Graph.empty().replace(entities=ents)


def _pairs(cands):
    return {frozenset((c.source, c.target)) for c in cands}


def test_a_spelling_kept_apart_is_paired_with_its_group_and_the_representatives_matches():
    found = merge_candidates(_graph())
    assert frozenset((JUDGE, REP)) in _pairs(found) and frozenset((JUDGE, FULL)) not in _pairs(found)
    assert kept_apart_candidates(found, []) == []  # nothing kept apart: nothing new
    veto = person_decision("keep_apart", (REP, JUDGE), why="two judges named Michelle Allen", at=AT)
    new = kept_apart_candidates(found, [veto])
    assert _pairs(new) == {frozenset((JUDGE, DR)), frozenset((JUDGE, FULL))}
    rep_full = next(c for c in found if {c.source, c.target} == {REP, FULL})
    judge_full = next(c for c in new if {c.source, c.target} == {JUDGE, FULL})
    assert judge_full.score == rep_full.score and judge_full.verdict == "ambiguous"
    assert "keeps apart" in judge_full.reasons[0]
    # only a person merges them, whatever their score; review shows them
    made = decide([*found, *new], decisions=[veto], at=AT)
    merged = {frozenset(d.subjects) for d in made if d.kind == "merge"}
    assert not merged & _pairs(new)
    assert all(Policy().person_only(c) for c in new)
    assert _pairs(new) <= _pairs(pending([*found, *new], made))
    # a policy keep-apart (none exists) or a person's merge proposes nothing
    assert kept_apart_candidates(found, [person_decision("merge", (REP, JUDGE), at=AT)]) == []


def test_pairs_a_person_already_settled_come_last():
    found = merge_candidates(_graph())
    mine = [person_decision("merge", (JUDGE, REP), at=AT), person_decision("merge", (DR, REP), at=AT)]
    # Judge / Dr is settled by the two merges; Michelle Allen / Michelle W. Allen is not
    extra = kept_apart_candidates(found, [person_decision("keep_apart", (REP, JUDGE), at=AT)])
    cands = [*found, *extra]
    flags = dict(zip([frozenset((c.source, c.target)) for c in cands], settled(cands, mine)))
    assert flags[frozenset((JUDGE, DR))] is True and flags[frozenset((REP, FULL))] is False
    asked = pending(cands, mine)
    order = [frozenset((c.source, c.target)) for c in asked]
    assert order.index(frozenset((REP, FULL))) < order.index(frozenset((JUDGE, DR)))
    assert len(asked) == len(_pairs(cands)) - 2  # every undecided pair is still shown


def test_resolve_after_a_veto_asks_about_the_spelling_and_apply_follows_the_person(tmp_path):
    import kgkit
    from kgkit.io.decisions import read_decisions
    from kgkit.workflows.graph import import_graph

    ws = tmp_path / "ws"
    import_graph(ws, _graph(), write_view=False)
    found = kgkit.resolve(ws, at=AT)
    merged = {frozenset(d.subjects) for d in found.decisions if d.kind == "merge"}
    assert frozenset((JUDGE, REP)) in merged  # the exact step merges the judge into Michelle Allen
    assert not any(c.features.get("kept_apart_spelling") for c in found.candidates)
    kgkit.record(ws, [person_decision("keep_apart", (JUDGE, REP), why="another Michelle Allen", at=AT)])
    again = kgkit.resolve(ws, at=AT)
    asked = {frozenset((c.source, c.target)): c for c in again.pending}
    assert {frozenset((JUDGE, DR)), frozenset((JUDGE, FULL))} <= asked.keys()
    assert "keeps apart" in asked[frozenset((JUDGE, FULL))].reasons[0]
    # the person says the judge is Michelle W. Allen; apply joins them and keeps Michelle Allen apart
    kgkit.record(ws, [person_decision("merge", (JUDGE, FULL), why="same judge", at=AT)])
    kgkit.resolve(ws, at=AT)
    assert any(d.decided_by == "person" and d.kind == "merge" for d in read_decisions(ws))
    kgkit.apply(ws)
    ids = set(kgkit.read_graph(ws).entities["id"])
    assert REP in ids and (JUDGE in ids) != (FULL in ids)  # the judge and W. Allen are one entity, not Michelle Allen's
