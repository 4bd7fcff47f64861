"""The driver that writes a workspace's narrative (a composition of I/O and stages, like kgkit.workflows.pipeline).

`narrate_workspace(workspace)` reads WORKSPACE/graph.json (and WORKSPACE/communities.json when the graph
carries no communities and that file exists), writes WORKSPACE/narrative.md and WORKSPACE/narrative.json, and
caches community labels in WORKSPACE/cache. Offline (extractive) unless an `llm` client is given.

>>> import tempfile, pathlib, pandas as pd
>>> from kgkit import io
>>> from kgkit.core.graph import Graph, _rel
>>> ws = pathlib.Path(tempfile.mkdtemp())
>>> ents = pd.DataFrame({"id": ["a", "b"], "name": ["Ada", "Acme"], "type": "Thing", "aliases": [[]] * 2,
...     "mentions": 2, "documents": 1, "confidence": 1.0, "identity": "derived", "degree": 1})
>>> rels = pd.DataFrame([{**_rel("r1", None, None), "type": "WORKS_FOR", "evidence": "Ada joined Acme."}])
>>> io.save_graph(Graph.empty().replace(entities=ents, relations=rels), ws / "graph.json")
>>> sorted(narrate_workspace(ws))
['narrative', 'narrative_json']
>>> (ws / "narrative.md").read_text().startswith("# Narrative")
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kgkit import io


def narrate_workspace(
    workspace: str | os.PathLike[str], *, graph: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None, llm: Any = None, cache: Any = None, seed: int = 0,
    **options: Any,
) -> dict[str, str]:
    """Write the narrative of WORKSPACE/graph.json (or `graph`) to WORKSPACE/narrative.md (or `output`) and
    narrative.json beside it; returns {"narrative": md path, "narrative_json": json path}. `options` go to
    `narrate` (top_entities, chains, timeline, llm_communities, ...)."""
    from kgkit.io.cache import Cache
    from kgkit.stages.narrate.core import narrate

    workspace = Path(workspace)
    g = io.load_graph(Path(graph) if graph is not None else workspace / "graph.json")
    md = Path(output) if output is not None else workspace / "narrative.md"
    cache = cache if cache is not None else Cache(workspace / "cache")
    narrative = narrate(g, communities=_saved_communities(workspace, g), llm=llm, cache=cache, seed=seed,
                        **options)
    paths = {"narrative": str(md), "narrative_json": str(md.with_suffix(".json"))}
    io.atomic_write_text(paths["narrative"], narrative.to_markdown())
    io.write_json(paths["narrative_json"], narrative.to_json_dict(), indent=1)
    return paths


def _saved_communities(workspace: Path, graph: Any) -> Any:
    """communities.json of the workspace when the graph has no community column of its own (else None: the
    graph's own, or freshly detected, communities are used)."""
    path = workspace / "communities.json"
    column = graph.entities["community"]
    if (len(column) and column.notna().all()) or not path.is_file():
        return None
    import pandas as pd

    from kgkit.stages.communities import Communities, summarise

    data = io.read_json(path)
    ids = set(graph.entities["id"])
    membership = pd.DataFrame(sorted((e, c) for e, c in (data.get("membership") or {}).items() if e in ids),
                              columns=["entity", "community"])
    if set(membership["entity"]) != ids:
        return None  # stale: written for another graph
    return Communities(membership, summarise(graph, membership), dict(data.get("params") or {}))
