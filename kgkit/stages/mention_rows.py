"""Mentions: build_graph's row input, for readers that skip the per-mention pydantic records.

`Mentions.of(extractions)` stands for the DocumentExtractions it is made from (build_graph gives the same graph);
`kgkit.io.importers.read_siftkg_mentions` fills it straight from sift-kg files. Documents and chunks are named
rows (NamedTuples). Entity and relation mentions are plain tuples in the field order of `EntityMention` and
`RelationMention` (a NamedTuple per mention would cost a Python call each: readers build tuple literals, and
build_graph names the columns after one transpose, `EntityMention._make(columns)`).

>>> from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, TextExtraction
>>> te = TextExtraction(extractor_id="x", entities=(ExtractedEntity(name="Ada", type="Person"),))
>>> m = Mentions.of([DocumentExtraction(document_id="d1", path="a.txt", chunks=(
...     ChunkExtraction(chunk_id="c1", document_id="d1", extraction=te),))])
>>> m.documents[0].path, m.documents[0].errors, m.chunks[0].chunk_id, EntityMention(*m.chunks[0].entities[0]).name
('a.txt', 0, 'c1', 'Ada')
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from kgkit.core.records import DocumentExtraction

__all__ = ["ChunkRow", "DocumentRow", "EntityMention", "Mentions", "RelationMention", "chunk_rows", "document_rows",
           "extractor_ids"]


class DocumentRow(NamedTuple):
    """One input document; the fields are the columns of `Graph.documents` (kgkit.core.graph.DOCUMENT_COLUMNS)."""

    id: str
    path: str
    sha256: str
    media_type: str
    chunks: int
    errors: int  # chunks whose extraction failed


class EntityMention(NamedTuple):
    """The field order of an entity mention row (rows are plain tuples); start / end: document offsets or None."""

    name: str
    type: str
    confidence: float
    start: int | None
    end: int | None


class RelationMention(NamedTuple):
    """The field order of a relation mention row (rows are plain tuples); start / end: the evidence's document
    offsets or None."""

    source: str
    source_type: str
    target: str
    target_type: str
    type: str
    predicate: str | None
    negated: bool
    confidence: float
    valid_at: str | None
    invalid_at: str | None
    start: int | None
    end: int | None
    evidence: str | None


class ChunkRow(NamedTuple):
    """One chunk that did not fail, with its mention rows (EntityMention / RelationMention field order)."""

    document_id: str
    chunk_id: str
    extractor_id: str
    model: str | None
    prompt_hash: str | None
    entities: list[tuple[Any, ...]]
    relations: list[tuple[Any, ...]]


@dataclass(frozen=True)
class Mentions:
    """What build_graph reads from extractions, as rows: one DocumentRow per document, every extractor id of
    the input (failed chunks included), one ChunkRow per chunk that did not fail."""

    documents: list[DocumentRow]
    extractors: list[str]
    chunks: list[ChunkRow]

    @classmethod
    def of(cls, extractions: Sequence[DocumentExtraction]) -> Mentions:
        return cls(document_rows(extractions), extractor_ids(extractions), list(chunk_rows(extractions)))


def document_rows(extractions: Sequence[DocumentExtraction]) -> list[DocumentRow]:
    return [DocumentRow(d.document_id, d.path, d.sha256, d.media_type, len(d.chunks), len(d.errors))
            for d in extractions]


def extractor_ids(extractions: Sequence[DocumentExtraction]) -> list[str]:
    return sorted({c.extraction.extractor_id for d in extractions for c in d.chunks})


def chunk_rows(extractions: Sequence[DocumentExtraction]) -> Iterator[ChunkRow]:
    """The records as ChunkRows, lazily (one chunk's rows alive at a time)."""
    for doc in extractions:
        for where in doc.chunks:
            ext = where.extraction
            if ext.error is not None:
                continue
            off = where.chunk_start
            ents = [(e.name, e.type, e.confidence, None if (s := e.span) is None else s.start + off,
                     None if s is None else s.end + off) for e in ext.entities]
            rels = [(r.source, r.source_type, r.target, r.target_type, r.type, r.predicate, r.negated, r.confidence,
                     r.valid_at, r.invalid_at, None if (s := r.evidence_span) is None else s.start + off,
                     None if s is None else s.end + off, r.evidence) for r in ext.relations]
            yield ChunkRow(where.document_id, where.chunk_id, ext.extractor_id, ext.model, ext.prompt_hash, ents, rels)
