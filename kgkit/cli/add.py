"""`kgkit add`: add, update or retract documents of a workspace's corpus incrementally (kgkit.workflows.add).

    kgkit add FILES -w WS                 copy new files into the corpus; extract only new or changed text
    kgkit add -w WS --remove FILE         retract a corpus file: its relations expire (graph.as_of still shows them)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

__all__ = ["add_command"]

MAX_WORKERS = 8


def _extraction_workers(workspace: Path) -> Any:
    """Offline extraction workers forked now, before this process imports pandas and the add workflow
    (kgkit.workflows.prefork): they import spaCy and load its model meanwhile, then parse the new chunks on
    every core. None when they cannot help: not a workspace extracted offline, spaCy loaded already, threads
    running, or one core only (the add then extracts in this process, as a library call does)."""
    from kgkit.workflows.prefork import ForkedWorkers, available_cores, fork_is_safe, warm_offline

    try:
        config = json.loads((workspace / "manifest.json").read_text(encoding="utf-8")).get("config") or {}
    except (OSError, ValueError, AttributeError):
        return None
    if config.get("model") or not str(config.get("extractor", "")).startswith("offline:") or not fork_is_safe():
        return None
    return ForkedWorkers.start(warm_offline(workspace / "cache"), workers=min(available_cores(), MAX_WORKERS))


def add_command(
    files: list[Path] = typer.Argument(None, help="Files to add (copied into the corpus folder when outside it) "
                                       "or corpus files changed since the last run."),
    workspace: Path = o.WORKSPACE,
    remove: list[str] = typer.Option(None, "--remove", help="A corpus file to retract (moved out of the corpus "
                                     "into WS/removed/, never deleted; repeatable). Files deleted by hand are retracted too."),
    no_index: bool = typer.Option(False, "--no-index", help="Leave the search index stale instead of updating it."),
    as_json: bool = o.JSON,
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Bring the workspace up to date with new, changed or removed documents, with the last run's settings:
    only new or changed text is extracted; graph, communities, view and search index are updated, and the
    graph equals a full rebuild of the corpus. Exit code 1 when some files could not be read."""
    for f in files or []:
        if not f.is_file():
            o.fail(f"error: no such file: {f}")
    if not (workspace / "manifest.json").is_file():
        o.fail(f"error: {workspace} is not a kgkit workspace (run `kgkit run DOCS -o {workspace}` first)")
    workers = _extraction_workers(workspace) if files else None  # forked before the imports below
    try:
        from kgkit.workflows.add import add

        ws = o.open_workspace(workspace)
        with o.workspace_errors():
            result = add(ws, files or [], remove=remove or [], at=o.now(), update_index=not no_index,
                         lock_timeout=lock_timeout, executor=workers)
    finally:
        if workers is not None:
            workers.close()
    summary = result.summary()
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, sort_keys=True))
    else:
        typer.echo(plain(f"added {len(result.added)}, retracted {len(result.retracted)} "
                         f"({result.expired_relations} relations expired); extracted {result.extractor_calls} "
                         f"new chunk(s); {summary['entities']} entities, {summary['relations']} relations; "
                         f"generation {result.generation}"))
        for failure in result.errors:
            typer.echo(plain(f"  could not read {failure.path}: {failure.reason}"), err=True)
    if result.outcome == "rejected":
        typer.echo(plain(result.notes[-1]), err=True)
    if result.outcome != "complete":
        raise typer.Exit(1)
