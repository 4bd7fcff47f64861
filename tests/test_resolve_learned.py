"""The learned pair scorer (kgkit.stages.resolve.learned): context decides what names cannot, a person's
decisions teach it, review asks the most informative question first, and it never merges what the guards
hold back (Jane Austen / Jane Austin, the trap set)."""

from __future__ import annotations

import numpy as np
from test_resolve_fixtures import DOMAIN, doc

from kgkit.stages.build import build_graph
from kgkit.stages.resolve import Policy, decide, merge_candidates, pending, person_decision
from kgkit.stages.resolve.learned import (
    FEATURES,
    context_candidates,
    feature_matrix,
    pair_context,
    score_candidates,
    update_model,
)
from kgkit.stages.resolve.prior import PRIOR_MODEL

AT = "2026-01-01T00:00:00+00:00"
P, O, L = "Person", "Organization", "Location"  # noqa: E741


def _merged(decisions) -> set[frozenset[str]]:
    return {frozenset(d.subjects) for d in decisions if d.kind == "merge" and d.verdict == "accept"}


def test_jane_austen_and_jane_austin_are_left_to_a_person_on_every_path():
    g = build_graph([doc("d1", [("Jane Austen", P)], []), doc("d2", [("Jane Austin", P)], [])], domain=DOMAIN)
    cands = merge_candidates(g)
    pair = frozenset(("Person:jane austen", "Person:jane austin"))
    assert not _merged(decide(cands, at=AT))
    waiting = [c for c in pending(cands, decide(cands, at=AT)) if frozenset((c.source, c.target)) == pair]
    assert waiting and "'austen' / 'austin'" in waiting[0].reasons[0]
    scored = score_candidates(cands, g, PRIOR_MODEL)
    assert not _merged(decide(scored, policy=Policy(min_probability=0.0), at=AT))  # the guard holds at any p


def test_a_rare_slip_beside_an_attested_spelling_still_merges():
    names = [("Katelyn Colegate", P), ("Mark Colegate", P), ("Susan Colegate", P), ("Katelyn Colegamte", P)]
    g = build_graph([doc(f"d{i}", [n], []) for i, n in enumerate(names)], domain=DOMAIN)
    merged = _merged(decide(merge_candidates(g), at=AT))
    assert merged == {frozenset(("Person:katelyn colegamte", "Person:katelyn colegate"))}


def _smiths():
    """'J. Smith' could be Jane or John Smith by name; the graph says Jane (same employer, same birth year)."""
    return build_graph([
        doc("d1", [("Jane Smith", P), ("Acme Corporation", O), ("1950", "Other")],
            [("Jane Smith", P, "WORKS_FOR", "Acme Corporation", O), ("Jane Smith", P, "LOCATED_IN", "1950", "Other")]),
        doc("d2", [("John Smith", P), ("Globex", O), ("1961", "Other")],
            [("John Smith", P, "WORKS_FOR", "Globex", O), ("John Smith", P, "LOCATED_IN", "1961", "Other")]),
        doc("d3", [("J. Smith", P), ("Acme Corporation", O), ("1950", "Other")],
            [("J. Smith", P, "WORKS_FOR", "Acme Corporation", O), ("J. Smith", P, "LOCATED_IN", "1950", "Other")]),
    ], domain=DOMAIN)


def test_context_decides_a_name_the_names_leave_ambiguous():
    g = _smiths()
    cands = [c for c in merge_candidates(g, use_graph=False) if c.source == "Person:j smith"]
    assert {c.target for c in cands} == {"Person:jane smith", "Person:john smith"}
    assert not _merged(decide(cands, at=AT))  # names alone: ambiguous, left to a person
    scored = {c.target: c for c in score_candidates(cands, g, PRIOR_MODEL)}
    jane, john = scored["Person:jane smith"].features, scored["Person:john smith"].features
    assert jane["probability"] > 0.9 > 0.5 > john["probability"]
    merged = _merged(decide(list(scored.values()), policy=Policy(min_probability=0.9), at=AT))
    assert merged == {frozenset(("Person:j smith", "Person:jane smith"))}
    assert "learned probability" in scored["Person:jane smith"].reasons[-1]


