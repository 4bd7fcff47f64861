"""Pipelines declared as data: named steps, each with the inputs it reads and the outputs it gives, run in
order over one table of values (as GraphRAG's workflow lists and neo4j-graphrag's component connections).
`run` is `RUN_STEPS` executed, then committed; a step's wall time goes to `timings` under its name.

>>> steps = (Step("double", lambda x: (2 * x,), inputs=("x",), outputs=("y",)),
...          Step("add", lambda x, y: (x + y,), inputs=("x", "y"), outputs=("z",)))
>>> timings = {}
>>> execute(steps, {"x": 2}, timings=timings)["z"], sorted(timings)
(6, ['add', 'double'])
>>> execute(steps[1:], {"x": 2})
Traceback (most recent call last):
ValueError: step add needs y, which no earlier step gives
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Step", "execute"]


@dataclass(frozen=True)
class Step:
    """A named step: `run(**inputs)` returns its outputs, a tuple in the order of `outputs`."""

    name: str
    run: Callable[..., tuple[Any, ...]]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def execute(steps: Sequence[Step], values: Mapping[str, Any], *,
            timings: dict[str, float] | None = None) -> dict[str, Any]:
    """Run `steps` in order over `values` (the pipeline's inputs); every value afterwards, outputs included
    (a step may give a value again: the later one wins). ValueError when a step's input is missing."""
    table = dict(values)
    for step in steps:
        missing = [name for name in step.inputs if name not in table]
        if missing:
            raise ValueError(f"step {step.name} needs {', '.join(missing)}, which no earlier step gives")
        started = time.perf_counter()
        out = step.run(**{name: table[name] for name in step.inputs})
        if len(out) != len(step.outputs):
            raise ValueError(f"step {step.name} gave {len(out)} values for {len(step.outputs)} outputs")
        table.update(zip(step.outputs, out))
        if timings is not None:
            timings[step.name] = time.perf_counter() - started
    return table
