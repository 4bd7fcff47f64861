"""The offline extractor's relation patterns (kgkit/extractors/offline/data/relation_patterns.yaml and the rules
in code), one row per pattern: a real sentence (Re-DocRED dev, the State of the Union demo, or the examples the
rules were written for), the relation it must give and the rule that must give it; then what they must not give,
and the measured rule confidences."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kgkit.core.domain import Domain
from kgkit.extractors.offline import CONFIDENCE, OfflineExtractor
from kgkit.extractors.offline.confidence import RULE_CONFIDENCE_FILE, fit_rule_confidence, rule_confidence
from kgkit.extractors.offline.patterns import CHECKS, PREDICATE_FUNCTIONS, relation_patterns

CASES = [
    # (text, (source, relation type, target), rule)
    ("Germany invaded Poland.", ("Germany", "ATTACKS", "Poland"), "svo"),
    ("Pearl Harbor was attacked by Japan.", ("Japan", "ATTACKS", "Pearl Harbor"), "svo"),
    ("Germany declared war on the United States.", ("Germany", "ATTACKS", "United States"), "verb-obj-prep"),
    ("Cordell Hull met with Molotov in Moscow.", ("Cordell Hull", "MEETS", "Molotov"), "verb-prep"),
    ("Desmarais was born in Sudbury , Ontario .", ("Desmarais", "BORN_IN", "Sudbury"), "verb-prep"),
    ("Alexeni is a commune in Ialomița County, Romania.", ("Alexeni", "LOCATED_IN", "Ialomița County"),
     "verb-obj-prep"),
    ("Hitler, the dictator of Germany, met Mussolini in Munich.", ("Hitler", "LEADS", "Germany"), "appos-prep"),
    ("Auguste Rodin's \"The Thinker\" stands in Paris.", ("Auguste Rodin", "AUTHOR_OF", "The Thinker"), "poss"),
    ("The Japanese attack on Pearl Harbor was a surprise.", ("Japanese", "ATTACKS", "Pearl Harbor"), "noun-prep"),
    ("The invasion of Poland by Germany began the war.", ("Germany", "ATTACKS", "Poland"), "noun-prep"),
    ("Henrik Angell is a Norwegian officer.", ("Henrik Angell", "NATIONALITY", "Norwegian"), "nationality"),
    ("Foots Creek is a community in Jackson County, in the U.S. state of Oregon.",
     ("Oregon", "LOCATED_IN", "United States"), "kind-of"),
    ("He lives in Norwich, Connecticut.", ("Norwich", "LOCATED_IN", "Connecticut"), "chain"),
    ("The ceremonies were presided over by the future first prime minister of independent Ghana , Kwame Nkrumah .",
     ("Kwame Nkrumah", "LEADS", "Ghana"), "appos-prep"),
    ("Manila in the Philippines fell.", ("Manila", "LOCATED_IN", "Philippines"), "prep"),
    # a piece defining its topic and naming one country: its other places lie in it
    ("Yandina is a town on Mbanika Island . It lies in the Solomon Islands . Its harbour faces the Russell Islands .",
     ("Russell Islands", "LOCATED_IN", "Solomon Islands"), "piece-country"),
    ("Stamna is a village in Aetolia - Acarnania . The village lies near the Acheloos River . "
     "It is one of the oldest villages of Greece .", ("Acheloos River", "LOCATED_IN", "Greece"), "piece-country"),
]

NOT_GIVEN = [
    # (text, relation type or None for any, why)
    ("The islands separate the Yellow Sea, the China Sea, and the Sea of Japan.", "RELATED_TO",
     "a comma list is no appositive"),
    ("We must help China. The Congress will act, and General Marshall agrees with the Senate.", "LOCATED_IN",
     "a speech defines no topic: no piece-country"),
    ("The Japanese admiration for Paris is old.", None, "an untyped nominal predicate is dropped"),
    ("If Japan attacks Australia, we shall fight.", "ATTACKS", "a condition is not asserted"),
]


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    return OfflineExtractor(cooccurrence=False)


@pytest.mark.parametrize("text, expected, rule", CASES, ids=[c[2] + ":" + c[1][0] for c in CASES])
def test_pattern_gives_its_relation(ex: OfflineExtractor, general_domain: Domain, text: str,
                                    expected: tuple[str, str, str], rule: str) -> None:
    [result] = ex.extract([text], domain=general_domain)
    found = {(r.source, r.type, r.target): r.attributes["rule"] for r in result.relations}
    assert found.get(expected) == rule, f"{expected} by {rule}: got {found}"
    rel = next(r for r in result.relations if (r.source, r.type, r.target) == expected)
    assert rel.confidence == CONFIDENCE[rule] and rel.evidence and rel.evidence in text


@pytest.mark.parametrize("text, rtype, why", NOT_GIVEN, ids=[c[2] for c in NOT_GIVEN])
def test_pattern_does_not_give(ex: OfflineExtractor, general_domain: Domain, text: str, rtype: str | None,
                               why: str) -> None:
    [result] = ex.extract([text], domain=general_domain)
    assert not [r for r in result.relations if rtype is None or r.type == rtype], why


def test_every_pattern_names_a_rule_and_only_declared_functions() -> None:
    patterns = relation_patterns()
    assert {p.rule for p in patterns} >= {"svo", "verb-prep", "verb-obj-prep", "prep", "appos", "appos-prep", "poss",
                                          "noun-prep", "co-subject"}
    for p in patterns:
        assert p.anchor in p.nodes and all(n in p.nodes for n in p.negated)
        for call in (*p.checks, *(t for t in p.predicates if t.startswith("@"))):
            assert call.lstrip("@").split("(")[0] in {**CHECKS, **PREDICATE_FUNCTIONS}


def test_rule_confidences_are_the_measured_counts_of_the_data_file() -> None:
    record = json.loads(resources.files("kgkit.extractors.offline").joinpath("data", RULE_CONFIDENCE_FILE).read_text())
    counts = {rule: tuple(c) for rule, c in record["counts"].items()}
    assert fit_rule_confidence(counts) == record["confidence"]
    assert rule_confidence() == CONFIDENCE and all(0 < c < 1 for c in CONFIDENCE.values())
    assert set(CONFIDENCE) >= {p.rule for p in relation_patterns()} | {"co-occurrence", "transitive"}
    measured = {rule for rule, (_, n) in counts.items() if n > 0}
    assert {"svo", "chain", "co-occurrence"} <= measured  # not a file of defaults
