"""`kgkit apply` and `kgkit undo` walk through few rooms (kgkit modules) and come back to few of them: the
measure of bench/walk.py (its docstring defines it), on the small sample workspace."""

from __future__ import annotations

from pathlib import Path

from bench_modules import load_bench

from kgkit.testing.workspaces import sample_workspace
from kgkit.workflows.graph import read_graph

ROOT = Path(__file__).resolve().parents[1]
MAX_ROOMS = {"apply": 12, "undo": 11}  # 29 and 23 before apply/undo became declared steps, 20 and 15 on main
# f668109; then atomic writes and the manifest went into io/generation, split specs and the union-find into
# core/decisions, the settings into workflows/pipeline, the commit steps into workflows/resolve. Issue 28
# targets 10: apply still finds its communities again (stages/communities) and the CLI opens the workspace
# through cli/options.


def _walk_module():
    return load_bench("walk.py", "bench_walk")


def test_apply_and_undo_walk_through_few_rooms(tmp_path):
    walk = _walk_module()
    ws = sample_workspace(tmp_path)
    entities = len(read_graph(ws).entities)
    pair = walk.record_one_decision(ws.root)
    walks = walk.walk_apply_undo(ws.root)
    assert pair == ("Person:charles babage", "Person:charles babbage")
    assert len(read_graph(ws).entities) == entities  # undone: the merge was applied, then taken back
    for name, limit in MAX_ROOMS.items():
        rooms = walks[name].rooms
        assert rooms[0] == "cli/resolve", rooms  # the walk starts at the command
        assert len(rooms) <= limit, f"kgkit {name} walks through {len(rooms)} rooms: {rooms}"
        assert not any(room.startswith("views/") for room in rooms), rooms  # no view drawn inline
    assert walks["apply"].steps.count("workflows/pipeline") >= 1  # the declared steps ran


def test_the_walk_counts_rooms_and_climbs_back():
    walk = _walk_module().Walk(steps=["cli/a", "io/w", "cli/a", "io/w", "cli/a", "core/g", "io/w"])
    assert walk.rooms == ["cli/a", "io/w", "core/g"]
    assert walk.climbs() == [("io/w", "cli/a"), ("cli/a", "io/w"), ("core/g", "io/w")]  # a loop counts once
    assert walk.climbs_back == 3 and walk.reentries == 4
