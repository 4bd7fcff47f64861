"""Declared passes: ordered tuples of named functions over the candidate spans (`Span`) or the mentions
(`Mention`) of one parsed text, run by `run_passes`, which counts what each pass added, removed (and why),
joined, split, resized, renamed or retyped, so that nobody has to guess which pass changed what.

>>> def joined(doc, spans, ctx):
...     return [Span(0, 3, "ORG"), spans[-1]]
>>> def short(doc, spans, ctx):
...     return ctx.keep(spans, lambda s: "short" if s.end - s.start < 2 else "")
>>> ctx = PassContext()
>>> kept = run_passes(None, [Span(0, 1, "ORG"), Span(1, 3, "ORG"), Span(5, 6, "GPE")],
...                   (Pass("join", joined), Pass("length", short)), ctx)
>>> kept, kept[0].by, ctx.counts
([Span(start=0, end=3, label='ORG')], 'join', {'join': {'joined': 1}, 'length': {'removed': 1, 'removed: short': 1}})
>>> ctx.dropped
[('length', Span(start=5, end=6, label='GPE'), 'short')]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

__all__ = ["Mention", "MentionPass", "Pass", "PassContext", "Span", "SpanPass", "add_counts", "run_passes"]


@dataclass(frozen=True, order=True)
class Span:
    """A candidate name over tokens [start, end) of a parsed piece, with spaCy's label (NAME: an untyped proper-noun
    run; parsed.QUOTED / NICKNAMED: a quoted title, a nicknamed person): the record every span pass takes and
    returns. `by` (not compared) names the pass that made or last changed it."""

    start: int
    end: int
    label: str
    by: str = field(default="", compare=False, repr=False)


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


T = TypeVar("T", Span, Mention)


@dataclass
class PassContext:
    """What the passes of one text share: the domain and gazetteer they may ask, the counts `run_passes` keeps
    (pass name -> change -> count) and every dropped record with its pass and reason (`dropped`)."""

    domain: Any = None
    places: Any = None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    dropped: list[tuple[str, Any, str]] = field(default_factory=list)
    _reasons: list[tuple[Any, str]] = field(default_factory=list)

    def keep(self, records: Iterable[T], reason: Callable[[T], str]) -> list[T]:
        """The records whose `reason` is "" (a filter's body); the others are dropped, their reason kept."""
        out = []
        for r in records:
            if why := reason(r):
                self._reasons.append((r, why))
            else:
                out.append(r)
        return out

    def drop(self, record: Any, reason: str) -> None:
        """Drop `record` for `reason` (a pass that builds its output itself)."""
        self._reasons.append((record, reason))


class Pass(NamedTuple):
    """One named step of the pipeline: fn(doc, records, context) -> records."""

    name: str
    fn: Callable[[Any, list[Any], PassContext], list[Any]]


MentionPass = SpanPass = Pass


def run_passes(doc: Any, records: list[Any], passes: Sequence[Pass], context: PassContext) -> list[Any]:
    """Run `passes` in order; `context.counts[pass]` gets the non-zero counts of what it changed (`_changes`) and
    "removed: <reason>" per reason it dropped records (`PassContext.keep`), `context.dropped` those records; a
    new or changed span's `by` is the pass's name."""
    for step in passes:
        before = records
        records = step.fn(doc, records, context)
        if records and isinstance(records[0], Span):
            old = {r: r for r in before}  # an unchanged span keeps the `by` it had
            records = [old.get(r) or Span(r.start, r.end, r.label, step.name) for r in records]
        change = _changes(before, records)
        context.dropped += [(step.name, r, why) for r, why in context._reasons]
        change.update(f"removed: {why}" for _, why in context._reasons)
        context._reasons.clear()
        add_counts(context.counts, {step.name: {k: n for k, n in change.items() if n}})
    return records


def _changes(before: list[Any], after: list[Any]) -> Counter[str]:
    """What turned `before` into `after`: mentions matched by their first token (they never overlap), spans by
    the tokens they share; records of another kind (spans cleaned into mentions) are made and dropped."""
    if before and after and type(before[0]) is not type(after[0]):
        return Counter({"added": len(after), "removed": max(0, len(before) - len(after))})
    if isinstance((before or after or [None])[0], Mention):
        old, new = {m.first: m for m in before}, {m.first: m for m in after}
        return Counter({
            "added": len(new.keys() - old.keys()), "removed": len(old.keys() - new.keys()),
            "renamed": sum(old[k].name != m.name for k, m in new.items() if k in old),
            "retyped": sum(old[k].type != m.type for k, m in new.items() if k in old),
        })
    gone, came = [s for s in set(before) - set(after)], [s for s in set(after) - set(before)]
    at: dict[int, list[int]] = {}
    for n, s in enumerate(gone):
        for i in range(s.start, s.end):
            at.setdefault(i, []).append(n)
    parents = [{n for i in range(s.start, s.end) for n in at.get(i, ())} for s in came]
    children = Counter(n for ps in parents for n in ps)
    change = Counter(removed=len(gone) - len(children))
    for s, ps in zip(came, parents):
        if not ps:
            change["added"] += 1
        elif len(ps) > 1:
            change["joined"] += 1
        elif children[(p := next(iter(ps)))] > 1:
            change["split"] += 1
        else:
            change["retyped" if (gone[p].start, gone[p].end) == (s.start, s.end) else "resized"] += 1
    change["split"] = sum(n > 1 for n in children.values())
    return change


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
