"""Extraction stage: text -> entities and relations, through an Extractor passed in as a parameter.

`extract_texts` is the cached, batch-capable stage (keyed by chunk text, domain and extractor, so renaming
a file re-uses it); `locate` places a TextExtraction in its chunk (document offsets, provenance);
`merge_document` gathers a document's chunk extractions.

>>> from kgkit.core.domain import parse_domain
>>> class Echo:
...     id = "echo:1"
...     def extract(self, texts, *, domain):
...         return [TextExtraction(extractor_id=self.id, entities=(ExtractedEntity(name=t, type="Other"),)) for t in texts]
>>> dom = parse_domain("name: d\\nentity_types: {Person: x, Organization: y, Other: z}")
>>> [e.entities[0].name for e in extract_texts(["a", "b"], domain=dom, extractor=Echo())]
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from kgkit.core.domain import Domain
from kgkit.core.records import (
    Chunk,
    ChunkExtraction,
    Document,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Provenance,
    Span,
    TextExtraction,
)
from kgkit.core.stage import stage


@runtime_checkable
class Extractor(Protocol):
    """Anything that turns texts into TextExtractions for a domain.

    `id` names the extractor, its version and its configuration (model, rules version): it is part of every
    cache key, so changing it re-extracts. `extract` returns one TextExtraction per text, in order; a text
    it could not handle gets a TextExtraction with `error` set (never an empty success), and the others go on.
    """

    id: str

    def extract(self, texts: Sequence[str], *, domain: Domain) -> list[TextExtraction]: ...


@stage(version="1")
def extract_texts(texts: Sequence[str], *, domain: Domain, extractor: Extractor) -> list[TextExtraction]:
    """Run the extractor over texts; an exception becomes an error record for each text of the batch."""
    try:
        results = list(extractor.extract(list(texts), domain=domain))
    except Exception as exc:  # the extractor is a plug-in: one failure must not end the run
        reason = f"{type(exc).__name__}: {exc}"
        return [TextExtraction(extractor_id=extractor.id, error=reason) for _ in texts]
    if len(results) != len(texts):
        reason = f"extractor returned {len(results)} results for {len(texts)} texts"
        return [TextExtraction(extractor_id=extractor.id, error=reason) for _ in texts]
    return results


def _shift(span: Span | None, offset: int) -> tuple[int | None, int | None]:
    return (None, None) if span is None else (span.start + offset, span.end + offset)


def locate(extraction: TextExtraction, chunk: Chunk) -> ChunkExtraction:
    """Place an extraction in its chunk: every entity and relation gets provenance with document offsets."""
    return ChunkExtraction(chunk_id=chunk.id, document_id=chunk.document_id, chunk_start=chunk.start, extraction=extraction)


def provenance_of(item: ExtractedEntity | ExtractedRelation, where: ChunkExtraction) -> Provenance:
    """Provenance of one extracted item: document, chunk, document-level span, evidence, extractor."""
    ext = where.extraction
    span = item.span if isinstance(item, ExtractedEntity) else item.evidence_span
    start, end = _shift(span, where.chunk_start)
    evidence = item.evidence if isinstance(item, ExtractedRelation) else None
    return Provenance(
        document_id=where.document_id,
        chunk_id=where.chunk_id,
        start=start,
        end=end,
        evidence=evidence,
        extractor_id=ext.extractor_id,
        model=ext.model,
        prompt_hash=ext.prompt_hash,
    )


def merge_document(document: Document, chunks: Sequence[ChunkExtraction]) -> DocumentExtraction:
    """Gather one document's chunk extractions, in chunk order."""
    ordered = sorted((c for c in chunks if c.document_id == document.id), key=lambda c: c.chunk_start)
    return DocumentExtraction(
        document_id=document.id, path=document.path, sha256=document.sha256, media_type=document.media_type,
        chunks=tuple(ordered),
    )
