"""A seeded, stable layout that separates communities, computed once in Python (the page runs no physics).

Each community is laid out on its own (a force-directed layout in numpy, from seeded starting points), scaled
to a disc whose area grows with its size; the discs are placed by a force layout of the community graph
(communities sharing many relations end up near each other) and pushed apart until none overlap. Same graph
and seed -> same coordinates.

Laying out the communities is most of the view's cost; a caller that keeps a cache (`layouts_cached`: a
`kgkit.core.protocols.StageCache`, such as the workspace's `kgkit.io.cache.Cache`; the workflows that write
graph.html give theirs) stores each community's layout keyed by its subgraph (size and edges in order), its seed
and LAYOUT_VERSION, so an add that changes one community lays out only that one again. The positions are the
same to the bit, cached or not.

>>> pos = community_layout(["a", "b", "c", "d"], [("a", "b"), ("c", "d")], {"a": "1", "b": "1", "c": "2", "d": "2"})
>>> sorted(pos) == ["a", "b", "c", "d"], pos == community_layout(["a", "b", "c", "d"], [("a", "b"), ("c", "d")],
...     {"a": "1", "b": "1", "c": "2", "d": "2"})
(True, True)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from kgkit.core.protocols import StageCache
from kgkit.core.stage import stage

__all__ = ["LAYOUT_VERSION", "community_layout", "force_layout", "layouts_cached", "stored_force_layout"]

LAYOUT_VERSION = "1"  # bump when force_layout's output for the same input changes: cached layouts are then unused
_CACHE: ContextVar[StageCache | None] = ContextVar("kgkit_layout_cache", default=None)

SPACING = 80.0  # layout units (CSS pixels at zoom 1) per node: a disc of n nodes has radius SPACING * sqrt(n) / 2
_DENSE_LIMIT = 800  # above this, repulsion is computed against a seeded sample of this many nodes


def force_layout(n: int, edges: np.ndarray, *, seed: int = 0, iterations: int = 60) -> np.ndarray:
    """(n, 2) positions in about [-1, 1] from a Fruchterman-Reingold layout of n nodes and (m, 2) edges.

    >>> force_layout(3, np.array([[0, 1], [1, 2]]), seed=1).shape
    (3, 2)
    """
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros((0, 2))
    if n == 1:
        return np.zeros((1, 2))
    pos = rng.uniform(-1.0, 1.0, (n, 2))
    k = 1.6 / np.sqrt(n)
    temperature = 0.2
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    edges = edges[edges[:, 0] != edges[:, 1]]
    sample = np.arange(n) if n <= _DENSE_LIMIT else np.sort(rng.choice(n, _DENSE_LIMIT, replace=False))
    boost = n / len(sample)
    sx, sy = pos[sample, 0], pos[sample, 1]
    for step in range(iterations):
        if n <= _DENSE_LIMIT:
            sx, sy = pos[:, 0], pos[:, 1]
        else:
            sx, sy = pos[sample, 0], pos[sample, 1]
        dx = pos[:, 0, None] - sx[None, :]
        dy = pos[:, 1, None] - sy[None, :]
        force = (k * k * boost) / np.maximum(dx * dx + dy * dy, 1e-6)
        disp = np.stack([(dx * force).sum(1), (dy * force).sum(1)], axis=1)
        if len(edges):
            d = pos[edges[:, 0]] - pos[edges[:, 1]]
            pull = d * (np.sqrt((d * d).sum(1)) / k)[:, None]
            disp[:, 0] -= np.bincount(edges[:, 0], pull[:, 0], n) - np.bincount(edges[:, 1], pull[:, 0], n)
            disp[:, 1] -= np.bincount(edges[:, 0], pull[:, 1], n) - np.bincount(edges[:, 1], pull[:, 1], n)
        disp -= pos * (0.3 * k * k * n / 4)  # weak gravity: disconnected pieces stay together
        length = np.sqrt(np.maximum((disp * disp).sum(1), 1e-12))
        pos += disp * (np.minimum(length, temperature) / length)[:, None]
        temperature = 0.2 * (1 - (step + 1) / iterations) + 0.005
    return _even_disc(pos - pos.mean(0))


@stage(name="force_layout", version=LAYOUT_VERSION)
def stored_force_layout(n: int, edges: np.ndarray, seed: int, iterations: int) -> np.ndarray:
    """`force_layout(n, edges, seed=seed, iterations=iterations)` as a stage, for a cache to keep.

    >>> bool((stored_force_layout(3, np.array([[0, 1]]), 1, 60) == force_layout(3, np.array([[0, 1]]), seed=1)).all())
    True
    """
    return force_layout(n, edges, seed=seed, iterations=iterations)


@contextmanager
def layouts_cached(cache: StageCache | None) -> Iterator[None]:
    """Inside the block, `community_layout` (in this thread or task) keeps its force layouts in `cache`.

    >>> import tempfile
    >>> from kgkit.io.cache import Cache
    >>> cache = Cache(tempfile.mkdtemp())
    >>> ids, edges, comms = ["a", "b", "c"], [("a", "b"), ("b", "c")], {"a": "1", "b": "1", "c": "1"}
    >>> with layouts_cached(cache):
    ...     first, again = community_layout(ids, edges, comms), community_layout(ids, edges, comms)
    >>> first == again == community_layout(ids, edges, comms), cache.stats.hits["force_layout"]
    (True, 1)
    """
    token = _CACHE.set(cache)
    try:
        yield
    finally:
        _CACHE.reset(token)


def _laid_out(n: int, edges: np.ndarray, seed: int, iterations: int) -> np.ndarray:
    """force_layout's positions, through the cache `layouts_cached` set when there is one (and n > 1: one node
    needs no work). A stored array of the wrong shape or with a non-finite number is not trusted: recomputed."""
    cache = _CACHE.get()
    if cache is None or n < 2:
        return force_layout(n, edges, seed=seed, iterations=iterations)
    edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    pos = cache.run(stored_force_layout, n, edges, seed, iterations)
    if not (isinstance(pos, np.ndarray) and pos.shape == (n, 2) and pos.dtype == np.float64 and np.isfinite(pos).all()):
        return force_layout(n, edges, seed=seed, iterations=iterations)
    return pos


def _even_disc(pos: np.ndarray) -> np.ndarray:
    """Positions moved along their rays so that they fill the unit disc evenly (the i-th nearest to the centre
    of n at radius sqrt((i + 0.5) / n)): a force layout's dense core is opened up, directions and order kept."""
    n = len(pos)
    radius = np.sqrt((pos**2).sum(1))
    order = np.argsort(radius, kind="stable")
    target = np.empty(n)
    target[order] = np.sqrt((np.arange(n) + 0.5) / n)
    angle = np.arctan2(pos[:, 1], pos[:, 0])
    return np.stack([target * np.cos(angle), target * np.sin(angle)], axis=1)


