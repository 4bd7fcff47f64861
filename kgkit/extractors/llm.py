"""LLM extractor: one combined entity + relation call per chunk through `kgkit.llm.LLMClient` (litellm + instructor).

Satisfies `kgkit.extract.Extractor`, so it plugs into the cached `extract_texts` stage like the offline one and
returns the same TextExtraction records (quality "llm", model, prompt hash, tokens, dollars). A chunk whose call
failed (budget refused, timeout, 429 after retries, provider error, output invalid after re-asks) gets a record
with `error` set — never an empty success, never cached, so a re-run retries only those chunks.

`id` names the model, both prompts' hashes and every parameter that changes answers (temperature, max tokens,
re-asks, mode, seed, document context), so changing any of them misses the stage cache; the per-request cache
below it then re-asks only the requests whose rendered messages changed.

Optional document context: `prepare_inputs(chunks_by_document)` asks once per document for a short summary of
its first chunk and returns one `LLMText` per chunk (text + the shared summary + the document id as a label for
the cost report; the label is not part of the cache key).

>>> import json
>>> from kgkit.io import load_domain
>>> from kgkit.llm import BudgetLedger, LLMClient, LLMSettings
>>> from kgkit.llm.client import import_litellm
>>> litellm = import_litellm()  # with litellm's bundled price map: no network
>>> reply = {"entities": [{"name": "Ada Lovelace", "type": "Person"}, {"name": "London", "type": "Location"}],
...          "relations": [{"source": "Ada Lovelace", "target": "London", "type": "LOCATED_IN",
...                         "evidence": "Ada Lovelace lived in London"}]}
>>> async def fake(**kw):
...     return await litellm.acompletion(model="openai/mock", messages=kw["messages"], mock_response=json.dumps(reply))
>>> client = LLMClient("openai/gpt-4o-mini", ledger=BudgetLedger(cap_usd=0.10), completion=fake,
...                    settings=LLMSettings(mode="json"))
>>> [found] = LLMExtractor(client).extract(["Ada Lovelace lived in London."], domain=load_domain("general"))
>>> [(r.source, r.type, r.target, r.evidence, r.attributes) for r in found.relations]
[('Ada Lovelace', 'LOCATED_IN', 'London', 'Ada Lovelace lived in London', {})]
>>> found.quality, found.error, found.entities[1].span
('llm', None, Span(start=22, end=28))
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from kgkit.domain import Domain
from kgkit.llm.client import Answer, LLMClient, run_sync
from kgkit.prompts import context as context_prompt
from kgkit.prompts import extraction as extraction_prompt
from kgkit.prompts.extraction import ExtractionInput, ExtractionResponse
from kgkit.prompts.quotes import find_quote
from kgkit.types import Chunk, ExtractedEntity, ExtractedRelation, Record, TextExtraction, short_hash

ENTITY_CONFIDENCE = 0.8
RELATION_CONFIDENCE = 0.8


class LLMText(Record):
    """A chunk's text with its document's shared context. `label` (the document id) only attributes cost:
    it is not part of the cache key, so a renamed file still re-uses every extraction."""

    text: str
    context: str | None = None
    label: str = ""

    def fingerprint(self) -> str:
        return "llmtext:" + short_hash(self.text, self.context or "\x00none")


class LLMExtractor:
    """Extract entities and relations with an LLM (see the module docstring)."""

    def __init__(self, client: LLMClient, *, document_context: bool = False) -> None:
        self.client = client
        self.document_context = document_context
        s = client.settings
        ctx = f"ctx-{context_prompt.PROMPT_VERSION}-{context_prompt.PROMPT_HASH[:8]}" if document_context else "ctx-none"
        seed = "" if s.seed is None else f":seed-{s.seed}"
        self.id = (f"llm:{client.model}:extract-{extraction_prompt.PROMPT_VERSION}-{extraction_prompt.PROMPT_HASH[:8]}"
                   f":{ctx}:t-{s.temperature}:max-{s.max_tokens}:reask-{s.max_reasks}:mode-{client._mode_name()}{seed}")

    def __repr__(self) -> str:
        return f"LLMExtractor({self.id!r})"

    # ------------------------------------------------------------------ the Extractor protocol

    def extract(self, texts: Sequence[str | LLMText], *, domain: Domain) -> list[TextExtraction]:
        """One TextExtraction per text, in order (sync; works inside a running event loop too)."""
        items = list(texts)
        return run_sync(lambda: self.aextract(items, domain=domain))

    async def aextract(self, texts: Sequence[str | LLMText], *, domain: Domain) -> list[TextExtraction]:
        """Async form of `extract`: the chunks run concurrently, bounded by the client's semaphore and limits."""
        return list(await asyncio.gather(*(self._one(t, domain) for t in texts)))

    async def _one(self, item: str | LLMText, domain: Domain) -> TextExtraction:
        if isinstance(item, str):
            item = LLMText(text=item)
        if not isinstance(item, LLMText):
            return self._record(error=f"TypeError: expected str or LLMText, got {type(item).__name__}")
        if not item.text.strip():
            return self._record()  # nothing to read: an honest empty result, no call
        inp = ExtractionInput(text=item.text, domain=domain, context=item.context)
        answer = await self.client.ask(extraction_prompt.render_messages(inp), ExtractionResponse, stage="extract",
                                       label=item.label, context=extraction_prompt.validation_context(inp))
        if answer.error is not None or answer.value is None:
            return self._record(answer, error=answer.error or "no value")
        entities, relations = to_records(answer.value, text=item.text, domain=domain)
        return self._record(answer, entities=entities, relations=relations)

    def _record(self, answer: Answer | None = None, *, error: str | None = None,
                entities: tuple[ExtractedEntity, ...] = (), relations: tuple[ExtractedRelation, ...] = ()) -> TextExtraction:
        return TextExtraction(
            extractor_id=self.id, quality="llm", model=self.client.model, prompt_hash=extraction_prompt.PROMPT_HASH,
            entities=entities, relations=relations, error=error,
            cost_usd=answer.cost_usd if answer else 0.0, tokens=answer.tokens if answer else 0,
        )

    # ------------------------------------------------------------------ document context

    def prepare_inputs(self, chunks_by_document: Mapping[str, Sequence[Chunk]]) -> list[LLMText]:
        """One LLMText per chunk (documents in the given order, chunks in order), with the document's shared
        context when `document_context` is on. A failed context call leaves that document without context."""
        return run_sync(lambda: self.aprepare_inputs(chunks_by_document))

    async def aprepare_inputs(self, chunks_by_document: Mapping[str, Sequence[Chunk]]) -> list[LLMText]:
        docs = [(doc_id, list(chunks)) for doc_id, chunks in chunks_by_document.items()]
        contexts: list[str | None] = [None] * len(docs)
        if self.document_context:
            answers = await asyncio.gather(*(self._context(chunks[0].text, doc_id) for doc_id, chunks in docs if chunks))
            it = iter(answers)
            contexts = [next(it) if chunks else None for _, chunks in docs]
        return [LLMText(text=c.text, context=ctx, label=doc_id) for (doc_id, chunks), ctx in zip(docs, contexts)
                for c in chunks]

    async def _context(self, first_chunk: str, label: str) -> str | None:
        messages = context_prompt.render_messages(context_prompt.ContextInput(text=first_chunk))
        answer = await self.client.ask(messages, context_prompt.ContextResponse, stage="context", label=label)
        return answer.value.summary if answer.value is not None else None


