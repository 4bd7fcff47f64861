"""Chunking: split a document's text into overlapping chunks that start and end at sentence boundaries.

Sentences are found with a light rule-based splitter (no NLP model needed, so chunking is fast and its
result does not depend on which extractor runs later). Chunk ids are document id + index + text hash, so
they are stable across re-runs. Overlapping sentences are extracted twice; `build` counts a mention once
per document span, so overlap never inflates support counts.

>>> from kgkit.core.records import Document
>>> doc = Document.from_text("One sentence here. Another one follows! A third? Yes.", path="a.txt")
>>> [c.text for c in chunk_document(doc, max_chars=40, overlap_chars=25)]
['One sentence here. Another one follows!', 'Another one follows! A third? Yes.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgkit.core.constants import MAX_CHUNK_CHARS, OVERLAP_CHARS
from kgkit.core.records import Chunk, Document
from kgkit.core.stage import stage

# a sentence ends at . ! ? (plus closing quotes/brackets) before whitespace, or at a blank line
_BOUNDARY = re.compile(r"""(?<=[.!?])["')\]\u201d\u2019]*\s+(?=["'(\[\u201c\u2018]?[A-Z0-9])|\n\s*\n""")
_ABBREVIATIONS = frozenset(
    ["mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "gen", "col", "capt", "lt", "sgt", "rev", "hon", "gov", "sen", "rep", "pres", "vs", "etc", "inc", "ltd", "co", "corp", "no", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "e.g", "i.e", "a.m", "p.m"]
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences in text (whitespace between sentences excluded).

    >>> t = "Mr. Hull spoke. The U.S. Senate agreed."
    >>> [t[s:e] for s, e in sentence_spans(t)]
    ['Mr. Hull spoke.', 'The U.S. Senate agreed.']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.start()
        word = re.search(r"(\S+)$", text[start:end])
        last = word.group(1).rstrip(".").lower() if word else ""
        abbreviation = text[end - 1 : end] == "." and (last in _ABBREVIATIONS or re.fullmatch(r"[a-z]", last))
        if abbreviation and "\n\n" not in match.group(0):
            continue  # "Mr." or an initial ("D.") does not end a sentence
        _append_trimmed(spans, text, start, end)
        start = match.end()
    _append_trimmed(spans, text, start, len(text))
    return spans


def _append_trimmed(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        lead = len(piece) - len(piece.lstrip())
        spans.append((start + lead, start + lead + len(stripped)))


def _split_long(start: int, end: int, text: str, max_chars: int) -> list[tuple[int, int]]:
    """Cut a sentence longer than max_chars at whitespace (hard cut if there is none)."""
    pieces = []
    while end - start > max_chars:
        cut = text.rfind(" ", start + 1, start + max_chars)
        cut = cut if cut > start else start + max_chars
        pieces.append((start, cut))
        start = cut + 1 if text[cut : cut + 1] == " " else cut
    pieces.append((start, end))
    return pieces


@stage(version="1")
def chunk_document(document: Document, *, max_chars: int = MAX_CHUNK_CHARS, overlap_chars: int = OVERLAP_CHARS) -> list[Chunk]:
    """Chunks of at most ~max_chars, made of whole sentences; each chunk repeats the last sentences of the
    previous one, up to overlap_chars, so a fact spanning a boundary is seen whole at least once."""
    if max_chars <= 0 or overlap_chars < 0 or overlap_chars >= max_chars:
        raise ValueError("need max_chars > overlap_chars >= 0")
    text = document.text
    sentences = [piece for s, e in sentence_spans(text) for piece in _split_long(s, e, text, max_chars)]
    chunks: list[Chunk] = []
    i = 0
    while i < len(sentences):
        j = i + 1
        while j < len(sentences) and sentences[j][1] - sentences[i][0] <= max_chars:
            j += 1
        start, end = sentences[i][0], sentences[j - 1][1]
        body = text[start:end]
        chunks.append(Chunk(id=Chunk.make_id(document.id, len(chunks), body), document_id=document.id,
                            index=len(chunks), start=start, end=end, text=body))
        if j >= len(sentences):
            break
        back = j  # start the next chunk with the last sentences of this one that fit in overlap_chars
        while back - 1 > i and end - sentences[back - 1][0] <= overlap_chars:
            back -= 1
        i = back
    return chunks


def chunk_documents(documents: Sequence[Document], *, max_chars: int = MAX_CHUNK_CHARS, overlap_chars: int = OVERLAP_CHARS) -> list[Chunk]:
    """All chunks of all documents, in document order."""
    return [c for d in documents for c in chunk_document(d, max_chars=max_chars, overlap_chars=overlap_chars)]
