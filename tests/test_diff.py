"""diff_extractions on hand-made extraction pairs: what is added, removed, changed, and the agreement."""

from __future__ import annotations

from kgkit.core.records import (
    Chunk,
    ChunkExtraction,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Span,
    TextExtraction,
)
from kgkit.stages.diff import diff_extractions

TEXT = "Ada Lovelace worked with Charles Babbage in London."


def _ent(name: str, typ: str, text: str = TEXT) -> ExtractedEntity:
    start = text.find(name)
    return ExtractedEntity(name=name, type=typ, span=Span(start=start, end=start + len(name)) if start >= 0 else None)


def _rel(s: str, t: str, typ: str, negated: bool = False) -> ExtractedRelation:
    return ExtractedRelation(source=s, source_type="Person", target=t, target_type="Person", type=typ, negated=negated)


def _doc(path: str, *chunks: tuple, doc_id: str = "", sha: str = "s") -> DocumentExtraction:
    did = doc_id or f"doc:{path}"
    return DocumentExtraction(document_id=did, path=path, sha256=sha, chunks=tuple(
        ChunkExtraction(chunk_id=f"{did}#{i}", document_id=did, extraction=TextExtraction(
            extractor_id="x", entities=tuple(ents), relations=tuple(rels), error=err))
        for i, (ents, rels, err) in enumerate(chunks)))


def test_identical_runs_agree_fully():
    run = [_doc("a.txt", ([_ent("Ada Lovelace", "Person")], [_rel("Ada Lovelace", "Charles Babbage", "MET")], None))]
    d = diff_extractions(run, run)
    assert d.entity_agreement == 1.0 and d.relation_agreement == 1.0
    assert (d.entities.same, d.relations.same) == (1, 1)
    assert not any(c.differs for doc in d.documents for c in doc.chunks)


def test_added_removed_and_changed_entities_and_relations():
    a = [_doc("a.txt", ([_ent("Ada Lovelace", "Person"), _ent("London", "Location"), _ent("Charles Babbage", "Person")],
                        [_rel("Ada Lovelace", "Charles Babbage", "WORKED_WITH"), _rel("Ada Lovelace", "London", "LIVED_IN")],
                        None))]
    b = [_doc("a.txt", ([_ent("ada lovelace", "Person"), _ent("London", "Organization"), _ent("Charles Babbage", "Person"),
                         _ent("Babbage", "Person")],
                        [_rel("Ada Lovelace", "Charles Babbage", "MET"), _rel("Charles Babbage", "London", "LIVED_IN")],
                        None))]
    d = diff_extractions(a, b, label_a="offline", label_b="llm")
    chunk = d.documents[0].chunks[0]
    ents = {i.key: (i.status, i.detail) for i in chunk.entities}
    assert ents == {"ada lovelace": ("same", ""), "london": ("changed", "type Location -> Organization"),
                    "charles babbage": ("same", ""), "babbage": ("added", "")}
    rels = [(i.status, i.a, i.b, i.detail) for i in chunk.relations]
    assert ("changed", "Ada Lovelace -WORKED_WITH-> Charles Babbage", "Ada Lovelace -MET-> Charles Babbage",
            "type WORKED_WITH -> MET") in rels
    assert ("removed", "Ada Lovelace -LIVED_IN-> London", None, "") in rels
    assert ("added", None, "Charles Babbage -LIVED_IN-> London", "") in rels
    assert d.entities.model_dump() == {"same": 2, "added": 1, "removed": 0, "changed": 1}
    assert d.relations.model_dump() == {"same": 0, "added": 1, "removed": 1, "changed": 1}
    assert d.entity_agreement == 0.5 and d.relation_agreement == 0.0


def test_negation_flip_is_a_change():
    a = [_doc("a.txt", ([], [_rel("A", "B", "MET")], None))]
    b = [_doc("a.txt", ([], [_rel("A", "B", "MET", negated=True)], None))]
    (item,) = diff_extractions(a, b).documents[0].chunks[0].relations
    assert (item.status, item.detail) == ("changed", "negated")


def test_documents_match_by_path_and_chunks_by_position():
    a = [_doc("a.txt", ([_ent("Ada Lovelace", "Person")], [], None), doc_id="doc:1", sha="old"),
         _doc("gone.txt", ([_ent("X", "Other")], [], None))]
    b = [_doc("a.txt", ([_ent("Ada Lovelace", "Person")], [], None), ([_ent("London", "Location")], [], None),
              doc_id="doc:2", sha="new"), _doc("new.txt", ([], [], None))]
    d = diff_extractions(a, b)
    docs = {x.path: x for x in d.documents}
    assert [x.path for x in d.documents] == ["a.txt", "gone.txt", "new.txt"]
    assert docs["a.txt"].presence == "both" and docs["a.txt"].changed_text
    assert docs["gone.txt"].presence == "only_a" and docs["new.txt"].presence == "only_b"
    second = docs["a.txt"].chunks[1]
    assert second.chunk_id_a is None and [i.status for i in second.entities] == ["added"]
    assert [i.status for i in docs["gone.txt"].chunks[0].entities] == ["removed"]


def test_errors_are_differences_and_marks_follow_status():
    a = [_doc("a.txt", ([_ent("Ada Lovelace", "Person"), _ent("London", "Location")], [], None))]
    b = [_doc("a.txt", ([], [], "timeout"))]
    chunk = Chunk(id="doc:a.txt#0", document_id="doc:a.txt", index=0, start=0, end=len(TEXT), text=TEXT)
    c = diff_extractions(a, b, chunks=[chunk]).documents[0].chunks[0]
    assert c.differs and c.error_b == "timeout" and c.text_a == TEXT
    assert [(TEXT[m.start:m.end], m.status) for m in c.marks_a] == [("Ada Lovelace", "removed"), ("London", "removed")]
    assert c.marks_b == ()


def test_diff_is_a_pure_cacheable_stage(tmp_path):
    from kgkit.io.cache import Cache

    a = [_doc("a.txt", ([_ent("Ada Lovelace", "Person")], [], None))]
    b = [_doc("a.txt", ([_ent("Ada Lovelace", "Organization")], [], None))]
    cache = Cache(tmp_path)
    first = cache.run(diff_extractions, a, b)
    again = Cache(tmp_path)
    assert again.run(diff_extractions, a, b) == first and again.stats.computed["diff_extractions"] == 0
