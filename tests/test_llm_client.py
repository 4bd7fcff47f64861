"""LLMClient: parsing, re-asks, failures as answers (timeout, 429, provider, invalid), prices, request cache,
the sync API inside a running loop, rate limits. Every provider is a fake; nothing touches the network."""

from __future__ import annotations

import asyncio
import random

import pytest
from pydantic import BaseModel, field_validator

from kgkit.io.cache import Cache
from kgkit.llm import BudgetLedger, LLMClient, LLMSettings, RateLimiter, UnknownPrice, backoff_delay
from kgkit.llm.client import import_litellm
from kgkit.testing.clock import FakeClock
from kgkit.testing.fake_llm import QueuedCompletion

litellm = import_litellm()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
MESSAGES = [{"role": "user", "content": "Who wrote the notes?"}]


class Name(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def _capitalised(cls, value: str) -> str:
        if not value[:1].isupper():
            raise ValueError("the name must start with a capital letter")
        return value


def make(queue, *, cache=None, clock=None, **kwargs) -> tuple[LLMClient, QueuedCompletion]:
    fake = QueuedCompletion(queue)
    clock = clock or FakeClock()
    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=kwargs.pop("ledger", BudgetLedger(1.0)),
                       completion=fake, cache=cache, sleep=clock.sleep, rng=random.Random(7),
                       settings=kwargs.pop("settings", LLMSettings(mode="json", max_tokens=256)), **kwargs)
    return client, fake


def test_parses_a_valid_answer_and_meters_it():
    client, fake = make(['{"name": "Ada"}'])
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value.name == "Ada" and answer.error is None and answer.attempts == 1
    assert answer.prompt_tokens > 0 and answer.completion_tokens > 0
    assert answer.cost_usd == pytest.approx(answer.prompt_tokens * 1e-6 + answer.completion_tokens * 2e-6)
    assert client.ledger.spent_usd == pytest.approx(answer.cost_usd)
    assert fake.calls[0]["max_tokens"] == 256 and fake.calls[0]["temperature"] == 0.0


def test_reasks_with_the_validation_error_then_succeeds():
    client, fake = make(['{"name": "ada"}', '{"name": "Ada"}'])
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value.name == "Ada" and answer.attempts == 2
    reask = fake.calls[1]["messages"]
    assert "capital letter" in reask[-1]["content"]  # instructor re-asks with pydantic's message
    assert len(client.ledger.charges) == 2  # each attempt reserved and settled on its own


def test_output_still_invalid_after_reasks_is_an_error_and_not_cached(tmp_path):
    cache = Cache(tmp_path)
    client, fake = make(['{"name": "ada"}', "not json", '{"nam": "Ada"}'], cache=cache)
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value is None and answer.error.startswith("invalid output after 2 re-asks")
    assert len(fake.calls) == 3 and answer.cost_usd > 0
    assert cache.info().entries == 0
    fake.queue.append('{"name": "Ada"}')
    assert client.ask_sync(MESSAGES, Name, stage="demo").value.name == "Ada"  # a re-run asks again


def test_timeout_is_retried_with_backoff_then_succeeds():
    clock = FakeClock()
    timeout = litellm.Timeout("slow", model="m", llm_provider="openai")
    client, fake = make([timeout, '{"name": "Ada"}'], clock=clock)
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value.name == "Ada" and len(fake.calls) == 2
    assert clock.sleeps == [backoff_delay(0, rng=random.Random(7))]  # deterministic jitter, no real sleep
    assert client.ledger.summary()["estimated"] == 1  # a timed-out request may be billed: its worst case is charged


def test_rate_limit_429_backs_off_then_becomes_an_error_record():
    clock = FakeClock()
    err = litellm.RateLimitError("429 slow down", llm_provider="openai", model="m")
    client, fake = make([err] * 4, clock=clock)
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value is None and answer.error.startswith("rate limited (429)")
    assert len(fake.calls) == 4 and len(clock.sleeps) == 3
    assert clock.sleeps[0] < clock.sleeps[1] < clock.sleeps[2]  # exponential
    assert client.ledger.spent_usd == 0 and client.ledger.reserved_usd == 0  # 429s are not billed


def test_provider_error_is_not_retried():
    err = litellm.BadRequestError("bad request", model="m", llm_provider="openai")
    client, fake = make([err, '{"name": "Ada"}'])
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.error.startswith("provider rejected the request (400) — BadRequestError") and len(fake.calls) == 1


