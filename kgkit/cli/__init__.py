"""kgkit command line. Imports stay inside commands so `kgkit --help` starts fast.

    kgkit run DOCS -o WORKSPACE [--domain general]     documents -> graph.json + graph.html
    kgkit cache info|prune|export|import               look after the content-hash cache
    kgkit domains                                      bundled domains and their content ids
    kgkit view GRAPH.json -o graph.html                re-render the HTML view
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="kgkit: documents -> a knowledge graph you can see, question, correct and reproduce.")
cache_app = typer.Typer(no_args_is_help=True, help="Inspect, prune, export and import the content-hash cache.")
app.add_typer(cache_app, name="cache")

_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3, "gb": 1024**3}
_DURATIONS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def _size(text: str) -> int:
    """'20MB' -> bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise typer.BadParameter(f"not a size: {text!r} (e.g. 500KB, 20MB, 1GB)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def _duration(text: str) -> float:
    """'30d' -> seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text)
    if not m:
        raise typer.BadParameter(f"not a duration: {text!r} (e.g. 12h, 30d, 2w)")
    return float(m.group(1)) * _DURATIONS[m.group(2)]


def _cache_root(cache: Path | None, workspace: Path | None) -> Path:
    if cache is not None:
        return cache
    if workspace is not None:
        return workspace / "cache"
    raise typer.BadParameter("give --cache DIR or --workspace DIR")


@app.command()
def run(
    docs: Path = typer.Argument(..., help="Folder (or file) of documents: txt, md, html, pdf, docx."),
    output: Path = typer.Option(..., "-o", "--output", help="Workspace folder for graph, view, cache."),
    domain: str = typer.Option("general", "--domain", "-d", help="Bundled domain name or path to a domain YAML."),
    cache: Path | None = typer.Option(None, help="Cache folder (default: WORKSPACE/cache)."),
    max_size: str = typer.Option("20MB", help="Files larger than this are reported, not read."),
    chunk_chars: int = typer.Option(2000, help="Maximum characters per chunk."),
    overlap_chars: int = typer.Option(200, help="Characters of whole sentences repeated between chunks."),
    view_nodes: int = typer.Option(400, help="Most-connected entities shown in graph.html."),
    no_view: bool = typer.Option(False, "--no-view", help="Do not write graph.html."),
    as_json: bool = typer.Option(False, "--json", help="Print the run summary as JSON."),
    model: str | None = typer.Option(None, "--model", "-m", help="Extract with this litellm model (e.g. openai/gpt-4o-mini, ollama/llama3.1) instead of the offline extractor."),
    max_cost: float | None = typer.Option(None, "--max-cost", help="Hard budget cap in dollars for every LLM call of the run."),
    price_in: float | None = typer.Option(None, "--price-in", help="Input price in dollars per 1M tokens (models litellm has no price for)."),
    price_out: float | None = typer.Option(None, "--price-out", help="Output price in dollars per 1M tokens."),
    free: bool = typer.Option(False, "--free", help="The model is local/free (Ollama, vLLM): no price needed."),
    api_base: str | None = typer.Option(None, "--api-base", help="Provider URL (e.g. http://localhost:11434 for Ollama)."),
    concurrency: int = typer.Option(8, "--concurrency", help="LLM requests in flight at most."),
    rpm: int | None = typer.Option(None, "--rpm", help="LLM requests per minute at most."),
    tpm: int | None = typer.Option(None, "--tpm", help="LLM tokens per minute at most."),
    no_context: bool = typer.Option(False, "--no-context", help="No shared document summary in extraction prompts."),
    learned_at: str | None = typer.Option(None, "--learned-at", help="Graph time of this run (ISO 8601 or 'now'): the relations' created_at. Empty by default, so re-runs give byte-identical graphs."),
) -> None:
    """Load, chunk, extract, build; write graph.json, extractions.jsonl, graph.html and run.json.

    Offline (spaCy) by default; with --model, an LLM extracts under a hard --max-cost budget."""
    import logging
    import time

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kgkit.io.cache import Cache
    from kgkit.cli.graph import _learned_at
    from kgkit.cli.llm import extraction_batch_size
    from kgkit.core.domain import DomainError
    from kgkit.workflows.pipeline import run_pipeline

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # damaged PDFs are reported per file, not as log noise
    console = Console(stderr=True)
    if not docs.exists():
        console.print(f"[red]no such file or folder: {docs}[/red]")
        raise typer.Exit(2)
    started = time.perf_counter()
    run_cache = Cache(_cache_root(cache, output))
    extractor = None
    if model is not None:
        from kgkit.cli.llm import LLMOptionError, llm_extractor

        try:
            extractor = llm_extractor(model, max_cost=max_cost, price_in=price_in, price_out=price_out, free=free,
                                      concurrency=concurrency, rpm=rpm, tpm=tpm, document_context=not no_context,
                                      api_base=api_base, cache=run_cache)
        except LLMOptionError as exc:
            console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("extracting chunks", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            result = run_pipeline(docs, output, domain=domain, cache=run_cache, extractor=extractor,
                                  batch_size=extraction_batch_size(extractor is not None, concurrency),
                                  max_bytes=_size(max_size), max_chars=chunk_chars, overlap_chars=overlap_chars,
                                  max_view_nodes=view_nodes, write_view=not no_view, progress=progress,
                                  learned_at=_learned_at(learned_at))
        except DomainError as exc:
            console.print(f"[red]domain error:[/red] {exc}")
            raise typer.Exit(2) from None
    summary = result.summary()
    summary["seconds"] = round(time.perf_counter() - started, 3)
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
    else:
        _print_summary(summary)


def _print_summary(s: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="kgkit run", show_header=False)
    rows = [
        ("documents ok / failed", f"{s['documents_ok']} / {s['documents_failed']}"),
        ("chunks (failed)", f"{s['chunks']} ({len(s['chunk_errors'])})"),
        ("entities", str(s["entities"])),
        ("relations", str(s["relations"])),
        ("cache hits / misses", f"{s['cache_hits']} / {s['cache_misses']}"),
        ("extractor calls", str(s["extractor_calls"])),
        ("time", f"{s['seconds']:.2f} s"),
    ]
    if s.get("llm"):
        from kgkit.cli.llm import llm_rows

        rows += llm_rows(s)
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)
    for failure in s["failures"]:
        console.print(f"[yellow]failed[/yellow] {failure['path']}: {failure['kind']}: {failure['reason']}")
    for err in s["chunk_errors"][:20]:
        console.print(f"[yellow]chunk failed[/yellow] {err}")
    for name, path in sorted(s["outputs"].items()):
        console.print(f"{name:12s} {path}")


@app.command()
def view(
    graph: Path = typer.Argument(..., help="graph.json written by `kgkit run`."),
    output: Path = typer.Option(..., "-o", "--output", help="HTML file to write."),
    max_nodes: int = typer.Option(400, help="Most-connected entities to show."),
) -> None:
    """Render a saved graph as a standalone HTML page (works offline)."""
    from kgkit import io
    from kgkit.views.graph import graph_html

    io.atomic_write_text(output, graph_html(io.load_graph(graph), max_nodes=max_nodes))
    typer.echo(str(output))


@app.command()
def domains() -> None:
    """List the bundled domains with their content ids and type counts."""
    from kgkit import io

    for name in io.bundled_domains():
        d = io.load_domain(name)
        typer.echo(f"{name:24s} {d.id}  {len(d.entity_types)} entity types, {len(d.relation_types)} relation types")


@cache_app.command("info")
def cache_info(
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace", help="Workspace whose cache to use."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Entries and bytes per stage."""
    from kgkit.io.cache import Cache

    info = Cache(_cache_root(cache, workspace)).info()
    info.pop("session")
    if as_json:
        typer.echo(json.dumps(info, indent=2, sort_keys=True))
        return
    typer.echo(f"cache {info['root']}: {info['entries']} entries, {info['bytes'] / 1e6:.2f} MB")
    for stage_name, row in sorted(info["stages"].items()):
        typer.echo(f"  {stage_name:20s} {row['entries']:8d} entries {row['bytes'] / 1e6:10.2f} MB")


@cache_app.command("prune")
def cache_prune(
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
    older_than: str | None = typer.Option(None, help="Remove entries unused for this long (e.g. 30d, 12h)."),
    stage: str | None = typer.Option(None, help="Remove every entry of this stage (e.g. extract_texts)."),
    max_size: str | None = typer.Option(None, help="Then remove least recently used entries down to this size."),
) -> None:
    """Remove entries by age, stage or total size. With no option, removes nothing."""
    from kgkit.io.cache import Cache

    report = Cache(_cache_root(cache, workspace)).prune(
        older_than_seconds=_duration(older_than) if older_than else None, stage=stage,
        max_bytes=_size(max_size) if max_size else None)
    typer.echo(f"removed {report['removed']} entries ({report['bytes_freed'] / 1e6:.2f} MB), kept {report['kept']}")


@cache_app.command("export")
def cache_export(
    archive: Path = typer.Argument(..., help="Archive to write (.tar.gz)."),
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
) -> None:
    """Pack the cache so others can re-run the same pipeline at zero cost."""
    from kgkit.io.cache import Cache

    typer.echo(str(Cache(_cache_root(cache, workspace)).export(archive)))


@cache_app.command("import")
def cache_import(
    archive: Path = typer.Argument(..., help="Archive written by `kgkit cache export`."),
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
) -> None:
    """Unpack an exported cache into this one."""
    from kgkit.io.cache import Cache

    added = Cache(_cache_root(cache, workspace)).import_archive(archive)
    typer.echo(f"added {added} entries")


# Command groups that live in their own modules register themselves on `app` when imported. Each keeps its
# heavy imports inside its commands, so importing it here keeps `kgkit --help` fast.
COMMAND_MODULES = ("kgkit.cli.graph", "kgkit.cli.export", "kgkit.cli.llm", "kgkit.cli.search", "kgkit.cli.resolve",
                   "kgkit.cli.narrate")


def _register_commands() -> None:
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name)


_register_commands()


def main() -> None:
    app()


if __name__ == "__main__":
    # `python -m kgkit.cli`: run the app of the importable module `kgkit.cli`, the one the command modules
    # registered on (this file, run as __main__, is a second copy of the module)
    from kgkit.cli import main as _main

    _main()
