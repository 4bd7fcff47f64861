"""The `@stage` decorator: names a pure function and gives it an explicit version for cache keys; `gc_paused`
for a stage that makes many small acyclic records.

Editing a stage (or a helper it calls) without bumping `version` keeps old cache entries valid, so bump it
whenever the output for the same inputs would change.

>>> @stage(version="2")
... def double(xs: list[int]) -> list[int]:
...     return [2 * x for x in xs]
>>> double([1, 2]), double.stage_name, double.stage_version
([2, 4], 'double', '2')
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def stage(*, version: str, name: str | None = None) -> Callable[[F], F]:
    """Mark a function as a kgkit stage with a name and version (both part of its cache key)."""

    def mark(fn: F) -> F:
        fn.stage_name = name or fn.__name__  # type: ignore[attr-defined]
        fn.stage_version = version  # type: ignore[attr-defined]
        return fn

    return mark


def stage_identity(fn: Callable[..., Any]) -> tuple[str, str]:
    """(name, version) of a stage; plain functions get their qualified name and version "0"."""
    return (
        getattr(fn, "stage_name", f"{fn.__module__}.{fn.__qualname__}"),
        getattr(fn, "stage_version", "0"),
    )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building: the build allocates many small acyclic objects
    (mention rows), and each full collection would walk every record of the input (~30% of build time).
    The previous state is restored, also on error."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
