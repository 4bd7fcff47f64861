"""`kgkit index` and `kgkit search`: build a workspace's search index, and query it (JSON for agents).

    kgkit index [DOCS] -w WORKSPACE [--embedder minilm|hashing|none]
    kgkit search QUERY -w WORKSPACE [--json] [--kind K] [--type T] [--document D] [--as-of T] [--limit N] [--offset N]

Heavy imports stay inside the commands (`kgkit --help` imports no pandas, numpy or torch).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

EMBEDDERS = ("minilm", "hashing", "none")


def _embedder(name: str):
    from kgkit.stages.search.minilm import minilm_available, search_embedder

    if name not in EMBEDDERS:
        raise typer.BadParameter(f"embedder is one of {', '.join(EMBEDDERS)}")
    if name == "minilm" and not minilm_available():
        typer.echo("MiniLM is not installed (kgkit[ml]); using the hashing embedder", err=True)
    return search_embedder(name)


def index_command(
    docs: Path | None = typer.Argument(None, help="The corpus to index (default: the folder the workspace's last run read)."),
    workspace: Path = o.WORKSPACE,
    embedder: str = typer.Option("minilm", help="Dense channel embedder: minilm, hashing or none."),
    lock_timeout: float = o.LOCK_TIMEOUT,
    executor: str = o.EXECUTOR,
    scheduler: str | None = o.SCHEDULER,
    cache: str | None = o.CACHE,
) -> None:
    """Add or update the workspace's search index: entities and relations of its graph, chunks of its corpus
    (cut with the sizes the run used). Unchanged items are skipped, changed ones replaced, items no longer
    there removed; prints counts as JSON. With --executor local:N or dask, the embedding batches run on Dask
    workers (the progress bar counts them as they finish); the index is the serial one."""
    from kgkit.workflows.executors import ExecutorSpecError, executor_name
    from kgkit.workflows.index import index_report

    if docs is not None and not docs.exists():
        o.fail(f"no such file or folder: {docs}")
    try:  # a wrong --executor / --scheduler is a usage error (exit 2) before anything runs
        executor = executor_name(executor, scheduler)
    except ExecutorSpecError as exc:
        o.fail(str(exc))
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    ws = o.open_workspace(workspace, create=True)
    index_cache = o.open_cache(cache, ws)
    where = "" if executor == "serial" else f" ({executor})"
    with o.workspace_errors(), Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"embedding items{where}", total=None)
        report = index_report(ws, docs, embedder=_embedder(embedder), embedder_name=embedder, lock_timeout=lock_timeout,
                              executor=executor, cache=index_cache,
                              progress=lambda stage, done, total: bar.update(task, completed=done, total=total))
    typer.echo(json.dumps(report.to_json_dict(), sort_keys=True))
    if report.documents_unreadable:  # exit code 1: indexed, but some documents could not be read
        raise typer.Exit(1)


def search_command(
    query: str = typer.Argument(..., help="Free text. Any characters are fine (no query syntax)."),
    workspace: Path = o.WORKSPACE,
    as_json: bool = typer.Option(False, "--json", help="Print the kgkit.search/1 JSON document (docs/search.md)."),
    kind: list[str] = typer.Option(None, "--kind", help="entity, relation or chunk (repeatable)."),
    type_: list[str] = typer.Option(None, "--type", help="Entity or relation type (repeatable)."),
    document: list[str] = typer.Option(None, "--document", help="Document id (repeatable)."),
    as_of: str | None = typer.Option(None, "--as-of", help="Only relations the graph believed at this ISO time."),
    limit: int = typer.Option(10, "--limit", min=1, max=100, help="Hits per page (1-100)."),
    offset: int = typer.Option(0, "--offset", min=0, help="Hits to skip (pagination: next_offset)."),
    channels: str = typer.Option("keyword,dense,graph", help="Comma-separated channels to run."),
    mmr: float | None = typer.Option(None, "--mmr", min=0.0, max=1.0, help="Diversify with MMR (lambda)."),
    rollup: str | None = typer.Option(None, "--rollup", help="Also group this page's hits by 'document' or 'entity'."),
    no_refresh: bool = typer.Option(False, "--no-refresh", help="Search a stale index as it is (after apply/undo) instead of bringing it up to date first."),
) -> None:
    """Hybrid search over the workspace's entities, relations and chunks (a stale index is brought up to date
    first, unless --no-refresh)."""
    from kgkit.stages.search.schema import rollup_json, search_json

    if rollup not in (None, "document", "entity"):
        typer.echo("error: --rollup is 'document' or 'entity'", err=True)
        raise typer.Exit(2)
    from kgkit.workflows.index import open_search_index, query_embedder

    if not workspace.is_dir():
        o.fail(f"no search index in {workspace}: run `kgkit index DOCS -w {workspace}` first")
    ws = o.open_workspace(workspace)
    stale = ws.manifest().stale.get("index")
    if stale and not no_refresh:  # a derived artefact out of date is refreshed on its next use
        from kgkit.workflows.index import index as index_workflow

        typer.echo(f"the search index is stale ({stale}); bringing it up to date first", err=True)
        with o.workspace_errors():
            index_workflow(ws, embedder=query_embedder(ws))
        stale = ws.manifest().stale.get("index")
    with o.workspace_errors():
        index = open_search_index(ws, embedder=query_embedder(ws))
    if stale:
        typer.echo(f"warning: the search index is stale ({stale})", err=True)
    filters = {"kind": kind or [], "type": type_ or [], "document": document or [], "as_of": as_of}
    try:
        frame = index.search(query, kind=kind or None, type=type_ or None, document=document or None, as_of=as_of,
                             limit=limit, offset=offset, channels=[c.strip() for c in channels.split(",") if c.strip()],
                             mmr_lambda=mmr)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        index.close()
    out = search_json(frame, query=query, filters=filters, limit=limit, offset=offset)
    if stale:
        out["stale"] = stale
    if rollup:
        out["rollup"] = rollup_json(frame, by=rollup)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    paths = _document_paths(ws) if out["hits"] else {}
    for hit in out["hits"]:
        doc = hit["provenance"]["document_id"] or ""
        where = paths.get(doc, doc)  # a person reads the document's path; the JSON keeps the id
        title = hit["title"] or hit["id"]
        tail = f"  {plain(where)}" if where and where != title else ""
        typer.echo(f"{hit['rank']:3d}. [{hit['kind']}] {hit['score']:.4f} {plain(title)}{tail}")
        typer.echo(f"     {plain(hit['text'][:160])}")
    typer.echo(f"{out['total']} candidates, {out['timings_ms'].get('total', 0):.1f} ms")


def _document_paths(ws: Any) -> dict[str, str]:
    """Document id -> path, from graph.json's documents only (the rest of the file is skipped, not built)."""
    import msgspec

    doc = msgspec.defstruct("Doc", [("id", str), ("path", str)])
    docs = msgspec.defstruct("Docs", [("documents", list[doc], [])])  # type: ignore[valid-type]
    try:
        found = msgspec.json.decode(ws.read_bytes("graph.json"), type=docs)
    except (OSError, msgspec.DecodeError):  # no graph (an index of loose files): ids it is
        return {}
    return {d.id: d.path for d in found.documents}
