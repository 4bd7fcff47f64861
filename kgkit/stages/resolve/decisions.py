"""Deciding: the policy that makes the automatic decisions, the judge, and which decisions a run keeps (the
Decision and MergeCandidate records are in kgkit.core.decisions, where a reader of decisions.yaml finds them).

Who decided is recorded: `person` decisions are never replaced by re-running resolution; `policy` decisions
are re-derived on every run; `llm` decisions are kept until a person decides the same pair. Stages never read
the clock: `at` is passed in.

>>> from kgkit.core.decisions import MergeCandidate, person_decision
>>> c = MergeCandidate(source="P:j smith", target="P:jane smith", source_name="J. Smith", target_name="Jane Smith",
...     source_type="P", target_type="P", score=0.95, step="rule", verdict="unique", features={}, reasons=("initials",))
>>> [(d.kind, d.subjects, d.decided_by) for d in decide([c], at="2026-01-01T00:00:00Z")]
[('merge', ('P:j smith', 'P:jane smith'), 'policy')]
>>> mine = person_decision("keep_apart", ("P:jane smith", "P:j smith"), why="two people", at="2026-01-02")
>>> [(d.kind, d.decided_by) for d in decide([c], decisions=[mine])]
[('keep_apart', 'person')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from kgkit.core.decisions import DECIDER_RANK, Decision, Kind, MergeCandidate, UnionFind
from kgkit.core.records import Record
from kgkit.core.stage import stage
from kgkit.stages.resolve.guards import policy_guard
from kgkit.stages.resolve.keys import match_key
from kgkit.stages.resolve.scoring import GUARD_PREFIX

KEPT_APART_SPELLING = "kept_apart_spelling"  # feature of a pair regroup.kept_apart_candidates proposed


class JudgeAnswer(Record):
    """What a judge says about one candidate: same entity (True), different (False), cannot tell (None)."""

    same: bool | None
    confidence: float = 0.0
    why: str = ""


@runtime_checkable
class Judge(Protocol):
    """An LLM (or any) judge for candidates the deterministic steps leave ambiguous. Injected, so the
    stage stays pure and the judge's calls, cache and budget live with the caller (kgkit.llm)."""

    id: str

    def __call__(self, candidate: MergeCandidate) -> JudgeAnswer: ...


@dataclass(frozen=True)
class Policy:
    """Auto-accept policy: a candidate is merged by policy when its verdict is unique, both entities have
    one type, its score is at least `auto_accept` and no guard holds it back (`guards`, guards.policy_guard:
    the names differ by a number or a whole word, or are short names a letter or two apart — checked on
    the names themselves, whichever step proposed the pair). The judge (if any) is asked about same-type
    candidates scoring at least `judge_min` that the policy did not accept; it may keep a guarded pair
    apart but never merge it: a person does.

    >>> from kgkit.core.decisions import MergeCandidate
    >>> c = MergeCandidate(source="L:prussia", target="L:russia", source_name="Prussia", target_name="Russia",
    ...     source_type="L", target_type="L", score=0.94, step="lsh", verdict="unique", features={}, reasons=())
    >>> Policy().refusal(c), Policy(guards=False).refusal(c)
    ("short names a letter or two apart: 'Prussia' / 'Russia'", None)
    """

    auto_accept: float = 0.9
    judge_min: float = 0.8
    guards: bool = True
    min_probability: float | None = None
    """With candidates scored by a learned model (learned.score_candidates: features["probability"]), merge
    only at this probability or above — instead of the score and the unique verdict: an ambiguous name is
    merged when the model puts its best match at min_probability and every rival under 0.5. Guards still hold,
    and a pair the graph alone proposed (step "context") is always a person's call: on a news corpus two
    agencies sharing a rare neighbour are two agencies as often as one."""

    def refusal(self, c: MergeCandidate) -> str | None:
        """Why the policy does not merge `c`, or None when it does."""
        if c.source_type != c.target_type:
            return f"types differ ({c.source_type} / {c.target_type})"
        if c.step == "context":
            return "proposed by the graph alone (the names are not alike): a person decides"
        if c.features.get(KEPT_APART_SPELLING):
            return "a spelling a person keeps apart from its group's representative: a person decides"
        if self.min_probability is not None and "probability" in c.features:
            p, rival = c.features["probability"], c.features.get("rival_probability", 0.0)
            if p < self.min_probability:
                return f"probability {p:.2f} < {self.min_probability:.2f}"
            if c.verdict != "unique" and rival >= 0.5:
                return f"not the one clear match (a rival at probability {rival:.2f})"
            return self.guard(c) if self.guards else None
        if c.verdict != "unique":
            return f"not the one clear match ({c.verdict})"
        if c.score < self.auto_accept:
            return f"score {c.score:.2f} < {self.auto_accept:.2f}"
        return self.guard(c) if self.guards else None

    def guard(self, c: MergeCandidate) -> str | None:
        """The guard's reason for holding a same-type candidate back (guards.policy_guard), else None."""
        if c.features.get("guard"):
            return next((r[len(GUARD_PREFIX):] for r in c.reasons if r.startswith(GUARD_PREFIX)), "guarded")
        typ = c.source_type
        return policy_guard(match_key(c.source_name, typ), match_key(c.target_name, typ), typ, c.source_name,
                            c.target_name)

    def accepts(self, c: MergeCandidate) -> bool:
        return self.refusal(c) is None

    def person_only(self, c: MergeCandidate) -> bool:
        """Whether only a person can merge `c` whatever its probability: types differ, the graph alone proposed
        it, it pairs a spelling a person took out of its group (regroup.kept_apart_candidates), or a guard
        holds it back."""
        return (c.source_type != c.target_type or c.step == "context" or bool(c.features.get(KEPT_APART_SPELLING))
                or (self.guards and self.guard(c) is not None))


