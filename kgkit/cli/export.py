"""`kgkit export | import-siftkg`: a graph to another tool's format; a sift-kg project into a workspace.

    kgkit export FORMAT --graph GRAPH.json -o DEST      one of: json cytoscape graphml gexf csv parquet sqlite
                                                        cypher neo4j-csv turtle json-ld
    kgkit import-siftkg SIFT_OUTPUT_DIR -o WORKSPACE    sift-kg graph_data.json (+ extractions/) -> graph.json

Heavy imports (pandas, rdflib, pyarrow) stay inside the commands so `kgkit --help` starts fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

EXPORT_FORMATS = ("json", "cytoscape", "graphml", "gexf", "csv", "parquet", "sqlite", "cypher", "neo4j-csv",
                  "turtle", "json-ld")


def export(
    fmt: str = typer.Argument(..., metavar="FORMAT", help=f"One of: {', '.join(EXPORT_FORMATS)}."),
    graph: Path = typer.Option(..., "--graph", "-g", help="A workspace, or a graph.json file."),
    output: Path = typer.Option(..., "-o", "--output", help="File (or folder, for csv, parquet, neo4j-csv) to write."),
) -> None:
    """Export a saved graph to another tool's format (Gephi, Neo4j, Cytoscape, rdflib, SQL, pandas)."""
    if fmt not in EXPORT_FORMATS:
        typer.echo(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}", err=True)
        raise typer.Exit(2)
    from kgkit.io.export import export_graph

    for path in export_graph(o.read_graph_arg(graph), fmt, output):
        typer.echo(str(path))


def import_siftkg(
    source: Path = typer.Argument(..., help="A sift-kg output folder (graph_data.json and/or extractions/)."),
    output: Path = o.OUTPUT,
    from_extractions: bool = typer.Option(
        False, "--from-extractions", help="Rebuild from extractions/*.json with kgkit instead of reading graph_data.json."),
    domain: str = o.DOMAIN,
    no_view: bool = o.NO_VIEW,
    view_nodes: int = o.VIEW_NODES,
) -> None:
    """Move a sift-kg 0.9.0 project over: its graph (or its extractions, rebuilt by kgkit) -> graph.json."""
    from kgkit.workflows.graph import import_siftkg as import_workflow

    ws = o.open_workspace(output, create=True)
    with o.workspace_errors():
        done = import_workflow(ws, source, from_extractions=from_extractions, domain=domain, write_view=not no_view,
                               max_view_nodes=view_nodes)
    graph, errors = done.graph, done.errors
    typer.echo(str(ws.path("graph.json")))
    if not no_view:
        typer.echo(str(ws.path("graph.html")))
    s = graph.summary()
    typer.echo(f"{s['entities']} entities, {s['relations']} relations, {s['documents']} documents"
               + (f", {len(errors)} failed extractions" if errors else ""))
    for err in errors[:20]:
        typer.echo(f"failed extraction: {plain(err)}", err=True)
