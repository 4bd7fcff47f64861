"""The records of entity resolution a reader of workspace files needs: MergeCandidate (a proposed merge),
Decision (merge, keep apart, reject a relation, split: who decided, when, why) and Journal (what one apply
changed, enough to undo it), the SplitSpec a split decision gives the build, and the one UnionFind the merges
join entities through (as networkx's `networkx.utils.UnionFind`, without networkx's import on `kgkit resolve`
and `kgkit review`). The stages that make them live in kgkit.stages.resolve.

A decision names entities by their stable ids (type + normalised name), never by row positions, so it
survives rebuilding the graph from the extractions.

>>> d = person_decision("merge", ("P:j smith", "P:jane smith"), why="same author", at="2026-01-01")
>>> d.id == decision_id("keep_apart", ("P:jane smith", "P:j smith")), d.pair_key
(True, ('pair', 'P:j smith', 'P:jane smith'))
>>> [x.decided_by for x in combine([Decision(kind="merge", subjects=("P:j smith", "P:jane smith"),
...                                          decided_by="policy"), d])]
['person']
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from pydantic import BaseModel, Field, model_validator

from kgkit.core.records import Record, short_hash

__all__ = ["DECIDER_RANK", "SPLIT_MARK", "DecidedBy", "Decision", "Journal", "JournalEntry", "Kind", "MergeCandidate",
           "SplitSpec", "Step", "TableDiff", "UnionFind", "Verdict", "combine", "decision_id", "person_decision",
           "split_specs"]


# --------------------------------------------------------------------------- candidates

Verdict = Literal["unique", "ambiguous", "not_found"]
Step = Literal["exact", "rule", "lsh", "embedding", "llm", "context"]


class MergeCandidate(Record):
    """A proposed merge of `source` into `target` (entity ids), with its score, features and reasons.

    `verdict` is the identity verdict for the source name: unique (the target is clearly its best match),
    ambiguous (a runner-up is within the margin, or the types differ), not_found (nothing scores enough)."""

    source: str
    target: str
    source_name: str
    target_name: str
    source_type: str
    target_type: str
    score: float
    step: Step
    verdict: Verdict
    features: dict[str, float]
    reasons: tuple[str, ...]

    @classmethod
    def trusted(cls, **values: object) -> MergeCandidate:
        """model_construct (no validation) for values the cascade built itself, every field given, without
        model_construct's per-field alias and default lookups (~18 us -> ~2 us a record; 500k records per
        100k names). tests/test_resolve_cascade.py checks the result equals model_construct's."""
        names = _CANDIDATE_FIELDS
        if tuple(values) != names:  # the fields in another order, or some missing
            if len(values) != len(names) or set(values) != set(names):
                raise TypeError(f"MergeCandidate.trusted needs every field: {sorted(set(names) - set(values))}")
            values = {name: values[name] for name in names}
        return _made(cls, values)  # a fresh dict: **values made it

    @classmethod
    def from_fields(cls, *values: object) -> MergeCandidate:
        """`trusted` with every value given in field order (no keyword dict to build and check: ~1 us less a
        record, ~600k records per 100k names).

        >>> c = MergeCandidate.from_fields("P:a", "P:b", "A", "B", "P", "P", 0.9, "lsh", "unique", {}, ("r",))
        >>> c == MergeCandidate.model_construct(**c.__dict__), c.pair
        (True, ('P:a', 'P:b'))
        """
        if len(values) != len(_CANDIDATE_FIELDS):
            raise TypeError(f"MergeCandidate.from_fields needs {len(_CANDIDATE_FIELDS)} values, got {len(values)}")
        return _made(cls, _as_fields(*values))

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[object]]) -> list[MergeCandidate]:
        """`from_fields` for many rows of every value in field order, in one loop (no call layers per record).

        >>> [c.pair for c in MergeCandidate.from_rows([("P:b", "P:a", "B", "A", "P", "P", 0.9, "lsh", "unique", {}, ())])]
        [('P:a', 'P:b')]
        """
        new, as_fields, fields = cls.__new__, _as_fields, set(_CANDIDATE_FIELDS)
        out = []
        for values in rows:
            m = new(cls)
            _set_dict(m, as_fields(*values))
            _set_fields(m, fields.copy())
            _set_extra(m, None)
            _set_private(m, None)
            out.append(m)
        return out

    @property
    def pair(self) -> tuple[str, str]:
        return (self.source, self.target) if self.source < self.target else (self.target, self.source)


