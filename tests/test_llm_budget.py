"""The budget is a hard cap: under concurrency (asyncio tasks and threads) the money spent never exceeds it."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest
from pydantic import BaseModel

from kgkit.llm import BudgetExceeded, BudgetLedger, LLMClient, LLMSettings, Price
from kgkit.llm.client import import_litellm

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
litellm = import_litellm()
MAX_TOKENS = 100


class Answer(BaseModel):
    ok: bool


def _fake(rng: random.Random, *, exact: bool):
    """A provider that bills either exactly max_tokens (worst case) or a random share of it."""

    async def complete(**kwargs):
        await asyncio.sleep(rng.random() / 1000)
        response = await litellm.acompletion(model="openai/x", messages=kwargs["messages"], mock_response='{"ok": true}')
        response.usage.prompt_tokens = 0 if exact else rng.randint(0, 40)
        response.usage.completion_tokens = MAX_TOKENS if exact else rng.randint(1, MAX_TOKENS)
        return response

    return complete


def _client(cap: float, completion, *, concurrency: int) -> LLMClient:
    # output tokens cost 1e-4 each, input is free: a request's worst case is exactly MAX_TOKENS * 1e-4 = $0.01
    return LLMClient("kgkit-test/model", price=Price(0.0, 1e-4, "explicit"), ledger=BudgetLedger(cap_usd=cap),
                     completion=completion, max_concurrency=concurrency,
                     settings=LLMSettings(mode="json", max_tokens=MAX_TOKENS, max_reasks=0))


async def _ask_many(client: LLMClient, n: int):
    return await asyncio.gather(*(client.ask([{"role": "user", "content": f"q{i}"}], Answer, stage="extract")
                                  for i in range(n)))


def test_fifty_concurrent_calls_with_a_cap_that_admits_ten():
    client = _client(0.10, _fake(random.Random(1), exact=True), concurrency=50)
    answers = asyncio.run(_ask_many(client, 50))
    assert sum(a.value is not None for a in answers) == 10
    assert sum((a.error or "").startswith("budget:") for a in answers) == 40
    assert client.ledger.spent_usd <= 0.10 + 1e-12 and client.ledger.refused == 40


@pytest.mark.parametrize("seed", range(4))
def test_random_costs_concurrency_16_never_exceed_the_cap(seed):
    rng = random.Random(seed)
    cap = rng.uniform(0.05, 0.3)
    client = _client(cap, _fake(rng, exact=False), concurrency=16)
    answers = asyncio.run(_ask_many(client, 120))
    ledger = client.ledger
    assert ledger.spent_usd <= cap + 1e-12 and ledger.reserved_usd == 0 and ledger.overruns == 0
    admitted = sum(a.value is not None for a in answers)
    assert admitted >= int(cap / 0.01)  # at least what fits at the worst case is always admitted
    assert ledger.refused == 120 - admitted > 0  # and calls are refused once the worst case no longer fits
    assert sum(c.cost_usd for c in ledger.charges) == pytest.approx(ledger.spent_usd)


def test_ledger_under_threads_never_commits_more_than_the_cap():
    ledger = BudgetLedger(cap_usd=1.0)
    rng_lock = threading.Lock()
    rng = random.Random(3)

    def worker():
        for _ in range(200):
            with rng_lock:
                worst, share = rng.uniform(0.001, 0.05), rng.random()
            try:
                r = ledger.reserve(worst, stage="t")
            except BudgetExceeded:
                continue
            assert ledger.spent_usd + ledger.reserved_usd <= 1.0 + 1e-9
            ledger.settle(r, cost_usd=worst * share)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.spent_usd <= 1.0 + 1e-9 and ledger.refused > 0


def test_refused_reservation_does_not_change_the_books():
    ledger = BudgetLedger(cap_usd=0.01)
    r = ledger.reserve(0.006, stage="a")
    with pytest.raises(BudgetExceeded):
        ledger.reserve(0.005, stage="a")
    ledger.release(r)
    assert ledger.spent_usd == 0 and ledger.remaining_usd == pytest.approx(0.01)
    ledger.reserve(0.01, stage="a")  # the whole cap fits once released


def test_pipeline_scenario_calls_per_chunk_and_no_overshoot_at_half_the_needed_budget(tmp_path):
    """The bench scenario in small: 20 documents, document context on, concurrency 8, a fake provider."""
    from kgkit.extractors.llm import LLMExtractor
    from kgkit.io.cache import Cache
    from kgkit.llm.options import LLMOptions
    from kgkit.testing.fake_llm import register_fake_provider
    from kgkit.workflows.run import run as run_pipeline

    register_fake_provider()
    docs = tmp_path / "docs"
    docs.mkdir()
    for d in range(20):
        paras = [f"Person{d}x{k} met Agency{d}x{k} in City{k} during Mission{d}. Mission{d} ended." for k in range(6)]
        (docs / f"doc{d:02d}.txt").write_text("\n\n".join(paras))

    def run(ws, cap):
        ex = LLMExtractor.from_options(LLMOptions(model="kgkit-fake/bench", max_cost=cap, price_in=1.0, price_out=2.0,
                                                  concurrency=8, max_tokens=512), cache=Cache(ws / "cache"))
        result = run_pipeline(ws, docs, extractor=ex, cache=Cache(ws / "cache"), max_chars=120, overlap_chars=0,
                              batch_size=256, write_view=False)
        return result, ex.client.ledger

    full, ledger = run(tmp_path / "full", 10.0)
    stages = ledger.summary()["stages"]
    requests = sum(stage["calls"] for stage in stages.values())
    assert len(full.chunks) >= 60 and full.chunk_errors == []
    assert requests / len(full.chunks) <= 1.2
    half, ledger2 = run(tmp_path / "half", ledger.spent_usd / 2)
    assert ledger2.spent_usd <= ledger.spent_usd / 2 and ledger2.overruns == 0
    assert 0 < len(half.chunk_errors) < len(half.chunks)  # what fits is done, the rest is refused


def test_try_reserve_waits_for_open_reservations_and_refuses_what_can_never_fit():
    ledger = BudgetLedger(cap_usd=0.01)
    open_one = ledger.reserve(0.006, stage="a")
    assert ledger.try_reserve(0.005, stage="a") is None and ledger.refused == 0  # may fit once settled: wait
    with pytest.raises(BudgetExceeded):
        ledger.try_reserve(0.011, stage="a")  # never fits
    ledger.settle(open_one, cost_usd=0.002)
    assert ledger.try_reserve(0.005, stage="a") is not None
    with pytest.raises(BudgetExceeded):
        ledger.try_reserve(0.0085, stage="a")  # 0.002 spent + 0.005 open + 0.0085 > cap, and 0.002 + 0.0085 > cap


def test_a_provider_reporting_more_than_the_worst_case_is_charged_the_worst_case_and_the_cap_holds():
    async def over_reporting(**kwargs):
        response = await litellm.acompletion(model="openai/x", messages=kwargs["messages"], mock_response='{"ok": true}')
        response.usage.prompt_tokens, response.usage.completion_tokens = 5, 10 * MAX_TOKENS
        return response

    client = _client(0.10, over_reporting, concurrency=16)
    answers = asyncio.run(_ask_many(client, 30))
    ledger = client.ledger
    admitted = sum(a.value is not None for a in answers)
    assert ledger.spent_usd <= 0.10 + 1e-12 and admitted == 10 and ledger.refused == 20
    assert ledger.overruns == admitted == ledger.summary()["estimated"]  # distrusted, charged at the reservation