def test_unknown_model_price_is_refused_unless_priced_or_free():
    with pytest.raises(UnknownPrice, match="--price-in"):
        LLMClient("kgkit-test/unlisted")
    assert LLMClient("kgkit-test/unlisted", price_in=0.1, price_out=0.2).price.source == "explicit"
    assert LLMClient("ollama/not-in-the-map", free=True).price.free
    assert LLMClient("openai/gpt-4o-mini").price.source == "litellm"


def test_response_is_kept_when_its_cost_cannot_be_computed():
    async def no_usage(**kwargs):
        response = await litellm.acompletion(model="openai/x", messages=kwargs["messages"], mock_response='{"name": "Ada"}')
        response.usage = None
        return response

    ledger = BudgetLedger(cap_usd=1.0)
    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=ledger, completion=no_usage,
                       settings=LLMSettings(mode="json", max_tokens=256))
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value.name == "Ada"
    [charge] = ledger.charges
    assert charge.estimated and charge.cost_usd > 0 and answer.cost_usd == charge.cost_usd  # worst case charged


def test_request_cache_identical_rerun_makes_no_call(tmp_path):
    cache = Cache(tmp_path)
    client, _ = make(['{"name": "Ada"}'], cache=cache)
    first = client.ask_sync(MESSAGES, Name, stage="demo")
    again, fake2 = make([], cache=Cache(tmp_path))  # a new process: same cache folder, nothing queued
    second = again.ask_sync(MESSAGES, Name, stage="demo")
    assert second.value.name == first.value.name and second.cached and fake2.calls == []
    assert second.cost_usd == first.cost_usd and again.ledger.spent_usd == 0
    assert again.ledger.summary()["stages"]["demo"]["cached"] == 1


def test_request_key_follows_model_messages_schema_and_parameters():
    client, _ = make([])
    key = client.request_key(MESSAGES, Name)
    assert key == make([])[0].request_key(MESSAGES, Name)
    assert key != client.request_key([{"role": "user", "content": "Who else?"}], Name)

    class Other(BaseModel):
        person: str

    assert key != client.request_key(MESSAGES, Other)
    assert key != make([], settings=LLMSettings(mode="json", max_tokens=512))[0].request_key(MESSAGES, Name)
    priced = LLMClient("kgkit-test/other", price_in=1.0, price_out=2.0, settings=LLMSettings(mode="json", max_tokens=256))
    assert key != priced.request_key(MESSAGES, Name)


def test_sync_api_works_inside_a_running_event_loop():
    client, _ = make(['{"name": "Ada"}'])

    async def notebook_cell():
        asyncio.get_running_loop()  # as in Jupyter / marimo
        return client.ask_sync(MESSAGES, Name, stage="demo")

    assert asyncio.run(notebook_cell()).value.name == "Ada"


def test_async_api_runs_requests_concurrently_within_the_semaphore():
    in_flight, peak = 0, 0

    async def slow(**kwargs):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return await litellm.acompletion(model="openai/x", messages=kwargs["messages"], mock_response='{"name": "Ada"}')

    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, completion=slow, max_concurrency=3,
                       settings=LLMSettings(mode="json"))

    async def many():
        return await asyncio.gather(*(client.ask([{"role": "user", "content": f"q{i}"}], Name, stage="s") for i in range(9)))

    answers = asyncio.run(many())
    assert all(a.value for a in answers) and peak == 3


def test_rate_limiter_spaces_requests_and_tokens_with_an_injected_clock():
    clock = FakeClock()
    limiter = RateLimiter(rpm=2, tpm=100, clock=clock, sleep=clock.sleep)

    async def go():
        await limiter.acquire(tokens=60)
        await limiter.acquire(tokens=60)  # 120 tokens > 100 per minute: waits for the window
        await limiter.acquire(tokens=10)

    asyncio.run(go())
    assert clock.sleeps == [60.0] and clock.now == 60.0


def test_budget_refusal_is_an_error_answer():
    client, fake = make(['{"name": "Ada"}'], ledger=BudgetLedger(cap_usd=1e-6))
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.error.startswith("budget:") and fake.calls == [] and client.ledger.refused == 1


