"""LLMExtractor: same records as the offline extractor, evidence validation, signature flags, error records,
the two cache levels (stage and request), document context, the sync API inside a running loop."""

from __future__ import annotations

import asyncio
import json

import pytest

from kgkit.core.domain import parse_domain
from kgkit.core.records import Document
from kgkit.extractors.llm import LLMExtractor
from kgkit.extractors.llm import prompt as extraction
from kgkit.io.cache import Cache
from kgkit.llm import BudgetLedger, LLMClient, LLMSettings
from kgkit.stages.chunk import chunk_document
from kgkit.stages.extract import Extractor, extract_texts
from kgkit.testing.fake_llm import AnsweringCompletion, QueuedCompletion, fake_answer

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

DOMAIN = parse_domain("""
name: jobs
entity_types: {Person: a human, Organization: a body, Location: a place, Other: else}
relation_types:
  WORKS_FOR: {description: employment, signatures: [[Person, Organization]]}
  LOCATED_IN: {description: place, signatures: [[Organization, Location]]}
""")
TEXT = "Ada Lovelace works for Acme in London. Acme is based in London."
GOOD = {"entities": [{"name": "Ada Lovelace", "type": "Person"}, {"name": "Acme", "type": "Organization"},
                     {"name": "London", "type": "Location"}],
        "relations": [{"source": "Ada Lovelace", "target": "Acme", "type": "WORKS_FOR",
                       "evidence": "Ada Lovelace works for  Acme"},
                      {"source": "Ada Lovelace", "target": "London", "type": "WORKS_FOR",
                       "evidence": "Ada Lovelace works for Acme in London"}]}


def extractor_with(queue, *, cache=None, model="kgkit-test/model", context=False, ledger=None):
    fake = QueuedCompletion(queue)
    client = LLMClient(model, price_in=1.0, price_out=2.0, ledger=ledger or BudgetLedger(1.0), completion=fake,
                       cache=cache, settings=LLMSettings(mode="json", max_tokens=512))
    return LLMExtractor(client, document_context=context), fake


def test_parses_into_the_same_records_as_the_offline_extractor():
    ex, _ = extractor_with([json.dumps(GOOD)])
    assert isinstance(ex, Extractor)
    [found] = ex.extract([TEXT], domain=DOMAIN)
    assert found.ok and found.quality == "llm" and found.model == "kgkit-test/model"
    assert found.prompt_hash == extraction.PROMPT_HASH and found.tokens > 0 and found.cost_usd > 0
    assert [(e.name, e.type, TEXT[e.span.start:e.span.end]) for e in found.entities] == [
        ("Ada Lovelace", "Person", "Ada Lovelace"), ("Acme", "Organization", "Acme"), ("London", "Location", "London")]
    works, odd = found.relations
    assert works.evidence == "Ada Lovelace works for Acme"  # the chunk's own text, not the model's spacing
    assert TEXT[works.evidence_span.start:works.evidence_span.end] == works.evidence
    assert works.attributes == {}
    # a signature-breaking relation is flagged, never rewritten
    assert (odd.type, odd.target_type, odd.attributes) == ("WORKS_FOR", "Location", {"signature": "violation"})


def test_evidence_not_in_the_chunk_is_reasked_then_accepted():
    bad = {**GOOD, "relations": [{**GOOD["relations"][0], "evidence": "Ada Lovelace is employed by Acme"}]}
    ex, fake = extractor_with([json.dumps(bad), json.dumps(GOOD)])
    [found] = ex.extract([TEXT], domain=DOMAIN)
    assert found.ok and len(fake.calls) == 2
    assert "not a verbatim quote from the chunk" in fake.calls[1]["messages"][-1]["content"]


def test_types_outside_the_domain_and_unknown_endpoints_are_reasked():
    bad = {"entities": [{"name": "Ada Lovelace", "type": "Scientist"}],
           "relations": [{"source": "Ada Lovelace", "target": "Babbage", "type": "KNOWS", "evidence": "Ada"}]}
    ex, fake = extractor_with([json.dumps(bad), json.dumps(GOOD)])
    [found] = ex.extract([TEXT], domain=DOMAIN)
    reask = fake.calls[1]["messages"][-1]["content"]
    assert found.ok and "'Scientist' is not one of" in reask and "'KNOWS' is not one of" in reask
    assert "'Babbage' is not in the entity list" in reask


