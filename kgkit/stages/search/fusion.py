"""Pure ranking helpers: weighted reciprocal rank fusion, a convex combination of normalised scores, greedy MMR,
and rolling hits up to documents or entities.

>>> [(key, round(s, 4)) for key, s in rrf({"keyword": ["a", "b", "c"], "dense": ["b", "a"]}, weights={}, k=60)]
[('a', 0.0325), ('b', 0.0325), ('c', 0.0159)]
>>> [key for key, _ in rrf({"keyword": ["a", "b"], "dense": ["b"]}, weights={"keyword": 1.0, "dense": 2.0})]
['b', 'a']
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

K = TypeVar("K", bound=Hashable)


def rrf(rankings: Mapping[str, Sequence[K]], *, weights: Mapping[str, float], k: float = 60.0) -> list[tuple[K, float]]:
    """Weighted reciprocal rank fusion: score(item) = sum over channels of weight / (k + rank), ranks from 1.
    Ties keep first-seen order (channels in the order given, then rank), so the result is deterministic."""
    scores: dict[K, float] = {}
    for channel, ranked in rankings.items():
        w = weights.get(channel, 1.0)
        if w == 0:
            continue
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def convex(rankings: Mapping[str, tuple[np.ndarray, np.ndarray]], *, weights: Mapping[str, float]
           ) -> list[tuple[int, float]]:
    """Convex combination of normalised scores: score(item) = sum over channels of weight * normalised score,
    where a keyword score is divided by the channel's best and a dense score (a cosine) is kept as it is
    (below 0: 0). An item a channel did not return adds 0 there. Ties: channels in the order given, then rank.

    >>> import numpy as np
    >>> fused = convex({"keyword": (np.array([1, 2]), np.array([8.0, 2.0])), "dense": (np.array([2]), np.array([0.9]))},
    ...                weights={"keyword": 0.5, "dense": 0.5})
    >>> [(row, round(s, 3)) for row, s in fused]
    [(2, 0.575), (1, 0.5)]
    """
    scores: dict[int, float] = {}
    for channel, (rows, values) in rankings.items():
        w = weights.get(channel, 1.0)
        if w == 0 or not len(rows):
            continue
        values = np.asarray(values, dtype=np.float64)
        if channel == "dense":
            normalised = np.clip(values, 0.0, None)
        else:
            best = float(values.max())
            normalised = values / best if best > 0 else np.zeros(len(values))
        for row, v in zip(rows.tolist(), normalised.tolist()):
            scores[row] = scores.get(row, 0.0) + w * v
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def mmr(relevance: np.ndarray, vectors: np.ndarray, *, limit: int, lambda_: float = 0.7) -> list[int]:
    """Greedy maximal marginal relevance: positions into `relevance` (and the unit rows of `vectors`), each
    chosen to maximise lambda*relevance - (1-lambda)*max similarity to those already chosen.

    >>> v = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    >>> mmr(np.array([1.0, 0.99, 0.5]), v, limit=2, lambda_=0.5)
    [0, 2]
    """
    n = len(relevance)
    if n == 0:
        return []
    rel = np.asarray(relevance, dtype=np.float64)
    span = rel.max() - rel.min()
    rel = (rel - rel.min()) / span if span > 0 else np.ones(n)
    chosen: list[int] = []
    closest = np.full(n, -np.inf)
    left = np.ones(n, dtype=bool)
    while len(chosen) < min(limit, n):
        penalty = np.where(np.isfinite(closest), closest, 0.0)
        score = np.where(left, lambda_ * rel - (1 - lambda_) * penalty, -np.inf)
        best = int(np.argmax(score))
        chosen.append(best)
        left[best] = False
        closest = np.maximum(closest, vectors @ vectors[best])
    return chosen


def rollup(hits: pd.DataFrame, *, by: str = "document") -> pd.DataFrame:
    """Group hits by their document (`by="document"`) or by the entities they are about (`by="entity"`): one
    row per group with the best score, the summed score, the number of hits and the best hit's id, best first.

    >>> import pandas as pd
    >>> h = pd.DataFrame({"id": ["c1", "c2", "c3"], "score": [0.3, 0.2, 0.1], "document_id": ["d1", "d2", "d1"],
    ...                   "entities": [["e1"], ["e1", "e2"], []]})
    >>> rollup(h)[["key", "hits", "best_id"]].values.tolist()
    [['d1', 2, 'c1'], ['d2', 1, 'c2']]
    >>> rollup(h, by="entity")[["key", "hits"]].values.tolist()
    [['e1', 2], ['e2', 1]]
    """
    import pandas as pd

    if by not in ("document", "entity"):
        raise ValueError("roll up by 'document' or 'entity'")
    column = "document_id" if by == "document" else "entities"
    frame = hits[["id", "score", column]].rename(columns={column: "key"})
    if by == "entity":
        frame = frame.explode("key")
    frame = frame.dropna(subset=["key"])
    if frame.empty:
        return pd.DataFrame({"key": [], "score": [], "total": [], "hits": [], "best_id": []})
    grouped = frame.groupby("key", sort=False)
    out = pd.DataFrame({"score": grouped["score"].max(), "total": grouped["score"].sum(),
                        "hits": grouped["id"].size(), "best_id": grouped["id"].first()}).reset_index()
    return out.sort_values(["score", "total"], ascending=False, kind="stable").reset_index(drop=True)
