"""What an LLM client takes and gives (kgkit.llm.client): the settings that can change an answer, the `Answer`
of one ask, the `Preflight` a first tiny request found, and the meter of one ask's requests.

>>> Answer(value=None, error="timeout", prompt_tokens=3, completion_tokens=4).tokens
7
>>> "timeout" in LLMSettings().key()   # how long we wait does not change the answer
False
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from kgkit.llm.ledger import Price

__all__ = ["PREFLIGHT_MAX_TOKENS", "PREFLIGHT_MESSAGES", "Answer", "LLMSettings", "Meter", "Preflight"]

T = TypeVar("T", bound=BaseModel)
PREFLIGHT_MESSAGES = ({"role": "user", "content": "Reply with the word OK."},)
PREFLIGHT_MAX_TOKENS = 16


@dataclass(frozen=True)
class LLMSettings:
    """Parameters that can change a model's answer: all are part of the request key and the extractor id."""

    temperature: float = 0.0
    max_tokens: int = 2048
    max_reasks: int = 2
    mode: Literal["auto", "tools", "json"] = "auto"
    seed: int | None = None
    timeout: float = 120.0

    def key(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("timeout")  # how long we wait does not change the answer
        return d


@dataclass(frozen=True)
class Answer(Generic[T]):
    """The outcome of one `ask`: a value or an error, with tokens and the dollars it cost (when it was made)."""

    value: T | None
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = False
    attempts: int = 0  # provider requests made by this ask (re-asks and retries included)
    key: str = ""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Preflight:
    """What `LLMClient.preflight()` found: the model answered (in `seconds`, for `cost_usd`), at this price."""

    model: str
    api_base: str | None
    price: Price
    seconds: float
    cost_usd: float
    estimated: bool  # the provider reported no usable usage: every request will be charged its worst case
    skipped: str | None = None  # why no request was sent (the budget cannot afford even this one)

    def describe(self) -> str:
        per_m = (f"${self.price.input_per_token * 1e6:g} / ${self.price.output_per_token * 1e6:g} per 1M tokens "
                 f"in / out ({self.price.source})")
        if self.skipped:
            return f"{self.model}: preflight skipped ({self.skipped})"
        where = f" at {self.api_base}" if self.api_base else ""
        note = "; no usage reported: requests are charged their worst case" if self.estimated else ""
        return f"{self.model}{where} answered in {self.seconds:.2f} s for ${self.cost_usd:.6f}, {per_m}{note}"


@dataclass
class Meter:
    """What the requests of one ask used: tokens, dollars, provider requests."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 0
