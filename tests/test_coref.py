"""Document- and corpus-level naming of offline extractions (kgkit.extractors.offline.coref)."""

from __future__ import annotations

from kgkit.core.domain import Domain
from kgkit.core.records import (
    ChunkExtraction,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Span,
    TextExtraction,
)
from kgkit.extractors.offline.coref import coref_documents, parse_votes


def entity(name: str, etype: str, start: int, votes: str | None = None) -> ExtractedEntity:
    return ExtractedEntity(name=name, type=etype, span=Span(start=start, end=start + len(name)),
                           attributes={"votes": votes} if votes else {})


def document(doc_id: str, *chunks: TextExtraction) -> DocumentExtraction:
    return DocumentExtraction(document_id=doc_id, path=f"{doc_id}.txt", chunks=tuple(
        ChunkExtraction(chunk_id=f"{doc_id}#{i}", document_id=doc_id, chunk_start=1000 * i, extraction=te)
        for i, te in enumerate(chunks)))


def test_parse_votes() -> None:
    assert parse_votes("Location:2.5,Person:1") == {"Location": 2.5, "Person": 1.0}
    assert parse_votes(None) == {} and parse_votes("garbage") == {}


def test_one_type_per_name_with_the_corpus_vote_and_its_evidence(general_domain: Domain) -> None:
    a = TextExtraction(extractor_id="offline:x", entities=(entity("Burma", "Person", 0, "Person:1"),))
    b = TextExtraction(extractor_id="offline:x", entities=(entity("Burma", "Location", 0, "Location:2.2"),
                                                           entity("Burma", "Location", 50, "Location:1")))
    out = coref_documents([document("a", a), document("b", b)], domain=general_domain)
    types = {(d.document_id, e.type) for d in out for c in d.chunks for e in c.extraction.entities}
    assert types == {("a", "Location"), ("b", "Location")}  # a's single Person vote loses to half of b's 2.5
    evidence = out[0].chunks[0].extraction.entities[0].attributes["type_votes"]
    assert evidence == "doc Person:1 | corpus Location:2.5"  # b: the strongest 2.2 plus 0.3 of the other 1


def test_a_label_repeated_on_every_mention_does_not_outvote_a_classifying_noun(general_domain: Domain) -> None:
    # "Leonessa is a town ... Leonessa is known ... Leonessa is twinned": spaCy says PERSON four times
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Leonessa", "Location", 0, "Location:2.5,Person:1"), *(entity("Leonessa", "Person", 40 * k, "Person:1")
                                                                      for k in (1, 2, 3))))
    [out] = coref_documents([document("d", te)], domain=general_domain)
    assert {e.type for e in out.chunks[0].extraction.entities} == {"Location"}  # 2.5 against 1 + 0.3 * 3


def test_surnames_stand_for_the_full_name_across_chunks_and_relations_follow(general_domain: Domain) -> None:
    first = TextExtraction(extractor_id="offline:x", entities=(entity("Franklin D. Roosevelt", "Person", 0),))
    second = TextExtraction(
        extractor_id="offline:x",
        entities=(entity("Roosevelt", "Organization", 0, "Organization:1"), entity("Congress", "Organization", 20)),
        relations=(ExtractedRelation(source="Roosevelt", source_type="Organization", target="Congress",
                                     target_type="Organization", type="MEETS", predicate="meet"),))
    [out] = coref_documents([document("d", first, second)], domain=general_domain)
    ents = out.chunks[1].extraction.entities
    assert (ents[0].name, ents[0].type, ents[0].attributes["surface"]) == ("Franklin D. Roosevelt", "Person", "Roosevelt")
    [rel] = out.chunks[1].extraction.relations
    assert (rel.source, rel.source_type, rel.target) == ("Franklin D. Roosevelt", "Person", "Congress")


def test_the_last_full_name_before_wins_and_places_stay_places(general_domain: Domain) -> None:
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Theodore Roosevelt", "Person", 0), entity("Roosevelt", "Person", 30),
        entity("Franklin Roosevelt", "Person", 60), entity("Roosevelt", "Person", 90),
        entity("George Washington", "Person", 120), entity("Washington", "Location", 150, "Location:1.8")))
    [out] = coref_documents([document("d", te)], domain=general_domain)
    assert [e.name for e in out.chunks[0].extraction.entities] == [
        "Theodore Roosevelt", "Theodore Roosevelt", "Franklin Roosevelt", "Franklin Roosevelt", "George Washington",
        "Washington"]


def test_acronyms_spell_an_earlier_organisation(general_domain: Domain) -> None:
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Works Progress Administration", "Organization", 0), entity("WPA", "Organization", 40)))
    [out] = coref_documents([document("d", te)], domain=general_domain)
    assert {e.name for e in out.chunks[0].extraction.entities} == {"Works Progress Administration"}


def test_words_capitalised_only_at_sentence_starts_are_dropped_with_their_relations(general_domain: Domain) -> None:
    text = "Nationwide, prices fell. Roosevelt spoke. A nationwide plan helped."
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Nationwide", "Organization", 0), entity("Roosevelt", "Person", 25)),
        relations=(ExtractedRelation(source="Roosevelt", source_type="Person", target="Nationwide",
                                     target_type="Organization", type="RELATED_TO"),))
    [out] = coref_documents([document("d", te)], domain=general_domain, texts={"d": text})
    assert [e.name for e in out.chunks[0].extraction.entities] == ["Roosevelt"]
    assert out.chunks[0].extraction.relations == ()


