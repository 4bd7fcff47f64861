"""The narrate workflow: the workspace's graph -> narrative.md + narrative.json (one generation), offline
(extractive) unless an `llm` client is given; community labels are cached in the workspace cache.

>>> import tempfile
>>> from kgkit.testing.workspaces import sample_workspace
>>> ws = sample_workspace(tempfile.mkdtemp())
>>> told = narrate(ws)
>>> ws.read_text("narrative.md").startswith("# Narrative"), sorted(told.paths)
(True, ['narrative', 'narrative_json'])
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgkit import io
from kgkit.core.graph import Graph
from kgkit.io.cache import Cache
from kgkit.io.workspace import COMMUNITIES, NARRATIVE, NARRATIVE_JSON, Workspace
from kgkit.stages.communities import Communities, communities_from_json
from kgkit.stages.narrate import Narrative
from kgkit.stages.narrate import narrate as narrate_stage
from kgkit.workflows.graph import as_workspace, read_graph

__all__ = ["Narrated", "narrate"]


@dataclass
class Narrated:
    """The narrative and where it was written ({"narrative": md path, "narrative_json": json path})."""

    narrative: Narrative
    paths: dict[str, str]


def narrate(
    workspace: Workspace | str | os.PathLike[str], *, graph: Graph | None = None,
    output: str | os.PathLike[str] | None = None, llm: Any = None, cache: Any = None, seed: int = 0,
    lock_timeout: float = 60.0, **options: Any,
) -> Narrated:
    """Write the narrative of the workspace's graph (or `graph`) as narrative.md and narrative.json in the
    workspace, or to `output` (Markdown) with the JSON beside it. `options` go to `kgkit.stages.narrate.narrate`
    (top_entities, chains, timeline, llm_communities, ...)."""
    ws = as_workspace(workspace)
    g = graph if graph is not None else read_graph(ws)
    cache = cache if cache is not None else Cache(ws.cache_dir)
    told = narrate_stage(g, communities=_saved_communities(ws, g), llm=llm, cache=cache, seed=seed, **options)
    markdown = told.to_markdown()
    data = json.dumps(told.to_json_dict(), sort_keys=True, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
    if output is not None and Path(output).resolve() != ws.path(NARRATIVE).resolve():
        md = Path(output)
        io.atomic_write_text(md, markdown)
        io.atomic_write_text(md.with_suffix(".json"), data)
        return Narrated(told, {"narrative": str(md), "narrative_json": str(md.with_suffix(".json"))})
    with ws.writer(lock_timeout=lock_timeout, step="narrate"):
        gen = ws.begin("narrate")
        gen.write_text(NARRATIVE, markdown)
        gen.write_text(NARRATIVE_JSON, data)
        gen.commit()
    return Narrated(told, {"narrative": str(ws.path(NARRATIVE)), "narrative_json": str(ws.path(NARRATIVE_JSON))})


def _saved_communities(ws: Workspace, graph: Graph) -> Communities | None:
    """communities.json of the workspace when the graph has no community column of its own (else None: the
    graph's own, or freshly detected, communities are used); None too when it was written for another graph."""
    column = graph.entities["community"]
    if (len(column) and column.notna().all()) or not ws.exists(COMMUNITIES):
        return None
    return communities_from_json(graph, ws.read_json(COMMUNITIES))
