"""`kgkit index` and `kgkit search`: build a workspace's search index, and query it (JSON for agents).

    kgkit index [DOCS] -w WORKSPACE [--embedder minilm|hashing|none]
    kgkit search QUERY -w WORKSPACE [--json] [--kind K] [--type T] [--document D] [--as-of T] [--limit N] [--offset N]

Heavy imports stay inside the commands (`kgkit --help` imports no pandas, numpy or torch).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kgkit.cli import app

EMBEDDERS = ("minilm", "hashing", "none")


def _embedder(name: str):
    from kgkit.stages.embed import HashingEmbedder, MiniLMEmbedder, default_embedder

    if name == "none":
        return None
    if name == "hashing":
        return HashingEmbedder()
    if name == "minilm":
        chosen = default_embedder()
        if not isinstance(chosen, MiniLMEmbedder):
            typer.echo("MiniLM is not installed (kgkit[ml]); using the hashing embedder", err=True)
        return chosen
    raise typer.BadParameter(f"embedder is one of {', '.join(EMBEDDERS)}")


@app.command("index")
def index_command(
    docs: Path | None = typer.Argument(None, help="The corpus folder the workspace was built from: its chunks are indexed."),
    workspace: Path = typer.Option(..., "-w", "--workspace", help="Workspace (graph.json from `kgkit run`); the index goes to WORKSPACE/index."),
    embedder: str = typer.Option("minilm", help="Dense channel embedder: minilm, hashing or none."),
    chunk_chars: int = typer.Option(2000, help="Maximum characters per chunk (use the value given to `kgkit run`)."),
    overlap_chars: int = typer.Option(200, help="Overlap between chunks (as for `kgkit run`)."),
) -> None:
    """Add or update the workspace's search index: entities and relations from graph.json, chunks from DOCS.
    Unchanged items are skipped, changed ones replaced, items no longer there removed; prints counts as JSON."""
    from kgkit import io
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.workflows.pipeline import load_corpus
    from kgkit.stages.search import SearchIndex, entities_by_chunk, items_from_chunks, items_from_graph
    from kgkit.io.search_store import open_index

    graph_path = workspace / "graph.json"
    if docs is None and not graph_path.exists():
        typer.echo(f"nothing to index: no {graph_path} and no DOCS folder given", err=True)
        raise typer.Exit(2)
    if docs is not None and not docs.exists():
        typer.echo(f"no such file or folder: {docs}", err=True)
        raise typer.Exit(2)
    graph = io.load_graph(graph_path) if graph_path.exists() else None
    items, kinds = [], set()
    mentions: dict[str, list[str]] = {}
    if graph is not None:
        items += items_from_graph(graph)
        mentions = entities_by_chunk(graph)
        kinds |= {"entity", "relation"}
    failed = 0
    if docs is not None:
        documents, errors = load_corpus(docs, cache=Cache(workspace / "cache"))
        failed = len(errors)
        chunks = [c for d in documents for c in chunk_document(d, max_chars=chunk_chars, overlap_chars=overlap_chars)]
        items += items_from_chunks(chunks, entities_by_chunk=mentions, paths={d.id: d.path for d in documents})
        kinds.add("chunk")
    workspace.mkdir(parents=True, exist_ok=True)
    index = open_index(workspace / "index", embedder=_embedder(embedder), cache=Cache(workspace / "cache"))
    index.store.set_meta({"embedder_name": embedder})
    report = index.add(items)
    keep = {i.id for i in items}
    stale = [i.id for row, i in enumerate(index.items) if i.kind in kinds and i.id not in keep and index.row_of.get(i.id) == row]
    report["removed"] = index.remove(stale)["removed"]
    report.update(items=len(index), documents_unreadable=failed, index=str(workspace / "index"))
    index.close()
    typer.echo(json.dumps(report, sort_keys=True))


@app.command("search")
def search_command(
    query: str = typer.Argument(..., help="Free text. Any characters are fine (no query syntax)."),
    workspace: Path = typer.Option(..., "-w", "--workspace", help="Workspace whose index to search."),
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
) -> None:
    """Hybrid search over the workspace's entities, relations and chunks."""
    from kgkit.io.search_store import open_index
    from kgkit.stages.search.schema import rollup_json, search_json
    from kgkit.io.search_store import DB_NAME, IndexStore

    if rollup not in (None, "document", "entity"):
        typer.echo("error: --rollup is 'document' or 'entity'", err=True)
        raise typer.Exit(2)
    folder = workspace / "index"
    if not (folder / DB_NAME).exists():
        typer.echo(f"no search index in {workspace}: run `kgkit index DOCS -w {workspace}` first", err=True)
        raise typer.Exit(2)
    store = IndexStore(folder)
    name = store.meta().get("embedder_name", "none")
    store.close()
    index = open_index(folder, embedder=_embedder(name))
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
    if rollup:
        out["rollup"] = rollup_json(frame, by=rollup)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    for hit in out["hits"]:
        where = hit["provenance"]["document_id"] or ""
        typer.echo(f"{hit['rank']:3d}. [{hit['kind']}] {hit['score']:.4f} {hit['title'] or hit['id']}  {where}")
        typer.echo(f"     {hit['text'][:160]}")
    typer.echo(f"{out['total']} candidates, {out['timings_ms'].get('total', 0):.1f} ms")
