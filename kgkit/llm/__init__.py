"""LLM calls for kgkit: one client (litellm + instructor), one budget ledger, rate limits, a per-request cache.

Importing this package does not import litellm or instructor; they load on the first call.

    client = LLMClient("openai/gpt-4o-mini", ledger=BudgetLedger(cap_usd=1.50), cache=Cache("ws/cache"))
    answer = client.ask_sync(messages, ResponseModel, stage="extract")   # answer.value or answer.error
    client.preflight()   # one tiny request: credentials, model, api base (raises PreflightError)
"""

from kgkit.llm.client import Answer, LLMClient, LLMSettings, Preflight, run_sync
from kgkit.llm.errors import PreflightError, group_errors
from kgkit.llm.ledger import BudgetExceeded, BudgetLedger, Charge, Price, UnknownPrice, resolve_price
from kgkit.llm.limits import RateLimiter, backoff_delay
from kgkit.llm.report import cost_report

__all__ = ["Answer", "BudgetExceeded", "BudgetLedger", "Charge", "LLMClient", "LLMSettings", "Preflight",
           "PreflightError", "Price", "RateLimiter", "UnknownPrice", "backoff_delay", "cost_report", "group_errors",
           "resolve_price", "run_sync"]
