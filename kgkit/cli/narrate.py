"""`kgkit narrate`: a graph's narrative as Markdown (+ JSON data): the narrate workflow.

    kgkit narrate GRAPH -o narrative.md                                   extractive, offline
    kgkit narrate GRAPH -o narrative.md --model openai/gpt-4o-mini --max-cost 0.10
    kgkit narrate GRAPH --json                                            the kgkit.narrative/1 JSON on stdout

GRAPH is a graph.json or a workspace folder holding one. Heavy imports (pandas, litellm) stay inside the
command so `kgkit --help` starts fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import options as o
from kgkit.cli.display import plain


@o.with_llm_options("max_cost", "price_in", "price_out", "free", "api_base", "concurrency", max_tokens=1024)
def narrate_command(
    graph: Path = typer.Argument(..., help="A workspace, or a graph.json file."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Markdown file to write (narrative.json is written beside it). Default: narrative.md beside the graph."),
    cache: Path | None = typer.Option(None, help="Cache folder (default: the graph's workspace/cache)."),
    top_entities: int = typer.Option(10, "--entities", help="Most connected entities to describe."),
    chains: int = typer.Option(5, "--chains", help="Relationship chains to tell."),
    timeline: int = typer.Option(12, "--timeline", help="Dated facts in the timeline at most."),
    llm_communities: int = typer.Option(10, "--llm-communities", help="Largest communities labelled by the model (the rest extractively)."),
    seed: int = typer.Option(0, help="Seed, when the graph carries no communities and they must be found."),
    as_json: bool = typer.Option(False, "--json", help="Print the narrative as kgkit.narrative/1 JSON."),
    llm: Any = None,
) -> None:
    """Write an overview, the main relationship chains, a timeline, entity descriptions and community labels,
    every sentence citing its relations and documents."""
    from kgkit.io.cache import Cache
    from kgkit.llm.errors import PreflightError
    from kgkit.workflows.narrate import narrate

    ws, file = o.workspace_and_graph(graph)
    if ws is None:  # a graph file outside a workspace: its folder holds cache and outputs
        ws = o.open_workspace(file.parent, create=False)  # type: ignore[union-attr]
    store = Cache(cache if cache is not None else ws.cache_dir)
    with o.workspace_errors():
        client = None if llm is None else llm.client(cache=store)
    try:
        told = narrate(ws, graph=None if file is None else o.read_graph_arg(file), output=output, llm=client,
                       cache=store, seed=seed, top_entities=top_entities, chains=chains, timeline=timeline,
                       llm_communities=llm_communities)
    except FileNotFoundError:
        o.fail(f"no graph in {graph} (run `kgkit run DOCS -o {graph}` first)")
    except ValueError as exc:
        o.fail(f"cannot narrate {graph}: {exc}")
    except PreflightError as exc:  # the model failed its check before any narration request: exit 2
        o.fail(f"error: {exc}")
    paths = told.paths
    from kgkit import io

    data = io.read_json(paths["narrative_json"])
    if as_json:
        if client is not None:
            data["llm"] = client.ledger.summary()
        typer.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))
        return
    fallbacks = _fallbacks(data)
    typer.echo(f"{len(data['entities'])} entities described, {len(data['communities'])} communities labelled, "
               f"{len(data['sources'])} relations cited -> {paths['narrative']} (+ {Path(paths['narrative_json']).name})")
    if client is not None:
        s = client.ledger.summary()
        cap = "no cap" if s["cap_usd"] is None else f"${s['cap_usd']:.4f}"
        typer.echo(f"LLM spent ${s['spent_usd']:.4f} / {cap}; {s['refused']} requests refused by the budget")
    for where, why in fallbacks[:10]:
        typer.echo(f"extractive fallback {plain(where)}: {plain(why[:160])}")
    if len(fallbacks) > 10:
        typer.echo(f"... {len(fallbacks) - 10} more fallbacks in {paths['narrative_json']}")


def _fallbacks(data: dict) -> list[tuple[str, str]]:
    out = [(k, data[k]["fallback"]) for k in ("overview", "chains", "timeline") if data[k].get("fallback")]
    out += [(e["entity"], e["fallback"]) for e in data["entities"] if e.get("fallback")]
    out += [(c["community"], c["fallback"]) for c in data["communities"] if c.get("fallback")]
    return out
