"""Identity verdicts for the candidate cascade's scored pairs (kgkit.stages.resolve.candidates): per pair, the
less informative name is the query, and the pair is unique when the other name is the query's best match by
`margin` over the runner-up; a misspelling is settled from its own side, and the graph's context breaks a tie
the margin leaves open.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

import numpy as np

from kgkit.stages.resolve.keys import PERSON_TYPES
from kgkit.stages.resolve.name_index import NameIndex
from kgkit.stages.resolve.name_rules import person_parts

__all__ = ["SLIP_RULES", "Scored", "verdicts"]

SLIP_RULES = {"rule_typo", "rule_swapped", "rule_swapped_typo", "rule_split"}
"""Rules that pair two spellings of one full person name (name_rules.person_slip)."""


class Scored(NamedTuple):
    """A scored node pair (a tuple: ~500k of these per 100k names, built ~3x faster than a frozen dataclass)."""

    score: float
    step: str
    features: dict[str, float]
    reasons: tuple[str, ...]
    blocks: tuple[str, ...]


def _information(idx: NameIndex, node: int) -> tuple[int, float, int]:
    """How much a name says: its words (a person's given names, titles not counted), then its bits."""
    key = idx.keys[node]
    words = len(person_parts(key)[0]) if idx.node_types[node] in PERSON_TYPES else key.count(" ")
    return (words, float(idx.bits[node]), node)


def _spelling_pair(idx: NameIndex, a: int, b: int, info_a: tuple[int, float, int], info_b: tuple[int, float, int],
                   s: Scored) -> bool:
    """Two spellings of one name rather than a shorter and a fuller form: people paired by a slip rule
    (name_rules.person_slip; a lost space may change the word count), other names with as many words paired on
    the strings or up to spacing (not names differing in legal form, which may be two companies)."""
    if idx.node_types[a] in PERSON_TYPES:
        return bool(SLIP_RULES & s.features.keys()) and (info_a[0] == info_b[0] or "rule_split" in s.features)
    return info_a[0] == info_b[0] and "rule_legal_form_differs" not in s.features


def _hapax_words(idx: NameIndex, node: int, other: int) -> bool:
    """Every word of node's key that other's key lacks is written in no other name of its type. Word counts
    exist for person names only (NameIndex.word_counts), so for other types this always holds."""
    counts = idx.word_counts.get(idx.node_types[node], {})
    own = set(idx.keys[other].split())
    return all(counts.get(w, 0) <= 1 for w in idx.keys[node].split() if w not in own)


def _ranked(scored: dict[tuple[int, int], Scored]) -> dict[int, list[tuple[float, int]]]:
    """node -> its (score, other node) pairs, best first, then by other node: one numpy sort of every pair
    from both sides (not a Python sort of tuples per node).

    >>> _ranked({(0, 1): Scored(0.9, "lsh", {}, (), ()), (0, 2): Scored(0.95, "lsh", {}, (), ())})
    {0: [(0.95, 2), (0.9, 1)], 1: [(0.9, 0)], 2: [(0.95, 0)]}
    """
    if not scored:
        return {}
    a = np.fromiter((p[0] for p in scored), dtype=np.int64, count=len(scored))
    b = np.fromiter((p[1] for p in scored), dtype=np.int64, count=len(scored))
    score = np.fromiter((s.score for s in scored.values()), dtype=np.float64, count=len(scored))
    node, other, score = np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([score, score])
    order = np.lexsort((other, -score, node))
    node = node[order]
    items = list(zip(score[order].tolist(), other[order].tolist()))
    starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]]).tolist()
    return {n: items[lo:hi] for n, lo, hi in zip(node[starts].tolist(), starts, [*starts[1:], len(items)])}


def verdicts(idx: NameIndex, scored: dict[tuple[int, int], Scored]) -> dict[tuple[int, int], tuple[int, int, str]]:
    """Per scored pair: (query node, other node, verdict). The query is the less informative name; the pair
    is unique when the other node is the query's best match and leads the runner-up by `margin`. A rival
    that itself matches the best at `auto_accept` or more is another spelling of it, not a runner-up (a
    name written 300 ways would otherwise never be unique); "Jane Smith" / "John Smith" stay rivals.
    When the margin leaves it open, a close candidate (within the margin of the query's best) is
    "unique_by_context" when it is the only one sharing neighbours or documents with the query
    (`ResolveConfig.context_tiebreak`)."""
    ranked = _ranked(scored)
    close = idx.config.auto_accept
    info = {n: _information(idx, n) for n in ranked}  # once per node, not per pair and rival
    types = idx.node_types
    links: dict[int, set[int]] = defaultdict(set)  # node -> nodes of its type it matches at `close` or more
    for (a, b), s in scored.items():
        if s.score >= close and types[a] == types[b]:
            links[a].add(b)
            links[b].add(a)

    def spelling(n: int, other: int, query: int) -> bool:
        """n is another spelling of other: linked to it, or through a third name (not the query) linked to
        both — for people, one with as many given names as the shorter of the two."""
        near = links.get(other)
        if not near:
            return False
        if n in near:
            return True
        for score, w in ranked[n]:
            if score < close:
                return False
            if (w != query and w != other and w in near and types[w] == types[n]
                    and (types[w] not in PERSON_TYPES or info[w][0] >= min(info[n][0], info[other][0]))):
                return True  # a shorter form ("C. Campbell") links two people: for people only as full a name counts
        return False

    def context(x: int, y: int) -> float:
        f = scored[(x, y) if x < y else (y, x)].features
        return f.get("shared_neighbours", 0.0) + f.get("co_documents", 0.0)

    margin = idx.config.margin

    def verdict_from(query: int, other: int, s: Scored) -> str:
        runner_up = 0.0
        for score, n in ranked[query]:
            if n != other and not spelling(n, other, query):
                runner_up = score
                break
            if score < s.score - margin:
                break
        return "unique" if s.score - runner_up >= margin else "ambiguous"

    out = {}
    tiebreak = idx.config.context_tiebreak
    for (a, b), s in scored.items():
        info_a, info_b = info[a], info[b]
        query, other = (a, b) if info_a <= info_b else (b, a)
        same_type = types[a] == types[b]
        verdict = verdict_from(query, other, s) if same_type else "ambiguous"
        if verdict == "unique":
            out[(a, b)] = (query, other, verdict)
            continue
        if (verdict == "ambiguous" and same_type and ranked[other][0][1] == query
                and _spelling_pair(idx, a, b, info_a, info_b, s) and _hapax_words(idx, other, query)
                and verdict_from(other, query, s) == "unique"):
            # a misspelling (as informative, its own words written nowhere else) whose best match is clearly
            # the other name: settled from its side ("Colegamte" -> "Colegate" while "Colegtae" also points
            # there: the hub of several misspellings is not ambiguous between them). Words written in several
            # names are names ("Muller" / "Miller"): the margin rule stands.
            query, other, verdict = other, query, "unique"
        if (verdict == "ambiguous" and same_type and tiebreak and s.score >= ranked[query][0][0] - margin
                and context(query, other) > 0):
            # the margin left it open: the graph decides when this is the one close candidate it links
            rivals = [n for score, n in ranked[query] if score >= ranked[query][0][0] - margin and n != other
                      and not spelling(n, other, query)]
            if all(context(query, n) == 0 for n in rivals):
                verdict = "unique_by_context"
        out[(a, b)] = (query, other, verdict)
    return out
