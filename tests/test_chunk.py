"""Chunking at sentence boundaries with overlap; stable ids."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from kgkit.core.records import Document
from kgkit.stages.chunk import chunk_document, sentence_spans

TEXT = " ".join(f"Sentence number {i} talks about Mr. Smith and the U.S. Navy." for i in range(60))


def test_chunks_are_slices_of_whole_sentences_within_the_limit():
    doc = Document.from_text(TEXT, path="a.txt")
    chunks = chunk_document(doc, max_chars=500, overlap_chars=120)
    assert len(chunks) > 5
    starts = {s for s, _ in sentence_spans(TEXT)}
    ends = {e for _, e in sentence_spans(TEXT)}
    for c in chunks:
        assert c.text == TEXT[c.start : c.end]
        assert len(c.text) <= 500
        assert c.start in starts and c.end in ends
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_consecutive_chunks_overlap_and_cover_the_text():
    doc = Document.from_text(TEXT, path="a.txt")
    chunks = chunk_document(doc, max_chars=500, overlap_chars=120)
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end  # overlap
        assert a.end - b.start <= 120
    assert chunks[0].start == 0 and chunks[-1].end == len(TEXT)


def test_abbreviations_and_initials_do_not_split():
    text = "Mr. Hull met Franklin D. Roosevelt. The U.S. Senate agreed on Jan. 5. Then it rained."
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Mr. Hull met Franklin D. Roosevelt.",
        "The U.S. Senate agreed on Jan. 5.",
        "Then it rained.",
    ]


def test_ids_are_stable_and_depend_on_document_and_text():
    a1 = chunk_document(Document.from_text(TEXT, path="a.txt"), max_chars=400, overlap_chars=50)
    a2 = chunk_document(Document.from_text(TEXT, path="a.txt"), max_chars=400, overlap_chars=50)
    b = chunk_document(Document.from_text(TEXT, path="b/a.txt"), max_chars=400, overlap_chars=50)
    assert [c.id for c in a1] == [c.id for c in a2]
    assert not {c.id for c in a1} & {c.id for c in b}


def test_long_sentence_is_cut_at_spaces_and_empty_text_gives_nothing():
    long = "word " * 400
    chunks = chunk_document(Document.from_text(long, path="l.txt"), max_chars=300, overlap_chars=0)
    assert all(len(c.text) <= 300 for c in chunks)
    assert "".join(c.text.replace(" ", "") for c in chunks) == long.replace(" ", "")
    assert chunk_document(Document.from_text("  \n ", path="e.txt")) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc DEF.!?\n", min_size=0, max_size=80), max_size=30))
def test_every_character_of_every_sentence_is_in_some_chunk(parts):
    text = " ".join(parts)
    doc = Document.from_text(text, path="p.txt")
    chunks = chunk_document(doc, max_chars=120, overlap_chars=30)
    covered = set()
    for c in chunks:
        assert c.text == text[c.start : c.end]
        covered.update(range(c.start, c.end))
    for s, e in sentence_spans(text):
        assert set(range(s, e)) <= covered
