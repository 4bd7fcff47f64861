"""LLM options as one record, and the budget policy that turns them into a client: a paid model needs a hard
cap, a model litellm has no price for needs a price or `free`.

>>> LLMOptions(model="openai/gpt-4o-mini", max_cost=0.5).client().ledger.cap_usd
0.5
>>> try:
...     LLMOptions(model="openai/gpt-4o-mini").client()
... except LLMOptionError as exc:
...     print(exc)
openai/gpt-4o-mini costs money: give a hard cap with --max-cost DOLLARS (or --free for a local model)
>>> extraction_batch_size(None), extraction_batch_size(LLMOptions(model="m", free=True, concurrency=8))
(16, 256)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kgkit.core.constants import OFFLINE_BATCH_SIZE
from kgkit.core.protocols import RequestCache
from kgkit.llm.client import LLMClient, LLMSettings
from kgkit.llm.ledger import BudgetLedger, UnknownPrice, resolve_price
from kgkit.llm.limits import RateLimiter

__all__ = ["LLMOptionError", "LLMOptions", "extraction_batch_size"]


class LLMOptionError(ValueError):
    """Inconsistent model options (no price for an unknown model, no cap for a paid one)."""


class LLMOptions(BaseModel):
    """Everything that chooses and limits a model: the litellm model string, price, hard budget cap, provider
    URL, concurrency and rate limits, request settings."""

    model_config = ConfigDict(frozen=True)

    model: str
    max_cost: float | None = None
    price_in: float | None = None
    price_out: float | None = None
    free: bool = False
    api_base: str | None = None
    concurrency: int = 8
    rpm: int | None = None
    tpm: int | None = None
    max_tokens: int = 2048
    max_reasks: int = 2
    timeout: float = 120.0
    document_context: bool = True
    preflight: bool = True  # one tiny request checks the model before its first real request

    def client(self, *, cache: RequestCache | None = None) -> LLMClient:
        """The client for these options behind one budget ledger capped at `max_cost` dollars (`cache`: the
        per-request cache). Raises LLMOptionError for a paid model without a cap or an unpriced model.
        With `preflight` (the default) the client checks the model with one tiny request before its first
        request that the cache cannot answer (`LLMClient.preflight_first`)."""
        try:
            price = resolve_price(self.model, price_in=self.price_in, price_out=self.price_out, free=self.free)
        except (UnknownPrice, ValueError) as exc:
            raise LLMOptionError(str(exc)) from None
        if self.max_cost is None and not price.free:
            raise LLMOptionError(f"{self.model} costs money: give a hard cap with --max-cost DOLLARS "
                                 "(or --free for a local model)")
        return LLMClient(self.model, price=price, ledger=BudgetLedger(cap_usd=self.max_cost), cache=cache,
                         settings=LLMSettings(max_tokens=self.max_tokens, max_reasks=self.max_reasks,
                                              timeout=self.timeout),
                         max_concurrency=self.concurrency, limiter=RateLimiter(rpm=self.rpm, tpm=self.tpm),
                         extra={"api_base": self.api_base} if self.api_base else {}, preflight_first=self.preflight)


def extraction_batch_size(options: LLMOptions | None) -> int:
    """Chunks per extraction batch: small for the offline extractor (progress, memory), large for an LLM so
    the requests of one batch keep every concurrency slot busy (a batch ends before the next one starts)."""
    return OFFLINE_BATCH_SIZE if options is None else max(64, 32 * options.concurrency)
