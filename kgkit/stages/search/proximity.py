"""The graph channel: items close (in the relation graph) to the entities the other channels found.

Seed entities get the fused weight of the hits that named them; each relation passes half of that weight to
the entity at its other end (one hop). An item then scores the proximity of the entities it is about (an
entity itself, a relation's two endpoints, the entities mentioned in a chunk). Pure: adjacency and the
entity -> rows map are given.

>>> adjacency = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
>>> proximity({"A": 1.0}, adjacency)
{'A': 1.0, 'B': 0.5}
>>> rows = {"A": [0], "B": [1, 3], "C": [2]}
>>> graph_ranking({"A": 1.0}, adjacency, rows, limit=10)
[(0, 1.0), (1, 0.5), (3, 0.5)]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence


def proximity(seeds: Mapping[str, float], adjacency: Mapping[str, Collection[str]], *, decay: float = 0.5
              ) -> dict[str, float]:
    """Entity -> proximity: seeds keep their weight, their neighbours get `decay` x the weight (summed)."""
    score = dict(seeds)
    for entity, weight in seeds.items():
        for other in sorted(adjacency.get(entity, ())):
            score[other] = score.get(other, 0.0) + decay * weight
    return score


def graph_ranking(seeds: Mapping[str, float], adjacency: Mapping[str, Collection[str]],
                  rows_of: Mapping[str, Sequence[int]], *, entities_of: Callable[[int], Sequence[str]] | None = None,
                  allowed: Callable[[int], bool] | None = None, limit: int = 100, decay: float = 0.5
                  ) -> list[tuple[int, float]]:
    """(row, score) of the items about entities near the seeds, best first (ties: lower row first).
    `entities_of(row)` gives the entities a row is about (its score sums their proximities; default: the
    entity that led to it); `allowed(row)` applies the search filters."""
    near = proximity(seeds, adjacency, decay=decay)
    scores: dict[int, float] = {}
    for entity, weight in near.items():
        for row in rows_of.get(entity, ()):
            if row in scores or (allowed is not None and not allowed(row)):
                continue
            scores[row] = sum(near.get(e, 0.0) for e in entities_of(row)) if entities_of else weight
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
