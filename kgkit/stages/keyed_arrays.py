"""Per-key reductions over numpy arrays with integer keys, the pieces the build merges mentions with (no
Python loop per group): sorted codes, the most frequent value, the min or max of text values, lists per key.

>>> keys = np.array([0, 0, 1, 1, 1])
>>> top_per_key(keys, np.array(["a", "b", "b", "c", "c"], dtype=object))
(array([0, 1]), array(['a', 'c'], dtype=object))
>>> lists_per_key(keys, np.array([5, 6, 7, 8, 9]))
{0: [5, 6], 1: [7, 8, 9]}
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["extreme_per_key", "factor", "fill_per_key", "lists_per_key", "ranks", "top_per_key"]


def factor(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Sorted integer codes (-1 for missing) and the sorted distinct values (Python order, as sorted())."""
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def top_per_key(keys: np.ndarray, values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per integer key, the most frequent non-missing value; ties go to the smallest value (deterministic).
    Returns (keys that have a value, their value)."""
    vcode, vals = factor(values)
    keep = vcode >= 0
    if not keep.any():
        return np.zeros(0, np.int64), np.zeros(0, object)
    combo, counts = np.unique(keys[keep] * len(vals) + vcode[keep], return_counts=True)
    uk, uv = combo // len(vals), combo % len(vals)
    order = np.lexsort((uv, -counts, uk))
    uk, uv = uk[order], uv[order]
    first = np.r_[True, uk[1:] != uk[:-1]]
    return uk[first], vals[uv[first]]


def extreme_per_key(keys: np.ndarray, values: Any, n: int, how: str) -> np.ndarray:
    """Per integer key in range(n), the min or max of text values (ISO times) or None, via sorted codes
    (pandas' groupby min/max on text falls back to one Python call per group)."""
    out = np.full(n, None, dtype=object)
    vcode, vals = factor(values)
    keep = vcode >= 0
    if keep.any():
        best = pd.Series(vcode[keep]).groupby(keys[keep], sort=False).agg(how)
        out[best.index.to_numpy()] = vals[best.to_numpy()]
    return out


def fill_per_key(n: int, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.full(n, None, dtype=object)
    out[keys] = values
    return out


def lists_per_key(keys: np.ndarray, values: np.ndarray) -> dict[Any, list[Any]]:
    """Group values (already sorted by key) into lists per key, with numpy splits instead of a groupby loop."""
    if len(keys) == 0:
        return {}
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return dict(zip(keys[starts].tolist(), (chunk.tolist() for chunk in np.split(values, starts[1:]))))


def ranks(values: list[str] | np.ndarray) -> np.ndarray:
    """Position of each (distinct) value in sorted order."""
    order = np.argsort(np.asarray(values, dtype=object), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank
