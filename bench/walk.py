"""How far a command walks through kgkit: the rooms `kgkit apply` and `kgkit undo` enter and the climbs back.

    python bench/walk.py [--workspace WS] [--json]

Copies a workspace (default: the demo's reference outputs, /work/baseline/m3eaa/demo, else `--workspace`) to a
temporary folder, records one real decision in it (a person merges the best merge candidate the resolver
proposes), then runs `kgkit apply -w COPY` and `kgkit undo -w COPY` in this process through the CLI app, each
traced with `sys.setprofile`, and prints for each command:

- the walk: the kgkit modules control passes through, in order. A step of the walk is a Python function call
  whose code lives in a kgkit module (``frame.f_globals["__name__"]`` under ``kgkit``) other than the module of
  the step before; calls within one module, returns, and calls into other libraries (typer, pandas, pydantic
  ...) add no step (a library calling back into kgkit does, when it lands in another module). The walk starts
  when the command's own function (``apply_cmd``, ``undo_cmd``) is called, so typer's parsing is not counted,
  and code run by an import (a module body and whatever it calls) is left out: the walk is where control goes,
  the import graph is tests/test_layers.py's business.
- rooms: the distinct modules of the walk;
- climbs back: the moves of the walk (from one room to the next) that re-enter a module control had already
  been in and left for another kgkit module, each distinct move (from, to) counted once, so a loop that calls
  back and forth between two modules a thousand times counts as one climb, not a thousand (the raw count of
  re-entries is printed beside it). A walk down the layers (cli -> workflow -> io -> ...) that never comes back
  to a room it left scores 0; `ws.manifest()` called from three other modules after the workspace was first
  entered scores 3.

The same measure is asserted by tests/test_walk.py on a small workspace (rooms <= 10).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEMO = Path("/work/baseline/m3eaa/demo")
OWNER = "kgkit"


@dataclass
class Walk:
    """The kgkit modules a traced call went through (`steps`, consecutive repeats folded into one)."""

    steps: list[str] = field(default_factory=list)
    functions: dict[str, set[str]] = field(default_factory=dict)  # room -> the functions called in it

    @property
    def rooms(self) -> list[str]:
        """The distinct modules, in the order first entered."""
        return list(dict.fromkeys(self.steps))

    def climbs(self) -> list[tuple[str, str]]:
        """The distinct moves (from, to) into a room the walk had been in before, in the order first made."""
        seen: set[str] = set()
        moves: dict[tuple[str, str], None] = {}
        for before, room in zip(["", *self.steps], self.steps):
            if room in seen:
                moves.setdefault((before, room))
            seen.add(room)
        return list(moves)

    @property
    def climbs_back(self) -> int:
        return len(self.climbs())

    @property
    def reentries(self) -> int:
        """Every step into a room entered before (loops counted in full)."""
        return len(self.steps) - len(self.rooms)

    def revisits(self) -> dict[str, int]:
        """Room -> climbs back into it (only rooms control came back to), most first."""
        counts: dict[str, int] = {}
        for _, room in self.climbs():
            counts[room] = counts.get(room, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def summary(self) -> dict[str, Any]:
        return {"rooms": len(self.rooms), "climbs_back": self.climbs_back, "reentries": self.reentries,
                "revisits": self.revisits(), "climbs": [" > ".join(m) for m in self.climbs()],
                "functions": {room: sorted(names) for room, names in self.functions.items()},
                "walk": self.steps}


def _room(module: str) -> str:
    """'kgkit.workflows.graph' -> 'workflows/graph' (the package's own __init__ is 'kgkit')."""
    return module.removeprefix(f"{OWNER}.").replace(".", "/") if module != OWNER else OWNER


def trace(call: Callable[[], Any], *, start: Callable[..., Any]) -> tuple[Walk, Any]:
    """Run `call()` and return the walk of `start`'s invocation inside it (see the module docs), with what `call`
    returned."""
    walk = Walk()
    target = getattr(start, "__wrapped__", start).__code__
    state = {"active": 0, "imports": 0}

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        code = frame.f_code
        if code is target:
            state["active"] += 1 if event == "call" else -1
            if event == "return":
                return
        if not state["active"]:
            return
        if code.co_name == "<module>":  # an import runs: nothing it does is the command's walk
            state["imports"] += 1 if event == "call" else -1
            return
        if event != "call" or state["imports"]:
            return
        module = frame.f_globals.get("__name__", "")
        if module != OWNER and not module.startswith(f"{OWNER}."):
            return
        room = _room(module)
        walk.functions.setdefault(room, set()).add(code.co_qualname)
        if not walk.steps or walk.steps[-1] != room:
            walk.steps.append(room)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return walk, result


def record_one_decision(workspace: Path) -> tuple[str, str]:
    """Record a person's merge of the best candidate the resolver proposes for the workspace's graph (no other
    decision is written); returns the pair merged."""
    from kgkit.stages.resolve import merge_candidates, person_decision
    from kgkit.workflows.graph import read_graph
    from kgkit.workflows.resolve import record

    found = sorted(merge_candidates(read_graph(workspace)), key=lambda c: (-c.score, c.source, c.target))
    if not found:
        raise SystemExit(f"{workspace}: the resolver proposes no merge candidate to decide")
    best = found[0]
    record(workspace, [person_decision("merge", (best.source, best.target), why="bench/walk.py",
                                       at="2026-01-01T00:00:00Z")])
    return best.source, best.target


def walk_command(args: Sequence[str]) -> tuple[Walk, Any]:
    """The walk of one `kgkit ARGS` command run in this process (typer's CliRunner); returns it and the result
    (exit_code, output)."""
    from typer.testing import CliRunner

    from kgkit.cli import _build
    from kgkit.cli import resolve as commands

    app = _build()
    start = {"apply": commands.apply_cmd, "undo": commands.undo_cmd}[args[0]]
    return trace(lambda: CliRunner().invoke(app, list(args)), start=start)


def walk_apply_undo(workspace: str | Path) -> dict[str, Walk]:
    """The walks of `kgkit apply` then `kgkit undo` on `workspace` (changed in place: give it a copy).
    RuntimeError when a command fails."""
    out = {}
    for name in ("apply", "undo"):
        walk, result = walk_command([name, "-w", str(workspace)])
        if result.exit_code != 0:
            raise RuntimeError(f"kgkit {name} exited {result.exit_code}: {result.output}")
        out[name] = walk
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=DEMO, help="workspace to copy (never changed)")
    parser.add_argument("--json", action="store_true", help="print the walks as JSON (the whole walk included)")
    parser.add_argument("--functions", action="store_true", help="list the functions called in each room")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "ws"
        shutil.copytree(options.workspace, copy)
        pair = record_one_decision(copy)
        walks = walk_apply_undo(copy)
    report = {"workspace": str(options.workspace), "decision": list(pair),
              **{name: walk.summary() for name, walk in walks.items()}}
    if options.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"workspace {options.workspace}; one decision: merge {pair[0]!r} into {pair[1]!r}")
    for name, walk in walks.items():
        print(f"\nkgkit {name}: {len(walk.rooms)} rooms, {walk.climbs_back} climbs back "
              f"({walk.reentries} re-entries, loops counted in full)")
        print("  rooms:   " + ", ".join(walk.rooms))
        print("  back in: " + (", ".join(f"{m} x{n}" for m, n in walk.revisits().items()) or "-"))
        print("  climbs:  " + (", ".join(" > ".join(m) for m in walk.climbs()) or "-"))
        if options.functions:
            for room in walk.rooms:
                print(f"  {room}: " + ", ".join(sorted(walk.functions[room])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
