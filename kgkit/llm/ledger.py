"""One budget ledger for every LLM call kgkit makes: reserve the worst case, refuse what does not fit, settle.

Before a call, `reserve` books its worst-case cost (counted prompt tokens + max output tokens at the model's
price). The reservation is refused (`BudgetExceeded`) unless spent + reserved + this worst case fits the cap.
(`try_reserve` tells apart a call that would fit once the open reservations settle — the client then waits —
from one that can never fit — refused.)
After the call, `settle` replaces the reservation by the real cost (from the provider's token usage), or
`release` drops it when the call was never billed (a 429, a refused connection). All of it happens under one
lock, so under any concurrency (threads or asyncio tasks) the money committed never exceeds the cap: a call is
charged at most its reservation. A reported cost above it (more than max_tokens of output, a prompt far beyond
the counted one: a usage report not to trust) is charged at the reservation, counted in `overruns` and marked
`estimated`, like a call whose cost is unknown (no usage).

>>> ledger = BudgetLedger(cap_usd=0.01)
>>> price = Price(input_per_token=1e-6, output_per_token=2e-6, source="explicit")
>>> r = ledger.reserve(price.worst_case(1000, 2000), stage="extract")   # 0.001 + 0.004 = 0.005
>>> ledger.settle(r, cost_usd=0.002, prompt_tokens=1000, completion_tokens=500)
>>> round(ledger.spent_usd, 6), round(ledger.remaining_usd, 6)
(0.002, 0.008)
>>> ledger.reserve(0.009, stage="extract")
Traceback (most recent call last):
...
kgkit.llm.ledger.BudgetExceeded: budget: this call may cost up to $0.009000 but only $0.008000 of the $0.010000 cap is left
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from kgkit.llm.runtime import import_litellm

PriceSource = Literal["litellm", "explicit", "free"]


class BudgetExceeded(RuntimeError):
    """A call was refused because its worst-case cost does not fit what is left of the cap."""


class UnknownPrice(ValueError):
    """The model has no price in litellm's map and none was given (give a price, or mark it free/local)."""


@dataclass(frozen=True)
class Price:
    """Dollars per token for one model, and where the figure came from."""

    input_per_token: float
    output_per_token: float
    source: PriceSource

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens * self.input_per_token + completion_tokens * self.output_per_token

    def worst_case(self, prompt_tokens: int, max_output_tokens: int) -> float:
        return self.cost(prompt_tokens, max_output_tokens)

    @property
    def free(self) -> bool:
        return self.input_per_token == 0 and self.output_per_token == 0


def resolve_price(
    model: str, *, price_in: float | None = None, price_out: float | None = None, free: bool = False
) -> Price:
    """The model's price: explicit (`price_in`/`price_out` in dollars per 1M tokens), free/local, or litellm's map.

    A model missing from litellm's map (a custom provider, a local model litellm does not list) raises
    `UnknownPrice` unless a price or `free=True` is given, so nothing runs at an unknown price by accident.

    >>> resolve_price("my/model", price_in=0.5, price_out=1.5).cost(1_000_000, 0)
    0.5
    >>> resolve_price("ollama/whatever", free=True).free
    True
    """
    if free:
        if price_in or price_out:
            raise ValueError("give either a price or free=True, not both")
        return Price(0.0, 0.0, "free")
    if price_in is not None or price_out is not None:
        if price_in is None or price_out is None or price_in < 0 or price_out < 0:
            raise ValueError("give both price_in and price_out (dollars per 1M tokens, >= 0)")
        return Price(price_in / 1e6, price_out / 1e6, "explicit")
    info = _litellm_price(model)
    if info is None:
        raise UnknownPrice(
            f"{model!r} is not in litellm's price map: give its price (--price-in/--price-out, dollars per 1M "
            "tokens) or mark it free/local (--free) for Ollama, vLLM and other self-hosted models"
        )
    return Price(info[0], info[1], "litellm")


def _litellm_price(model: str) -> tuple[float, float] | None:
    litellm = import_litellm()
    for key in (model, model.split("/", 1)[-1]):
        entry = litellm.model_cost.get(key)
        if entry and entry.get("input_cost_per_token") is not None and entry.get("output_cost_per_token") is not None:
            if key != model and entry.get("litellm_provider") not in (None, model.split("/", 1)[0]):
                continue  # "other/gpt-4o" is not openai's gpt-4o
            return float(entry["input_cost_per_token"]), float(entry["output_cost_per_token"])
    return None


@dataclass(frozen=True)
class Reservation:
    id: int
    amount_usd: float
    stage: str
    label: str


@dataclass(frozen=True)
class Charge:
    """One settled LLM request (or a cache hit, at zero cost): what it was for, its tokens and dollars."""

    stage: str
    label: str  # e.g. a document id; "" when the call serves no single document
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool = False
    estimated: bool = False  # no usable usage (none, malformed, above the worst case): the worst case was charged