def _separate(centres: np.ndarray, radii: np.ndarray, *, rounds: int = 200) -> np.ndarray:
    """Push discs apart until none overlap (a small gap between them)."""
    c = centres.copy()
    if len(c) < 2:
        return c
    gap = SPACING * 0.6
    for _ in range(rounds):
        delta = c[:, None, :] - c[None, :, :]
        dist = np.sqrt(np.maximum((delta**2).sum(-1), 1e-9))
        need = radii[:, None] + radii[None, :] + gap
        overlap = np.clip(need - dist, 0, None)
        np.fill_diagonal(overlap, 0)
        if not overlap.any():
            break
        move = (delta / dist[:, :, None] * (overlap / 2)[:, :, None]).sum(1)
        c += move
    return c


def _components(ids: Sequence[str], edges: Sequence[tuple[str, str]], community: Mapping[str, str | None], *,
                seed: int) -> dict[str, str]:
    """Each id's group: its community, else (no community) a Louvain community (seeded) of such ids."""
    missing = [i for i in ids if community.get(i) is None]
    out = {i: str(community[i]) for i in ids if community.get(i) is not None}
    if missing:
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(missing)
        g.add_edges_from((a, b) for a, b in edges if a in g and b in g and a != b)
        for n, members in enumerate(nx.community.louvain_communities(g, seed=seed)):
            out.update(dict.fromkeys(members, f"\0{n}"))
    return out


def community_layout(
    ids: Sequence[str],
    edges: Sequence[tuple[str, str]],
    community: Mapping[str, str | None],
    *,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """{id: (x, y)} in layout units: communities as separate discs, placed near the communities they share
    relations with. An id without a community gets a disc of its own (isolated) or joins its neighbours'."""
    index = {i: n for n, i in enumerate(ids)}
    label = _components(ids, edges, community, seed=seed)
    groups: dict[str, list[int]] = defaultdict(list)
    for i in ids:
        groups[label[i]].append(index[i])
    singles = [g for g, members in groups.items() if len(members) == 1]
    if len(singles) > 1:  # one disc for all the one-entity communities, not hundreds of tiny ones
        groups["\0single"] = sorted(m for g in singles for m in groups.pop(g))
    names = sorted(groups, key=lambda g: (-len(groups[g]), g))
    of = np.empty(len(ids), dtype=np.int64)
    for gi, g in enumerate(names):
        of[groups[g]] = gi
    pairs = np.array([(index[a], index[b]) for a, b in edges if a in index and b in index], dtype=np.int64).reshape(-1, 2)
    out = np.zeros((len(ids), 2))
    radii = np.array([SPACING * np.sqrt(len(groups[g])) / 2 for g in names])
    inside = of[pairs[:, 0]] == of[pairs[:, 1]] if len(pairs) else np.zeros(0, dtype=bool)
    by_group: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for a, b in pairs[inside]:
        by_group[int(of[a])].append((int(a), int(b)))
    for gi, g in enumerate(names):
        members = groups[g]
        local = {m: j for j, m in enumerate(members)}
        e = np.array([(local[a], local[b]) for a, b in by_group[gi]], dtype=np.int64).reshape(-1, 2)
        out[members] = _laid_out(len(members), e, seed + gi, 60) * radii[gi]
    # community placement: a force layout of the community graph, scaled so discs are about their size apart
    weights = Counter((min(int(of[a]), int(of[b])), max(int(of[a]), int(of[b]))) for a, b in pairs[~inside])
    cedges = np.array(sorted(weights), dtype=np.int64).reshape(-1, 2)
    centres = _laid_out(len(names), cedges, seed, 80)
    spread = np.sqrt((radii**2).sum()) * 1.3
    centres = _separate(centres * spread, radii)
    out += centres[of]
    return {i: (round(float(out[n, 0]), 1), round(float(out[n, 1]), 1)) for i, n in index.items()}
