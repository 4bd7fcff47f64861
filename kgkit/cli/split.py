"""`kgkit split`: same name, different things.

    kgkit split -w WS                                   proposed splits: documents whose contexts share nothing
    kgkit split ENTITY --document PATH -w WS [--label L] record a person's split (then `kgkit apply`)
    kgkit split ENTITY --withdraw -w WS                 withdraw the splits of ENTITY (then `kgkit apply`)
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain

__all__ = ["split_command"]


def split_command(
    entity: str | None = typer.Argument(None, help="The entity to split (its id, or its name when only one has it). "
                                        "Without it: list the proposed splits."),
    workspace: Path = o.WORKSPACE,
    document: list[str] = typer.Option([], "--document", "-d", help="A document (path as listed, or id) whose "
                                       "mentions of ENTITY become the new entity; repeat for several."),
    chunk: list[str] = typer.Option([], "--chunk", help="A chunk id whose mentions move (finer than a document)."),
    label: str | None = typer.Option(None, help="A few words naming the other thing: the new id is ENTITY~label."),
    why: str = typer.Option("", help="Why (kept in decisions.yaml)."),
    withdraw: bool = typer.Option(False, help="Withdraw the accepted splits of ENTITY instead."),
    as_json: bool = o.JSON,
    lock_timeout: float = o.LOCK_TIMEOUT,
) -> None:
    """List proposed splits, or record a person's split of an entity the build merged by name."""
    from kgkit.workflows.split import proposals, split, withdraw_split

    ws = o.open_workspace(workspace)
    with o.workspace_errors():
        if entity is None:
            found = proposals(ws)
            if as_json:
                typer.echo(json.dumps([p.model_dump(mode="json") for p in found], indent=2))
                return
            typer.echo(f"{len(found)} proposed split(s): each group of documents shares no co-mentioned entity")
            for p in found:
                typer.echo(plain(f"\n{p.name} ({p.entity})"))
                for docs, context in zip(p.groups, p.context):
                    typer.echo(plain(f"  {', '.join(docs[:6])}{' ...' if len(docs) > 6 else ''}"
                                     f"  | with: {', '.join(context[:6])}"))
            return
        if withdraw:
            gone = withdraw_split(ws, entity, at=o.now(), lock_timeout=lock_timeout)
            typer.echo(f"withdrew {len(gone)} split(s) of {entity}; run `kgkit apply -w {workspace}` to join them")
            return
        if not document and not chunk:
            o.fail("name the documents (--document) or chunks (--chunk) whose mentions move", code=2)
        made = split(ws, entity, documents=document, chunks=chunk, label=label, why=why, at=o.now(),
                     lock_timeout=lock_timeout)
    typer.echo(plain(f"recorded: {made.subjects[0]} -> {made.subjects[1]} for {len(made.documents)} document(s), "
                     f"{len(made.chunks)} chunk(s); run `kgkit apply -w {workspace}` to make it"))
