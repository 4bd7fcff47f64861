"""Executors: how a stage maps over many items; the seam where a distributed engine plugs in.

A stage never starts threads or processes itself; the caller passes an executor. Anything with a
`map(fn, items)` that yields fn(item) for each item, in order, fits, because stages are pure and their results
are cached by content. The Dask one, and executors by name ("local:4", "tcp://host:8786"), are in
kgkit.workflows.executors (this layer imports nothing outside core).

>>> list(SerialExecutor().map(lambda x: x * 2, [1, 2, 3]))
[2, 4, 6]
>>> list(ThreadExecutor(max_workers=2).map(lambda x: x + 1, [1, 2, 3]))
[2, 3, 4]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

A = TypeVar("A")
B = TypeVar("B")


class Executor(Protocol):
    """Maps a function over items, yielding results in input order."""

    def map(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[B]: ...


class SerialExecutor:
    """Runs items one after another in the calling thread (the default; best for CPU-bound spaCy)."""

    def map(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[B]:
        for item in items:
            yield fn(item)


class ThreadExecutor:
    """Runs items on a thread pool (for I/O-bound work such as LLM requests)."""

    def __init__(self, max_workers: int = 4) -> None:
        self.max_workers = max_workers

    def map(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[B]:
        with ThreadPoolExecutor(max_workers=self.max_workers) as pool:
            yield from pool.map(fn, items)
