"""Extraction stage: text -> entities and relations, through an Extractor passed in as a parameter.

`extract_texts` is the cached, batch-capable stage (keyed by chunk text, domain and extractor, so renaming
a file re-uses it); `locate` places a TextExtraction in its chunk (document offsets, provenance);
`merge_document` gathers a document's chunk extractions. `ExtractorBase` declares, with their defaults, the
capabilities a workflow uses besides `extract` (cache use, inputs, preflight, client, document hook);
`capabilities(extractor)` gives them for any extractor, a plain object with `id` and `extract` included.

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

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from kgkit.core.domain import Domain
from kgkit.core.protocols import StageCache
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

__all__ = ["Extractor", "ExtractorBase", "capabilities", "extract_texts", "locate", "merge_document", "provenance_of"]


@runtime_checkable
class Extractor(Protocol):
    """Anything that turns texts into TextExtractions for a domain.

    `id` names the extractor, its version and its configuration (model, rules version): it is part of every
    cache key, so changing it re-extracts. `extract` returns one TextExtraction per text, in order; a text
    it could not handle gets a TextExtraction with `error` set (never an empty success), and the others go on.
    """

    id: str

    def extract(self, texts: Sequence[str], *, domain: Domain) -> list[TextExtraction]: ...


class ExtractorBase(ABC):
    """What a workflow may ask of an extractor besides `extract`, each with the default an extractor that does
    not need it gets by saying nothing (subclass this, override what it has):

    - `use_cache(cache)`: keep what the extractor builds once (the offline gazetteer) in the run's cache;
    - `prepare_inputs(chunks_by_document)`: what `extract` is given per chunk (default: the chunk's text; an
      LLM extractor: its text with the document's shared context);
    - `preflight_failure`: the check that stopped the extractor before it sent anything (a workflow raises it);
    - `client`: the LLM client whose model and budget ledger the run reports (None: no LLM);
    - `refine_documents(extractions, domain=, texts=)`: the document hook, for what no per-chunk extraction
      can do (the offline extractor's document- and corpus-level naming); default: unchanged.

    >>> class Upper(ExtractorBase):
    ...     id = "upper:1"
    ...     def extract(self, texts, *, domain):
    ...         return [TextExtraction(extractor_id=self.id) for _ in texts]
    >>> Upper().client is None, Upper().preflight_failure is None
    (True, True)
    """

    id: str
    client: Any = None

    @abstractmethod
    def extract(self, texts: Sequence[Any], *, domain: Domain) -> list[TextExtraction]:
        """One TextExtraction per text, in order (see `Extractor`): every extractor says how it extracts."""

    def use_cache(self, cache: StageCache) -> None:  # noqa: B027 - an optional capability, not abstract
        """Nothing to keep by default."""

    def prepare_inputs(self, chunks_by_document: Mapping[str, Sequence[Chunk]]) -> list[Any]:
        """One input per chunk, documents and chunks in order: the chunk's text by default."""
        return [c.text for chunks in chunks_by_document.values() for c in chunks]

    @property
    def preflight_failure(self) -> Exception | None:
        """No preflight check by default."""
        return None

    def refine_documents(self, extractions: Sequence[DocumentExtraction], *, domain: Domain,
                         texts: Mapping[str, str]) -> list[DocumentExtraction]:
        """The document hook (`texts`: document id -> text): unchanged by default."""
        return list(extractions)


class _Plain(ExtractorBase):
    """A plain extractor (only `id` and `extract`) with the default capabilities."""

    def __init__(self, extractor: Extractor) -> None:
        self.wrapped, self.id = extractor, extractor.id

    def extract(self, texts: Sequence[Any], *, domain: Domain) -> list[TextExtraction]:
        return self.wrapped.extract(texts, domain=domain)


def capabilities(extractor: Extractor) -> ExtractorBase:
    """The extractor's declared capabilities: itself when it is an `ExtractorBase`, else the defaults.

    >>> class Plain:
    ...     id = "plain:1"
    ...     def extract(self, texts, *, domain):
    ...         return []
    >>> capabilities(Plain()).prepare_inputs({}), capabilities(Plain()).client
    ([], None)
    """
    return extractor if isinstance(extractor, ExtractorBase) else _Plain(extractor)


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
