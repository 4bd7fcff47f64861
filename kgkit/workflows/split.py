"""Split an entity over a Workspace: the proposals (documents whose contexts share nothing) and a person's split
or withdrawal, recorded in decisions.yaml; `kgkit apply` (kgkit.workflows.resolve.apply) then rebuilds the
graph with it, and `kgkit undo` takes it back exactly.

>>> import tempfile
>>> from kgkit.testing.workspaces import paris_workspace
>>> ws = paris_workspace(tempfile.mkdtemp())
>>> [(p.name, p.groups) for p in proposals(ws)]
[('Paris', [['fr1.txt', 'fr2.txt'], ['tx1.txt']])]
>>> made = split(ws, "Paris", documents=["tx1.txt"], label="Texas", why="Paris, Texas", at="2026-01-01T00:00:00Z")
>>> made.subjects
('Location:paris', 'Location:paris~texas')
>>> from kgkit.workflows.resolve import apply, undo
>>> sorted(apply(ws).graph.entities.query("name == 'Paris'")["id"])
['Location:paris', 'Location:paris~texas']
>>> len(undo(ws).graph.entities.query("name == 'Paris'"))
1
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kgkit.core.decisions import Decision
from kgkit.core.graph import Graph
from kgkit.io.decisions import read_decisions
from kgkit.io.workspace import Workspace, WorkspaceError
from kgkit.stages.resolve.split import SplitCandidate, split_candidates, split_decision
from kgkit.workflows.graph import as_workspace, read_graph
from kgkit.workflows.resolve import record

__all__ = ["document_ids", "entity_of", "proposals", "split", "withdraw_split"]


def entity_of(graph: Graph, entity: str) -> str:
    """The id of `entity`, given as an id or as a name (any case); WorkspaceError when it names none or several."""
    ents = graph.entities
    if entity in set(ents["id"]):
        return entity
    hits = sorted(ents.loc[ents["name"].str.casefold() == entity.casefold(), "id"])
    if len(hits) != 1:
        found = f"several: {', '.join(hits)} (give the id)" if hits else "none"
        raise WorkspaceError(f"{entity!r} names {found}")
    return hits[0]


def document_ids(graph: Graph, documents: Sequence[str]) -> list[str]:
    """Document ids for documents named by path (as the graph lists them) or id; WorkspaceError for a stranger."""
    docs = graph.documents
    by_path = dict(zip(docs["path"], docs["id"]))
    ids = set(docs["id"])
    out = []
    for d in documents:
        if d not in ids and d not in by_path:
            raise WorkspaceError(f"{d!r} is not a document of this graph (give its path as listed, or its id)")
        out.append(d if d in ids else by_path[d])
    return out


def proposals(workspace: Workspace | str | os.PathLike[str], *, min_context: int = 3) -> list[SplitCandidate]:
    """Proposed splits of the workspace's graph, documents named by their paths (kgkit.stages.resolve.split)."""
    graph = read_graph(as_workspace(workspace))
    paths = dict(zip(graph.documents["id"], graph.documents["path"]))
    return [c.model_copy(update={"groups": [[paths.get(d, d) for d in g] for g in c.groups]})
            for c in split_candidates(graph, min_context=min_context)]


def split(workspace: Workspace | str | os.PathLike[str], entity: str, *, documents: Sequence[str] = (),
          chunks: Sequence[str] = (), label: str | None = None, why: str = "", who: str | None = None,
          at: str | None = None, lock_timeout: float = 60.0) -> Decision:
    """Record a person's split: the mentions of `entity` (id or name) in `documents` (paths or ids) or `chunks`
    become a new entity; `kgkit apply` makes it."""
    ws = as_workspace(workspace)
    graph = read_graph(ws)
    made = split_decision(entity_of(graph, entity), documents=document_ids(graph, documents), chunks=chunks,
                          label=label, why=why, who=who, at=at)
    record(ws, [made], lock_timeout=lock_timeout)
    return made


def withdraw_split(workspace: Workspace | str | os.PathLike[str], entity: str, *, at: str | None = None,
                   who: str | None = None, lock_timeout: float = 60.0) -> list[Decision]:
    """Withdraw every accepted split of `entity` (an id, the original's or the split-off one's): recorded as the
    same decisions with verdict "reject"; `kgkit apply` joins the mentions again."""
    ws = as_workspace(workspace)
    splits = [d for d in read_decisions(ws) if d.kind == "split" and d.verdict == "accept"]
    if not any(entity in d.subjects for d in splits):
        entity = entity_of(read_graph(ws), entity)
    mine = [d for d in splits if entity in d.subjects]
    if not mine:
        raise WorkspaceError(f"no accepted split of {entity!r} in decisions.yaml")
    gone = [d.model_copy(update={"verdict": "reject", "decided_by": "person", "at": at, "who": who}) for d in mine]
    record(ws, gone, lock_timeout=lock_timeout)
    return gone
