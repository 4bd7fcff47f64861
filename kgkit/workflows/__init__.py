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

from kgkit.workflows.graph import as_workspace as as_workspace
from kgkit.workflows.graph import (
    build,
    communities,
    import_graph,
    import_siftkg,
    read_graph,
    view,
)
from kgkit.workflows.index import index, search
from kgkit.workflows.narrate import narrate
from kgkit.workflows.resolve import apply, record, resolve, undo
from kgkit.workflows.run import ExtractResult, RunResult, extract, run

__all__ = ["ExtractResult", "RunResult", "apply", "as_workspace", "build", "communities", "extract", "import_graph",
           "import_siftkg", "index", "narrate", "read_graph", "record", "resolve", "run", "search", "undo", "view"]
