"""Graph commands, registered on `kgkit.cli.app` when kgkit.cli imports this module.

    kgkit build EXTRACTIONS -o WORKSPACE     extractions -> graph.json (+ communities), communities.json, graph.html
    kgkit topology GRAPH [--json]            communities, connections, bridges, isolated entities (paginated)
    kgkit query ENTITY --graph GRAPH         an entity's neighbourhood (depth, type filters, paginated)

Heavy imports (pandas, networkx) stay inside the commands so `kgkit --help` starts fast. JSON output schemas
are documented in docs/graph.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import app


def _graph_path(path: Path) -> Path:
    """A graph.json, or a workspace folder holding one."""
    return path / "graph.json" if path.is_dir() else path


def _learned_at(text: str | None) -> str | None:
    """--learned-at: an ISO 8601 time, or "now" (UTC, to the second). The clock is read here, in the driver."""
    from datetime import UTC, datetime

    if text is None:
        return None
    if text == "now":
        return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"not an ISO 8601 time: {text!r} (e.g. 2026-01-31 or 2026-01-31T12:00:00Z, or now)") from None
    return text


def read_extractions(source: Path, *, domain: object = None) -> Any:
    """DocumentExtractions from a workspace's extractions.jsonl (or the workspace folder), or the mentions of
    a sift-kg output folder (OUT or OUT/extractions with *.json files) as `build.Mentions` rows."""
    from kgkit import io
    from kgkit.core.records import DocumentExtraction

    if source.is_dir() and (source / "extractions.jsonl").is_file():
        source = source / "extractions.jsonl"
    if source.is_file():
        return [DocumentExtraction.model_validate(row) for row in io.read_jsonl(source)]
    if source.is_dir():
        from kgkit.io.importers import read_siftkg_mentions

        return read_siftkg_mentions(source, domain=domain)  # type: ignore[arg-type]
    raise FileNotFoundError(f"{source}: no such file or folder")


def failed_chunks(found: Any) -> int:
    """How many chunks failed in DocumentExtractions or `build.Mentions`."""
    from kgkit.stages.build import Mentions

    if isinstance(found, Mentions):
        return sum(doc[5] for doc in found.documents)
    return sum(len(d.errors) for d in found)


@app.command("build")
def build(
    extractions: Path = typer.Argument(..., help="extractions.jsonl (or a workspace holding it), or a sift-kg output folder."),
    output: Path = typer.Option(..., "-o", "--output", help="Workspace folder to write graph.json, communities.json, graph.html."),
    domain: str = typer.Option("general", "--domain", "-d", help="Bundled domain name or path to a domain YAML."),
    learned_at: str | None = typer.Option(None, "--learned-at", help="Graph time the facts were learned (ISO 8601, or 'now'); becomes created_at. Default: none, so the same input gives the same bytes."),
    seed: int = typer.Option(0, help="Seed for community detection."),
    method: str = typer.Option("louvain", help="Community method: louvain, or leiden (needs leidenalg + igraph)."),
    no_repair: bool = typer.Option(False, "--no-repair", help="Keep relations the wrong way round for their signatures (only flag them)."),
    view_nodes: int = typer.Option(400, help="Most-connected entities shown in graph.html."),
    no_view: bool = typer.Option(False, "--no-view", help="Do not write graph.html."),
    as_json: bool = typer.Option(False, "--json", help="Print the build summary as JSON."),
) -> None:
    """Build a graph from extractions (no extractor runs): merge, repair, resolve, find communities, write."""
    import time

    from kgkit import io
    from kgkit.stages.build import build_graph
    from kgkit.stages.communities import assign_communities, detect_communities
    from kgkit.core.domain import DomainError

    started = time.perf_counter()
    stamp = _learned_at(learned_at)
    try:
        dom = io.load_domain(domain)
    except DomainError as exc:
        typer.echo(f"domain error: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        found = read_extractions(extractions, domain=dom)
    except (FileNotFoundError, ValueError) as exc:
        typer.echo(f"cannot read extractions: {exc}", err=True)
        raise typer.Exit(2) from None
    graph = build_graph(found, domain=dom, learned_at=stamp, repair=not no_repair)
    try:
        comms = detect_communities(graph, seed=seed, method=method)  # type: ignore[arg-type]
    except ImportError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    graph = assign_communities(graph, comms)
    outputs = {"graph": str(output / "graph.json"), "communities": str(output / "communities.json")}
    io.save_graph(graph, outputs["graph"])
    io.write_json(outputs["communities"], comms.to_json_dict())
    if not no_view:
        from kgkit.views.graph import graph_html

        outputs["view"] = str(output / "graph.html")
        io.atomic_write_text(outputs["view"], graph_html(graph, max_nodes=view_nodes))
    summary = {**graph.summary(), "communities": len(comms.summary), "learned_at": stamp, "outputs": outputs,
               "chunk_errors": failed_chunks(found), "seconds": round(time.perf_counter() - started, 3)}
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    typer.echo(f"{summary['documents']} documents, {summary['entities']} entities, {summary['relations']} relations, "
               f"{summary['communities']} communities in {summary['seconds']:.2f} s")
    for name, path in sorted(outputs.items()):
        typer.echo(f"{name:12s} {path}")


@app.command("topology")
def topology_command(
    graph: Path = typer.Argument(..., help="graph.json (or a workspace holding it)."),
    limit: int = typer.Option(20, help="Rows per list (communities, connections, bridges, isolated)."),
    offset: int = typer.Option(0, help="Skip this many rows of each list."),
    seed: int = typer.Option(0, help="Seed, when the graph carries no communities and they must be found."),
    as_json: bool = typer.Option(False, "--json", help="Print the kgkit.topology/1 JSON."),
) -> None:
    """The graph's shape: counts, communities, community connections, bridges, isolated entities."""
    from kgkit import io
    from kgkit.stages.topology import topology

    try:
        report = topology(io.load_graph(_graph_path(graph)), limit=limit, offset=offset, seed=seed)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
        return
    c = report["counts"]
    typer.echo(f"{c['entities']} entities, {c['relations']} relations, {c['communities']} communities, "
               f"{c['bridges']} bridges, {c['isolated']} isolated")
    for row in report["communities"]["items"]:
        typer.echo(f"  {row['community']:>6s} {row['size']:6d}  {row['label']}")
    for row in report["bridges"]["items"][:10]:
        typer.echo(f"  bridge {row['id']} reaches {row['communities']} communities")


