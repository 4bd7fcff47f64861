"""kgkit: documents -> a knowledge graph you can see, question, correct and reproduce.

The everyday API (import is light: pandas, spaCy, torch and litellm load only when a step needs them):

>>> import kgkit, pathlib, tempfile
>>> from kgkit.testing.workspaces import CapitalisedNames, SAMPLE_DOCUMENTS
>>> root = tempfile.mkdtemp()
>>> for name, text in SAMPLE_DOCUMENTS.items():
...     _ = (pathlib.Path(root) / name).write_text(text)
>>> result = kgkit.run(root + "/ws", root, extractor=CapitalisedNames())   # offline spaCy extractor by default
>>> result.outcome, kgkit.Workspace(root + "/ws").manifest().generation
('complete', 1)
>>> kgkit.read_graph(root + "/ws").entity("Person:ada lovelace")["name"]
'Ada Lovelace'
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Workspace": "kgkit.io.workspace", "WorkspaceBusy": "kgkit.io.workspace", "WorkspaceError": "kgkit.io.workspace",
    "Cache": "kgkit.io.cache", "Graph": "kgkit.core.graph", "load_domain": "kgkit.io.files",
    "run": "kgkit.workflows.run", "add": "kgkit.workflows.add", "extract": "kgkit.workflows.run", "build": "kgkit.workflows.graph",
    "communities": "kgkit.workflows.graph", "view": "kgkit.workflows.graph", "read_graph": "kgkit.workflows.graph",
    "import_graph": "kgkit.workflows.graph", "import_siftkg": "kgkit.workflows.graph",
    "index": "kgkit.workflows.index", "search": "kgkit.workflows.index",
    "resolve": "kgkit.workflows.resolve", "record": "kgkit.workflows.resolve", "apply": "kgkit.workflows.resolve",
    "undo": "kgkit.workflows.resolve", "narrate": "kgkit.workflows.narrate",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Load the module behind an everyday name on first use (`import kgkit` stays fast)."""
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'kgkit' has no attribute {name!r}")