_CANDIDATE_FIELDS = tuple(MergeCandidate.model_fields)
_SLOTS = {k: BaseModel.__dict__[k].__set__ for k in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__",
                                                     "__pydantic_private__")}
_set_dict, _set_fields, _set_extra, _set_private = _SLOTS.values()


def _as_fields(source: str, target: str, source_name: str, target_name: str, source_type: str, target_type: str,
               score: float, step: str, verdict: str, features: dict[str, float], reasons: tuple[str, ...]
               ) -> dict[str, object]:
    """A candidate's field values as its __dict__ (a dict display: ~3x faster than dict(zip(...)))."""
    return {"source": source, "target": target, "source_name": source_name, "target_name": target_name,
            "source_type": source_type, "target_type": target_type, "score": score, "step": step,
            "verdict": verdict, "features": features, "reasons": reasons}


assert tuple(_as_fields.__code__.co_varnames[: len(_CANDIDATE_FIELDS)]) == _CANDIDATE_FIELDS  # field order kept


def _made(cls: type[MergeCandidate], values: dict[str, object]) -> MergeCandidate:
    """A MergeCandidate holding `values` (every field, in field order) as model_construct leaves one; the
    slots set through their descriptors (object.__setattr__ looks each up first)."""
    m = cls.__new__(cls)
    _set_dict(m, values)
    _set_fields(m, set(_CANDIDATE_FIELDS))
    _set_extra(m, None)
    _set_private(m, None)
    return m


# --------------------------------------------------------------------------- decisions

Kind = Literal["merge", "keep_apart", "reject_relation", "split"]
DecidedBy = Literal["policy", "person", "llm"]
DECIDER_RANK = {"person": 0, "llm": 1, "policy": 2}  # who decided -> precedence (lower wins)
SPLIT_MARK = "~"  # a split-off entity's id: the entity's id, SPLIT_MARK, a label ("L:paris~texas")


def decision_id(kind: str, subjects: Sequence[str], relation_type: str | None = None) -> str:
    """Stable id. Merge and keep-apart share one id per unordered pair (a pair has one decision at a time);
    a relation rejection is directed and names its type.

    >>> decision_id("merge", ["b", "a"]) == decision_id("keep_apart", ["a", "b"])
    True
    >>> decision_id("reject_relation", ["a", "b"], "T") != decision_id("reject_relation", ["b", "a"], "T")
    True
    """
    subj = list(subjects) if kind in ("reject_relation", "split") else sorted(subjects)
    return "dec:" + short_hash("pair" if kind in ("merge", "keep_apart") else kind, *subj, relation_type or "")


class Decision(Record):
    """One decision. merge: subjects = (merged away, kept); keep_apart: two entities never to merge;
    reject_relation: subjects = (source, target) with `relation_type`, removed in that direction only
    (both directions when the domain declares the type symmetric); split: subjects = (entity, new entity id
    ``<entity>~<label>``), the mentions in `documents` or `chunks` become the new entity (same name, another
    thing: made at build, so relation confidence and support stay exact; kgkit.stages.resolve.split).
    verdict "reject" withdraws it."""

    id: str = ""
    kind: Kind
    subjects: tuple[str, str]
    relation_type: str | None = None
    verdict: Literal["accept", "reject"] = "accept"
    decided_by: DecidedBy
    who: str | None = None
    at: str | None = None
    why: str = ""
    score: float | None = None
    features: dict[str, float] = Field(default_factory=dict)
    documents: tuple[str, ...] = ()
    chunks: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Decision:
        if self.subjects[0] == self.subjects[1]:
            raise ValueError("subjects: an entity cannot be merged with or kept apart from itself")
        if (self.kind == "split") != bool(self.documents or self.chunks):
            raise ValueError("documents: a split names the documents or chunks whose mentions move, and only a split does")
        if self.kind == "split" and not self.subjects[1].startswith(self.subjects[0] + SPLIT_MARK):
            raise ValueError(f"subjects: a split's new id is the entity's id + {SPLIT_MARK!r} + a label")
        if (self.kind == "reject_relation") != (self.relation_type is not None):
            raise ValueError("relation_type: required for reject_relation, and only for it")
        want = decision_id(self.kind, self.subjects, self.relation_type)
        if not self.id:
            object.__setattr__(self, "id", want)
        elif self.id != want:
            raise ValueError(f"id: {self.id!r} does not match its kind and subjects (expected {want!r})")
        return self

    @property
    def pair_key(self) -> tuple[str, ...]:
        """What the decision is about: an unordered entity pair (merge/keep apart) or a directed relation."""
        if self.kind == "reject_relation":
            return ("rel", *self.subjects, self.relation_type or "")
        if self.kind == "split":
            return ("split", *self.subjects)
        return ("pair", *sorted(self.subjects))