def test_invalid_after_reasks_is_an_error_record_never_cached_and_retried_alone(tmp_path):
    cache = Cache(tmp_path)
    bad = json.dumps({**GOOD, "relations": [{**GOOD["relations"][0], "evidence": "made up"}]})
    # two chunks; the first answers well, the second never gives a real quote
    ex, fake = extractor_with([json.dumps(GOOD), bad, bad, bad], cache=cache)
    texts = [TEXT, "Ada Lovelace works for Acme, they say."]
    first = cache.map(extract_texts, texts, domain=DOMAIN, extractor=ex)
    assert first[0].ok and first[1].error.startswith("invalid output after 2 re-asks")
    assert first[1].entities == () and first[1].cost_usd > 0  # an error is never an empty success
    good_second = {**GOOD, "relations": [{**GOOD["relations"][0], "evidence": "Ada Lovelace works for Acme"}]}
    fake.queue.append(json.dumps(good_second))
    fake.calls.clear()
    again = cache.map(extract_texts, texts, domain=DOMAIN, extractor=ex)
    assert again[1].ok and len(fake.calls) == 1 and texts[1] in fake.calls[0]["messages"][-1]["content"]


def test_identical_rerun_costs_nothing_and_edits_reask_only_affected_requests(tmp_path):
    texts = [TEXT, "Acme is based in London.", "Ada Lovelace works for Acme."]
    answers = [fake_answer(extraction.render_messages(extraction.ExtractionInput(text=t, domain=DOMAIN))) for t in texts]
    ex, fake = extractor_with(answers, cache=Cache(tmp_path))
    Cache(tmp_path).map(extract_texts, texts, domain=DOMAIN, extractor=ex)
    assert len(fake.calls) == 3
    # the stage cache is gone (pruned): the request cache still answers everything, at no cost
    Cache(tmp_path).prune(stage="extract_texts")
    ex2, fake2 = extractor_with([], cache=Cache(tmp_path))
    rerun = Cache(tmp_path).map(extract_texts, texts, domain=DOMAIN, extractor=ex2)
    assert all(r.ok for r in rerun) and fake2.calls == [] and ex2.client.ledger.spent_usd == 0
    # one chunk edited -> exactly one request
    edited = [texts[0], "Acme is based in Paris.", texts[2]]
    ex3, fake3 = extractor_with([fake_answer(extraction.render_messages(
        extraction.ExtractionInput(text=edited[1], domain=DOMAIN)))], cache=Cache(tmp_path))
    Cache(tmp_path).map(extract_texts, edited, domain=DOMAIN, extractor=ex3)
    assert len(fake3.calls) == 1 and "Paris" in fake3.calls[0]["messages"][-1]["content"]
    # another model -> a new extractor id and new request keys: everything is asked again
    ex4, fake4 = extractor_with(answers, cache=Cache(tmp_path), model="kgkit-test/other")
    assert ex4.id != ex.id
    Cache(tmp_path).map(extract_texts, texts, domain=DOMAIN, extractor=ex4)
    assert len(fake4.calls) == 3


def test_edited_domain_reasks_every_request_it_renders(tmp_path):
    other = parse_domain(DOMAIN.model_dump_json().replace("employment", "paid work"))
    a = extraction.render_messages(extraction.ExtractionInput(text=TEXT, domain=DOMAIN))
    b = extraction.render_messages(extraction.ExtractionInput(text=TEXT, domain=other))
    ex, _ = extractor_with([])
    assert ex.client.request_key(a, extraction.ExtractionResponse) != ex.client.request_key(b, extraction.ExtractionResponse)


