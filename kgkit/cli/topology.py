"""`kgkit topology | query`: the graph's shape and an entity's neighbourhood, as text or versioned JSON.

    kgkit topology WS [--json]               communities, connections, bridges, isolated entities (paginated)
    kgkit query ENTITY --graph WS            an entity's neighbourhood (depth, type filters, paginated)

JSON output schemas are documented in docs/graph.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

__all__ = ["query_command", "topology_command"]


def topology_command(
    graph: Path = typer.Argument(..., help="A workspace, or a graph.json file."),
    limit: int = typer.Option(20, help="Rows per list (communities, connections, bridges, isolated)."),
    offset: int = typer.Option(0, help="Skip this many rows of each list."),
    seed: int = typer.Option(0, help="Seed, when the graph carries no communities and they must be found."),
    as_json: bool = typer.Option(False, "--json", help="Print the kgkit.topology/1 JSON."),
) -> None:
    """The graph's shape: counts, communities, community connections, bridges, isolated entities."""
    from kgkit.stages.topology import topology_report

    try:
        report = topology_report(o.read_graph_arg(graph), limit=limit, offset=offset, seed=seed)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report.to_json_dict(), indent=2, sort_keys=True, ensure_ascii=False))
        return
    c = report.counts
    typer.echo(f"{c.entities} entities, {c.relations} relations, {c.communities} communities, "
               f"{c.bridges} bridges, {c.isolated} isolated")
    for row in report.communities.items:
        typer.echo(f"  {row['community']:>6s} {row['size']:6d}  {plain(row['label'])}")
    for row in report.bridges.items[:10]:
        typer.echo(f"  bridge {plain(row['id'])} reaches {row['communities']} communities")


def query_command(
    entity: str = typer.Argument(..., help="Entity id (Person:ada lovelace) or name (matched after normalisation)."),
    graph: Path = typer.Option(..., "--graph", "-g", help="A workspace, or a graph.json file."),
    depth: int = typer.Option(1, help="Hops to walk (0-6)."),
    types: list[str] | None = typer.Option(None, "--type", "-t", help="Only entities of this type (repeatable)."),
    relation_types: list[str] | None = typer.Option(None, "--relation-type", "-r", help="Only relations of this type (repeatable)."),
    limit: int = typer.Option(50, help="Entities and relations per page."),
    offset: int = typer.Option(0, help="Skip this many entities and relations."),
    as_json: bool = typer.Option(False, "--json", help="Print the kgkit.neighbourhood/1 JSON."),
) -> None:
    """An entity's neighbourhood. Exit code 1 when no entity matches."""
    from kgkit.stages.topology import neighbourhood

    try:
        hood = neighbourhood(o.read_graph_arg(graph), entity, depth=depth, types=types or None,
                             relation_types=relation_types or None, limit=limit, offset=offset)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(hood.to_json_dict(), indent=2, sort_keys=True, ensure_ascii=False))
    elif hood.status == "not_found":
        typer.echo(f"no entity matches {plain(repr(entity))}", err=True)
    else:
        if hood.status == "ambiguous":
            typer.echo(plain(f"{entity!r} is ambiguous; narrow it with --type or an id: {', '.join(hood.matches)}"))
        typer.echo(f"{hood.total_entities} entities, {hood.total_relations} relations within {depth} hop(s)")
        for row in hood.entities.itertuples(index=False):
            typer.echo(f"  {row.hop}  {plain(row.id)}  ({plain(row.name)})")
        for row in hood.relations.itertuples(index=False):
            typer.echo(plain(f"  {row.hop}  {row.source} -[{row.type}]-> {row.target}  support {row.support}"))
    if hood.status == "not_found":
        raise typer.Exit(1)
