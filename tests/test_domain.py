"""Domains: the bundled YAML files, content-hash identity, clear errors, and the lookups extractors use."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgkit.core.domain import REQUIRED_FALLBACK_TYPES, Domain, DomainError, parse_domain
from kgkit.io import bundled_domains, load_domain

BUNDLED = ("general", "people_orgs_events")
NUMERIC_LABELS = ("CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "TIME")

TINY = """\
name: tiny
entity_types:
  Person: {description: A human being, ner_labels: [PERSON]}
  Organization: {description: A company or body, ner_labels: [ORG]}
  Location: {description: A place, ner_labels: [GPE, LOC]}
  Other: {description: Anything else}
ignore_ner_labels: [CARDINAL]
relation_types:
  WORKS_FOR: {description: employment, signatures: [[Person, Organization]], triggers: [work for, Appos employee of]}
  LOCATED_IN: {description: where, triggers: [in]}
"""


# --------------------------------------------------------------------------- bundled domains


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_domain_loads_and_keeps_fallbacks(name: str) -> None:
    domain = load_domain(name)
    assert isinstance(domain, Domain) and domain.name == name
    assert name in bundled_domains()
    for required in (*REQUIRED_FALLBACK_TYPES, "Location"):
        assert domain.entity_types[required].description
    assert domain.fallback_entity_type == "Other"
    assert domain.fallback_relation_type == "RELATED_TO"
    assert domain.id.startswith("domain:")
    assert all(rt.description for rt in domain.relation_types.values())


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_domain_maps_spacy_labels(name: str) -> None:
    domain = load_domain(name)
    assert domain.entity_type_for_label("PERSON") == "Person"
    assert domain.entity_type_for_label("ORG") == "Organization"
    assert domain.entity_type_for_label("GPE") == "Location"
    assert domain.entity_type_for_label("LOC") == "Location"
    assert domain.entity_type_for_label("NORP") == "Group"
    assert domain.entity_type_for_label("EVENT") == "Event"
    assert domain.entity_type_for_label("LAW") == "Law"
    assert domain.entity_type_for_label("FAC") == ("Location" if name == "general" else "Facility")
    for label in NUMERIC_LABELS:
        assert domain.entity_type_for_label(label) is None
    assert domain.entity_type_for_label("SOMETHING_NEW") == "Other"


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_triggers_are_unambiguous_and_lowercase(name: str) -> None:
    """domain.py lets a trigger listed under two relation types silently map to the last one: guard ours."""
    domain = load_domain(name)
    owner: dict[str, str] = {}
    for rname, rtype in domain.relation_types.items():
        for trigger in rtype.triggers:
            assert trigger == trigger.lower().strip(), (rname, trigger)
            assert owner.setdefault(trigger, rname) == rname, f"{trigger!r} in {owner[trigger]} and {rname}"
    assert len(domain.relation_types) >= 8


def test_general_domain_relations() -> None:
    domain = load_domain("general")
    assert {"LOCATED_IN", "PART_OF", "MEMBER_OF", "LEADS", "WORKS_FOR", "MEETS", "SIGNS", "SUPPORTS", "OPPOSES",
            "ATTACKS", "RELATED_TO"} <= set(domain.relation_types)
    assert domain.relation_type_for_predicate("declare war on") == "ATTACKS"
    assert domain.relation_type_for_predicate("work for") == "WORKS_FOR"
    assert domain.relation_type_for_predicate("appos secretary of") == "LEADS"
    assert domain.relation_types["MEETS"].symmetric


def test_people_orgs_events_domain_flags() -> None:
    domain = load_domain("people_orgs_events")
    types = domain.relation_types
    assert {"FOUNDED", "LEADS", "EMPLOYED_BY", "PARTICIPATED_IN", "OCCURRED_IN", "OCCURRED_AT", "SPOUSE_OF"} <= set(types)
    assert types["SPOUSE_OF"].symmetric and types["SPOUSE_OF"].signatures == (("Person", "Person"),)
    assert [n for n, t in types.items() if t.single_valued] == ["EMPLOYED_BY"]
    assert [n for n, t in types.items() if t.review_required] == ["ATTACKED"]
    assert domain.allows("OCCURRED_IN", "Event", "Location")
    assert not domain.allows("OCCURRED_IN", "Person", "Location")
    assert domain.relation_type_for_predicate("found") == "FOUNDED"


def test_load_domain_by_path_and_unknown_name(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    assert load_domain(path).name == "tiny"
    assert load_domain(str(path)).source == str(path)
    with pytest.raises(DomainError, match=r"no bundled domain named 'nope'.*general"):
        load_domain("nope")
    with pytest.raises(DomainError, match=r"missing\.yaml: cannot read"):
        load_domain(tmp_path / "missing.yaml")


# --------------------------------------------------------------------------- identity


def test_id_is_the_hash_of_the_parsed_content_not_its_layout_or_path() -> None:
    a = parse_domain(TINY, source="a.yaml")
    reformatted = """\
# same domain, block style, comments, quotes
name: "tiny"
entity_types:
  Person:
    description: A human being   # a comment
    ner_labels: ["PERSON"]
  Organization:
    description: 'A company or body'
    ner_labels: [ORG]
  Location: {description: A place, ner_labels: [GPE, LOC]}
  Other: Anything else
ignore_ner_labels:
  - CARDINAL
