"""Never a silent wrong merge: match keys are never empty, a generational suffix is a name part of its own, and
the policy leaves names that differ by a number, a whole word or a letter in a short name to a person."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgkit.core.graph import Graph
from kgkit.core.names import normalise_name
from kgkit.stages.resolve import JudgeAnswer, MergeCandidate, Policy, ResolveConfig, decide, merge_candidates, pending
from kgkit.stages.resolve.guards import policy_guard
from kgkit.stages.resolve.keys import (
    COUNTRIES,
    GENERATIONAL,
    LEGAL_FORMS,
    LEGAL_SUFFIXES,
    PERSON_SUFFIXES,
    STOPWORDS,
    TITLES,
    match_key,
)
from kgkit.stages.resolve.name_rules import initials_rule, person_parts, person_suffix
from kgkit.testing.builders import entity_row

pycountry = pytest.importorskip("pycountry")

TYPES = ["Person", "Organization", "Location", "Event", "Other", None]
ER = Path(__file__).resolve().parents[2] / "shared" / "data" / "er"


def _graph(rows):
    return Graph.empty().replace(entities=pd.DataFrame([entity_row(*r) for r in rows]))


def _pycountry_names() -> list[str]:
    names = set()
    for c in pycountry.countries:
        names |= {c.name, getattr(c, "official_name", c.name), getattr(c, "common_name", c.name)}
    names |= {s.name for s in pycountry.subdivisions}
    return sorted(names)


def _er_names() -> list[str]:
    """Every name of the shared entity-resolution sets (PATSTAT applicants, FEBRL people); [] when absent."""
    names: list[str] = []
    patstat = ER / "dedupe_examples" / "patstat_reference.csv"
    if patstat.exists():
        with patstat.open(newline="") as fh:
            names += [r["person_name"] for r in csv.DictReader(fh)]
    for n in "123":
        path = ER / "febrl" / f"dataset{n}.csv"
        if path.exists():
            frame = pd.read_csv(path, skipinitialspace=True, dtype=str)
            names += (frame["given_name"].fillna("") + " " + frame["surname"].fillna("")).str.strip().tolist()
            names += (frame["surname"].fillna("") + ", " + frame["given_name"].fillna("")).tolist()
    return names


def _non_empty(name: str) -> bool:
    return bool(name.strip())


def test_a_match_key_is_never_empty_over_large_name_lists():
    names = sorted(set(_pycountry_names() + _er_names()))
    assert len(names) > 5000
    for name in names:
        for typ in ("Person", "Organization", "Location"):  # the three paths of match_key
            assert match_key(name, typ) or not _non_empty(name), (name, typ)


# names made only of the words match_key may strip: titles, legal forms, countries, suffixes, "The", stop words
_STRIPPED = sorted({*TITLES, *PERSON_SUFFIXES, *LEGAL_SUFFIXES, *LEGAL_FORMS, *COUNTRIES, *GENERATIONAL, *STOPWORDS,
                    "The", "N.V.", "Inc.", "Jr.", "III", "area", "region", "(NL)", "1999", ","})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_STRIPPED), min_size=1, max_size=6), st.sampled_from([" ", ", ", ". ", "-"]),
       st.sampled_from(TYPES))
def test_a_match_key_is_never_empty_for_names_of_strippable_words(words, sep, typ):
    name = sep.join(words)
    assert match_key(name, typ) or not _non_empty(name)


@settings(max_examples=400, deadline=None)
@given(st.text(min_size=1, max_size=40), st.sampled_from(TYPES))
def test_a_match_key_is_never_empty_for_any_unicode_text(name, typ):
    assert match_key(name, typ) or not _non_empty(name)


def test_distinct_countries_and_subdivisions_never_share_a_match_key():
    for typ in ("Location", "Organization"):
        seen: dict[str, str] = {}
        for c in pycountry.countries:
            key = match_key(getattr(c, "common_name", None) or c.name, typ)
            assert key not in seen, (c.name, seen.get(key))
            seen[key] = c.alpha_2
    for country in {s.country_code for s in pycountry.subdivisions}:
        names = {normalise_name(s.name): s.name for s in pycountry.subdivisions.get(country_code=country)}
        keys = [match_key(n, "Location") for n in names.values()]
        assert len(set(keys)) == len(keys), country


@pytest.mark.parametrize("a, b, typ, why", [
    ("United Kingdom", "United States", "Location", "different"),
    ("Government of the United Kingdom", "Government of the United States", "Organization", "different words"),
    ("World War I", "World War", "Event", "numbers differ"),
    ("War", "War of 1812", "Event", "numbers differ"),
    ("World War I", "World War II", "Event", "numbers differ"),
    ("Treaty of Paris (1763)", "Treaty of Paris (1783)", "Event", "numbers differ"),
    ("John Adams", "John Quincy Adams", "Person", "differs by the word 'Quincy'"),
    ("George Bush", "George W. Bush", "Person", "differs by the initial 'W'"),
    ("Prussia", "Russia", "Location", "short names a letter or two apart"),
    ("Austria", "Australia", "Location", "short names a letter or two apart"),
    ("Iran", "Iraq", "Location", "short names a letter or two apart"),
    ("Niger", "Nigeria", "Location", "short names a letter or two apart"),
    ("Republic", "Republican", "Organization", "short names a letter or two apart"),
    ("Australia", "Australasia", "Location", "names a letter or two apart"),
    ("Americas", "America", "Location", "short names a letter or two apart"),
    ("Santa Marta", "Santa Maria", "Location", "words a letter or two apart"),
    ("Jon Stewart", "John Stewart", "Person", "words a letter or two apart"),
    ("Virginia", "West Virginia", "Location", "differs by the word 'West'"),
    ("University of Miami", "Miami University", "Organization", "the same words in another order"),
    ("James D. Anderson Jr.", "James D. Anderson", "Person", "differs by the suffix 'Jr'"),
    ("Martin Luther King Jr.", "Martin Luther King Sr.", "Person", "generational suffixes differ"),
])
def test_the_policy_leaves_near_misses_to_a_person_with_the_reason(a, b, typ, why):
    g = _graph([("x:a", a, typ, 3), ("x:b", b, typ, 1)])
    cands = merge_candidates(g)
    decisions = decide(cands, at="2026-01-01T00:00:00Z")
    assert [d for d in decisions if d.kind == "merge"] == []
    assert why in (policy_guard(match_key(a, typ), match_key(b, typ), typ, a, b) or "")
    for c in pending(cands, decisions):  # a proposal a person sees says why the policy would not decide
        if c.score > ResolveConfig().guard_cap - 1e-9:
            assert c.reasons[0].startswith("not for the policy") and why in c.reasons[0]


@pytest.mark.parametrize("a, b, typ", [
    ("Dr. Jane Smith", "Jane Smith", "Person"), ("J. Smith", "Jane Smith", "Person"),
    ("Acme Corp.", "The Acme Corporation", "Organization"), ("DSM", "Koninklijke DSM N.V.", "Organization"),
    ("Akzo Nobel Chemicals", "Akzo Nobel Chemcials", "Organization"),
    ("TVA", "Tennessee Valley Authority", "Organization"), ("Gist Brocades", "GISTBROCADES B.V.", "Organization"),
    ("Navy Departments", "Navy Department", "Organization"), ("Kazakhstan Republic", "Kazakstan Republic", "Location"),
])
def test_spellings_of_one_name_are_still_merged_by_the_policy(a, b, typ):
    assert policy_guard(match_key(a, typ), match_key(b, typ), typ, a, b) is None
    g = _graph([("x:a", a, typ, 1), ("x:b", b, typ, 3)])
    assert [d.kind for d in decide(merge_candidates(g), at="2026-01-01T00:00:00Z")] == ["merge"]


def test_a_generational_suffix_is_a_name_part_of_its_own():
    assert match_key("James D. Anderson, Jr.", "Person") == match_key("Anderson, James D., Jr.", "Person") == "james d anderson jr"
    assert match_key("Smith, John Junior", "Person") == match_key("John Smith Jr", "Person") == "john smith jr"
    assert person_parts("james d anderson jr") == (("james", "d"), "anderson") and person_suffix("james d anderson jr") == "jr"
    assert person_parts("jr") == ((), "jr")  # a name of one word is a name, whatever it reads
    assert initials_rule("james anderson jr", "james anderson") == "middle"  # no surname conflict
    assert initials_rule("james anderson jr", "james anderson sr") is None  # father and son
    g = _graph([("P:a", "James D. Anderson, Jr.", "Person", 1), ("P:b", "James D. Anderson", "Person", 3)])
    (c,) = merge_candidates(g)
    assert "name_conflict" not in c.features and c.features["rule_middle"] == 1.0
    assert c.score == ResolveConfig().guard_cap and "suffix" in c.reasons[0]


def _candidate(a: str, b: str, typ: str = "Location", **kw) -> MergeCandidate:
    values = dict(source=f"{typ}:{a}", target=f"{typ}:{b}", source_name=a, target_name=b, source_type=typ,
                  target_type=typ, score=0.97, step="embedding", verdict="unique", features={}, reasons=("close",))
    return MergeCandidate(**{**values, **kw})


def test_the_policy_checks_the_names_whichever_step_proposed_the_pair():
    c = _candidate("Prussia", "Russia")
    assert Policy().refusal(c) == "short names a letter or two apart: 'Prussia' / 'Russia'"
    assert decide([c]) == [] and [d.kind for d in decide([c], policy=Policy(guards=False))] == ["merge"]
    assert Policy().refusal(_candidate("Jane Smith", "J. Smith", "Person")) is None
    assert Policy().refusal(_candidate("A", "B", verdict="ambiguous")).startswith("not the one clear match")


def test_a_judge_may_keep_a_guarded_pair_apart_but_never_merge_it():
    class Judge:
        id = "test-judge"

        def __init__(self, same):
            self.same = same

        def __call__(self, candidate):
            return JudgeAnswer(same=self.same, confidence=0.9, why="judged")

    guarded = _candidate("Prussia", "Russia", score=0.89)
    assert decide([guarded], judge=Judge(True)) == []
    assert [d.kind for d in decide([guarded], judge=Judge(False))] == ["keep_apart"]
    plain = _candidate("Jane Smith", "J. Smith", "Person", score=0.85)
    assert [d.kind for d in decide([plain], judge=Judge(True))] == ["merge"]
