"""`kgkit run | extract | discover | build | view | domains`: the graph-making commands, each one workflow.

    kgkit run DOCS -o WS [--domain general] [--model M --max-cost $]   graph.json (+ communities), graph.html, run.json
    kgkit extract DOCS -o WS                                           extractions.jsonl + extract.json, no graph
    kgkit discover DOCS -o WS --model M --max-cost $                   a proposed domain -> WS/domain.yaml
    kgkit build EXTRACTIONS -o WS                                      extractions -> graph, communities, view
    kgkit view WS [-o graph.html]                                      draw the view again
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

if TYPE_CHECKING:
    from kgkit.workflows.records import RunSummary

__all__ = ["build", "discover", "domains", "extract", "run", "view"]


@o.with_llm_options("max_cost", "price_in", "price_out", "free", "api_base", "concurrency", "rpm", "tpm", "no_context",
                    "timeout")
def run(
    docs: Path = typer.Argument(..., help="Folder (or file) of documents: txt, md, html, pdf, docx."),
    output: Path = o.OUTPUT,
    domain: str = o.DOMAIN,
    cache: str | None = o.CACHE,
    max_size: str = o.MAX_SIZE,
    chunk_chars: int = o.CHUNK_CHARS,
    overlap_chars: int = o.OVERLAP_CHARS,
    view_nodes: int = o.VIEW_NODES,
    no_view: bool = o.NO_VIEW,
    as_json: bool = o.JSON,
    learned_at: str | None = o.LEARNED_AT,
    seed: int = o.SEED,
    max_failures: float = typer.Option(0.1, "--max-failures", min=0.0, max=1.0, help="Share of chunks that may fail (0.1 = 10%); above it the run does not replace the workspace's outputs."),
    keep_partial: bool = typer.Option(False, "--keep-partial", help="Commit the run even when more chunks failed than --max-failures."),
    lock_timeout: float = o.LOCK_TIMEOUT,
    executor: str = o.EXECUTOR,
    scheduler: str | None = o.SCHEDULER,
    llm: Any = None,
) -> None:
    """Load, chunk, extract, build, find communities, draw the view: graph.json, communities.json,
    extractions.jsonl, graph.html and run.json, committed together.

    Offline (spaCy) by default; with --model, an LLM extracts under a hard --max-cost budget. Exit code 0 when
    everything was read and extracted, 1 when files or chunks failed (listed; above --max-failures the run is
    rejected and the previous outputs stay current), 2 for a usage or configuration error."""
    import logging
    import time

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kgkit.llm.options import extraction_batch_size
    from kgkit.workflows.executors import ExecutorSpecError, executor_name
    from kgkit.workflows.run import run as run_workflow

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # damaged PDFs are reported per file, not as log noise
    if not docs.exists():
        o.fail(f"no such file or folder: {docs}")
    try:  # a wrong --executor / --scheduler is a usage error (exit 2) before anything runs
        executor = executor_name(executor, scheduler)
    except ExecutorSpecError as exc:
        o.fail(str(exc))
    started = time.perf_counter()
    ws = o.open_workspace(output, create=True)
    run_cache = o.open_cache(cache, ws)
    with o.workspace_errors():
        extractor = _extractor(llm, run_cache)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True, disable=as_json) as bar:
            task = bar.add_task("extracting chunks" + ("" if executor == "serial" else f" ({executor})"), total=None)
            result = run_workflow(
                ws, docs, domain=domain, cache=run_cache, extractor=extractor, batch_size=extraction_batch_size(llm),
                max_bytes=o.size(max_size), max_chars=chunk_chars, overlap_chars=overlap_chars,
                max_view_nodes=view_nodes, write_view=not no_view, learned_at=o.learned_at(learned_at), seed=seed,
                max_failures=max_failures, keep_partial=keep_partial, lock_timeout=lock_timeout,
                executor=executor,
                progress=lambda stage, done, total: bar.update(task, completed=done, total=total))
    summary = result.run_summary().model_copy(update={"seconds": round(time.perf_counter() - started, 3)})
    if as_json:
        typer.echo(json.dumps(summary.to_json_dict(), indent=2, sort_keys=True))
    else:
        _print_summary(summary)
    if result.outcome != "complete":
        raise typer.Exit(1)


def _extractor(llm: Any, cache: Any) -> Any:
    """The LLM extractor for --model, else the offline one (None: the workflow's default)."""
    if llm is None:
        return None
    from kgkit.extractors.llm import LLMExtractor

    return LLMExtractor.from_options(llm, cache=cache)


def _print_summary(s: RunSummary) -> None:
    from rich.table import Table

    from kgkit.cli.display import console as make_console
    from kgkit.cli.display import safe
    from kgkit.cli.report import llm_rows

    console = make_console()
    table = Table(title="kgkit run", show_header=False)
    rows = [
        ("documents ok / failed", f"{s.documents_ok} / {len(s.failures)}"),
        ("chunks (failed)", f"{s.chunks} ({len(s.chunk_errors)})"),
        ("entities", str(s.entities)),
        ("relations", str(s.relations)),
        ("communities", str(s.communities)),
        ("cache hits / misses", f"{s.cache.hits} / {s.cache.misses}"),
        ("extractor calls", str(s.extractor_calls)),
        ("outcome", f"{s.outcome} (generation {s.generation})"),
        ("time", f"{s.seconds or 0.0:.2f} s"),
    ]
    rows += llm_rows(s.to_json_dict())
    if s.llm and s.llm.get("estimated"):  # no usable usage from the provider: charged at the worst case
        rows.append(("LLM charges estimated", f"{s.llm['estimated']} (no usable usage: charged at the worst case)"))
    for key, value in rows:
        table.add_row(safe(key), safe(value))  # llm_rows name documents by path
    console.print(table)
    for failure in s.failures:
        console.print(f"[yellow]failed[/yellow] {safe(failure.path)}: {safe(failure.kind)}: {safe(failure.reason)}")
    for group in s.error_groups:  # each cause once, with its fix; every chunk's error is in run.json
        console.print(f"[yellow]chunks failed[/yellow] {safe(group['cause'])} [yellow]— {group['count']} "
                      f"chunk{'s' if group['count'] != 1 else ''}[/yellow]\n  fix: {safe(group['fix'])}")
    if s.chunk_errors:
        where = s.outputs.get("summary") or ("WORKSPACE/.kgkit/rejected-run.json" if s.outcome == "rejected"
                                             else "run.json")
        console.print(f"each chunk's error: chunk_errors in {safe(where)}")
    for note in s.notes:
        console.print(f"[red]{safe(note, newlines=True)}[/red]" if s.outcome == "rejected" else safe(note, newlines=True))
    for name, path in sorted(s.outputs.items()):
        console.print(f"{name:12s} {safe(path)}")


@o.with_llm_options("max_cost", "price_in", "price_out", "free", "api_base", "concurrency", "no_context", "timeout")
def extract(
    docs: Path = typer.Argument(..., help="Folder (or file) of documents."),
    output: Path = o.OUTPUT,
    domain: str = o.DOMAIN,
    max_size: str = o.MAX_SIZE,
    chunk_chars: int = o.CHUNK_CHARS,
    overlap_chars: int = o.OVERLAP_CHARS,
    as_json: bool = o.JSON,
    lock_timeout: float = o.LOCK_TIMEOUT,
    llm: Any = None,
) -> None:
    """Load, chunk and extract only (no graph): write extractions.jsonl and extract.json with the costs."""
    from kgkit.cli.report import llm_rows
    from kgkit.io.cache import Cache
    from kgkit.io.workspace import EXTRACT_SUMMARY, EXTRACTIONS
    from kgkit.llm.options import extraction_batch_size
    from kgkit.workflows.run import extract as extract_workflow

    if not docs.exists():
        o.fail(f"no such file or folder: {docs}")
    ws = o.open_workspace(output, create=True)
    cache = Cache(ws.cache_dir)
    with o.workspace_errors():
        extract_workflow(ws, docs, domain=domain, extractor=_extractor(llm, cache), cache=cache,
                         max_bytes=o.size(max_size), max_chars=chunk_chars, overlap_chars=overlap_chars,
                         batch_size=extraction_batch_size(llm), lock_timeout=lock_timeout)
    summary = ws.read_json(EXTRACT_SUMMARY)
    failed = bool(summary["documents_failed"] or summary["chunk_errors"])  # exit code 1: finished with failures
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
        raise typer.Exit(1 if failed else 0)
    typer.echo(f"{summary['documents_ok']} documents, {summary['chunks']} chunks "
               f"({len(summary['chunk_errors'])} failed), {summary['extractor_calls']} extracted now "
               f"-> {ws.path(EXTRACTIONS)}")
    for label, value in llm_rows(summary):
        typer.echo(plain(f"{label}: {value}"))  # llm_rows name documents by path
    for group in summary.get("error_groups", []):  # each cause once; every chunk's error is in extract.json
        typer.echo(f"chunks failed: {plain(group['cause'])} — {group['count']} chunks\n  fix: {plain(group['fix'])}")
    if failed:
        raise typer.Exit(1)


@o.with_llm_options("max_cost", "price_in", "price_out", "free", "api_base", "timeout", model_required=True)
def discover(
    docs: Path = typer.Argument(..., help="Folder (or file) of documents to sample."),
    output: Path = typer.Option(..., "-o", "--output", help="Workspace folder (domain.yaml and cache go here)."),
    max_types: int = typer.Option(10, "--max-types", help="Entity types at most, fallback types included."),
    sample: int = typer.Option(12, "--sample", help="Chunks sampled from the corpus."),
    seed: int = typer.Option(0, "--seed", help="Sampling seed (same corpus + seed -> same sample)."),
    name: str = typer.Option("discovered", "--name", help="The domain's name."),
    domain_file: Path | None = typer.Option(None, "--domain-file", help="Where to write (default WS/domain.yaml)."),
    max_size: str = o.MAX_SIZE,
    chunk_chars: int = o.CHUNK_CHARS,
    as_json: bool = o.JSON,
    llm: Any = None,
) -> None:
    """Propose a domain (entity and relation types) from sampled chunks; save it as editable YAML."""
    from kgkit.cli.report import llm_rows
    from kgkit.workflows.discover import discover as discover_workflow

    if not docs.exists():
        o.fail(f"no such file or folder: {docs}")
    ws = o.open_workspace(output, create=True)
    with o.workspace_errors():  # a paid model without a cap, a model failing its preflight check: exit 2
        found = discover_workflow(ws, docs, llm=llm, max_types=max_types, sample=sample, seed=seed, name=name,
                                  domain_file=domain_file, max_bytes=o.size(max_size), max_chars=chunk_chars)
    report: dict[str, Any] = {"llm": found.ledger.summary(), "error": found.error}
    if found.domain is None:
        typer.echo(json.dumps(report, indent=2) if as_json else f"discovery failed: {plain(found.error)}", err=not as_json)
        raise typer.Exit(1)
    target = found.path
    report.update({"domain": found.domain.id, "path": str(target), "entity_types": sorted(found.domain.entity_types),
                   "relation_types": sorted(found.domain.relation_types)})
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
        return
    typer.echo(f"{found.domain.id}  {len(found.domain.entity_types)} entity types, "
               f"{len(found.domain.relation_types)} relation types -> {target}")
    for label, value in llm_rows(report):
        typer.echo(f"{label}: {value}")
    typer.echo(f"edit it, then: kgkit run {docs} -o {output} --domain {target} --model {llm.model}")


def build(
    extractions: Path = typer.Argument(..., help="extractions.jsonl (or a workspace holding it), or a sift-kg output folder."),
    output: Path = o.OUTPUT,
    domain: str = o.DOMAIN,
    learned_at: str | None = o.LEARNED_AT,
    seed: int = o.SEED,
    method: str = typer.Option("louvain", help="Community method: louvain, or leiden (needs leidenalg + igraph)."),
    no_repair: bool = typer.Option(False, "--no-repair", help="Keep relations the wrong way round for their signatures (only flag them)."),
    view_nodes: int = o.VIEW_NODES,
    no_view: bool = o.NO_VIEW,
    as_json: bool = o.JSON,
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Build a graph from extractions (no extractor runs): merge, repair, find communities, write."""
    import time

    from kgkit.workflows.graph import build as build_workflow

    started = time.perf_counter()
    stamp = o.learned_at(learned_at)
    if not extractions.exists():
        o.fail(f"cannot read extractions: {extractions}: no such file or folder")
    ws = o.open_workspace(output, create=True)
    with o.workspace_errors():
        try:
            built = build_workflow(ws, extractions, domain=domain, learned_at=stamp, seed=seed, method=method,  # type: ignore[arg-type]
                                   repair=not no_repair, max_view_nodes=view_nodes, write_view=not no_view,
                                   lock_timeout=lock_timeout)
        except ValueError as exc:
            o.fail(f"cannot read extractions: {exc}")
        except ImportError as exc:
            o.fail(str(exc))
    summary = {**built.graph.summary(), "communities": len(built.communities.summary), "learned_at": stamp,
               "outputs": built.outputs, "chunk_errors": built.chunk_errors, "generation": built.generation,
               "seconds": round(time.perf_counter() - started, 3)}
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
    else:
        typer.echo(f"{summary['documents']} documents, {summary['entities']} entities, {summary['relations']} "
                   f"relations, {summary['communities']} communities in {summary['seconds']:.2f} s")
        for key, path in sorted(built.outputs.items()):
            typer.echo(f"{key:12s} {path}")
    if built.chunk_errors:  # exit code 1: built, but from extractions with failed chunks
        typer.echo(f"{built.chunk_errors} chunk(s) had failed at extraction: the graph holds the rest "
                   "(exit code 1); extract them again (kgkit extract / kgkit run) to complete it", err=True)
        raise typer.Exit(1)


def view(
    graph: Path = typer.Argument(..., help="A workspace, or a graph.json file."),
    output: Path | None = typer.Option(None, "-o", "--output", help="HTML file to write (default: the workspace's graph.html)."),
    max_nodes: int | None = typer.Option(None, help="Most-connected entities to show (default: the workspace's setting, 400)."),
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Render the graph as a standalone HTML page (works offline)."""
    from kgkit import io
    from kgkit.core.constants import VIEW_NODES
    from kgkit.views.graph_page import graph_html
    from kgkit.workflows.graph import view as view_workflow

    ws, _ = o.workspace_and_graph(graph)
    if output is None and ws is not None:
        with o.workspace_errors():
            typer.echo(str(view_workflow(ws, max_nodes=max_nodes, lock_timeout=lock_timeout)))
        return
    if output is None:
        o.fail("give -o FILE.html to draw a graph file that is not in a workspace")
    io.atomic_write_text(output, graph_html(o.read_graph_arg(graph), max_nodes=max_nodes or VIEW_NODES))
    typer.echo(str(output))


def domains() -> None:
    """List the bundled domains with their content ids and type counts."""
    from kgkit import io

    for name in io.bundled_domains():
        d = io.load_domain(name)
        typer.echo(f"{name:24s} {d.id}  {len(d.entity_types)} entity types, {len(d.relation_types)} relation types")
