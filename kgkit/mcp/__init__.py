"""kgkit's MCP server (kgkit[mcp], the official `mcp` SDK): `kgkit mcp -w WS` serves one workspace to agents over
stdio or streamable HTTP. Read-only by default; write tools only when named at launch (`--allow add,decide,apply`).

- `kgkit.mcp.queries`: the read questions as plain functions returning versioned JSON (no MCP needed).
- `kgkit.mcp.server`: `build_server(ws, allow=...)`, the tools, the guide as a resource and a prompt.
- `kgkit.mcp.writes`: the write tools (add, decide, apply) over the workflows, under the Workspace lock.
"""

__all__: list[str] = []