@app.command("query")
def query_command(
    entity: str = typer.Argument(..., help="Entity id (Person:ada lovelace) or name (matched after normalisation)."),
    graph: Path = typer.Option(..., "--graph", "-g", help="graph.json (or a workspace holding it)."),
    depth: int = typer.Option(1, help="Hops to walk (0-6)."),
    types: list[str] | None = typer.Option(None, "--type", "-t", help="Only entities of this type (repeatable)."),
    relation_types: list[str] | None = typer.Option(None, "--relation-type", "-r", help="Only relations of this type (repeatable)."),
    limit: int = typer.Option(50, help="Entities and relations per page."),
    offset: int = typer.Option(0, help="Skip this many entities and relations."),
    as_json: bool = typer.Option(False, "--json", help="Print the kgkit.neighbourhood/1 JSON."),
) -> None:
    """An entity's neighbourhood. Exit code 1 when no entity matches."""
    from kgkit import io
    from kgkit.stages.topology import neighbourhood

    try:
        hood = neighbourhood(io.load_graph(_graph_path(graph)), entity, depth=depth, types=types or None,
                             relation_types=relation_types or None, limit=limit, offset=offset)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(hood.to_json_dict(), indent=2, sort_keys=True, ensure_ascii=False))
    elif hood.status == "not_found":
        typer.echo(f"no entity matches {entity!r}", err=True)
    else:
        if hood.status == "ambiguous":
            typer.echo(f"{entity!r} is ambiguous; narrow it with --type or an id: {', '.join(hood.matches)}")
        typer.echo(f"{hood.total_entities} entities, {hood.total_relations} relations within {depth} hop(s)")
        for row in hood.entities.itertuples(index=False):
            typer.echo(f"  {row.hop}  {row.id}  ({row.name})")
        for row in hood.relations.itertuples(index=False):
            typer.echo(f"  {row.hop}  {row.source} -[{row.type}]-> {row.target}  support {row.support}")
    if hood.status == "not_found":
        raise typer.Exit(1)
