"""`kgkit push | pull`: a workspace's graph into a graph database, and back into a workspace.

    kgkit push WS falkordb://127.0.0.1:6379[/GRAPH]     idempotent: the database then holds exactly this graph
    kgkit push WS neo4j://HOST:7687                     Neo4j (KGKIT_NEO4J_USER / KGKIT_NEO4J_PASSWORD)
    kgkit pull falkordb://127.0.0.1:6379 -o WS          the graph back: graph.json equal to the one pushed

Exit codes: 0 done, 1 the database refused or holds no (or an incomplete) kgkit graph, 2 usage error
(a URL that is not a graph database's, no workspace).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

__all__ = ["pull_command", "push_command"]

URL = typer.Argument(..., help="falkordb://HOST:PORT[/GRAPH] or neo4j://HOST:7687[/DATABASE] (also bolt://).")
GRAPH_NAME = typer.Option(None, "--graph", help="Graph (FalkorDB) or database (Neo4j) name, instead of the URL's path.")


def _check_url(url: str) -> None:
    from kgkit.io.graphdb import parse_url

    try:
        parse_url(url)
    except ValueError as exc:
        o.fail(str(exc))


def push_command(
    workspace: Path = typer.Argument(..., help="The workspace whose graph to push."),
    url: str = URL,
    graph: str | None = GRAPH_NAME,
    batch: int = typer.Option(2000, "--batch", min=1, help="Rows per UNWIND statement."),
    as_json: bool = o.JSON,
) -> None:
    """Push the workspace's graph: batched UNWIND + MERGE, unique ids first, provenance and the bi-temporal
    fields kept; pushing twice leaves the database as pushing once."""
    from kgkit.io.graphdb import GraphDBError
    from kgkit.workflows.graphdb import push

    _check_url(url)
    ws = o.open_workspace(workspace)
    with o.workspace_errors():
        try:
            report = push(ws, url, graph=graph, batch=batch)
        except FileNotFoundError:
            o.fail(f"no graph in {workspace} (run `kgkit run DOCS -o {workspace}` first)")
        except GraphDBError as exc:
            typer.echo(plain(str(exc)), err=True)
            raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(dict(report), indent=2, sort_keys=True))
    else:
        typer.echo(f"pushed {report['entities']} entities, {report['relations']} relations, {report['mentions']} "
                   f"mentions, {report['documents']} documents; removed {report['removed']} left by an earlier push")


def pull_command(
    url: str = URL,
    output: Path = o.OUTPUT,
    graph: str | None = GRAPH_NAME,
    no_view: bool = o.NO_VIEW,
    view_nodes: int = o.VIEW_NODES,
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Pull a pushed graph into a workspace (graph.json as pushed, communities.json, graph.html)."""
    from kgkit.io.graphdb import GraphDBError
    from kgkit.workflows.graphdb import pull

    _check_url(url)
    ws = o.open_workspace(output, create=True)
    with o.workspace_errors():
        try:
            pulled, _ = pull(url, ws, graph=graph, write_view=not no_view, max_view_nodes=view_nodes,
                             lock_timeout=lock_timeout)
        except GraphDBError as exc:
            typer.echo(plain(str(exc)), err=True)
            raise typer.Exit(1) from None
    s = pulled.summary()
    typer.echo(str(ws.path("graph.json")))
    typer.echo(f"{s['entities']} entities, {s['relations']} relations, {s['documents']} documents")
