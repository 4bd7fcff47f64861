"""The kgkit MCP server (official `mcp` SDK, kgkit[mcp]): read-only tools over one workspace, and write tools
only when the server is started with them named (`allow`). The permission mode is fixed when the server is built:
it is stated in the server's instructions, and a write tool not allowed is absent from the tool list and refused
with a clear error if called anyway. Writes go through the workflows, which hold the Workspace lock, so the
server and a CLI writer never interleave.

>>> import tempfile
>>> from kgkit.testing.workspaces import sample_workspace
>>> server = build_server(sample_workspace(tempfile.mkdtemp()))
>>> "read-only" in server.instructions
True
"""

from __future__ import annotations

import os
from importlib import resources
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from kgkit.io.workspace import Workspace, WorkspaceError
from kgkit.mcp import queries as q
from kgkit.mcp.queries import MAX_HOPS, MAX_LIMIT, GraphReader, QueryError
from kgkit.workflows.graph import as_workspace

__all__ = ["READ_TOOLS", "WRITE_TOOLS", "agent_guide", "build_server", "parse_allow"]

READ_TOOLS = ("search", "entity", "neighbourhood", "path", "topology", "documents", "facts", "pending")
WRITE_TOOLS = ("add", "decide", "split", "apply")
GUIDE_URI = "kgkit://guide"

Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"Rows per page (1-{MAX_LIMIT}).")]
Offset = Annotated[int, Field(ge=0, description="Rows to skip: pass the previous answer's next_offset.")]
Names = Annotated[list[str] | None, Field(description="Any of these (empty: all).")]


def agent_guide() -> str:
    """The agent guide shipped with the package (kgkit/agent_guide.md): how to orient, what costs, what needs a
    person."""
    return resources.files("kgkit").joinpath("agent_guide.md").read_text(encoding="utf-8")


def parse_allow(text: str | None) -> frozenset[str]:
    """'add,decide' -> the write tools named (ValueError naming an unknown one).

    >>> sorted(parse_allow("apply, decide")), parse_allow(None)
    (['apply', 'decide'], frozenset())
    """
    names = frozenset(n.strip() for n in (text or "").split(",") if n.strip())
    unknown = sorted(names - set(WRITE_TOOLS))
    if unknown:
        raise ValueError(f"unknown write tool(s) {', '.join(unknown)}: --allow takes {', '.join(WRITE_TOOLS)}")
    return names


def _instructions(ws: Workspace, allow: frozenset[str]) -> str:
    mode = (f"read-write for {', '.join(sorted(allow))} only" if allow else "read-only")
    return (
        f"kgkit knowledge graph of the workspace {ws.root}. Permission mode: {mode}, fixed when the server was "
        "started; it cannot change while the server runs"
        + ("" if allow == set(WRITE_TOOLS) else
           f" (write tools not enabled: {', '.join(t for t in WRITE_TOOLS if t not in allow)}; a person enables "
           "them by restarting with `kgkit mcp --allow ...`)")
        + ". Orient with topology first, then neighbourhood of the entities that matter, then entity for the "
        "evidence (document, span, sentence); search finds entities, relations and passages by text. Every answer "
        "is JSON with a 'schema' or 'format' field, one page at a time: follow next_offset. Merge candidates in "
        f"pending wait for a person. The full guide is the resource {GUIDE_URI} and the prompt 'kgkit_guide'.")


