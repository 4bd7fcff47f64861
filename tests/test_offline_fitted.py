"""The offline extractor's type vote weights: read from data, swappable, traced, fitted on gold types."""

from __future__ import annotations

import pytest

from kgkit.extractors.offline.fitted import (
    HAND_WEIGHTS,
    fit_type_weights,
    traced_cues,
    type_vote_accuracy,
    type_weights,
    use_type_weights,
)

pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def extract():
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.io import load_domain

    extractor, domain = OfflineExtractor(), load_domain("general")

    def run(text: str) -> dict[str, str]:
        [found] = extractor.extract([text], domain=domain)
        return {e.name: e.type for e in found.entities}

    return run


TEXT = "The wilderness lies southwest of Flagstaff."


def test_the_weights_decide_the_type(extract):
    with use_type_weights(HAND_WEIGHTS):
        assert extract(TEXT)["Flagstaff"] == "Location"  # "southwest of" and the gazetteer outvote spaCy's ORG
    with use_type_weights({**HAND_WEIGHTS, "label:ORG": 20.0}):
        assert extract(TEXT)["Flagstaff"] == "Organization"
    assert type_weights() is not None and "label:ORG" not in HAND_WEIGHTS


def test_traced_cues_name_each_mention_and_what_voted(extract):
    with use_type_weights(HAND_WEIGHTS), traced_cues() as trace:
        extract(TEXT)
    [entry] = [t for t in trace if t.name == "Flagstaff"]
    assert ("label:ORG", "Organization") in entry.cues
    assert {t for _, t in entry.cues} == {"Organization", "Location"}
    seen = len(trace)
    extract("Ada Lovelace lived in London.")
    assert len(trace) == seen  # nothing recorded once the block is closed


def test_fit_trusts_the_cue_that_is_right_over_the_one_that_is_not():
    right = [((("label:ORG", "Organization"), ("place", "Location")), frozenset({"Organization"}))] * 40
    wrong = [((("label:PERSON", "Person"), ("place", "Location")), frozenset({"Location"}))] * 40
    examples = right + wrong
    assert type_vote_accuracy(examples, HAND_WEIGHTS) == 0.5  # a place (1.5) outvotes either label (1.0)
    weights = fit_type_weights(examples, min_count=1)
    assert weights["label:ORG"] > weights["place"] > weights["label:PERSON"]
    assert type_vote_accuracy(examples, weights) == 1.0
    assert set(HAND_WEIGHTS) <= set(weights)  # cues never seen keep a (scaled) weight


def test_an_example_no_voted_type_fits_teaches_nothing():
    useless = [((("label:ORG", "Organization"), ("place", "Location")), frozenset({"Person"}))] * 50
    weights = fit_type_weights(useless, min_count=1)
    assert weights["place"] / weights["label:ORG"] == pytest.approx(HAND_WEIGHTS["place"] / HAND_WEIGHTS["label"], rel=0.01)
