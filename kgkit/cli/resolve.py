"""`kgkit resolve | review | apply | undo`: entity resolution from the command line, one workflow each.

    kgkit resolve -w WS      candidates for the graph -> WS/resolve/candidates.jsonl; policy decisions
                             -> WS/decisions.yaml (person decisions in it are kept as they are)
    kgkit review -w WS       a terminal review of every candidate (undecided first, then the policy's: v vetoes)
    kgkit apply -w WS        apply WS/decisions.yaml: merged graph, journal WS/journal/NNNN.json, communities;
                             graph.html, index and narrative marked stale (`kgkit view WS` draws the view again)
    kgkit undo -w WS         restore the graph as it was before the last apply (byte for byte); stale as apply
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

__all__ = ["apply_cmd", "resolve_cmd", "review_cmd", "undo_cmd"]


def _say_stale(stale: dict[str, str]) -> None:
    """One line per artefact the change left out of date, with what brings it up to date (kgkit's own words)."""
    for name, why in stale.items():
        typer.echo(f"stale: {name}: {why}")


def _decision_errors() -> Any:
    from kgkit.io.decisions import DecisionFileError

    return DecisionFileError


def resolve_cmd(
    workspace: Path = o.WORKSPACE,
    embed: str = typer.Option("none", help="Embedding-neighbour step: none, hashing (lexical, no torch) or minilm "
                              "(vectors cached in WORKSPACE/cache)."),
    auto_accept: float = typer.Option(0.9, help="Policy: merge unique same-type candidates scoring at least this."),
    margin: float = typer.Option(0.05, help="A best match must lead the runner-up by this, else it is ambiguous."),
    min_probability: float | None = typer.Option(
        None, help="Learned scorer: score candidates (and pairs the graph proposes) with the shipped prior updated by "
        "your decisions, merge only at this probability or above (e.g. 0.99); review asks the closest calls first."),
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
                            lock_timeout=lock_timeout, min_probability=min_probability)
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
    threshold: float = typer.Option(0.9, help="The policy's auto-accept score: undecided candidates closest to it "
                                    "come first (a decision there teaches most)."),
) -> None:
    """Review every candidate in the terminal, undecided first (closest to the policy threshold first), then
    those the policy or an LLM judge decided, marked as such: m = merge, k = keep apart, v = veto a merge
    decided earlier (keep apart), s = skip, q = quit (saved after each). A person's earlier decisions are not
    asked again."""
    from rich.prompt import Prompt
    from rich.table import Table

    from kgkit.cli.display import console as make_console
    from kgkit.cli.display import safe
    from kgkit.stages.resolve import person_decision
    from kgkit.views.widgets import decision_index, decision_label, review_order
    from kgkit.workflows.resolve import candidates, decisions, merged_away, record

    console = make_console()
    ws = o.open_workspace(workspace)
    found = candidates(ws)
    if not found:
        console.print(f"no candidates in {safe(workspace)} (run `kgkit resolve -w {safe(workspace)}` first)")
        raise typer.Exit(1)
    try:
        made = decisions(ws)
    except _decision_errors() as exc:
        o.fail(f"decisions file error: {exc}\nnothing was changed")
    index = decision_index(made)

    def earlier(c: Any) -> Any:
        return index.get(tuple(sorted((c.source, c.target))))

    todo = [c for c in review_order(found, made, threshold=threshold)
            if earlier(c) is None or earlier(c).decided_by != "person"][:limit]
    n_open = sum(earlier(c) is None for c in todo)
    console.print(f"{len(todo)} candidate(s) to review: {n_open} undecided, {len(todo) - n_open} decided by the "
                  "policy or a judge (v to veto)")
    done, vetoed = 0, []
    for n, c in enumerate(todo, 1):
        d = earlier(c)
        probability = (c.features or {}).get("probability")  # the learned scorer's, when it scored the pair
        sure = f"  p(same) {float(probability):.2f}" if probability is not None else ""
        table = Table(title=f"{n}/{len(todo)}  score {c.score:.2f}{sure}  {c.verdict}  ({c.step})", show_header=False)
        if d is not None:
            table.add_row("decided", safe(decision_label(d, c.score)))
        table.add_row("merge", safe(f"{c.source_name}  [{c.source_type}]  {c.source}"))  # names come from documents
        table.add_row("into", safe(f"{c.target_name}  [{c.target_type}]  {c.target}"))
        for reason in c.reasons:
            table.add_row("why", safe(reason))
        console.print(table)
        if d is None:
            answer = Prompt.ask("m = merge, k = keep apart, s = skip, q = quit", choices=["m", "k", "s", "q"],
                                default="s", console=console)
        elif d.kind == "merge":
            answer = Prompt.ask(f"{d.decided_by} merged: v = veto (keep apart), s = leave it, q = quit",
                                choices=["v", "s", "q"], default="s", console=console)
        else:
            answer = Prompt.ask(f"{d.decided_by} kept apart: m = merge instead, s = leave it, q = quit",
                                choices=["m", "s", "q"], default="s", console=console)
        if answer == "q":
            break
        if answer == "s":
            continue
        note = Prompt.ask("note (why)", default="", console=console)
        kind = "merge" if answer == "m" else "keep_apart"
        why = note or (f"review: {c.reasons[0]}" if c.reasons else f"review: score {c.score:.2f}")
        if answer == "v":
            why = f"veto of the {d.decided_by} merge (score {c.score:.2f})" + (f": {note}" if note else "")
            vetoed.append(c)
        record(ws, [person_decision(kind, (c.source, c.target), why=why, who=who, at=o.now())])
        done += 1
    console.print(f"recorded {done} decision(s); run `kgkit apply -w {safe(workspace)}` to apply them")
    applied = [c for c in vetoed if merged_away(ws, (c.source, c.target))]
    if applied:
        names = ", ".join(f"{c.source_name} / {c.target_name}" for c in applied)
        console.print(safe(f"vetoed {len(applied)} merge(s) already applied to the graph ({names}): `kgkit apply` "
                           f"undoes them (it undoes the applies that made them and applies every decision again)"))


def apply_cmd(
    workspace: Path = o.WORKSPACE,
    domain: str | None = typer.Option(None, help="Domain whose symmetric relation types reject both ways."),
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """Apply the accepted decisions to the graph; write the journal that `kgkit undo` uses; communities are found
    again; graph.html is removed and marked stale with the search index and narrative (`kgkit view WS` draws it)."""
    from kgkit.workflows.resolve import apply

    ws = o.open_workspace(workspace)
    with o.workspace_errors():
        try:
            done = apply(ws, domain=domain, lock_timeout=lock_timeout)
        except _decision_errors() as exc:
            o.fail(f"decisions file error: {exc}\nnothing was changed")
    if not done.changed:
        typer.echo("nothing to apply: the graph already reflects every decision")
        _say_stale(done.stale)
        return
    if done.undone:
        typer.echo(f"undone {', '.join(done.undone)} first: they merged entities now kept apart (a veto)")
    typer.echo(f"applied {done.applied} decision(s): {done.merged_away} entities merged away; "
               f"{len(done.before.entities)} -> {len(done.graph.entities)} entities, {len(done.before.relations)} -> "
               f"{len(done.graph.relations)} relations" + (f"\njournal {ws.path(done.journal)}" if done.journal else ""))
    _say_stale(done.stale)


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
    _say_stale(done.stale)
