"""Rate limits and backoff for LLM calls, with the clock, the sleeper and the randomness passed in.

`RateLimiter` admits a request when the last 60 seconds hold fewer than `rpm` requests and fewer than `tpm`
tokens (a sliding window); otherwise it sleeps until the oldest request leaves the window. `backoff_delay` is
exponential backoff with full jitter drawn from an injected `random.Random`, so tests are deterministic and
never really sleep.

>>> import asyncio, random
>>> from kgkit.testing.clock import FakeClock  # a clock that moves only when slept on
>>> clock = FakeClock()
>>> limiter = RateLimiter(rpm=2, clock=clock, sleep=clock.sleep)
>>> async def three():
...     for _ in range(3):
...         await limiter.acquire(tokens=10)
>>> asyncio.run(three()); clock.now
60.0
>>> [round(backoff_delay(a, rng=random.Random(0)), 3) for a in range(3)]
[0.922, 1.844, 3.689]
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Protocol

WINDOW_SECONDS = 60.0


class Clock(Protocol):
    def __call__(self) -> float: ...


Sleeper = Callable[[float], Awaitable[None]]


def backoff_delay(attempt: int, *, rng: random.Random, base: float = 1.0, cap: float = 60.0) -> float:
    """Seconds to wait before retry number `attempt` (0-based): half fixed, half jitter, doubling, capped."""
    ceiling = min(cap, base * (2.0**attempt))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits over a sliding 60 s window (None = unlimited).

    Safe across threads and event loops: the window is guarded by a lock that is never held across an await.
    """

    def __init__(
        self, *, rpm: int | None = None, tpm: int | None = None, clock: Clock = time.monotonic,
        sleep: Sleeper = asyncio.sleep,
    ) -> None:
        if (rpm is not None and rpm < 1) or (tpm is not None and tpm < 1):
            raise ValueError("rpm and tpm must be >= 1 (or None for no limit)")
        self.rpm, self.tpm, self.clock, self.sleep = rpm, tpm, clock, sleep
        self._events: deque[tuple[float, int]] = deque()
        self._lock = threading.Lock()
        self.waited = 0.0

    def _try(self, tokens: int) -> float:
        """Admit now (return 0) or return how long to wait."""
        with self._lock:
            now = self.clock()
            while self._events and self._events[0][0] <= now - WINDOW_SECONDS:
                self._events.popleft()
            used = sum(t for _, t in self._events)
            over_rpm = self.rpm is not None and len(self._events) >= self.rpm
            over_tpm = self.tpm is not None and self._events and used + tokens > self.tpm
            if not (over_rpm or over_tpm):
                self._events.append((now, tokens))
                return 0.0
            return max(self._events[0][0] + WINDOW_SECONDS - now, 1e-3)

    async def acquire(self, *, tokens: int = 0) -> None:
        """Wait until one request of `tokens` tokens fits in the window, then count it."""
        if self.rpm is None and self.tpm is None:
            return
        while (wait := self._try(tokens)) > 0:
            self.waited += wait
            await self.sleep(wait)


def default_rng(seed: int | None = None) -> random.Random:
    return random.Random(seed)
