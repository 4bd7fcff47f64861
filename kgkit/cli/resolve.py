"""`kgkit resolve | review | apply | undo`: entity resolution from the command line, one workflow each.

    kgkit resolve -w WS      candidates for the graph -> WS/resolve/candidates.jsonl; policy decisions
                             -> WS/decisions.yaml (person decisions in it are kept as they are)
    kgkit review -w WS       a terminal review of the pending candidates: merge / keep apart / skip / quit
    kgkit apply -w WS        apply WS/decisions.yaml: merged graph, journal WS/journal/NNNN.json, communities, view
    kgkit undo -w WS         restore the graph as it was before the last apply (byte for byte)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

__all__ = ["apply_cmd", "resolve_cmd", "review_cmd", "undo_cmd"]


def _decision_errors() -> Any:
    from kgkit.io.decisions import DecisionFileError

    return DecisionFileError


def resolve_cmd(
    workspace: Path = o.WORKSPACE,
    embed: str = typer.Option("none", help="Embedding-neighbour step: none, hashing (lexical, no torch) or minilm "
                              "(vectors cached in WORKSPACE/cache)."),
    auto_accept: float = typer.Option(0.9, help="Policy: merge unique same-type candidates scoring at least this."),
    margin: float = typer.Option(0.05, help="A best match must lead the runner-up by this, else it is ambiguous."),
    as_json: bool = o.JSON,
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Find merge candidates and let the policy decide the clear ones; person decisions are kept."""
    from kgkit.io.cache import Cache
    from kgkit.stages.embed import CachedEmbedder, HashingEmbedder, MiniLMEmbedder
    from kgkit.workflows.resolve import resolve

    embedders = {"none": None, "hashing": HashingEmbedder, "minilm": MiniLMEmbedder}
    if embed not in embedders:
        raise typer.BadParameter(f"--embed must be one of {sorted(embedders)}")
    ws = o.open_workspace(workspace)
    factory = embedders[embed]
    embedder = CachedEmbedder(factory(), Cache(ws.cache_dir)) if factory else None
    with o.workspace_errors():
        try:
            found = resolve(ws, embedder=embedder, auto_accept=auto_accept, margin=margin, at=o.now(),
                            lock_timeout=lock_timeout)
        except _decision_errors() as exc:
            o.fail(f"decisions file error: {exc}\nnothing was changed")
    summary = {**found.summary(), "decisions_file": str(ws.path("decisions.yaml"))}
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
    else:
        for key, value in summary.items():
            typer.echo(plain(f"{key:18s} {value}"))


def review_cmd(
    workspace: Path = o.WORKSPACE,
    limit: int = typer.Option(20, help="Ask about at most this many candidates."),
    who: str | None = typer.Option(None, help="Your name, recorded with each decision."),
) -> None:
    """Review pending candidates in the terminal: m = merge, k = keep apart, s = skip, q = quit (saved after each)."""
    from rich.prompt import Prompt
    from rich.table import Table

    from kgkit.cli.display import console as make_console
    from kgkit.cli.display import safe
    from kgkit.stages.resolve import pending, person_decision
    from kgkit.workflows.resolve import candidates, decisions, record

    console = make_console()
    ws = o.open_workspace(workspace)
    found = candidates(ws)
    if not found:
        console.print(f"no candidates in {safe(workspace)} (run `kgkit resolve -w {safe(workspace)}` first)")
        raise typer.Exit(1)
    try:
        todo = pending(found, decisions(ws))[:limit]
    except _decision_errors() as exc:
        o.fail(f"decisions file error: {exc}\nnothing was changed")
    console.print(f"{len(todo)} candidate(s) to review")
    done = 0
    for n, c in enumerate(todo, 1):
        table = Table(title=f"{n}/{len(todo)}  score {c.score:.2f}  {c.verdict}  ({c.step})", show_header=False)
        table.add_row("merge", safe(f"{c.source_name}  [{c.source_type}]  {c.source}"))  # names come from documents
        table.add_row("into", safe(f"{c.target_name}  [{c.target_type}]  {c.target}"))
        for reason in c.reasons:
            table.add_row("why", safe(reason))
        console.print(table)
        answer = Prompt.ask("m = merge, k = keep apart, s = skip, q = quit", choices=["m", "k", "s", "q"], default="s",
                            console=console)
        if answer == "q":
            break
        if answer == "s":
            continue
        note = Prompt.ask("note (why)", default="", console=console)
        kind = "merge" if answer == "m" else "keep_apart"
        record(ws, [person_decision(kind, (c.source, c.target), why=note or f"review: {c.reasons[0]}", who=who,
                                    at=o.now())])
        done += 1
    console.print(f"recorded {done} decision(s); run `kgkit apply -w {safe(workspace)}` to apply them")


def apply_cmd(
    workspace: Path = o.WORKSPACE,
    domain: str | None = typer.Option(None, help="Domain whose symmetric relation types reject both ways."),
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Apply the accepted decisions to the graph; write the journal that `kgkit undo` uses; communities and the
    view are refreshed, the search index and narrative marked stale."""
    from kgkit.workflows.resolve import apply

    ws = o.open_workspace(workspace)
    with o.workspace_errors():
        try:
            done = apply(ws, domain=domain, lock_timeout=lock_timeout)
        except _decision_errors() as exc:
            o.fail(f"decisions file error: {exc}\nnothing was changed")
    if not done.changed:
        typer.echo("nothing to apply: the graph already reflects every decision")
        return
    typer.echo(f"applied {done.applied} decision(s): {done.merged_away} entities merged away; "
               f"{len(done.before.entities)} -> {len(done.graph.entities)} entities, {len(done.before.relations)} -> "
               f"{len(done.graph.relations)} relations\njournal {ws.path(done.journal)}")


def undo_cmd(workspace: Path = o.WORKSPACE, lock_timeout: float = o.LOCK_TIMEOUT) -> None:
    """Restore the graph as it was before the last `kgkit apply` (byte-identical)."""
    from kgkit.io.workspace import WorkspaceError
    from kgkit.workflows.resolve import undo

    ws = o.open_workspace(workspace)
    if not ws.journal_names():
        o.fail("nothing to undo", code=1)
    try:
        done = undo(ws, lock_timeout=lock_timeout)
    except ValueError as exc:
        o.fail(f"cannot undo {ws.journal_names()[-1]}: {exc}")
    except WorkspaceError as exc:
        o.fail(f"error: {exc}")
    typer.echo(f"undone {done.journal}: {ws.path('graph.json')} restored")