def test_id_names_model_prompt_and_parameters():
    ex, _ = extractor_with([])
    assert ex.id.startswith(f"llm:kgkit-test/model:extract-{extraction.PROMPT_VERSION}-") and extraction.PROMPT_HASH[:8] in ex.id
    assert ":t-0.0:max-512:reask-2:mode-json" in ex.id and ":ctx-none" in ex.id
    with_context, _ = extractor_with([], context=True)
    assert with_context.id != ex.id


def apollo_chunks():
    doc = Document.from_text(" ".join(f"Apollo {n} landed on the Moon." for n in range(30)), path="a.txt")
    chunks = chunk_document(doc, max_chars=300, overlap_chars=0)
    assert len(chunks) > 2
    return doc, chunks


def answering_extractor(*, cache=None, completion=None):
    fake = completion or AnsweringCompletion()
    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=BudgetLedger(1.0), completion=fake,
                       cache=cache, settings=LLMSettings(mode="json", max_tokens=512, max_reasks=0))
    return LLMExtractor(client, document_context=True), fake


def test_document_context_comes_with_the_first_chunk_and_costs_no_extra_request():
    doc, chunks = apollo_chunks()
    ex, fake = answering_extractor()
    inputs = ex.prepare_inputs({doc.id: chunks})
    assert fake.calls == [] and [i.text for i in inputs] == [c.text for c in chunks]
    assert [i.summarise for i in inputs] == [True] + [False] * (len(chunks) - 1)
    assert {i.context_source for i in inputs[1:]} == {chunks[0].text} and {i.label for i in inputs} == {doc.id}
    found = ex.extract(inputs, domain=DOMAIN)
    assert all(f.ok for f in found) and len(fake.calls) == len(chunks)  # one request per chunk, context included
    first, *later = [c["messages"][-1]["content"] for c in fake.calls]
    assert extraction.SUMMARY_REQUEST.strip() in first and "Document context" not in first  # asked first
    summary = " ".join(chunks[0].text.split()[:20])  # what the fake provider summarises
    assert all(f"Document context (for reference only; extract from the chunk):\n{summary}" in m for m in later)
    assert not any(extraction.SUMMARY_REQUEST.strip() in m for m in later)
    # the label attributes cost only: it is not part of the cache key; the context source is
    key = Cache("/nonexistent").key
    assert key(extract_texts, [inputs[1]]) == key(extract_texts, [inputs[1].model_copy(update={"label": "doc:x"})])
    assert key(extract_texts, [inputs[1]]) != key(extract_texts, [inputs[1].model_copy(update={"context_source": "y"})])


def test_a_one_chunk_document_asks_for_no_summary():
    ex, fake = answering_extractor()
    doc = Document.from_text(TEXT, path="b.txt")
    [only] = ex.prepare_inputs({doc.id: chunk_document(doc, max_chars=300, overlap_chars=0)})
    assert not only.summarise and only.context_source is None
    [found] = ex.extract([only], domain=DOMAIN)
    assert found.ok and extraction.SUMMARY_REQUEST.strip() not in fake.calls[0]["messages"][-1]["content"]


class FirstChunkFails(AnsweringCompletion):
    """Answers like the fake provider, except a request for the first chunk's summary (and, when `alone_too`,
    the summary-only request) fails with a provider error."""

    def __init__(self, *, alone_too=False):
        super().__init__()
        self.alone_too = alone_too

    async def __call__(self, **kwargs):
        content = kwargs["messages"][-1]["content"]
        if extraction.SUMMARY_REQUEST.strip() in content or (self.alone_too and content.startswith("Summarise")):
            self.calls.append(kwargs)
            raise RuntimeError("provider down")
        return await super().__call__(**kwargs)


def test_a_failed_first_chunk_falls_back_to_asking_for_the_summary_alone():
    doc, chunks = apollo_chunks()
    ex, fake = answering_extractor(completion=FirstChunkFails())
    first, *later = ex.extract(ex.prepare_inputs({doc.id: chunks}), domain=DOMAIN)
    assert "provider down" in first.error and all(f.ok for f in later)
    asked = [c["messages"][-1]["content"] for c in fake.calls]
    assert sum(m.startswith("Summarise") for m in asked) == 1  # one summary-only request, shared by the chunks


