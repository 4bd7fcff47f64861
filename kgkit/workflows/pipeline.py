"""Pipelines declared as data: named steps, each with the inputs it reads and the outputs it gives, run in
order over one table of values (as GraphRAG's workflow lists and neo4j-graphrag's component connections), and
the one settings record they share. `run` is `RUN_STEPS` executed, then committed; a step's wall time goes to
`timings` under its name. `Settings`: the run's settings, defaults in one place: what `run` and `extract`
take, what the manifest keeps (its `config`), and what `add`, `index`, `apply`, `communities` and `view` read
back, so no step asks again and no module repeats a default.

>>> steps = (Step("double", lambda x: (2 * x,), inputs=("x",), outputs=("y",)),
...          Step("add", lambda x, y: (x + y,), inputs=("x", "y"), outputs=("z",)))
>>> timings = {}
>>> execute(steps, {"x": 2}, timings=timings)["z"], sorted(timings)
(6, ['add', 'double'])
>>> execute(steps[1:], {"x": 2})
Traceback (most recent call last):
ValueError: step add needs y, which no earlier step gives
>>> s = Settings(corpus="/data/docs", seed=3)
>>> s.max_chars, s.community_method, s.domain_name
(2000, 'louvain', 'general')
>>> Settings.from_config(s.manifest_config()) == s
True
>>> Settings.from_config({"seed": 1, "auto_accept": 0.9}).seed     # other steps' keys are ignored
1
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from kgkit.core.constants import DEFAULT_MAX_BYTES, MAX_CHUNK_CHARS, OVERLAP_CHARS, VIEW_NODES
from kgkit.io.workspace import Workspace

__all__ = ["EXTRACTION_FIELDS", "Settings", "Step", "execute"]

EXTRACTION_FIELDS = ("corpus", "domain", "domain_source", "extractor", "model", "max_bytes", "max_chars",
                     "overlap_chars")
"""The settings an extraction alone sets (`extract`); a run sets every field."""


class Settings(BaseModel):
    """The settings of a workspace's run: corpus folder, domain (id and where it came from), extractor id and
    model, file size cap, chunk sizes, graph time, community seed and method, view size."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    corpus: str | None = None  # absolute path of the corpus folder
    domain: str | None = None  # the domain's content id
    domain_source: str | None = None  # a bundled domain's name or a YAML path (None: "general")
    extractor: str | None = None  # the extractor's id
    model: str | None = None  # the LLM model, when an LLM extracted
    max_bytes: int = DEFAULT_MAX_BYTES
    max_chars: int = MAX_CHUNK_CHARS
    overlap_chars: int = OVERLAP_CHARS
    learned_at: str | None = None
    seed: int = 0
    community_method: Literal["louvain", "leiden"] = "louvain"
    view_nodes: int = VIEW_NODES

    @property
    def domain_name(self) -> str:
        """The domain to load: its source, "general" when none was recorded."""
        return self.domain_source or "general"

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings a manifest's `config` holds (missing ones at their defaults)."""
        fields = cls.model_fields
        return cls.model_validate({k: v for k, v in config.items()
                                   if k in fields and (v is not None or fields[k].default is None)})

    @classmethod
    def of(cls, ws: Workspace) -> Settings:
        """The workspace's current settings (from its manifest)."""
        return cls.from_config(ws.manifest().config)

    def manifest_config(self, fields: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The settings as the manifest keeps them (`fields`: only these)."""
        data = self.model_dump()
        return {k: data[k] for k in (fields or tuple(data))}


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