@dataclass
class BudgetLedger:
    """A hard cap in dollars shared by every LLM call (None = no cap; calls are still counted).

    Thread-safe and asyncio-safe (no await inside the lock). `charges` lists every settled request.
    """

    cap_usd: float | None = None
    charges: list[Charge] = field(default_factory=list)
    refused: int = 0
    overruns: int = 0
    _spent: float = 0.0
    _reserved: dict[int, Reservation] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.cap_usd is not None and (self.cap_usd < 0 or math.isnan(self.cap_usd)):
            raise ValueError("cap_usd must be >= 0")

    @property
    def spent_usd(self) -> float:
        return self._spent

    @property
    def reserved_usd(self) -> float:
        with self._lock:
            return sum(r.amount_usd for r in self._reserved.values())

    @property
    def remaining_usd(self) -> float:
        """What is left of the cap after spending and open reservations (inf without a cap)."""
        if self.cap_usd is None:
            return math.inf
        with self._lock:
            return self.cap_usd - self._spent - sum(r.amount_usd for r in self._reserved.values())

    def reserve(self, amount_usd: float, *, stage: str, label: str = "") -> Reservation:
        """Book `amount_usd` (the call's worst case) or raise BudgetExceeded when it does not fit."""
        if amount_usd < 0 or math.isnan(amount_usd):
            raise ValueError("a reservation is a cost >= 0")
        with self._lock:
            committed = self._spent + sum(r.amount_usd for r in self._reserved.values())
            if self.cap_usd is not None and committed + amount_usd > self.cap_usd + 1e-12:
                self.refused += 1
                raise BudgetExceeded(
                    f"budget: this call may cost up to ${amount_usd:.6f} but only "
                    f"${max(self.cap_usd - committed, 0.0):.6f} of the ${self.cap_usd:.6f} cap is left"
                )
            reservation = Reservation(next(self._ids), amount_usd, stage, label)
            self._reserved[reservation.id] = reservation
            return reservation

    def try_reserve(self, amount_usd: float, *, stage: str, label: str = "") -> Reservation | None:
        """Like `reserve`, but None (not refused, not counted) when the call would fit once open reservations
        settle: the caller waits and tries again. Raises BudgetExceeded when it can never fit."""
        with self._lock:
            open_usd = sum(r.amount_usd for r in self._reserved.values())
            if self.cap_usd is not None and open_usd > 0 and self._spent + amount_usd <= self.cap_usd + 1e-12 \
                    and self._spent + open_usd + amount_usd > self.cap_usd + 1e-12:
                return None
        return self.reserve(amount_usd, stage=stage, label=label)

    def settle(
        self, reservation: Reservation, *, cost_usd: float | None, prompt_tokens: int = 0, completion_tokens: int = 0,
        model: str = "", distrusted: bool = False,
    ) -> None:
        """Replace a reservation by the real cost; `cost_usd=None` (unknown) charges the reserved worst case, and
        so does a cost above it or a usage report the caller `distrusted` (both counted in `overruns`): what is
        charged never exceeds what was reserved."""
        over = distrusted or (cost_usd is not None and (math.isnan(cost_usd) or cost_usd < 0
                                                        or cost_usd > reservation.amount_usd + 1e-12))
        estimated = cost_usd is None or over
        cost = reservation.amount_usd if estimated else float(cost_usd)  # type: ignore[arg-type]
        with self._lock:
            if self._reserved.pop(reservation.id, None) is None:
                raise ValueError(f"reservation {reservation.id} is not open")
            if over:
                self.overruns += 1
            self._spent += cost
            self.charges.append(Charge(reservation.stage, reservation.label, model, prompt_tokens, completion_tokens,
                                       cost, estimated=estimated))

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation for a call that was never billed (rate limited, refused connection)."""
        with self._lock:
            self._reserved.pop(reservation.id, None)

    def record_cached(self, *, stage: str, label: str = "", model: str = "", prompt_tokens: int = 0,
                      completion_tokens: int = 0) -> None:
        """Count a request answered from the cache (zero cost)."""
        with self._lock:
            self.charges.append(Charge(stage, label, model, prompt_tokens, completion_tokens, 0.0, cached=True))

    def summary(self) -> dict[str, object]:
        """Cap, spent, refused, overruns, estimated charges, and calls / cache hits / estimated charges / tokens /
        dollars per stage (JSON-ready)."""
        with self._lock:
            charges = list(self.charges)
        stages: dict[str, dict[str, float]] = {}
        for c in charges:
            row = stages.setdefault(c.stage, {"calls": 0, "cached": 0, "estimated": 0, "prompt_tokens": 0,
                                               "completion_tokens": 0, "cost_usd": 0.0})
            row["cached" if c.cached else "calls"] += 1
            row["estimated"] += c.estimated
            row["prompt_tokens"] += c.prompt_tokens
            row["completion_tokens"] += c.completion_tokens
            row["cost_usd"] = round(row["cost_usd"] + c.cost_usd, 8)
        return {"cap_usd": self.cap_usd, "spent_usd": round(self._spent, 8), "refused": self.refused,
                "overruns": self.overruns, "estimated": sum(c.estimated for c in charges), "stages": stages}