def test_a_persons_decisions_teach_the_model_and_review_asks_the_closest_call_first():
    g = _smiths()
    cands = merge_candidates(g, use_graph=False)
    ctx = pair_context(g)
    x = feature_matrix(cands, ctx)
    assert x.shape == (len(cands), len(FEATURES)) and np.all((x >= 0) & (x <= 1))
    target = next(c for c in cands if c.target == "Person:john smith")
    before = float(PRIOR_MODEL.probability(feature_matrix([target], ctx))[0])
    no = [person_decision("keep_apart", (target.source, target.target), at=AT)]
    taught = update_model(PRIOR_MODEL, cands, no * 1, ctx, strength=0.05)
    after = float(taught.probability(feature_matrix([target], ctx))[0])
    assert after < before
    assert update_model(PRIOR_MODEL, cands, [], ctx) is PRIOR_MODEL  # no decisions: the prior as it is
    asked = pending(score_candidates(cands, g, PRIOR_MODEL), [])
    teach = [c.features["probability"] for c in asked if not Policy().person_only(c)]
    likely = [c.features["probability"] for c in asked if Policy().person_only(c)]
    assert teach and [abs(p - 0.5) for p in teach] == sorted(abs(p - 0.5) for p in teach)  # least sure first
    assert likely == sorted(likely, reverse=True)  # what only a person can merge: the likeliest first


def test_the_graph_proposes_pairs_the_names_do_not_and_only_the_model_or_a_person_merges_them():
    g = build_graph([
        doc("d1", [("Katherine Oduya", P), ("19560409", "Other")], [("Katherine Oduya", P, "LOCATED_IN", "19560409", "Other")]),
        doc("d2", [("Kate Smith", P), ("19560409", "Other")], [("Kate Smith", P, "LOCATED_IN", "19560409", "Other")]),
    ], domain=DOMAIN)
    cands = merge_candidates(g)
    extra = context_candidates(g, cands, types={P})
    assert [(c.step, c.verdict) for c in extra] == [("context", "ambiguous")]
    assert not _merged(decide(extra, at=AT))
    assert extra[0].reasons[0].startswith("proposed by the graph")


def test_resolve_with_min_probability_scores_the_workspace_and_learns_from_its_decisions(tmp_path):
    import kgkit
    from kgkit.workflows.graph import import_graph

    ws = tmp_path / "ws"
    import_graph(ws, _smiths(), write_view=False)
    found = kgkit.resolve(ws, at=AT, min_probability=0.9)
    pair = frozenset(("Person:j smith", "Person:jane smith"))
    assert all("probability" in c.features for c in found.candidates)
    assert [frozenset(d.subjects) for d in found.decisions if d.decided_by == "policy"] == [pair]
    kgkit.record(ws, [person_decision("keep_apart", ("Person:j smith", "Person:jane smith"), who="ana", at=AT)])
    again = kgkit.resolve(ws, at=AT, min_probability=0.9)  # the veto stands, and it taught the model
    assert not [d for d in again.decisions if d.decided_by == "policy" and frozenset(d.subjects) == pair]
    p = {frozenset((c.source, c.target)): c.features["probability"] for c in found.candidates}
    q = {frozenset((c.source, c.target)): c.features["probability"] for c in again.candidates}
    assert q[pair] < p[pair]


def test_answers_on_pairs_only_a_person_can_merge_do_not_teach_the_model():
    from kgkit.core.decisions import MergeCandidate

    war = MergeCandidate(source="Event:war", target="Event:war of 1812", source_name="War", target_name="War of 1812",
                         source_type="Event", target_type="Event", score=0.9, step="rule", verdict="unique",
                         features={}, reasons=())
    assert Policy().person_only(war)  # a whole word and a number apart: guarded
    apart = [person_decision("keep_apart", (war.source, war.target), at=AT)]
    assert update_model(PRIOR_MODEL, [war], apart, None) is PRIOR_MODEL
    plain = war.model_copy(update={"target": "Event:the war", "target_name": "The War"})
    assert not Policy().person_only(plain)
    assert update_model(PRIOR_MODEL, [plain], [person_decision("keep_apart", (plain.source, plain.target), at=AT)],
                        None) is not PRIOR_MODEL