def test_without_any_summary_later_chunks_are_errors_and_a_rerun_retries_them(tmp_path):
    doc, chunks = apollo_chunks()
    cache = Cache(tmp_path / "cache")
    ex, fake = answering_extractor(cache=cache, completion=FirstChunkFails(alone_too=True))
    inputs = ex.prepare_inputs({doc.id: chunks})
    found = cache.map(extract_texts, inputs, batch_size=64, domain=DOMAIN, extractor=ex)
    assert all(not f.ok for f in found)
    assert all(f.error.startswith("document context unavailable: provider error") for f in found[1:])
    assert len(fake.calls) == 2  # never extracted without the context their cache key promises

    ex2, fake2 = answering_extractor(cache=cache)  # the provider is back
    again = cache.map(extract_texts, inputs, batch_size=64, domain=DOMAIN, extractor=ex2)
    assert all(f.ok for f in again) and len(fake2.calls) == len(chunks)


def test_budget_refusal_is_a_per_chunk_error_record():
    ex, fake = extractor_with([json.dumps(GOOD)], ledger=BudgetLedger(cap_usd=1e-6))
    [found] = ex.extract([TEXT], domain=DOMAIN)
    assert found.error.startswith("budget:") and fake.calls == []


def test_sync_extract_inside_a_running_event_loop():
    ex, _ = extractor_with([json.dumps(GOOD)])

    async def cell():
        return ex.extract([TEXT], domain=DOMAIN)

    [found] = asyncio.run(cell())
    assert found.ok and len(found.entities) == 3


def test_chunk_text_is_sent_verbatim_even_with_template_syntax():
    text = "Ada Lovelace works for Acme {{ secret }} {% if x %} in London."
    reply = {**GOOD, "relations": [{**GOOD["relations"][0], "evidence": "Ada Lovelace works for Acme"}]}
    ex, fake = extractor_with([json.dumps(reply)])
    [found] = ex.extract([text], domain=DOMAIN)
    assert found.ok and "Acme {{ secret }} {% if x %} in London." in fake.calls[0]["messages"][-1]["content"]


def test_names_lose_control_characters_and_an_empty_name_is_dropped():
    hostile = {"entities": [{"name": "Ada\x00 Love\x1b[31mlace\u202e", "type": "Person"}, {"name": "\x07", "type": "Other"},
                            {"name": "<b>Acme</b>", "type": "Organization"}],
               "relations": [{"source": "Ada\x00 Love\x1b[31mlace\u202e", "target": "<b>Acme</b>", "type": "WORKS_FOR",
                              "evidence": "Ada Lovelace works for Acme"},
                             {"source": "\x07", "target": "<b>Acme</b>", "type": "WORKS_FOR",
                              "evidence": "Ada Lovelace works for Acme"}]}
    ex, _ = extractor_with([json.dumps(hostile)])
    [found] = ex.extract([TEXT], domain=DOMAIN)
    assert [e.name for e in found.entities] == ["Ada Love[31mlace", "<b>Acme</b>"]  # markup stays text
    assert [(r.source, r.target) for r in found.relations] == [("Ada Love[31mlace", "<b>Acme</b>")]


def test_a_failed_preflight_makes_every_text_an_error_record_and_is_kept_for_the_workflow():
    from kgkit.llm.client import import_litellm

    litellm = import_litellm()
    err = litellm.NotFoundError("The model `gpt-9` does not exist", llm_provider="openai", model="gpt-9")
    fake = QueuedCompletion([err, json.dumps(GOOD)])
    client = LLMClient("openai/gpt-9", price_in=1.0, price_out=2.0, completion=fake, preflight_first=True,
                       settings=LLMSettings(mode="json", max_tokens=512))
    ex = LLMExtractor(client)
    found = ex.extract([TEXT, TEXT + " Again."], domain=DOMAIN)
    assert [f.error for f in found] == ["preflight failed: provider does not know the model openai/gpt-9 — "
                                        "NotFoundError: litellm.NotFoundError: The model `gpt-9` does not exist"] * 2
    assert len(fake.calls) == 1 and "check --model" in str(ex.preflight_failure)
