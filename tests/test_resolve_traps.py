"""The near-miss trap set: distinct real things with close names are never merged by the default policy.

tests/data/near_miss_pairs.csv holds pairs of different countries, subdivisions, cities, people,
organisations and events whose names are close ("Niger" / "Nigeria", "John Adams" / "John Quincy Adams").
One graph holds both names of every pair, typed as the csv says, each pair mentioned in one document and
both names linked to one shared neighbour (a little context, so the graph features count too). The
default cascade and policy must merge none of them; how many a person is shown (pending) is reported.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from test_resolve_fixtures import doc

from kgkit.core.domain import parse_domain
from kgkit.core.names import entity_id
from kgkit.stages.build import build_graph
from kgkit.stages.resolve import Policy, ResolveConfig, decide, merge_candidates, pending

CSV = Path(__file__).parent / "data" / "near_miss_pairs.csv"
AT = "2026-01-01T00:00:00+00:00"
DOMAIN = parse_domain("""
name: traps
entity_types: {Location: places, Person: people, Organization: bodies, Event: events, Topic: a reference work, Other: other}
relation_types:
  DESCRIBED_IN: {description: a reference work describes it}
""")
SHARED = {"Location": "Gazetteer", "Person": "Biographical Dictionary", "Organization": "Register of Bodies",
          "Event": "Chronicle of Events"}


def pairs() -> list[dict[str, str]]:
    with CSV.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def trap_graph():
    docs = []
    for i, r in enumerate(pairs()):
        a, b, t = r["name_a"], r["name_b"], r["type"]
        shared = SHARED[t]
        docs.append(doc(f"pair{i:04d}", [(a, t), (b, t), (shared, "Topic")],
                        [(a, t, "DESCRIBED_IN", shared, "Topic"), (b, t, "DESCRIBED_IN", shared, "Topic")]))
    return build_graph(docs, domain=DOMAIN)


def test_the_trap_set_is_large_varied_and_sourced():
    rows = pairs()
    assert len(rows) >= 300
    assert {r["category"] for r in rows} == {"country", "subdivision", "city", "person", "organisation", "event"}
    assert all(r["source"] and r["type"] in SHARED for r in rows)
    assert all(entity_id(r["type"], r["name_a"]) != entity_id(r["type"], r["name_b"]) for r in rows)


def _report(rows, cands, decisions) -> tuple[int, int, Counter]:
    """(trap pairs shown to a person as pending, trap pairs merged, pending by category)."""
    waiting = {frozenset((c.source, c.target)) for c in pending(cands, decisions)}
    merged = {frozenset(d.subjects) for d in decisions if d.kind == "merge"}
    shown, by_category = 0, Counter()
    hits = 0
    for r in rows:
        pair = frozenset((entity_id(r["type"], r["name_a"]), entity_id(r["type"], r["name_b"])))
        hits += pair in merged
        if pair in waiting:
            shown += 1
            by_category[r["category"]] += 1
    return shown, hits, by_category


def test_no_near_miss_pair_is_merged_and_most_are_shown_to_a_person(trap_graph, capsys):
    rows = pairs()
    cands = merge_candidates(trap_graph)
    decisions = decide(cands, at=AT)
    merges = [(c.source_name, c.target_name, c.score, c.reasons[:2]) for c in cands
              if frozenset((c.source, c.target)) in {frozenset(d.subjects) for d in decisions if d.kind == "merge"}]
    assert merges == []  # not one merge in the whole graph: every name in it is a different thing
    shown, _hits, by_category = _report(rows, cands, decisions)
    with capsys.disabled():
        print(f"\ntrap set: {len(rows)} pairs, 0 merged by the policy, {shown} pending for a person "
              f"({dict(sorted(by_category.items()))}); the rest score below min_score")
    assert shown >= len(rows) // 3  # the names are close enough that the cascade proposes many of them
    guarded = [c for c in pending(cands, decisions) if c.features.get("guard")]
    assert guarded and all(c.reasons[0].startswith("not for the policy") for c in guarded)


def test_without_the_guards_the_policy_would_merge_many_of_them(trap_graph, capsys):
    """What the guards hold back: the same cascade and policy with the guards off merges trap pairs."""
    rows = pairs()
    cands = merge_candidates(trap_graph, config=ResolveConfig(guards=False))
    decisions = decide(cands, policy=Policy(guards=False), at=AT)
    _shown, hits, _ = _report(rows, cands, decisions)
    with capsys.disabled():
        print(f"\ntrap set without the guards: {hits} of {len(rows)} pairs merged by the policy")
    assert hits >= 30


def test_the_learned_policy_merges_none_of_them_either(trap_graph, capsys):
    """The learned scorer (the shipped prior, pairs the graph proposes added) at min_probability 0.99."""
    from kgkit.stages.resolve.learned import learned_candidates
    from kgkit.stages.resolve.prior import PRIOR_MODEL

    cands = learned_candidates(trap_graph, merge_candidates(trap_graph), [], PRIOR_MODEL)
    decisions = decide(cands, policy=Policy(min_probability=0.99), at=AT)
    merged = {frozenset(d.subjects) for d in decisions if d.kind == "merge"}
    assert [(c.source_name, c.target_name) for c in cands if frozenset((c.source, c.target)) in merged] == []
    unguarded = decide(cands, policy=Policy(min_probability=0.99, guards=False), at=AT)
    with capsys.disabled():
        print(f"\ntrap set, learned policy: 0 merged; with the guards off the model alone would merge "
              f"{sum(d.kind == 'merge' for d in unguarded)}")