def test_llm_extractions_pass_through_unchanged(general_domain: Domain) -> None:
    te = TextExtraction(extractor_id="llm:x", quality="llm", entities=(
        entity("Franklin D. Roosevelt", "Person", 0), entity("Roosevelt", "Organization", 30)))
    doc = document("d", te)
    assert coref_documents([doc], domain=general_domain) == [doc]


def test_a_surname_spacy_called_a_place_still_stands_for_the_person(general_domain: Domain) -> None:
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("M. Sasikumar", "Person", 0), entity("Sasikumar", "Location", 40, "Location:1"),
        entity("Madurai", "Location", 80, "Location:1.8")))  # a bare GPE label is no evidence of a place
    [out] = coref_documents([document("d", te)], domain=general_domain)
    assert [(e.name, e.type) for e in out.chunks[0].extraction.entities] == [
        ("M. Sasikumar", "Person"), ("M. Sasikumar", "Person"), ("Madurai", "Location")]


def test_a_surname_seen_alone_as_a_person_lends_its_vote_to_the_full_name(general_domain: Domain) -> None:
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Leona Naess", "Organization", 0, "Organization:1"), entity("Naess", "Person", 40, "Person:1"),
        entity("Naess", "Person", 80, "Person:1"),
        entity("Yorkshire Post", "Organization", 120, "Organization:3.5"),  # a head word: no lending
        entity("Yorkshire", "Person", 160, "Person:1")))
    [out] = coref_documents([document("d", te)], domain=general_domain)
    ents = out.chunks[0].extraction.entities
    assert [(e.name, e.type) for e in ents[:3]] == [("Leona Naess", "Person")] * 3
    assert "name parts Person:1.3" in ents[0].attributes["type_votes"]
    assert [(e.name, e.type) for e in ents[3:]] == [("Yorkshire Post", "Organization"), ("Yorkshire", "Person")]


def test_a_surname_with_a_bare_other_label_joins_the_person_but_not_one_with_a_cue(general_domain: Domain) -> None:
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Winston Churchill", "Person", 0, "Person:1"), entity("Churchill", "Work", 40, "Work:1"),
        entity("Churchill", "Work", 80, "Work:1")))
    [out] = coref_documents([document("d", te)], domain=general_domain)
    assert {(e.name, e.type) for e in out.chunks[0].extraction.entities} == {("Winston Churchill", "Person")}
    cue = TextExtraction(extractor_id="offline:x", entities=(
        entity("Winston Churchill", "Person", 0, "Person:1"), entity("Churchill", "Event", 40, "Event:2")))
    [out] = coref_documents([document("d", cue)], domain=general_domain)
    assert [e.name for e in out.chunks[0].extraction.entities] == ["Winston Churchill", "Churchill"]


def test_untyped_proper_noun_runs_are_kept_only_with_corpus_evidence(general_domain: Domain) -> None:
    text = ("Ebenezer Scrooge sat. Master Scrooge laughed. He met Old Crow Medicine Show and the Census "
            "and Special Recognition. The census had a special recognition.")
    at = {w: text.index(w) for w in ("Ebenezer Scrooge", "Master Scrooge", "Old Crow Medicine Show", "Census",
                                     "Special Recognition")}

    def untyped(name: str) -> ExtractedEntity:
        return ExtractedEntity(name=name, type="Other", label="NAME", span=Span(start=at[name], end=at[name] + len(name)),
                               attributes={"votes": "Other:0.1"})

    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Ebenezer Scrooge", "Person", 0), untyped("Master Scrooge"), untyped("Old Crow Medicine Show"),
        untyped("Census"), untyped("Special Recognition")))
    [out] = coref_documents([document("d", te)], domain=general_domain, texts={"d": text})
    assert [(e.name, e.type) for e in out.chunks[0].extraction.entities] == [
        ("Ebenezer Scrooge", "Person"), ("Ebenezer Scrooge", "Person"),  # "Master Scrooge" is Scrooge
        ("Old Crow Medicine Show", "Other")]  # "Crow" is never written in lower case; the others are common words


def test_one_word_names_mostly_written_in_lower_case_are_dropped(general_domain: Domain) -> None:
    text = "In pursuance of my Constitutional duty. A constitutional issue, constitutional law, constitutional rights."
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Constitutional", "Law", text.index("Constitutional"), "Law:1"),))
    [out] = coref_documents([document("d", te)], domain=general_domain, texts={"d": text})
    assert out.chunks[0].extraction.entities == ()


def test_a_bare_person_label_on_a_word_that_only_opens_sentences_is_dropped(general_domain: Domain) -> None:
    """Rules 6: "Hitherto" labelled PERSON at a sentence start, written in lower case elsewhere, names nobody; a
    person whose name another cue supports, or who is named inside a sentence, stays."""
    text = "Hitherto it has been a duty. Brown spoke. What was hitherto done, brown paper and all, was Truman's."
    te = TextExtraction(extractor_id="offline:x", entities=(
        entity("Hitherto", "Person", 0, "Person:1"), entity("Brown", "Person", text.index("Brown"), "Person:2.5"),
        entity("Truman", "Person", text.index("Truman"), "Person:1")))
    [out] = coref_documents([document("d", te)], domain=general_domain, texts={"d": text})
    assert [e.name for e in out.chunks[0].extraction.entities] == ["Brown", "Truman"]
