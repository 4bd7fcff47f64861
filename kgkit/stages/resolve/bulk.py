"""Node-pair filters of the candidate cascade, in numpy over all pairs at once (package-internal helpers of
`kgkit.stages.resolve.candidates`): string scores in bulk, per-node codes, and the necessary conditions of the
name rules, so that pairs no rule can lift and no string score can keep are dropped before per-pair Python.

>>> from kgkit.stages.resolve.name_index import build_index
>>> idx = build_index([("O:a", "Acme Corp", "Organization", 1), ("O:b", "Acme Research", "Organization", 1),
...     ("O:c", "Globex Bank", "Organization", 1), ("O:d", "Globex", "Organization", 1),
...     ("P:a", "J. Smith", "Person", 1), ("P:b", "Jane Smith", "Person", 1)])
>>> idx.keys
['acme corp', 'acme research', 'globex bank', 'globex', 'j smith', 'jane smith']
>>> rule_possible_bulk(idx, np.array([0, 2, 4]), np.array([1, 3, 5])).tolist()  # no rule / qualifier / initials
[False, True, True]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process
from rapidfuzz.distance import JaroWinkler

from kgkit.stages.resolve.keys import (
    PERSON_TYPES,
    acronym,
    core_key,
    is_qualifier,
    looks_like_acronym,
    squash_key,
)
from kgkit.stages.resolve.name_index import NameIndex
from kgkit.stages.resolve.name_rules import person_parts

__all__ = ["bulk_strings", "contains_sorted", "node_codes", "plain_pairs", "rule_possible_bulk", "swapped_close",
           "token_sorted_keys"]


def contains_sorted(sorted_codes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values[i] in sorted_codes, for a sorted array (a binary search; np.isin hashes both sides)."""
    if not len(sorted_codes):
        return np.zeros(len(values), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_codes, values), len(sorted_codes) - 1)
    return sorted_codes[pos] == values


def bulk_strings(idx: NameIndex, a: np.ndarray, b: np.ndarray, scorers: Sequence[Any],
                  token_sorted: np.ndarray | None = None) -> list[np.ndarray]:
    """String scores of node pairs (a[i], b[i]) in one vectorised rapidfuzz call per scorer, in 0..1.
    `token_sorted` (token_sorted_keys) lets token_sort_ratio run as a plain ratio of the keys' words sorted once
    per node (the same values; rapidfuzz would split and sort both keys again for every pair)."""
    keys = np.asarray(idx.keys, dtype=object)
    left, right = keys[a].tolist(), keys[b].tolist()
    out = []
    for scorer in scorers:
        if scorer is fuzz.token_sort_ratio and token_sorted is not None:
            v = process.cpdist(token_sorted[a].tolist(), token_sorted[b].tolist(), scorer=fuzz.ratio, workers=1,
                               dtype=np.float64)
        else:
            v = process.cpdist(left, right, scorer=scorer, workers=1, dtype=np.float64)
        out.append(v if scorer is JaroWinkler.normalized_similarity else v / 100)
    return out


def token_sorted_keys(keys: Sequence[str]) -> np.ndarray | None:
    """Each key's words sorted and joined by one space (what token_sort_ratio compares), or None when a key
    is spaced otherwise (a name of punctuation alone keeps its own spacing: keys.match_key), so that
    rapidfuzz's own word split decides.

    >>> token_sorted_keys(["smith jane", "acme"]).tolist(), token_sorted_keys(["!  !"])
    (['jane smith', 'acme'], None)
    """
    out = []
    for key in keys:
        words = key.split()
        if " ".join(words) != key:
            return None
        out.append(" ".join(sorted(words)))
    return np.asarray(out, dtype=object)


def swapped_close(idx: NameIndex, a: np.ndarray, b: np.ndarray, tsort: np.ndarray, done: np.ndarray,
                   floor: float) -> np.ndarray:
    """Whether pairs (a[i], b[i]) of two-word names, the words of b swapped, reach `floor` on the string
    score (name_rules.person_slip's 'swapped_typo' is scored so); pairs already `done` are not computed."""
    two = np.fromiter((k.count(" ") == 1 for k in idx.keys), dtype=bool, count=len(idx.keys))
    todo = np.flatnonzero(~done & two[a] & two[b] & (tsort >= (floor - 0.4) / 0.6))
    out = np.zeros(len(a), dtype=bool)
    if len(todo):
        keys = np.asarray(idx.keys, dtype=object)
        swapped = [" ".join(k.split()[::-1]) for k in keys[b[todo]].tolist()]
        jw = process.cpdist(keys[a[todo]].tolist(), swapped, scorer=JaroWinkler.normalized_similarity, workers=1,
                            dtype=np.float64)
        out[todo] = (0.6 * tsort[todo] + 0.4 * jw) >= floor
    return out


