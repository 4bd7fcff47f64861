"""A fake clock for rate-limit and retry tests: time moves only when something sleeps on it.

>>> import asyncio
>>> clock = FakeClock()
>>> asyncio.run(clock.sleep(1.5)); clock(), clock.sleeps
(1.5, [1.5])
"""

from __future__ import annotations

import asyncio

__all__ = ["FakeClock"]


class FakeClock:
    """A clock (`clock()` -> seconds) that only moves when something sleeps on it (`await clock.sleep(s)`):
    pass it as both `clock=` and `sleep=` of `kgkit.llm.limits.RateLimiter` or `LLMClient`."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)
