"""What stages need from the outside, as protocols, so a stage never imports the layer that provides it.

`StageCache` is the part of a content-hash cache a stage may run its work through: `kgkit.io.cache.Cache` is
one; any object with the same `run` and `map` is another (a stage only sees results, never files).
`RequestCache` is the part the LLM client keys itself (`kgkit.llm.client`: one entry per request): `Cache` is one
too, given to the client by the workflow or the CLI that made it.

>>> from kgkit.core.stage import stage
>>> class NoCache:  # runs everything, keeps nothing
...     def run(self, fn, *args, **kwargs):
...         return fn(*args, **kwargs)
...     def map(self, fn, items, *, batch_size=16, executor=None, on_batch=None, **kwargs):
...         return [out for i in range(0, len(items), batch_size) for out in fn(items[i:i + batch_size], **kwargs)]
>>> @stage(name="double", version="1")
... def double(items: list[int]) -> list[int]:
...     return [2 * i for i in items]
>>> cache: StageCache = NoCache()
>>> cache.map(double, [1, 2, 3], batch_size=2), isinstance(cache, StageCache)
([2, 4, 6], True)
>>> class DictCache:  # keeps values in memory
...     def __init__(self):
...         self.values = {}
...     def get_value(self, namespace, key):
...         return ((namespace, key) in self.values, self.values.get((namespace, key)))
...     def put_value(self, namespace, key, value):
...         self.values[namespace, key] = value
>>> requests: RequestCache = DictCache()
>>> requests.put_value("llm", "k1", {"text": "hi"})
>>> requests.get_value("llm", "k1"), requests.get_value("llm", "k2"), isinstance(requests, RequestCache)
((True, {'text': 'hi'}), (False, None), True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from kgkit.core.executor import Executor

__all__ = ["RequestCache", "StageCache"]

T = TypeVar("T")


@runtime_checkable
class StageCache(Protocol):
    """Runs stage functions (`kgkit.core.stage.stage`), answering from stored results for inputs seen before."""

    def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """fn(*args, **kwargs), from the cache when the same inputs were seen before."""
        ...

    def map(self, fn: Callable[..., list[T]], items: Sequence[Any], *, batch_size: int = 16,
            executor: Executor | None = None, on_batch: Callable[[int], None] | None = None,
            **kwargs: Any) -> list[T]:
        """[fn([item], **kwargs)[0] for item in items], cached per item, misses computed in batches."""
        ...


@runtime_checkable
class RequestCache(Protocol):
    """JSON values stored under keys the caller makes itself (the LLM client's per-request cache)."""

    def get_value(self, namespace: str, key: str) -> tuple[bool, Any]:
        """(True, value) for a value stored under namespace/key; (False, None) on a miss."""
        ...

    def put_value(self, namespace: str, key: str, value: Any) -> None:
        """Store a JSON-ready value under namespace/key."""
        ...