def _codes(values: Sequence[object], missing: int | np.ndarray = -1) -> np.ndarray:
    """One int per value, equal for equal values; None -> `missing`.

    >>> _codes(["a", None, "b", "a"]).tolist()
    [0, -1, 1, 0]
    """
    codes, _uniques = pd.factorize(np.asarray(values, dtype=object))
    codes = codes.astype(np.int64)
    return np.where(codes < 0, missing, codes) if (codes < 0).any() else codes


def node_codes(idx: NameIndex) -> dict[str, np.ndarray]:
    """Per-node codes the pair filters compare in numpy (equal codes, equal values): see rule_possible_bulk."""
    keys, n = idx.keys, len(idx.keys)
    tokens = [k.split() for k in keys]
    parts = [person_parts(k) for k in keys]
    names = [idx.names[r] for r in idx.rep]
    c = {"person": np.fromiter((t in PERSON_TYPES for t in idx.node_types), dtype=bool, count=n),
         "type": _codes(idx.node_types),
         "joined": _codes([k.replace(" ", "") for k in keys]),
         "surname": _codes([surname for _given, surname in parts]),
         "initial": _codes([given[0][0] if given else None for given, _surname in parts]),  # -1: no given name
         "words": np.fromiter((len(t) for t in tokens), dtype=np.int64, count=n),
         "sorted_words": _codes([" ".join(sorted(t)) for t in tokens]),  # words hold no space: joins keep them apart
         # a key less its i-th word (names of up to 4 words; longer ones all share one value); -2 - node: no such word
         "drops": np.array([_codes([(" ".join([*t[:i], *t[i + 1 :]]) if len(t) <= 4 else "\n") if i < len(t) else None
                                    for t in tokens], missing=-2 - np.arange(n)) for i in range(4)]),
         "squash": _codes([squash_key(k) for k in keys]),
         "core": _codes([core_key(k) for k in keys]),
         # the words that are no qualifier (keys.is_qualifier), in order: equal for any two keys
         # keys.qualifier_words can pair (core_key keeps a key of qualifiers alone whole)
         "named": _codes([" ".join(w for w in t if not is_qualifier(w)) for t in tokens])}
    # a one-word key written as an acronym (else -1), and the acronyms of each name and key (else -2), in one code space
    acr = _codes([*(k if " " not in k and looks_like_acronym(nm) else None for k, nm in zip(keys, names)),
                  *(acronym(nm) or None for nm in names), *(acronym(k) or None for k in keys)])
    c["own"], c["acrs"] = acr[:n], np.where(acr[n:] < 0, -2, acr[n:]).reshape(2, n)
    return c


def _acronym_of(c: dict[str, np.ndarray], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One node of each pair is a one-word key written as an acronym of the other's name or key."""
    own, acrs = c["own"], c["acrs"]
    return ((own[a] >= 0) & (acrs[:, b] == own[a]).any(axis=0)) | ((own[b] >= 0) & (acrs[:, a] == own[b]).any(axis=0))


def rule_possible_bulk(idx: NameIndex, a: np.ndarray, b: np.ndarray, sorted_close: np.ndarray | None = None,
                        codes: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """Whether a name rule could fire for same-type node pairs (a[i], b[i]): a necessary condition, from
    per-node codes compared in numpy (`codes`: node_codes, computed when None). People: one surname and
    agreeing first given initials (or no given name: name_rules.initials_rule), or as many words with the same
    words sorted or all but one word in place (name_rules.person_slip), or as many words with the token sort
    close enough (`sorted_close`: the words swapped and misspelt, scored in one order), or the same letters
    without spaces. Others: one name up to spacing and legal form, or up to qualifier words (keys.core_key),
    or one an acronym of the other."""
    c = codes if codes is not None else node_codes(idx)

    def same(name: str) -> np.ndarray:
        return c[name][a] == c[name][b]

    initial = c["initial"]
    initials = same("surname") & ((initial[a] < 0) | (initial[b] < 0) | same("initial"))
    slip = same("words") & (same("sorted_words") | (c["drops"][:, a] == c["drops"][:, b]).any(axis=0))
    if sorted_close is not None:
        slip |= same("words") & sorted_close
    slip |= same("joined")
    person = c["person"]
    return np.where(person[a] & person[b], initials | slip, same("squash") | same("core") | _acronym_of(c, a, b))


def plain_pairs(c: dict[str, np.ndarray], a: np.ndarray, b: np.ndarray, string: np.ndarray, cap: float) -> np.ndarray:
    """Pairs score_names scores by their strings alone: one type, not people, not equal up to spacing or legal
    form, no qualifier words added (their other words differ), no acronym, and a string score up to `cap`
    (scoring.plain_cap)."""
    return (~c["person"][a] & (c["type"][a] == c["type"][b]) & (c["squash"][a] != c["squash"][b])
            & (c["named"][a] != c["named"][b]) & ~_acronym_of(c, a, b) & (string <= cap))
