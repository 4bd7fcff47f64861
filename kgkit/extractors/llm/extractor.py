"""LLM extractor: one combined entity + relation call per chunk through `kgkit.llm.LLMClient` (litellm + instructor).

Satisfies `kgkit.stages.extract.Extractor`, so it plugs into the cached `extract_texts` stage like the offline one and
returns the same TextExtraction records (quality "llm", model, prompt hash, tokens, dollars). A chunk whose call
failed (budget refused, timeout, 429 after retries, provider error, output invalid after re-asks: malformed JSON,
the wrong schema, no choices) gets a record with `error` set ("cause — detail", see `kgkit.llm.errors`) — never
an empty success, never cached, so a re-run retries only those chunks.

`preflight()` checks the model with one tiny request; with a client built by `LLMOptions` it happens by itself
before the first request that is not answered from the cache. When it fails, every chunk of the call gets a
"preflight failed: ..." record and `preflight_failure` holds the `PreflightError` (the workflows raise it).

`id` names the model, both prompts' hashes and every parameter that changes answers (temperature, max tokens,
re-asks, mode, seed, document context), so changing any of them misses the stage cache; the per-request cache
below it then re-asks only the requests whose rendered messages changed.

Optional document context: `prepare_inputs(chunks_by_document)` returns one `LLMText` per chunk. A document's
first chunk is asked for its entities and relations *and* a short summary of the document in one request; the
document's later chunks wait for that summary and carry it in their prompts. Context thus costs no extra
request and no barrier: the other documents' chunks run meanwhile. Should the first chunk's request fail, the
summary is asked alone (`kgkit/extractors/llm/context.py`); should that fail too, the later chunks become error
records (never extracted without the context their cache key promises), retried on the next run.

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
from typing import Any

from kgkit.core.domain import Domain
from kgkit.core.records import Chunk, ExtractedEntity, ExtractedRelation, Record, TextExtraction, short_hash
from kgkit.extractors.llm import context as context_prompt
from kgkit.extractors.llm import prompt as extraction_prompt
from kgkit.extractors.llm.prompt import ExtractionInput, ExtractionResponse
from kgkit.extractors.llm.quotes import find_quote
from kgkit.extractors.offline.lexicon import names_nothing, split_title
from kgkit.llm.client import Answer, LLMClient, Preflight, run_sync
from kgkit.llm.errors import PREFLIGHT_PREFIX, PreflightError, clean
from kgkit.llm.options import LLMOptions
from kgkit.stages.extract import ExtractorBase

ENTITY_CONFIDENCE = 0.8
MAX_NAME_CHARS = 200
RELATION_CONFIDENCE = 0.8


class LLMText(Record):
    """A chunk's text and how it gets its document's context. `label` (the document id) only attributes cost:
    it is not part of the cache key, so a renamed file still re-uses every extraction.

    - `summarise`: this is a document's first chunk; its request also asks for the document summary.
    - `context_source`: the text of this chunk's document's first chunk; the chunk waits for that summary.
    - `context`: a summary given by the caller (then nothing is asked for it).
    """

    text: str
    context: str | None = None
    context_source: str | None = None
    summarise: bool = False
    label: str = ""

    def fingerprint(self) -> str:
        return "llmtext:" + short_hash(self.text, self.context or "\x00none", self.context_source or "\x00none",
                                       "summarise" if self.summarise else "")


class _Contexts:
    """The document summaries of one `aextract` call: each first chunk is asked once (a shared task), its later
    chunks await its summary; a summary already seen by this extractor is re-used without asking."""

    def __init__(self, extractor: LLMExtractor, domain: Domain) -> None:
        self.extractor, self.domain = extractor, domain
        self.first: dict[str, asyncio.Task[Answer[ExtractionResponse]]] = {}
        self.fallback: dict[str, asyncio.Task[Answer[context_prompt.ContextResponse]]] = {}

    def first_answer(self, text: str, label: str) -> asyncio.Task[Answer[ExtractionResponse]]:
        """The (shared) extraction + summary request of the first chunk `text`."""
        if text not in self.first:
            inp = ExtractionInput(text=text, domain=self.domain, summarise=True)
            self.first[text] = asyncio.ensure_future(self.extractor._ask(inp, label))
        return self.first[text]

    async def summary(self, first_text: str, label: str) -> tuple[str | None, str | None]:
        """(summary, None) or (None, why not) for the document whose first chunk is `first_text`."""
        memo_key = (self.domain.id, short_hash(first_text))
        if (known := self.extractor._summaries.get(memo_key)) is not None:
            return known, None
        answer = await self.first_answer(first_text, label)
        if answer.value is not None:
            summary: str | None = getattr(answer.value, "summary", None)
        else:  # the first chunk's request failed: ask for the summary alone (its own request and cache entry)
            if first_text not in self.fallback:
                self.fallback[first_text] = asyncio.ensure_future(self.extractor._context(first_text, label))
            ctx = await self.fallback[first_text]
            summary = ctx.value.summary if ctx.value is not None else None
            if summary is None:
                return None, f"document context unavailable: {ctx.error or answer.error}"
        self.extractor._summaries[memo_key] = summary
        return summary, None


class LLMExtractor(ExtractorBase):
    """Extract entities and relations with an LLM (see the module docstring)."""

    @classmethod
    def from_options(cls, options: LLMOptions, *, cache: Any = None) -> LLMExtractor:
        """The extractor for `options` (model, price, budget cap, limits), its requests cached in `cache`.
        Raises kgkit.llm.options.LLMOptionError for a paid model without a cap or an unpriced model."""
        return cls(options.client(cache=cache), document_context=options.document_context)

    def __init__(self, client: LLMClient, *, document_context: bool = False) -> None:
        self.client = client
        self.document_context = document_context
        s = client.settings
        ctx = f"ctx-{context_prompt.PROMPT_VERSION}-{context_prompt.PROMPT_HASH[:8]}" if document_context else "ctx-none"
        seed = "" if s.seed is None else f":seed-{s.seed}"
        self.id = (f"llm:{client.model}:extract-{extraction_prompt.PROMPT_VERSION}-{extraction_prompt.PROMPT_HASH[:8]}"
                   f":{ctx}:t-{s.temperature}:max-{s.max_tokens}:reask-{s.max_reasks}:mode-{client._mode_name()}{seed}")
        self._summaries: dict[tuple[str, str], str] = {}  # (domain id, first chunk hash) -> its document's summary

    def __repr__(self) -> str:
        return f"LLMExtractor({self.id!r})"

    def preflight(self) -> Preflight:
        """Check credentials, model name and api base with one tiny request (raises `PreflightError`)."""
        return self.client.preflight()

    @property
    def preflight_failure(self) -> PreflightError | None:
        """The failed preflight check that stopped this extractor's requests (None when it passed or never ran)."""
        return self.client.preflight_failure

    # ------------------------------------------------------------------ the Extractor protocol

    def extract(self, texts: Sequence[str | LLMText], *, domain: Domain) -> list[TextExtraction]:
        """One TextExtraction per text, in order (sync; works inside a running event loop too)."""
        items = list(texts)
        return run_sync(lambda: self.aextract(items, domain=domain))

    async def aextract(self, texts: Sequence[str | LLMText], *, domain: Domain) -> list[TextExtraction]:
        """Async form of `extract`: the chunks run concurrently, bounded by the client's semaphore and limits.
        A chunk that needs its document's summary waits only for that document's first chunk."""
        contexts = _Contexts(self, domain)
        results = await asyncio.gather(*(self._one(t, domain, contexts) for t in texts), return_exceptions=True)
        stopped = next((r for r in results if isinstance(r, PreflightError)), None)
        if stopped is not None:  # the model failed its check: nothing of these texts was sent
            why = stopped.failure.message() if stopped.failure is not None else str(stopped)
            return [self._record(error=PREFLIGHT_PREFIX + why) for _ in results]
        for r in results:
            if isinstance(r, BaseException):
                raise r
        return list(results)  # type: ignore[arg-type]

    async def _one(self, item: str | LLMText, domain: Domain, contexts: _Contexts) -> TextExtraction:
        if isinstance(item, str):
            item = LLMText(text=item)
        if not isinstance(item, LLMText):
            return self._record(error=f"TypeError: expected str or LLMText, got {type(item).__name__}")
        if not item.text.strip():
            return self._record()  # nothing to read: an honest empty result, no call
        if item.summarise:
            answer = await contexts.first_answer(item.text, item.label)
        else:
            context = item.context
            if context is None and item.context_source is not None:
                context, why_not = await contexts.summary(item.context_source, item.label)
                if context is None:  # never extract without the context the cache key promises
                    return self._record(error=why_not)
            answer = await self._ask(ExtractionInput(text=item.text, domain=domain, context=context), item.label)
        if answer.error is not None or answer.value is None:
            return self._record(answer, error=answer.error or "no value")
        entities, relations = to_records(answer.value, text=item.text, domain=domain)
        return self._record(answer, entities=entities, relations=relations)

    async def _ask(self, inp: ExtractionInput, label: str) -> Answer[ExtractionResponse]:
        return await self.client.ask(extraction_prompt.render_messages(inp), extraction_prompt.response_model(inp),
                                     stage="extract", label=label, context=extraction_prompt.validation_context(inp))

    def _record(self, answer: Answer | None = None, *, error: str | None = None,
                entities: tuple[ExtractedEntity, ...] = (), relations: tuple[ExtractedRelation, ...] = ()) -> TextExtraction:
        return TextExtraction(
            extractor_id=self.id, quality="llm", model=self.client.model, prompt_hash=extraction_prompt.PROMPT_HASH,
            entities=entities, relations=relations, error=error,
            cost_usd=answer.cost_usd if answer else 0.0, tokens=answer.tokens if answer else 0,
        )

    # ------------------------------------------------------------------ document context

    def prepare_inputs(self, chunks_by_document: Mapping[str, Sequence[Chunk]]) -> list[LLMText]:
        """One LLMText per chunk (documents in the given order, chunks in order). With `document_context` on,
        a document's first chunk also asks for the document's summary (in the same request) and its other
        chunks wait for it, so context costs no extra request and no phase of its own. Makes no call.

        >>> from kgkit.core.records import Document
        >>> from kgkit.stages.chunk import chunk_document
        >>> doc = Document.from_text("Ada met Bob. " * 30, path="a.txt")
        >>> ex = LLMExtractor(LLMClient("kgkit-fake/x", free=True), document_context=True)
        >>> [(i.summarise, i.context_source is not None) for i in ex.prepare_inputs(
        ...     {doc.id: chunk_document(doc, max_chars=200, overlap_chars=0)})]
        [(True, False), (False, True)]
        """
        out: list[LLMText] = []
        for doc_id, chunks in chunks_by_document.items():
            chunks = list(chunks)
            shared = self.document_context and len(chunks) > 1  # a one-chunk document needs no summary
            for i, c in enumerate(chunks):
                out.append(LLMText(text=c.text, label=doc_id, summarise=shared and i == 0,
                                   context_source=chunks[0].text if shared and i > 0 else None))
        return out

    async def _context(self, first_chunk: str, label: str) -> Answer[context_prompt.ContextResponse]:
        """The summary alone (used when the first chunk's combined request failed)."""
        messages = context_prompt.render_messages(context_prompt.ContextInput(text=first_chunk))
        return await self.client.ask(messages, context_prompt.ContextResponse, stage="context", label=label)


