"""`kgkit resolve | review | apply | undo`: entity resolution from the command line (registers on kgkit.cli.app).

    kgkit resolve -w WS      candidates for WS/graph.json -> WS/resolve/candidates.jsonl; policy decisions
                             -> WS/decisions.yaml (person decisions in it are kept as they are)
    kgkit review -w WS       a terminal review of the pending candidates: merge / keep apart / skip / quit
    kgkit apply -w WS        apply WS/decisions.yaml to WS/graph.json; journal -> WS/journal/NNNN.json
    kgkit undo -w WS         restore the graph as it was before the last apply (byte for byte)

Heavy imports stay inside the commands (`import kgkit.cli` must not import pandas).
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import typer

from kgkit.cli import app

_WS = typer.Option(..., "-w", "--workspace", help="Workspace folder (holds graph.json, decisions.yaml).")
_GRAPH = typer.Option(None, "--graph", help="Graph file (default: WORKSPACE/graph.json).")


def _now() -> str:
    from datetime import datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def _graph_path(workspace: Path, graph: Path | None) -> Path:
    path = graph or workspace / "graph.json"
    if not path.exists():
        typer.echo(f"no graph at {path} (run `kgkit run DOCS -o {workspace}` first)", err=True)
        raise typer.Exit(2)
    return path


def _decisions(workspace: Path) -> list:
    from kgkit.io.decisions import DecisionFileError, read_decisions

    try:
        return read_decisions(workspace)
    except DecisionFileError as exc:
        typer.echo(f"decisions file error: {exc}\nnothing was changed", err=True)
        raise typer.Exit(2) from None


class _CachedEmbedder:
    """An embedder whose vectors go through the workspace cache, one entry per text (kgkit.stages.embed.embed_rows)."""

    def __init__(self, inner, cache) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.cache, self.id, self.dim = inner, cache, inner.id, inner.dim

    def __call__(self, texts):  # type: ignore[no-untyped-def]
        import numpy as np

        from kgkit.stages.embed import embed_rows

        rows = self.cache.map(embed_rows, list(texts), embedder=self.inner, batch_size=256)
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, self.dim), dtype=np.float32)


def _symmetric(graph_meta: dict, domain: str | None) -> set[str]:
    """Relation types the domain declares symmetric (the --domain given, else the graph's bundled domain)."""
    from kgkit import io
    from kgkit.core.domain import DomainError

    name = domain or graph_meta.get("domain_name")
    if not name:
        return set()
    try:
        dom = io.load_domain(name)
    except DomainError:
        if domain:
            raise
        return set()
    return {t for t, spec in dom.relation_types.items() if spec.symmetric}


@app.command("resolve")
def resolve_cmd(
    workspace: Path = _WS,
    graph: Path | None = _GRAPH,
    embed: str = typer.Option("none", help="Embedding-neighbour step: none, hashing (lexical, no torch) or minilm "
                              "(vectors cached in WORKSPACE/cache)."),
    auto_accept: float = typer.Option(0.9, help="Policy: merge unique same-type candidates scoring at least this."),
    margin: float = typer.Option(0.05, help="A best match must lead the runner-up by this, else it is ambiguous."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Find merge candidates and let the policy decide the clear ones; person decisions are kept."""
    from kgkit import io
    from kgkit.io.cache import Cache
    from kgkit.stages.embed import HashingEmbedder, MiniLMEmbedder
    from kgkit.stages.resolve import ResolveConfig, decide, merge_candidates, pending
    from kgkit.stages.resolve.decisions import Policy
    from kgkit.io.decisions import write_candidates, write_decisions

    embedders = {"none": None, "hashing": HashingEmbedder, "minilm": MiniLMEmbedder}
    if embed not in embedders:
        raise typer.BadParameter(f"--embed must be one of {sorted(embedders)}")
    g = io.load_graph(_graph_path(workspace, graph))
    existing = _decisions(workspace)
    factory = embedders[embed]
    embedder = _CachedEmbedder(factory(), Cache(workspace / "cache")) if factory else None
    candidates = merge_candidates(g, config=ResolveConfig(margin=margin, auto_accept=auto_accept), embedder=embedder)
    decisions = decide(candidates, decisions=existing, policy=Policy(auto_accept=auto_accept), at=_now())
    write_candidates(workspace, candidates)
    path = write_decisions(workspace, decisions)
    todo = pending(candidates, decisions)
    summary = {"candidates": len(candidates), "policy_merges": sum(d.decided_by == "policy" for d in decisions),
               "person_decisions": sum(d.decided_by == "person" for d in decisions), "pending_review": len(todo),
               "ambiguous": sum(c.verdict == "ambiguous" for c in candidates), "decisions_file": str(path)}
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
    else:
        for key, value in summary.items():
            typer.echo(f"{key:18s} {value}")


@app.command("review")
def review_cmd(
    workspace: Path = _WS,
    limit: int = typer.Option(20, help="Ask about at most this many candidates."),
    who: str | None = typer.Option(None, help="Your name, recorded with each decision."),
) -> None:
    """Review pending candidates in the terminal: m = merge, k = keep apart, s = skip, q = quit (saved after each)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.prompt import Prompt
    from rich.table import Table

    from kgkit.stages.resolve import pending, person_decision
    from kgkit.io.decisions import read_candidates, write_decisions

    console = Console()
    candidates = read_candidates(workspace)
    if not candidates:
        console.print(f"no candidates in {workspace} (run `kgkit resolve -w {workspace}` first)")
        raise typer.Exit(1)
    decisions = _decisions(workspace)
    todo = pending(candidates, decisions)[:limit]
    console.print(f"{len(todo)} candidate(s) to review")
    done = 0
    for n, c in enumerate(todo, 1):
        table = Table(title=f"{n}/{len(todo)}  score {c.score:.2f}  {c.verdict}  ({c.step})", show_header=False)
        table.add_row("merge", escape(f"{c.source_name}  [{c.source_type}]  {c.source}"))  # names come from documents
        table.add_row("into", escape(f"{c.target_name}  [{c.target_type}]  {c.target}"))
        for reason in c.reasons:
            table.add_row("why", escape(reason))
        console.print(table)
        answer = Prompt.ask("m = merge, k = keep apart, s = skip, q = quit", choices=["m", "k", "s", "q"], default="s",
                            console=console)
        if answer == "q":
            break
        if answer == "s":
            continue
        note = Prompt.ask("note (why)", default="", console=console)
        kind = "merge" if answer == "m" else "keep_apart"
        decisions = [d for d in decisions if d.pair_key != ("pair", *sorted((c.source, c.target)))]
        decisions.append(person_decision(kind, (c.source, c.target), why=note or f"review: {c.reasons[0]}",
                                         who=who, at=_now()))
        write_decisions(workspace, decisions)
        done += 1
    console.print(f"recorded {done} decision(s); run `kgkit apply -w {workspace}` to apply them")


@app.command("apply")
def apply_cmd(
    workspace: Path = _WS,
    graph: Path | None = _GRAPH,
    domain: str | None = typer.Option(None, help="Domain whose symmetric relation types reject both ways."),
) -> None:
    """Apply the accepted decisions to the graph; write the journal that `kgkit undo` uses."""
    from kgkit import io
    from kgkit.stages.resolve import apply_decisions
    from kgkit.io.decisions import write_journal

    path = _graph_path(workspace, graph)
    g = io.load_graph(path)
    decisions = _decisions(workspace)
    out = apply_decisions(g, decisions, symmetric=_symmetric(g.meta, domain))
    applied = [e for e in out.journal.entries if e.status == "applied"]
    if out.journal.before_sha256 == out.journal.after_sha256:
        typer.echo("nothing to apply: the graph already reflects every decision")
        return
    journal_path = write_journal(workspace, out.journal)
    io.save_graph(out.graph, path)
    typer.echo(f"applied {len(applied)} decision(s): {len(out.mapping)} entities merged away; "
               f"{len(g.entities)} -> {len(out.graph.entities)} entities, {len(g.relations)} -> "
               f"{len(out.graph.relations)} relations\njournal {journal_path}")


@app.command("undo")
def undo_cmd(workspace: Path = _WS, graph: Path | None = _GRAPH) -> None:
    """Restore the graph as it was before the last `kgkit apply` (byte-identical)."""
    from kgkit import io
    from kgkit.stages.resolve import undo
    from kgkit.io.decisions import journal_paths, read_journal

    paths = journal_paths(workspace)
    if not paths:
        typer.echo("nothing to undo", err=True)
        raise typer.Exit(1)
    path = _graph_path(workspace, graph)
    journal = read_journal(paths[-1])
    try:
        restored = undo(io.load_graph(path), journal)
    except ValueError as exc:
        typer.echo(f"cannot undo {paths[-1].name}: {exc}", err=True)
        raise typer.Exit(2) from None
    io.save_graph(restored, path)
    paths[-1].rename(paths[-1].with_name(f"{paths[-1].stem}.undone-{journal.after_sha256[:12]}.json"))
    typer.echo(f"undone {paths[-1].name}: {path} restored")
