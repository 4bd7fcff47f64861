"""The LLM judge through kgkit.llm: answers become llm decisions, failures and budget refusals never merge."""

from __future__ import annotations

import pandas as pd
import pytest

from kgkit.core.graph import Graph
from kgkit.llm import BudgetLedger, LLMClient, LLMSettings
from kgkit.stages.resolve import decide, merge_candidates
from kgkit.stages.resolve.judge import LLMJudge
from kgkit.testing.builders import entity_row
from kgkit.testing.fake_llm import QueuedCompletion

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _graph() -> Graph:
    return Graph.empty().replace(entities=pd.DataFrame([
        entity_row("P:jane smith", "Jane Smith", "Person", 3), entity_row("P:john smith", "John Smith", "Person", 3),
        entity_row("P:j smith", "J. Smith", "Person", 1)]))


def _client(queue, ledger=None) -> tuple[LLMClient, QueuedCompletion]:
    fake = QueuedCompletion(queue)
    return LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=ledger or BudgetLedger(1.0), completion=fake,
                     settings=LLMSettings(mode="json", max_tokens=128)), fake


def test_llm_judge_answers_become_llm_decisions():
    client, fake = _client(['{"same": "yes", "why": "J. is Jane in these documents"}',
                            '{"same": "no", "why": "John is another person"}'])
    cands = merge_candidates(_graph())
    decisions = decide(cands, judge=LLMJudge(client), at="2026-01-01")
    by_kind = {d.kind: d for d in decisions}
    assert len(fake.calls) == 2 and {d.decided_by for d in decisions} == {"llm"}
    assert set(by_kind) == {"merge", "keep_apart"} and by_kind["merge"].who.startswith("llm:kgkit-test/model")
    assert client.ledger.spent_usd > 0


def test_a_refused_or_failed_call_is_no_decision():
    client, _fake = _client([], ledger=BudgetLedger(0.0))  # no budget: every call is refused
    assert decide(merge_candidates(_graph()), judge=LLMJudge(client), at="2026-01-01") == []