def to_records(resp: ExtractionResponse, *, text: str, domain: Domain) -> tuple[tuple[ExtractedEntity, ...],
                                                                                 tuple[ExtractedRelation, ...]]:
    """Validated model output -> kgkit records: canonical names, spans located in the chunk, the exact quote as
    evidence, signature violations flagged (`attributes["signature"] == "violation"`), never rewritten. The
    offline extractor's name filters apply too: names made only of generic words and titles are dropped with
    their relations, a person's leading titles become the `title` attribute."""
    entities: dict[tuple[str, str], ExtractedEntity] = {}
    types: dict[str, str] = {}
    names: dict[str, str] = {}  # name as the model wrote it -> the record's name
    person = domain.entity_type_for_label("PERSON")
    for e in resp.entities:
        name = clean(e.name, MAX_NAME_CHARS)  # no control characters in a name
        if not name or names_nothing(name):
            continue  # the offline extractor's filters: "the Government", "the President" name nothing
        title, name = split_title(name) if e.type == person else ("", name)  # "Prime Minister Churchill"
        name = domain.canonical_name(name)
        types.setdefault(e.name, e.type)
        names.setdefault(e.name, name)
        if (name, e.type) not in entities:
            entities[(name, e.type)] = ExtractedEntity(name=name, type=e.type, span=find_quote(e.name, text),
                                                       label=e.type, confidence=ENTITY_CONFIDENCE,
                                                       attributes={"title": title} if title else {})
    relations: dict[tuple[object, ...], ExtractedRelation] = {}
    for r in resp.relations:
        span = find_quote(r.evidence, text)
        if span is None or r.source not in types or r.target not in types:
            continue  # the response model rejects these (or the filters dropped an end)
        src_type, dst_type = types[r.source], types[r.target]
        attributes = {} if domain.allows(r.type, src_type, dst_type) else {"signature": "violation"}
        rel = ExtractedRelation(
            source=names[r.source], source_type=src_type, target=names[r.target], target_type=dst_type, type=r.type,
            evidence=text[span.start:span.end], evidence_span=span, negated=r.negated,
            confidence=RELATION_CONFIDENCE, valid_at=r.valid_at, attributes=attributes,
        )
        relations.setdefault((rel.source, rel.source_type, rel.target, rel.target_type, rel.type, rel.negated,
                              span.start), rel)
    return tuple(entities.values()), tuple(relations.values())
