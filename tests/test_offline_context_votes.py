"""Type votes from a name's context in the offline extractor (kgkit.extractors.offline.context_votes): a side's
capitalised adjective before a common noun is a Group; a bare-labelled name listed with sure ones takes their kind."""

from __future__ import annotations

import pytest

pytest.importorskip("spacy")

from kgkit.extractors.offline import OfflineExtractor
from kgkit.io import load_domain


def _types(text: str) -> dict[str, str]:
    [out] = OfflineExtractor().extract([text], domain=load_domain("general"))
    assert out.error is None
    return {e.name: e.type for e in out.entities}


def test_allied_and_fascist_before_a_noun_are_groups_and_a_party_or_a_body_stays() -> None:
    types = _types("He led all the Allied armies in France. They were freed from the Nazi and the Fascist tyranny.")
    assert types.get("Allied") == "Group" and types.get("Fascist") == "Group"
    assert types.get("France") == "Location"
    kept = _types("He joined the Liberal party in 1902 and worked for the Allied Control Council in Berlin.")
    assert kept.get("Liberal") != "Group" and kept.get("Allied Control Council") == "Organization"


def test_a_name_listed_with_a_known_place_and_nothing_of_its_own_is_a_place() -> None:
    types = _types("I am proud that the flag will fly again over Wake and Guam.")
    assert types.get("Wake") == "Location" and types.get("Guam") == "Location"
    kept = _types("Hitler and Tojo will find it difficult to explain. Microsoft and Bill Gates gave money to Oxfam.")
    assert kept.get("Microsoft") == "Organization" and kept.get("Bill Gates") == "Person"


def test_a_session_of_a_body_and_a_conference_on_a_subject_are_events_and_a_league_stays_a_body() -> None:
    types = _types("I come before you at the opening of the Regular Session of the 73d Congress. Last March an "
                   "Inter-American Conference on Problems of War and Peace was held in Mexico City.")
    assert types.get("Regular Session") == "Event"
    assert types.get("Inter-American Conference on Problems of War and Peace") == "Event"
    assert types.get("Congress") == "Organization" and types.get("Mexico City") == "Location"
    league = _types("Iowa plays in the Big Ten Conference.")
    assert league.get("Big Ten Conference", "Organization") == "Organization"


def test_an_adjective_labelled_a_law_before_a_noun_is_no_entity() -> None:
    types = _types("Today, in pursuance of my Constitutional duty, I sent to the Congress a message.")
    assert "Constitutional" not in types and "Congress" in types