def test_tool_calling_mode_parses_tool_calls_and_reasks():
    from kgkit.testing.fake_llm import ToolCallReply

    client, fake = make([ToolCallReply('{"name": "ada"}'), ToolCallReply('{"name": "Ada"}')],
                        settings=LLMSettings(mode="tools", max_tokens=256))
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.value.name == "Ada" and len(fake.calls) == 2
    assert fake.calls[0]["tools"][0]["function"]["name"] == "Name"  # the schema went out as a tool
    assert LLMClient("openai/gpt-4o-mini")._mode_name() == "tools"  # tool calling where litellm says it works
    assert LLMClient("kgkit-test/x", free=True)._mode_name() == "json"  # JSON mode for the others


def test_rate_limit_honours_retry_after():
    clock = FakeClock()
    err = litellm.RateLimitError("429", llm_provider="openai", model="m", headers={"retry-after": "30"})
    client, _ = make([err, '{"name": "Ada"}'], clock=clock)
    assert client.ask_sync(MESSAGES, Name, stage="demo").value.name == "Ada"
    assert clock.sleeps == [30.0]


def test_litellm_loop_change_warning_is_not_shown_to_users():
    """run_sync uses a fresh event loop per batch; litellm's note about moving its logging tasks is noise
    (it once landed in a CLI's --json output through a test runner that mixes the streams)."""
    import logging

    from kgkit.llm.client import import_litellm

    import_litellm()
    logger = logging.getLogger("LiteLLM")

    def shown(message: str) -> bool:
        record = logger.makeRecord("LiteLLM", logging.WARNING, __file__, 1, message, (1, 0), None)
        return all(f.filter(record) for f in logger.filters)

    assert not shown("LoggingWorker: event loop changed; carried %d pending and revived %d dequeued")
    assert shown("a real provider warning")


# --------------------------------------------------------------------------- faults (issue 13)


class Found(BaseModel):
    names: list[str] = []
    places: list[str] = []


def _responding(edit):
    """A completion answering '{"names": ["Ada"]}' with `edit(response, kwargs)` applied to litellm's response."""
    calls = []

    async def complete(**kwargs):
        calls.append(kwargs)
        if kwargs["messages"][-1]["content"] == "Reply with the word OK.":
            response = await litellm.acompletion(model="openai/x", messages=kwargs["messages"], mock_response="OK")
        else:
            response = await litellm.acompletion(model="openai/x", messages=kwargs["messages"],
                                                 mock_response='{"names": ["Ada"]}')
        edit(response, kwargs)
        return response

    complete.calls = calls
    return complete


def test_an_answer_of_the_wrong_schema_is_an_error_never_a_value_of_defaults(tmp_path):
    cache = Cache(tmp_path)
    client, fake = make(['{"people": ["Ada"]}', "{}", '{"people": []}'], cache=cache)
    answer = client.ask_sync(MESSAGES, Found, stage="demo")
    assert answer.value is None and answer.error.startswith("invalid output after 2 re-asks: wrong schema — ")
    assert "wrong schema" in fake.calls[1]["messages"][-1]["content"]  # the re-ask says what was wrong
    assert cache.info().entries == 0
    ok, _ = make(['{"names": []}'])
    assert ok.ask_sync(MESSAGES, Found, stage="demo").value.model_dump() == Found().model_dump()  # an answer


def test_a_response_without_choices_is_an_error_and_its_usage_is_charged():
    complete = _responding(lambda r, kw: setattr(r, "choices", []))
    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=BudgetLedger(1.0), completion=complete,
                       settings=LLMSettings(mode="json", max_tokens=256))
    answer = client.ask_sync(MESSAGES, Found, stage="demo")
    assert answer.error.startswith("provider answered with no choices") and len(complete.calls) == 1
    assert client.ledger.spent_usd > 0 and not client.ledger.charges[0].estimated


@pytest.mark.parametrize("usage", [None, (0, 0), (-5, 3), (10, 10_000)], ids=["none", "zeros", "negative", "above"])
def test_usage_that_cannot_be_trusted_is_charged_at_the_reserved_worst_case(usage):
    def edit(response, kwargs):
        if usage is None:
            response.usage = None
        else:
            response.usage.prompt_tokens, response.usage.completion_tokens = usage

    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=BudgetLedger(1.0),
                       completion=_responding(edit), settings=LLMSettings(mode="json", max_tokens=256))
    answer = client.ask_sync(MESSAGES, Found, stage="demo")
    [charge] = client.ledger.charges
    assert answer.value.names == ["Ada"] and charge.estimated and answer.cost_usd == charge.cost_usd
    assert charge.cost_usd >= 256 * 2e-6  # the worst case: max_tokens of output at least
    assert client.ledger.overruns == (usage == (10, 10_000))  # reported beyond the worst case
    assert client.ledger.summary()["stages"]["demo"]["estimated"] == 1