def to_records(resp: ExtractionResponse, *, text: str, domain: Domain) -> tuple[tuple[ExtractedEntity, ...],
                                                                                 tuple[ExtractedRelation, ...]]:
    """Validated model output -> kgkit records: canonical names, spans located in the chunk, the exact quote as
    evidence, signature violations flagged (`attributes["signature"] == "violation"`), never rewritten."""
    entities: dict[tuple[str, str], ExtractedEntity] = {}
    types: dict[str, str] = {}
    for e in resp.entities:
        name = domain.canonical_name(e.name.strip())
        types.setdefault(e.name, e.type)
        if (name, e.type) not in entities:
            entities[(name, e.type)] = ExtractedEntity(name=name, type=e.type, span=find_quote(e.name, text),
                                                       label=e.type, confidence=ENTITY_CONFIDENCE)
    relations: dict[tuple[object, ...], ExtractedRelation] = {}
    for r in resp.relations:
        span = find_quote(r.evidence, text)
        if span is None or r.source not in types or r.target not in types:
            continue  # the response model rejects these; kept out if validation was bypassed
        src_type, dst_type = types[r.source], types[r.target]
        attributes = {} if domain.allows(r.type, src_type, dst_type) else {"signature": "violation"}
        rel = ExtractedRelation(
            source=domain.canonical_name(r.source.strip()), source_type=src_type,
            target=domain.canonical_name(r.target.strip()), target_type=dst_type, type=r.type,
            evidence=text[span.start:span.end], evidence_span=span, negated=r.negated,
            confidence=RELATION_CONFIDENCE, valid_at=r.valid_at, attributes=attributes,
        )
        relations.setdefault((rel.source, rel.source_type, rel.target, rel.target_type, rel.type, rel.negated,
                              span.start), rel)
    return tuple(entities.values()), tuple(relations.values())
