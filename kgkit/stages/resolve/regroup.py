"""Spellings a person took out of their exact-key group get candidates of their own (a pure stage).

The exact step pairs every spelling of one match key with the group's representative only ("Judge Michelle
Allen" -> "Michelle Allen"), and the lexical steps pair groups through their representatives ("Michelle
Allen" / "Michelle W. Allen"). When the representative names several things (two Michelle Allens) and a
person keeps a spelling apart from it, that spelling would be left with no candidate at all: its group's
other spellings and the names the representative was paired with are never proposed for it.
`kept_apart_candidates` proposes them: for a person's keep-apart between a spelling and its group's
representative, the spelling is paired with the group's other spellings and with every name the
representative was paired with by its name (not the pairs the graph alone proposed: those are about its own
neighbours), with the same score and features (the match keys are equal), verdict ambiguous, marked
`features["kept_apart_spelling"]`; only a person merges them (`Policy.refusal`).

>>> from kgkit.core.decisions import person_decision
>>> from kgkit.core.decisions import MergeCandidate
>>> def cand(a, b, step, score=1.0):
...     return MergeCandidate(source=f"P:{a.lower()}", target=f"P:{b.lower()}", source_name=a, target_name=b,
...         source_type="P", target_type="P", score=score, step=step, verdict="unique", features={}, reasons=())
>>> found = [cand("Judge M Allen", "M Allen", "exact"), cand("Dr M Allen", "M Allen", "exact"),
...          cand("M Allen", "M W Allen", "rule", 0.93)]
>>> veto = person_decision("keep_apart", ("P:m allen", "P:judge m allen"), why="two people named M Allen")
>>> [(c.source_name, c.target_name, c.score, c.verdict) for c in kept_apart_candidates(found, [veto])]
[('Dr M Allen', 'Judge M Allen', 1.0, 'ambiguous'), ('Judge M Allen', 'M W Allen', 0.93, 'ambiguous')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from kgkit.core.decisions import Decision, MergeCandidate
from kgkit.core.stage import stage
from kgkit.stages.resolve.decisions import KEPT_APART_SPELLING as MARK


def _moved(c: MergeCandidate, old: str, new: str, new_name: str, why: str) -> MergeCandidate:
    """`c` with entity `old` replaced by `new` (same type, same match key), ambiguous, marked."""
    src, dst = (new, c.target) if c.source == old else (c.source, new)
    names = (new_name, c.target_name) if c.source == old else (c.source_name, new_name)
    return MergeCandidate.trusted(source=src, target=dst, source_name=names[0], target_name=names[1],
                                  source_type=c.source_type, target_type=c.target_type, score=c.score, step=c.step,
                                  verdict="ambiguous", features={**c.features, MARK: 1.0}, reasons=(why, *c.reasons))


@stage(version="1")
def kept_apart_candidates(candidates: Sequence[MergeCandidate], decisions: Iterable[Decision]) -> list[MergeCandidate]:
    """Candidates for the spellings a person kept apart from their exact-key group's representative: each is
    paired with the group's other spellings and with the names the representative was paired with by its
    name (no step "context"; not pairs already among `candidates`). Ordered as the keep-apart decisions,
    then the candidates."""
    members: dict[str, dict[str, str]] = defaultdict(dict)  # representative -> {spelling id: its name}
    paired: dict[str, list[MergeCandidate]] = defaultdict(list)  # representative -> its other candidates
    exact = {}
    for c in candidates:
        if c.step == "exact" and c.verdict == "unique" and c.source_type == c.target_type:
            members[c.target][c.source] = c.source_name
            exact[c.source] = c
    for c in candidates:
        for end in (c.source, c.target):
            # names it was paired with by its name (not the graph's pairs: those are about its own neighbours)
            if (end in members and c.step != "context" and not (c.step == "exact" and c.target == end)
                    and MARK not in c.features):
                paired[end].append(c)
    seen = {frozenset((c.source, c.target)) for c in candidates}
    out: list[MergeCandidate] = []
    for d in decisions:
        if d.kind != "keep_apart" or d.verdict != "accept" or d.decided_by != "person":
            continue
        a, b = d.subjects
        rep, spelling = (a, b) if a in members and b in members[a] else (b, a)
        if spelling not in members.get(rep, {}):
            continue
        name = members[rep][spelling]
        why = (f"a spelling of {exact[spelling].target_name!r} (same match key), which a person keeps apart "
               "from it: asked on its own")
        others = [exact[m] for m in members[rep] if m != spelling]
        for c in [*others, *paired[rep]]:
            moved = _moved(c, rep, spelling, name, why)
            pair = frozenset((moved.source, moved.target))
            if moved.source != moved.target and pair not in seen:
                seen.add(pair)
                out.append(moved)
    return out