def doubt_order(probability: Sequence[float], person_only: Sequence[bool]) -> list[int]:
    """Positions in the order a person is asked, two queues taken in turn: of the pairs the policy could merge on
    their probability, the least sure first (the answer teaches the model most); of the pairs only a person
    can merge, the most likely merge first (each answer is a merge the policy would never make). Ties by
    position, so the order is stable.

    >>> doubt_order([0.5, 0.99, 0.9, 0.1, 0.6], [False, True, False, True, False])
    [0, 1, 4, 3, 2]
    """
    p = [float(x) for x in probability]
    teach = sorted((i for i, g in enumerate(person_only) if not g), key=lambda i: (abs(p[i] - 0.5), i))
    likely = sorted((i for i, g in enumerate(person_only) if g), key=lambda i: (-p[i], i))
    out = [i for pair in zip(teach, likely) for i in pair]
    n = min(len(teach), len(likely))
    return out + teach[n:] + likely[n:]


def settled(candidates: Sequence[MergeCandidate], decisions: Iterable[Decision]) -> list[bool]:
    """Per candidate: whether a person's decisions already settle it without being about it: its two entities
    are joined through the person's merges, or lie in two groups the person keeps apart. `pending` asks about
    these last (an answer on them teaches nothing new).

    >>> from kgkit.core.decisions import MergeCandidate, person_decision
    >>> def c(a, b):
    ...     return MergeCandidate(source=a, target=b, source_name=a, target_name=b, source_type="P",
    ...         target_type="P", score=0.9, step="rule", verdict="unique", features={}, reasons=())
    >>> mine = [person_decision("merge", ("a", "b")), person_decision("merge", ("b", "c")),
    ...         person_decision("keep_apart", ("c", "d"))]
    >>> settled([c("a", "c"), c("a", "d"), c("a", "e")], mine)
    [True, True, False]
    """
    joined: UnionFind[str] = UnionFind()
    find = joined.find
    mine = [d for d in decisions if d.decided_by == "person" and d.verdict == "accept"]
    for d in mine:
        if d.kind == "merge":
            joined.union(*d.subjects)
    apart = {frozenset((find(a), find(b))) for d in mine if d.kind == "keep_apart" for a, b in [d.subjects]}
    out = []
    for c in candidates:
        ra, rb = find(c.source), find(c.target)
        out.append(ra == rb or frozenset((ra, rb)) in apart)
    return out


def _pair(c: MergeCandidate) -> tuple[str, ...]:
    return ("pair", *sorted((c.source, c.target)))


@stage(version="2")
def decide(candidates: Sequence[MergeCandidate], *, decisions: Iterable[Decision] = (), policy: Policy = Policy(),
           at: str | None = None, judge: Judge | None = None) -> list[Decision]:
    """The decision list after a resolution run: every person and llm decision kept as it was, policy
    decisions re-derived from the candidates, the judge asked about what is left. Sorted by id."""
    decisions = list(decisions)
    kept = [d for d in decisions if d.decided_by != "policy"]
    earlier = {d.id: d for d in decisions if d.decided_by == "policy"}
    decided = {d.pair_key for d in kept}
    out = list(kept)
    for c in candidates:
        key = _pair(c)
        if key in decided:
            continue
        refusal = policy.refusal(c)
        if refusal is None:
            p = c.features.get("probability") if policy.min_probability is not None else None
            head = (f"policy: probability {p:.2f} >= {policy.min_probability:.2f}" if p is not None
                    else f"policy: score {c.score:.2f} >= {policy.auto_accept:.2f}, unique")
            why = head + "; " + "; ".join(c.reasons[:2])
            new = Decision(kind="merge", subjects=(c.source, c.target), decided_by="policy", at=at, why=why,
                           score=c.score)
            old = earlier.get(new.id)
            # the same policy decision as last run keeps its time: re-running gives no diff in decisions.yaml
            out.append(old if old is not None and old.model_copy(update={"at": at}) == new else new)
            decided.add(key)
        elif judge is not None and c.source_type == c.target_type and c.score >= policy.judge_min:
            answer = judge(c)
            if answer.same is None or (answer.same and policy.guards and policy.guard(c) is not None):
                continue  # cannot tell; or a guarded pair, which only a person merges
            kind: Kind = "merge" if answer.same else "keep_apart"
            out.append(Decision(kind=kind, subjects=(c.source, c.target), decided_by="llm", who=judge.id, at=at,
                                why=answer.why, score=c.score))
            decided.add(key)
    return sorted(out, key=lambda d: (d.id, DECIDER_RANK[d.decided_by]))


def pending(candidates: Sequence[MergeCandidate], decisions: Iterable[Decision], *,
            policy: Policy = Policy()) -> list[MergeCandidate]:
    """Candidates no decision covers yet (what `kgkit review` asks a person about), one per pair. Candidates a
    learned model scored (features["probability"], learned.score_candidates) come first, in `doubt_order`;
    the others after them, best score first; the ones a person's decisions already settle (`settled`) after
    all others, in the same order."""
    decisions = list(decisions)
    decided = {d.pair_key for d in decisions}
    seen: set[tuple[str, ...]] = set()
    todo = []
    for c in sorted(candidates, key=lambda c: (-c.score, c.source, c.target)):
        key = _pair(c)
        if key not in decided and key not in seen:
            seen.add(key)
            todo.append(c)
    done = settled(todo, decisions)
    out = []
    for later in (False, True):
        part = [c for c, s in zip(todo, done) if s == later]
        scored = [c for c in part if "probability" in c.features]
        order = doubt_order([c.features["probability"] for c in scored], [policy.person_only(c) for c in scored])
        out += [scored[i] for i in order] + [c for c in part if "probability" not in c.features]
    return out