class KgkitServer(MCPServer):
    """MCPServer that names the permission mode when a write tool it was not started with is called."""

    def __init__(self, *args: Any, allow: frozenset[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.allow = allow

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if name in WRITE_TOOLS and name not in self.allow:
            raise ToolError(f"'{name}' is a write tool and this server is read-only for it: it was started without "
                            f"--allow {name}, and the permission mode cannot change while it runs")
        return await super().call_tool(name, arguments, context)


def _answer(fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Run a query; its QueryError or a busy workspace becomes a tool error with the reason."""
    try:
        return fn(*args, **kwargs)
    except (QueryError, WorkspaceError, FileNotFoundError) as exc:
        raise ToolError(str(exc)) from None


def build_server(workspace: Workspace | str | os.PathLike[str], *, allow: frozenset[str] = frozenset(),
                 lock_timeout: float = 60.0) -> KgkitServer:
    """The MCP server for one workspace: the read tools, the write tools in `allow`, the guide as a resource
    and a prompt. Run it with `.run("stdio")` or `.run("streamable-http")`."""
    from importlib.metadata import version

    ws = as_workspace(workspace)
    reader = GraphReader(ws)
    server = KgkitServer("kgkit", version=version("kgkit"), instructions=_instructions(ws, allow), allow=allow,
                         log_level="WARNING")
    read = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=read)
    def search(query: Annotated[str, Field(min_length=1, description="Free text; no query syntax.")],
               kind: Annotated[list[Literal["entity", "relation", "chunk"]] | None, Field(description="Kinds of hit (empty: all).")] = None,
               type: Names = None, document: Names = None,
               as_of: Annotated[str | None, Field(description="Only relations believed at this ISO 8601 time.")] = None,
               channels: Annotated[list[Literal["keyword", "dense", "graph"]] | None, Field(description="Channels to run (empty: all).")] = None,
               mmr: Annotated[float | None, Field(ge=0.0, le=1.0, description="Diversify with MMR (lambda).")] = None,
               rollup: Annotated[Literal["document", "entity"] | None, Field(description="Also group the page's hits.")] = None,
               limit: Limit = 10, offset: Offset = 0) -> dict[str, Any]:
        """Hybrid search (keyword, dense, graph) over entities, relations and document passages, with
        provenance: the kgkit.search/1 JSON of `kgkit search --json`."""
        return _answer(q.search, ws, query, kind=list(kind or []), type=type, document=document, as_of=as_of,
                       limit=limit, offset=offset, channels=list(channels or []), mmr=mmr, rollup=rollup)

    @server.tool(annotations=read)
    def entity(entity: Annotated[str, Field(min_length=1, description="Entity id (Person:ada lovelace) or exact name.")],
               limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
        """One entity with its provenance (document, chunk, span, evidence sentence, extractor) and the
        relations touching it with their evidence (kgkit.entity/1)."""
        return _answer(q.entity, reader.graph(), entity, limit=limit, offset=offset)

    @server.tool(annotations=read)
    def neighbourhood(entity: Annotated[str, Field(min_length=1, description="Entity id or exact name.")],
                      depth: Annotated[int, Field(ge=0, le=MAX_HOPS, description="Hops to walk.")] = 1,
                      types: Names = None, relation_types: Names = None,
                      limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
        """Entities and relations within `depth` hops (kgkit.neighbourhood/1, as `kgkit query --json`)."""
        return _answer(q.hood, reader.graph(), entity, depth=depth, types=types, relation_types=relation_types,
                       limit=limit, offset=offset)

    @server.tool(annotations=read)
    def path(source: Annotated[str, Field(min_length=1, description="Entity id or exact name.")],
             target: Annotated[str, Field(min_length=1, description="Entity id or exact name.")],
             max_hops: Annotated[int, Field(ge=1, le=MAX_HOPS)] = MAX_HOPS,
             relation_types: Names = None) -> dict[str, Any]:
        """The shortest chain of relations joining two entities, with each relation's evidence (kgkit.path/1)."""
        return _answer(q.path, reader.graph(), source, target, max_hops=max_hops, relation_types=relation_types)

    @server.tool(annotations=read)
    def topology(limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
        """The graph's shape: counts, communities, connections between them, bridges, isolated entities
        (kgkit.topology/1, as `kgkit topology --json`). Start here."""
        return _answer(q.topology, reader.graph(), limit=limit, offset=offset)

    @server.tool(annotations=read)
    def documents(limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
        """The documents the graph was built from (kgkit.documents/1)."""
        return _answer(q.documents, reader.graph(), limit=limit, offset=offset)

    @server.tool(annotations=read)
    def facts(as_of: Annotated[str | None, Field(description="ISO 8601 graph time (default: now).")] = None,
              entity: Annotated[str | None, Field(description="Only relations touching this entity.")] = None,
              type: Names = None,
              include_expired: Annotated[bool, Field(description="Also relations retracted or superseded since.")] = False,
              limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
        """Relations as the graph believed them at a time, optionally with expired ones (kgkit.facts/1)."""
        return _answer(q.facts, reader.graph(), as_of=as_of, entity=entity, type=type,
                       include_expired=include_expired, limit=limit, offset=offset)

    @server.tool(annotations=read)
    def pending(limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
        """Merge candidates no decision covers yet: they wait for a person (kgkit.pending/1)."""
        return _answer(q.pending, ws, limit=limit, offset=offset)

    from kgkit.mcp.writes import register_writes

    register_writes(server, ws, allow=allow, lock_timeout=lock_timeout)

    @server.resource(GUIDE_URI, name="kgkit agent guide", mime_type="text/markdown")
    def guide_resource() -> str:
        """How to question a kgkit graph: orient, what costs money, what needs a person."""
        return agent_guide()

    @server.prompt(name="kgkit_guide")
    def guide_prompt() -> str:
        """The kgkit agent guide, to read before questioning the graph."""
        return agent_guide()

    return server

