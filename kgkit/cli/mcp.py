"""`kgkit mcp`: serve a workspace to agents over the Model Context Protocol (kgkit[mcp]).

    kgkit mcp -w WS                         stdio (an MCP client starts it), read-only
    kgkit mcp -w WS --http [--port 8765]    streamable HTTP on http://127.0.0.1:8765/mcp
    kgkit mcp -w WS --allow add,decide,apply   also these write tools (fixed for the server's life)
"""

from __future__ import annotations

from pathlib import Path

import typer

from kgkit.cli import options as o

__all__ = ["mcp_command"]


def mcp_command(
    workspace: Path = o.WORKSPACE,
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP instead of stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind with --http (default: this machine only)."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port with --http."),
    allow: str | None = typer.Option(None, "--allow", help="Write tools to enable, comma-separated: add, decide, "
                                     "apply. Without it the server is read-only; the mode cannot change while it runs."),
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Serve the workspace's graph, search index and decisions as MCP tools (read-only unless --allow)."""
    import sys

    try:
        from kgkit.mcp.server import build_server, parse_allow
    except ImportError as exc:  # the optional extra is missing
        o.fail(f"error: the MCP server needs kgkit[mcp] ({exc})")
    if not (workspace / "manifest.json").is_file():
        o.fail(f"error: {workspace} is not a kgkit workspace (run `kgkit run DOCS -o {workspace}` first)")
    try:
        allowed = parse_allow(allow)
    except ValueError as exc:
        o.fail(f"error: {exc}")
    ws = o.open_workspace(workspace)
    server = build_server(ws, allow=allowed, lock_timeout=lock_timeout)
    mode = f"write tools: {', '.join(sorted(allowed))}" if allowed else "read-only"
    if http:
        print(f"kgkit mcp: serving {ws.root} ({mode}) on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
        server.run("streamable-http", host=host, port=port)
    else:
        print(f"kgkit mcp: serving {ws.root} ({mode}) on stdio", file=sys.stderr, flush=True)
        server.run("stdio")
