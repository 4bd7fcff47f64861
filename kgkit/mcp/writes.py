"""The MCP server's write tools, registered only when the server was started with them named (`--allow`):
add (documents into the corpus, incremental), decide (record a merge or keep-apart decision), split (record that
some documents' mentions of an entity are another thing), apply (apply the accepted decisions). Each calls the workflow the CLI calls, which holds the Workspace lock for the write: a
busy workspace is a tool error naming the holder, never a half-written file.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from kgkit.core.domain import DomainError
from kgkit.io.workspace import Workspace, WorkspaceError

__all__ = ["register_writes"]

EntityId = Annotated[str, Field(min_length=1, description="Entity id, e.g. Person:ada lovelace.")]


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


_ONE_WRITER = threading.Lock()  # tools run in threads and the Workspace lock is re-entrant: one write at a time


def _write(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a write workflow (one at a time in this process; the workflow holds the Workspace lock against other
    processes); a busy workspace or bad input becomes a tool error with the reason."""
    try:
        with _ONE_WRITER:
            return fn(*args, **kwargs)
    except (WorkspaceError, DomainError, FileNotFoundError, ValueError) as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from None


def register_writes(server: MCPServer, ws: Workspace, *, allow: frozenset[str], lock_timeout: float) -> None:
    """Register the write tools named in `allow` on `server` (the others stay absent)."""
    write = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    if "add" in allow:
        @server.tool(annotations=write)
        def add(paths: Annotated[list[str], Field(description="Files to add to the corpus (copied in when outside "
                                                               "it) or to re-read after a change.")] = [],  # noqa: B006
                remove: Annotated[list[str], Field(description="Corpus files to retract (moved into the workspace's "
                                                                "removed/ folder): their relations are expired, not "
                                                                "deleted.")] = []) -> dict[str, Any]:  # noqa: B006
            """Add or update documents, or retract them, incrementally: only new or changed text is extracted
            (offline extractor: no cost; an LLM workspace is refused here), then graph, communities, search
            index and view are brought up to date; the graph equals a full rebuild of the corpus."""
            from kgkit.workflows.add import add as add_workflow

            if not paths and not remove:
                raise ToolError("nothing to do: give paths to add or remove")
            done = _write(add_workflow, ws, paths, remove=remove, lock_timeout=lock_timeout, at=_now())
            if done.outcome == "rejected":  # worse than the current graph: nothing replaced, and the agent is told
                raise ToolError("rejected: " + "; ".join(done.notes[-1:]))
            return done.summary()

    if "decide" in allow:
        @server.tool(annotations=write)
        def decide(kind: Annotated[Literal["merge", "keep_apart"], Field(description="merge: source is merged into target; "
                                                                        "keep_apart: never merge them.")],
                   source: EntityId, target: EntityId,
                   why: Annotated[str, Field(min_length=1, description="The reason, shown to the person who reviews it.")],
                   who: Annotated[str, Field(description="Who decides (recorded with the decision).")] = "mcp agent",
                   ) -> dict[str, Any]:
            """Record a merge or keep-apart decision in decisions.yaml (it replaces any earlier decision on the
            pair), marked as an agent's (decided_by "llm": a person reviewing sees it, and overrides it); `apply`
            makes it take effect."""
            from kgkit.stages.resolve import Decision
            from kgkit.workflows.graph import read_graph
            from kgkit.workflows.resolve import decisions, record

            known = set(read_graph(ws).entities["id"])
            missing = [e for e in (source, target) if e not in known]
            if missing:
                raise ToolError(f"no entity with id {', '.join(map(repr, missing))}: use the ids that entity or "
                                "pending return")
            # an agent decides: recorded as decided_by "llm", so `kgkit review` shows it and a person's decision wins
            made = _write(Decision, kind=kind, subjects=(source, target), decided_by="llm", who=who, at=_now(), why=why)
            mine = [d for d in decisions(ws) if d.pair_key == made.pair_key and d.decided_by == "person"]
            if mine:
                raise ToolError(f"a person already decided {source} / {target} ({mine[0].kind}: {mine[0].why}); "
                                "only a person changes that (kgkit review)")
            all_made = _write(record, ws, [made], lock_timeout=lock_timeout)
            return {"schema": "kgkit.decision/1", "decision": made.model_dump(mode="json"),
                    "decisions": len(all_made), "generation": ws.manifest().generation}

    if "split" in allow:
        @server.tool(annotations=write)
        def split(entity: EntityId,
                  documents: Annotated[list[str], Field(min_length=1, description="Documents (paths as `documents` "
                                                        "lists them, or ids) whose mentions of the entity are another thing.")],
                  label: Annotated[str, Field(min_length=1, description="A few words naming the other thing: the new "
                                              "entity's id is <entity>~<label>.")],
                  why: Annotated[str, Field(min_length=1, description="The reason, shown to the person who reviews it.")],
                  who: Annotated[str, Field(description="Who decides (recorded with the decision).")] = "mcp agent",
                  ) -> dict[str, Any]:
            """Record a split (same name, different things): the entity's mentions in these documents become a new
            entity, marked as an agent's decision (a person's decision on it wins); `apply` rebuilds the graph with
            it, and `kgkit undo` takes that back."""
            from kgkit.stages.resolve.split import split_decision
            from kgkit.workflows.graph import read_graph
            from kgkit.workflows.resolve import record
            from kgkit.workflows.split import document_ids

            graph = read_graph(ws)
            if entity not in set(graph.entities["id"]):
                raise ToolError(f"no entity with id {entity!r}: use the ids that entity or search return")
            docs = _write(document_ids, graph, documents)
            made = split_decision(entity, documents=docs, label=label, why=why, who=who, at=_now())
            made = made.model_copy(update={"decided_by": "llm"})  # an agent's: `kgkit review` shows it, a person wins
            all_made = _write(record, ws, [made], lock_timeout=lock_timeout)
            return {"schema": "kgkit.decision/1", "decision": made.model_dump(mode="json"),
                    "decisions": len(all_made), "generation": ws.manifest().generation}

    if "apply" in allow:
        @server.tool(annotations=write)
        def apply() -> dict[str, Any]:
            """Apply the accepted decisions to the graph (with a journal that `kgkit undo` reverses)."""
            from kgkit.workflows.resolve import apply as apply_workflow

            done = _write(apply_workflow, ws, lock_timeout=lock_timeout)
            return {"schema": "kgkit.apply/1", "changed": done.changed, "applied": done.applied,
                    "merged_away": done.merged_away, "journal": done.journal, "undone": done.undone,
                    "generation": done.generation, "stale": done.stale}
