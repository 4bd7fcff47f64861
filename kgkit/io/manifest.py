"""The manifest of a workspace (what its current generation is made of), the names kgkit keeps for itself
in a workspace, and the error a workspace raises.

Below both `kgkit.io.generation` (which writes a manifest as the last step of a commit) and
`kgkit.io.workspace` (which reads it); `kgkit.io.workspace` re-exports every name here.

>>> m = Manifest(generation=2, step="build", artefacts={"graph.json": {"sha256": "ab", "bytes": 2, "generation": 2}})
>>> Manifest.from_json_dict(m.to_json_dict()) == m
True
>>> Manifest.from_json_dict({"generation": 1})
Traceback (most recent call last):
...
kgkit.io.manifest.WorkspaceError: manifest.json: not a kgkit manifest (want schema 'kgkit.manifest/1')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CACHE_DIR", "INDEX_DIR", "MANIFEST", "MANIFEST_SCHEMA", "STATE_DIR", "Manifest", "WorkspaceError"]

# names in a workspace that are not artefacts of a generation (relative to the workspace root)
MANIFEST = "manifest.json"
CACHE_DIR = "cache"
INDEX_DIR = "index"
STATE_DIR = ".kgkit"

MANIFEST_SCHEMA = "kgkit.manifest/1"


class WorkspaceError(RuntimeError):
    """A workspace that cannot be used as asked (not a folder, a damaged manifest, a foreign file)."""


@dataclass(frozen=True)
class Manifest:
    """What the current generation is made of: its number, the step that wrote it, every artefact's sha256,
    the run configuration (corpus, domain, extractor, chunk sizes, model) and the artefacts that are stale."""

    generation: int = 0
    step: str = ""
    artefacts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)
    stale: Mapping[str, str] = field(default_factory=dict)

    def to_json_dict(self) -> dict[str, Any]:
        return {"schema": MANIFEST_SCHEMA, "generation": self.generation, "step": self.step,
                "artefacts": dict(self.artefacts), "config": dict(self.config), "stale": dict(self.stale)}

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any], *, source: str = MANIFEST) -> Manifest:
        if data.get("schema") != MANIFEST_SCHEMA:
            raise WorkspaceError(f"{source}: not a kgkit manifest (want schema {MANIFEST_SCHEMA!r})")
        return cls(generation=int(data["generation"]), step=str(data.get("step", "")),
                   artefacts=dict(data.get("artefacts") or {}), config=dict(data.get("config") or {}),
                   stale=dict(data.get("stale") or {}))
