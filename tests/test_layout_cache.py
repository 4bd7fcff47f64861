"""The explorer's layout kept in a cache (kgkit.views.explorer.layout.layouts_cached): each community's force
layout is stored by its subgraph and seed, so laying out again after one community changed computes only that
one; the positions are the same to the bit as without a cache; a damaged or wrong entry is not trusted; the
workflows that write graph.html give the workspace's cache and write the same bytes as without one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kgkit.io.cache import Cache
from kgkit.views.explorer.layout import community_layout, layouts_cached


def _graph(sizes: list[int], *, seed: int = 3) -> tuple[list[str], list[tuple[str, str]], dict[str, str]]:
    """Communities of the given sizes (a ring and random chords each), a few relations between them, and some
    entities without a community."""
    rng = np.random.default_rng(seed)
    ids, edges, comm = [], [], {}
    for c, n in enumerate(sizes):
        members = [f"c{c}-{i}" for i in range(n)]
        ids += members
        comm.update(dict.fromkeys(members, f"k{c}"))
        edges += [(members[i], members[(i + 1) % n]) for i in range(n)]
        edges += [(members[a], members[b]) for a, b in rng.integers(0, n, (n // 2, 2)) if a != b]
    for c in range(len(sizes) - 1):
        edges.append((f"c{c}-0", f"c{c + 1}-1"))
    ids += ["lone-1", "lone-2", "lone-3"]
    edges.append(("lone-1", "lone-2"))
    return ids, edges, comm


def _misses(cache: Cache) -> int:
    return cache.stats.misses["force_layout"]


def test_cached_positions_are_identical_and_only_a_changed_community_is_laid_out_again(tmp_path: Path) -> None:
    ids, edges, comm = _graph([40, 25, 12, 6])
    plain = community_layout(ids, edges, comm, seed=7)
    cache = Cache(tmp_path)
    with layouts_cached(cache):
        cold = community_layout(ids, edges, comm, seed=7)
    computed = _misses(cache)
    assert computed >= 5  # four communities, the lone entities' group and the placement of the discs
    assert cold == plain
    warm_cache = Cache(tmp_path)
    with layouts_cached(warm_cache):
        warm = community_layout(ids, edges, comm, seed=7)
    assert warm == plain and _misses(warm_cache) == 0 and warm_cache.stats.hits["force_layout"] == computed
    # one new entity and relation inside the third community: it alone is laid out again
    changed_ids, changed_edges = [*ids, "c2-new"], [*edges, ("c2-new", "c2-3")]
    changed_comm = {**comm, "c2-new": "k2"}
    after = Cache(tmp_path)
    with layouts_cached(after):
        laid = community_layout(changed_ids, changed_edges, changed_comm, seed=7)
    assert _misses(after) == 1 and after.stats.hits["force_layout"] == computed - 1
    assert laid == community_layout(changed_ids, changed_edges, changed_comm, seed=7)
    plain8 = community_layout(ids, edges, comm, seed=8)
    other = Cache(tmp_path)
    with layouts_cached(other):
        assert community_layout(ids, edges, comm, seed=8) == plain8
    assert _misses(other) >= 5  # another seed: other layouts, none taken from seed 7's


def test_a_damaged_or_wrong_entry_is_not_trusted(tmp_path: Path) -> None:
    ids, edges, comm = _graph([30, 10])
    plain = community_layout(ids, edges, comm)
    with layouts_cached(Cache(tmp_path)):
        community_layout(ids, edges, comm)
    files = sorted((Path(p) for stage, p, _ in Cache(tmp_path).entries() if stage == "force_layout"),
                   key=lambda p: -p.stat().st_size)
    files[0].write_bytes(b"\x93NUMPY garbage")  # damaged: a miss, computed and rewritten
    np.save(files[1], np.zeros((2, 2)))  # readable, but the wrong shape: recomputed
    np.save(files[2], np.full(np.load(files[2]).shape, np.nan))  # the right shape, not finite: recomputed
    cache = Cache(tmp_path)
    with layouts_cached(cache):
        assert community_layout(ids, edges, comm) == plain
    assert cache.stats.misses["force_layout"] == 1 and cache.stats.writes["force_layout"] == 1


@pytest.mark.slow
def test_the_workflows_view_is_the_same_with_a_warm_layout_cache(tmp_path: Path) -> None:
    from kgkit.core.constants import VIEW_NODES
    from kgkit.testing.workspaces import sample_workspace
    from kgkit.views.graph_page import graph_html
    from kgkit.workflows.graph import communities, read_graph

    ws = sample_workspace(tmp_path / "ws")
    communities(ws.root)  # graph.html written with the workspace's cache: layouts stored
    cold = (ws.root / "graph.html").read_bytes()
    stored = [p for stage, p, _ in Cache(ws.cache_dir).entries() if stage == "force_layout"]
    assert stored
    communities(ws.root)  # again: every layout from the cache
    assert (ws.root / "graph.html").read_bytes() == cold
    config = json.loads((ws.root / "manifest.json").read_text())["config"]
    drawn = graph_html(read_graph(ws.root), max_nodes=config.get("view_nodes", VIEW_NODES))  # no layout cache
    assert drawn.encode() == cold