def test_a_timeout_is_tried_twice_each_charged_at_its_worst_case():
    timeout = litellm.Timeout("slow", model="m", llm_provider="openai")
    client, fake = make([timeout] * 4)
    answer = client.ask_sync(MESSAGES, Name, stage="demo")
    assert answer.error.startswith("no answer within 120 s after 2 attempts — ") and len(fake.calls) == 2
    assert client.ledger.summary()["estimated"] == 2 and answer.cost_usd == client.ledger.spent_usd > 0


def test_retry_after_is_read_from_litellms_copy_of_the_provider_headers():
    from kgkit.llm.client import retry_after_seconds

    err = litellm.RateLimitError("429", llm_provider="openai", model="m")
    err.litellm_response_headers = {"retry-after": "2.5"}
    assert retry_after_seconds(err) == 2.5


def test_preflight_checks_the_model_once_before_the_first_request_and_never_for_cache_hits(tmp_path):
    from kgkit.llm.client import PREFLIGHT_MAX_TOKENS, PREFLIGHT_MESSAGES

    complete = _responding(lambda r, kw: None)
    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=BudgetLedger(1.0), completion=complete,
                       cache=Cache(tmp_path), settings=LLMSettings(mode="json"), preflight_first=True)
    assert client.ask_sync(MESSAGES, Found, stage="demo").value.names == ["Ada"]
    assert client.ask_sync([{"role": "user", "content": "Again?"}], Found, stage="demo").value
    preflight, *asks = complete.calls
    assert len(asks) == 2 and all(a["messages"][-1]["content"] != "Reply with the word OK." for a in asks)
    assert preflight["messages"] == list(PREFLIGHT_MESSAGES) and preflight["max_tokens"] == PREFLIGHT_MAX_TOKENS
    assert client.ledger.summary()["stages"]["preflight"]["calls"] == 1 and client.preflight_result.cost_usd > 0
    cached = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, completion=complete, cache=Cache(tmp_path),
                       settings=LLMSettings(mode="json"), preflight_first=True)
    assert cached.ask_sync(MESSAGES, Found, stage="demo").cached and len(complete.calls) == 3  # no preflight


def test_a_failed_preflight_raises_with_the_cause_and_fix_once_and_sends_nothing_else():
    from kgkit.llm.errors import PreflightError

    err = litellm.AuthenticationError("Incorrect API key provided", llm_provider="openai", model="gpt-4o-mini")
    client, fake = make([err], preflight_first=True)
    for _ in range(2):
        with pytest.raises(PreflightError, match=r"provider rejected the API key in KGKIT_TEST_API_KEY \(401\)"):
            client.ask_sync(MESSAGES, Name, stage="demo")
    assert len(fake.calls) == 1 and "fix: check the key" in str(client.preflight_failure)


def test_a_preflight_the_budget_cannot_afford_is_skipped_not_refused():
    client, fake = make([], ledger=BudgetLedger(cap_usd=1e-9))
    result = client.preflight()
    assert result.skipped and fake.calls == [] and client.ledger.refused == 0


def test_failures_are_classified_with_a_cause_and_a_fix():
    from kgkit.llm.errors import classify, group_errors

    missing = litellm.InternalServerError("OpenAIException - Missing credentials. Please pass an `api_key`",
                                          llm_provider="openai", model="gpt-4o-mini")
    failure = classify(missing, model="openai/gpt-4o-mini")
    assert failure.cause == "provider rejected the request: OPENAI_API_KEY is not set" and not failure.transient
    assert failure.fix.startswith("set OPENAI_API_KEY (export OPENAI_API_KEY=...)")
    quota = classify(litellm.RateLimitError("You exceeded your current quota (insufficient_quota)",
                                            llm_provider="openai", model="m"))
    assert quota.cause == "provider quota exhausted (429)" and not quota.transient
    groups = group_errors([failure.message()] * 268 + [quota.message()])
    assert [(g["cause"], g["count"]) for g in groups] == [(failure.cause, 268), (quota.cause, 1)]