def person_decision(kind: Kind, subjects: Sequence[str], *, why: str = "", who: str | None = None,
                    at: str | None = None, relation_type: str | None = None,
                    verdict: Literal["accept", "reject"] = "accept") -> Decision:
    """A decision made by a person (review, notebook widget, hand-edited YAML)."""
    return Decision(kind=kind, subjects=tuple(subjects), relation_type=relation_type, verdict=verdict,  # type: ignore[arg-type]
                    decided_by="person", who=who, at=at, why=why)


def combine(decisions: Iterable[Decision]) -> list[Decision]:
    """One decision per subject: person over llm over policy; within one rank the later wins. Sorted by id.

    >>> a = Decision(kind="merge", subjects=("x", "y"), decided_by="policy")
    >>> b = person_decision("keep_apart", ("y", "x"))
    >>> [d.decided_by for d in combine([b, a])]
    ['person']
    """
    best: dict[str, Decision] = {}
    for d in decisions:
        old = best.get(d.id)
        if old is None or DECIDER_RANK[d.decided_by] <= DECIDER_RANK[old.decided_by]:
            best[d.id] = d
    return [best[k] for k in sorted(best)]


# --------------------------------------------------------------------------- journals


class JournalEntry(Record):
    decision_id: str
    kind: str
    status: Literal["applied", "skipped"]
    detail: str
    subjects: tuple[str, ...] = ()


class TableDiff(Record):
    """Rows of a table (as JSON rows) that apply removed, the positions of the rows it added, and, when the
    kept rows changed relative order, the order that restores them."""

    removed: list[tuple[int, dict[str, Any]]] = Field(default_factory=list)
    added: list[int] = Field(default_factory=list)
    order: list[int] | None = None


class Journal(Record):
    """What one apply did, enough to undo it exactly. `before_sha256` / `after_sha256` are the graphs'
    `Graph.sha256()`."""

    format: str = "kgkit.journal/1"
    before_sha256: str
    after_sha256: str
    entries: list[JournalEntry]
    mapping: dict[str, str]  # merged-away entity id -> kept entity id
    tables: dict[str, TableDiff]
    meta_before: dict[str, Any]


# --------------------------------------------------------------------------- splits


class SplitSpec(NamedTuple):
    """An accepted split as the build uses it (plain, hashable: part of the build's cache key)."""

    entity: str
    new_id: str
    documents: frozenset[str]
    chunks: frozenset[str]


def split_specs(decisions: Iterable[Decision]) -> tuple[SplitSpec, ...]:
    """The accepted splits, in the order the build applies them (a split of a split-off entity after its
    parent's; then by new id). A mention both claim goes to the first.

    >>> d = Decision(kind="split", subjects=("L:paris", "L:paris~texas"), documents=("doc:b",), decided_by="person")
    >>> split_specs([d])
    (SplitSpec(entity='L:paris', new_id='L:paris~texas', documents=frozenset({'doc:b'}), chunks=frozenset()),)
    >>> split_specs([d.model_copy(update={"verdict": "reject"})])
    ()
    """
    found = [SplitSpec(d.subjects[0], d.subjects[1], frozenset(d.documents), frozenset(d.chunks))
             for d in decisions if d.kind == "split" and d.verdict == "accept"]
    return tuple(sorted(found, key=lambda s: (s.entity.count(SPLIT_MARK), s.new_id)))


# --------------------------------------------------------------------------- union-find

T = TypeVar("T", bound=Hashable)


class UnionFind(Generic[T]):
    """Disjoint sets of items: `union(a, b)` joins the sets of a and b, `find(x)` names x's set by one member."""

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._parent: dict[T, T] = {item: item for item in items}

    def find(self, item: T) -> T:
        """The member that names `item`'s set (an item seen for the first time is a set of its own)."""
        parent = self._parent
        parent.setdefault(item, item)
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, a: T, b: T) -> None:
        """Join the sets of `a` and `b` (a's set is named by b's from then on)."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[ra] = rb

    def groups(self) -> list[list[T]]:
        """Every set, its members in the order they were first seen, sets in the order of their first member."""
        members: dict[T, list[T]] = {}
        for item in list(self._parent):
            members.setdefault(self.find(item), []).append(item)
        return list(members.values())
