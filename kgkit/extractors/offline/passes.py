"""Declared mention passes: an ordered tuple of named functions over the mentions of one parsed text, each run
by `run_passes`, which counts what the pass added, removed, renamed or retyped (and why a filter dropped a
mention), so that nobody has to guess which pass changed what.

>>> from dataclasses import dataclass, replace
>>> @dataclass(frozen=True)
... class M:
...     name: str
...     type: str
...     first: int
...     last: int
>>> def upper(doc, ms, ctx):
...     return [replace(m, type="Person") for m in ms]
>>> def short(doc, ms, ctx):
...     return ctx.keep(ms, lambda m: "short" if m.last - m.first < 2 else "")
>>> ctx = PassContext()
>>> kept = run_passes(None, [M("A", "Other", 0, 1), M("B C", "Other", 1, 3)],
...                   (MentionPass("typed", upper), MentionPass("length", short)), ctx)
>>> [m.name for m in kept], ctx.counts
(['B C'], {'typed': {'retyped': 2}, 'length': {'removed': 1, 'removed: short': 1}})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar

__all__ = ["Mention", "MentionPass", "PassContext", "add_counts", "run_passes"]


@dataclass(frozen=True)
class Mention:
    """One mention of a name in a parsed piece: the record every mention pass takes and returns."""

    name: str  # canonical name
    type: str
    label: str  # spaCy's label (WORK_OF_ART for a quoted title)
    start: int  # char offsets of the cleaned name in the parsed piece
    end: int
    first: int  # token range [first, last)
    last: int
    title: str = ""
    votes: tuple[tuple[str, float], ...] = ()  # (domain type, weight), best first


class _Ranged(Protocol):
    name: str
    type: str
    first: int
    last: int


T = TypeVar("T", bound=_Ranged)


@dataclass
class PassContext:
    """What the passes of one text share: the domain and gazetteer they may ask, and the counts `run_passes`
    keeps (pass name -> change -> count)."""

    domain: Any = None
    places: Any = None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    _reasons: Counter[str] = field(default_factory=Counter)

    def keep(self, mentions: Iterable[T], reason: Callable[[T], str]) -> list[T]:
        """The mentions whose `reason` is "" (a filter's body); the others are dropped, their reason counted."""
        out = []
        for m in mentions:
            if why := reason(m):
                self._reasons[why] += 1
            else:
                out.append(m)
        return out


class MentionPass(NamedTuple):
    """One named step of the pipeline: fn(doc, mentions, context) -> mentions."""

    name: str
    fn: Callable[[Any, list[Any], PassContext], list[Any]]


def run_passes(doc: Any, mentions: list[T], passes: Sequence[MentionPass], context: PassContext) -> list[T]:
    """Run `passes` in order; `context.counts[pass]` gets its added, removed (and why), renamed and retyped
    counts (only the non-zero ones)."""
    for step in passes:
        before = {m.first: m for m in mentions}  # mentions never overlap: the first token names one
        mentions = step.fn(doc, mentions, context)
        after = {m.first: m for m in mentions}
        change = Counter({
            "added": len(after.keys() - before.keys()),
            "removed": len(before.keys() - after.keys()),
            "renamed": sum(before[k].name != m.name for k, m in after.items() if k in before),
            "retyped": sum(before[k].type != m.type for k, m in after.items() if k in before),
        })
        change.update({f"removed: {why}": n for why, n in context._reasons.items()})
        context._reasons.clear()
        add_counts(context.counts, {step.name: {k: n for k, n in change.items() if n}})
    return mentions


def add_counts(total: dict[str, dict[str, int]], more: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Add per-pass counts `more` into `total` (in place; returned), passes in first-seen order.

    >>> add_counts({"a": {"removed": 1}}, {"a": {"removed": 2}, "b": {}})
    {'a': {'removed': 3}, 'b': {}}
    """
    for name, change in more.items():
        row = total.setdefault(name, {})
        for k, n in change.items():
            row[k] = row.get(k, 0) + n
    return total