relation_types:
  WORKS_FOR:
    description: employment
    signatures:
      - [Person, Organization]
    triggers: [work for, Appos employee of]
  LOCATED_IN: {description: where, triggers: [in]}
"""
    b = parse_domain(reformatted, source="elsewhere/b.yaml")
    assert a.id == b.id == parse_domain(TINY).id
    assert a.id == a.fingerprint()


@pytest.mark.parametrize(
    "old, new",
    [
        ("description: employment", "description: paid work"),
        ("triggers: [work for,", "triggers: [work at, work for,"),
        ("ner_labels: [GPE, LOC]", "ner_labels: [GPE]"),
        ("ignore_ner_labels: [CARDINAL]", "ignore_ner_labels: [CARDINAL, MONEY]"),
        ("name: tiny", "name: small"),
    ],
)
def test_any_field_change_changes_the_id(old: str, new: str) -> None:
    assert old in TINY
    assert parse_domain(TINY.replace(old, new)).id != parse_domain(TINY).id


# --------------------------------------------------------------------------- errors


def _error(text: str, source: str = "dom.yaml") -> str:
    with pytest.raises(DomainError) as info:
        parse_domain(text, source=source)
    return str(info.value)


def test_missing_fallback_type_names_file_and_field() -> None:
    message = _error(TINY.replace("  Other: {description: Anything else}\n", ""))
    assert "dom.yaml" in message and "entity_types" in message and "Other" in message


def test_signature_with_unknown_type_names_the_relation() -> None:
    message = _error(TINY.replace("[[Person, Organization]]", "[[Person, Company]]"))
    assert "dom.yaml" in message and "relation_types.WORKS_FOR.signatures[0]" in message and "Company" in message


def test_label_mapped_twice_is_an_error() -> None:
    message = _error(TINY.replace("ner_labels: [ORG]", "ner_labels: [ORG, PERSON]"))
    assert "dom.yaml" in message and "ner_labels" in message and "PERSON" in message


def test_bad_yaml_and_non_mapping_files() -> None:
    assert "bad.yaml: not valid YAML" in _error("name: [unclosed", source="bad.yaml")
    assert "list.yaml" in _error("- Person\n- Other\n", source="list.yaml")
    assert "mapping" in _error("just a string", source="s.yaml")
    assert "relation_types" in _error(TINY.replace("relation_types:\n", "relation_types: [a, b]\nx:\n"))


def test_unknown_or_missing_fields_name_the_field() -> None:
    message = _error(TINY.replace("triggers: [in]", "trigger: [in]"))
    assert "relation_types.LOCATED_IN.trigger" in message
    assert "name" in _error(TINY.replace("name: tiny\n", ""))


# --------------------------------------------------------------------------- lookups


def test_entity_type_for_label() -> None:
    d = parse_domain(TINY)
    assert d.entity_type_for_label("PERSON") == "Person"
    assert d.entity_type_for_label("LOC") == "Location"
    assert d.entity_type_for_label("CARDINAL") is None  # ignored: dropped by extractors
    assert d.entity_type_for_label("WORK_OF_ART") == "Other"  # unknown: fallback
    assert d.entity_type_for_label("Organization") == "Organization"  # a type's own name


def test_relation_type_for_predicate() -> None:
    d = parse_domain(TINY)
    assert d.relation_type_for_predicate("work for") == "WORKS_FOR"
    assert d.relation_type_for_predicate("Work For") == "WORKS_FOR"
    assert d.relation_type_for_predicate("appos employee of") == "WORKS_FOR"  # triggers are matched lowercased
    assert d.relation_type_for_predicate("in") == "LOCATED_IN"
    assert d.relation_type_for_predicate("admire") == "RELATED_TO"


def test_allows() -> None:
    d = parse_domain(TINY)
    assert d.allows("WORKS_FOR", "Person", "Organization")
    assert not d.allows("WORKS_FOR", "Organization", "Person")
    assert d.allows("LOCATED_IN", "Person", "Other")  # no signatures declared: anything goes
    assert d.allows("RELATED_TO", "Other", "Other")  # not declared at all


def test_canonical_names() -> None:
    d = load_domain("general")
    assert d.canonical_name("U.S.") == "United States"
    assert d.canonical_name("Ruritania") == "Ruritania"


def test_a_trigger_under_two_relation_types_is_an_error() -> None:
    bad = TINY.replace("triggers: [in]", "triggers: [in, work for]")
    with pytest.raises(DomainError, match=r"dom\.yaml: .*relation_types\.LOCATED_IN\.triggers: 'work for' already maps to 'WORKS_FOR'"):
        parse_domain(bad, source="dom.yaml")


def test_a_label_both_mapped_and_ignored_is_an_error() -> None:
    bad = TINY.replace("ignore_ner_labels: [CARDINAL]", "ignore_ner_labels: [CARDINAL, ORG]")
    with pytest.raises(DomainError, match=r"entity_types\.Organization\.ner_labels: 'ORG' is also in ignore_ner_labels"):
        parse_domain(bad, source="dom.yaml")


def test_reordering_types_in_the_file_keeps_the_id() -> None:
    lines = TINY.splitlines()
    person, org = lines[2], lines[3]
    reordered = "\n".join([*lines[:2], org, person, *lines[4:]])
    assert parse_domain(reordered).id == parse_domain(TINY).id
