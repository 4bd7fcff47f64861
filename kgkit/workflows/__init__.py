"""Named workflows over a Workspace: the one way the CLI, the notebooks, scripts and agents run a step.

Each takes the workspace first (a Workspace or its folder), holds its writer lock, reads what it needs
through it and commits its outputs as one generation.

- `run(ws, corpus)`: extract + build + communities + view (graph.json, communities.json, extractions.jsonl,
  run.json, graph.html); `extract`, `build`, `communities`, `view` one at a time; `import_graph`,
  `import_siftkg` for graphs made elsewhere.
- `index(ws)`, `search(ws, query)`: the search index (entities, relations, chunks) and queries on it.
- `resolve(ws, at=...)`, `record(ws, decisions)`, `apply(ws)`, `undo(ws)`: entity resolution.
- `narrate(ws)`: narrative.md + narrative.json.
"""

import sys
from importlib import import_module
from types import ModuleType
from typing import Any

_EXPORTS = {
    "ExtractResult": "run", "RunResult": "run", "extract": "run", "run": "run",
    "as_workspace": "graph", "build": "graph", "communities": "graph", "import_graph": "graph",
    "import_siftkg": "graph", "read_graph": "graph", "view": "graph",
    "index": "index", "search": "index", "narrate": "narrate",
    "apply": "resolve", "record": "resolve", "resolve": "resolve", "undo": "resolve",
}
__all__ = sorted(_EXPORTS)


class _Workflows(ModuleType):
    """This package: each name of `__all__` is loaded from its workflow module on first use, so importing one
    workflow (`kgkit.workflows.add`, a CLI command) does not import all the others (resolution, narration ...).
    A name is the function even where a submodule has the same name (`run`, `index`, `narrate`, `resolve`)."""

    def __getattribute__(self, name: str) -> Any:
        if name in _EXPORTS:
            return getattr(import_module(f"kgkit.workflows.{_EXPORTS[name]}"), name)
        return super().__getattribute__(name)


sys.modules[__name__].__class__ = _Workflows
