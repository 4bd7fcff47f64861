"""The graph workflows over a Workspace: build (extractions -> graph), import a graph made elsewhere (a sift-kg
project), communities, view, and how a changed graph is committed: `commit_graph` (fresh communities and view
in the same generation; search index and narrative marked stale; `apply` and `undo` end with their own steps,
kgkit.workflows.resolve's `COMMIT_CHANGE_STEPS`). Decisions survive a rebuild: `replay_decisions` applies
decisions.yaml again to a graph built anew.

>>> import tempfile
>>> from kgkit.testing.workspaces import sample_workspace
>>> ws = sample_workspace(tempfile.mkdtemp())
>>> built = build(ws)                       # from the workspace's own extractions.jsonl
>>> built.generation, bool(built.graph.entities["community"].notna().all())
(2, True)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kgkit import io
from kgkit.core.constants import VIEW_NODES
from kgkit.core.decisions import SplitSpec
from kgkit.core.domain import Domain
from kgkit.core.graph import Graph
from kgkit.io.workspace import (
    COMMUNITIES,
    DECISIONS,
    EXTRACTIONS,
    GRAPH,
    JOURNAL_DIR,
    VIEW,
    Generation,
    Workspace,
    WorkspaceError,
    as_workspace,
    read_graph,
)
from kgkit.stages.build import build_graph
from kgkit.stages.communities import Communities, assign_communities, detect_communities, without_communities
from kgkit.workflows.pipeline import Settings

__all__ = ["DERIVED_BY_GRAPH", "VIEW_STALE", "BuildResult", "Imported", "as_workspace", "build", "commit_graph",
           "communities", "domain_of", "import_graph", "import_siftkg", "mark_stale_if_changed", "read_graph",
           "rebuild_graph", "replay_decisions", "split_options", "view", "view_html", "workspace_splits",
           "write_graph_outputs"]

DERIVED_BY_GRAPH = {"index": "the graph changed: run `kgkit index -w WS`",
                    "narrative.md": "the graph changed: run `kgkit narrate WS`"}
VIEW_STALE = "the graph changed: run `kgkit view WS` to draw it again"


def domain_of(domain: Domain | str) -> Domain:
    return io.load_domain(domain) if isinstance(domain, str) else domain


def write_graph_outputs(gen: Generation, graph: Graph, comms: Communities, *, write_view: bool,
                         view_nodes: int, graph_bytes: bytes | None = None, view: str | None = None,
                         drop_view: bool = True) -> dict[str, str]:
    """Stage graph.json, communities.json and graph.html (or, `drop_view`, drop a view that would now be stale).
    `graph_bytes` and `view`: graph.json's bytes and graph.html's text (`view_html`'s) when the caller made them
    already (an add draws the view in another process)."""
    root = gen.workspace.root
    gen.write_bytes(GRAPH, graph_bytes if graph_bytes is not None else graph.to_json_bytes(end=b"\n"))
    gen.write_json(COMMUNITIES, comms.to_json_dict())
    outputs = {"graph": str(root / GRAPH), "communities": str(root / COMMUNITIES)}
    if write_view:
        gen.write_text(VIEW, view if view is not None else view_html(gen.workspace, graph, view_nodes))
        outputs["view"] = str(root / VIEW)
    elif drop_view and gen.workspace.exists(VIEW):
        gen.remove(VIEW)  # a view of an older graph would mislead
    return outputs


def view_html(ws: Workspace, graph: Graph, view_nodes: int) -> str:
    """graph.html's text for `graph` (its `view_nodes` largest entities), each community's layout computed once
    (kept in the workspace's cache)."""
    from kgkit.io.cache import Cache
    from kgkit.views.explorer.layout import layouts_cached
    from kgkit.views.graph_page import graph_html

    with layouts_cached(Cache(ws.cache_dir)):
        return graph_html(graph, max_nodes=view_nodes)


def mark_stale_if_changed(gen: Generation, graph_bytes: bytes, *, view: bool = False) -> None:
    """Mark the search index and narrative stale when the graph's bytes change (and they exist); `view`: the
    view too (graph.html, which the caller does not draw again)."""
    ws = gen.workspace
    if ws.holds(GRAPH, graph_bytes):
        return
    derived = {**DERIVED_BY_GRAPH, VIEW: VIEW_STALE} if view else DERIVED_BY_GRAPH
    gen.mark_stale({name: why for name, why in derived.items() if ws.exists(name)})


@dataclass
class BuildResult:
    """A graph built from extractions (no extractor ran), its communities and what was written."""

    graph: Graph
    communities: Communities
    chunk_errors: int
    outputs: dict[str, str]
    generation: int


def build(
    workspace: Workspace | str | os.PathLike[str],
    source: str | Path | None = None,
    *,
    domain: Domain | str = "general",
    learned_at: str | None = None,
    seed: int = 0,
    method: Literal["louvain", "leiden"] = "louvain",
    repair: bool = True,
    max_view_nodes: int = VIEW_NODES,
    write_view: bool = True,
    lock_timeout: float = 60.0,
) -> BuildResult:
    """Build the graph from extractions — the workspace's own extractions.jsonl, or `source`: another
    extractions.jsonl, a workspace holding one, or a sift-kg output folder — then communities and view."""
    from kgkit.io.extractions import read_extractions

    ws = as_workspace(workspace)
    dom = domain_of(domain)
    with ws.writer(lock_timeout=lock_timeout, step="build"):
        found = read_extractions(ws.path(EXTRACTIONS) if source is None else Path(source), domain=dom)
        built = build_graph(found, domain=dom, learned_at=learned_at, repair=repair, splits=workspace_splits(ws))
        graph, journals = replay_decisions(ws, built, dom)
        comms = detect_communities(graph, seed=seed, method=method)
        graph = assign_communities(graph, comms)
        gen = ws.begin("build", config={"domain": dom.id, "domain_source": domain if isinstance(domain, str) else dom.name,
                                        "learned_at": learned_at, "seed": seed, "community_method": method,
                                        "view_nodes": max_view_nodes})
        mark_stale_if_changed(gen, graph.to_json_bytes(end=b"\n"))
        outputs = write_graph_outputs(gen, graph, comms, write_view=write_view, view_nodes=max_view_nodes)
        gen.stage(journals)
        number = gen.commit()
    from kgkit.io.extractions import failed_chunks

    return BuildResult(graph=graph, communities=comms, chunk_errors=failed_chunks(found), outputs=outputs,
                       generation=number)


def workspace_splits(ws: Workspace) -> tuple[SplitSpec, ...]:
    """The accepted split decisions of the workspace, as `build_graph(..., splits=)` takes them."""
    if not ws.exists(DECISIONS):  # none: the resolve stages (rapidfuzz ...) are not imported for nothing
        return ()
    from kgkit.core.decisions import split_specs
    from kgkit.io.decisions import read_decisions

    return split_specs(read_decisions(ws))


def split_options(ws: Workspace) -> dict[str, tuple[SplitSpec, ...]]:
    """`build_graph` keyword arguments for the workspace's splits: {} when there are none (the build's cache key
    stays what it was)."""
    specs = workspace_splits(ws)
    return {"splits": specs} if specs else {}


def rebuild_graph(ws: Workspace, *, splits: Sequence[SplitSpec]) -> Graph:
    """The graph as the last build made it (no decisions applied, no communities), built again from the
    workspace's extractions with `splits`: how a new split decision reaches the graph."""
    from kgkit.io.extractions import read_extractions

    if not ws.exists(EXTRACTIONS):
        raise WorkspaceError(f"{ws.root} has no {EXTRACTIONS}: a split is made when the graph is built from "
                             "extractions, and this graph was imported")
    config = Settings.of(ws)
    dom = domain_of(config.domain_name)
    found = read_extractions(ws.path(EXTRACTIONS), domain=dom)
    return build_graph(found, domain=dom, learned_at=config.learned_at, splits=splits)


def replay_decisions(ws: Workspace, graph: Graph, domain: Domain) -> tuple[Graph, list[tuple[str, bytes | None]]]:
    """A rebuilt graph with the workspace's accepted decisions applied again (decisions survive a rebuild),
    and the journal files that go with it: the journals of the graph it replaces are removed, and a fresh
    journal/0001.json (when a decision changed anything) lets `undo` return to the graph as built."""
    files: dict[str, bytes | None] = {name: None for name in ws.journal_names()}
    decisions: list = []
    if ws.exists(DECISIONS):  # only then are the resolve stages (rapidfuzz ...) imported
        from kgkit.io.decisions import read_decisions

        decisions = read_decisions(ws)
    if decisions:
        from kgkit.stages.resolve import apply_decisions

        out = apply_decisions(without_communities(graph), decisions, symmetric=domain.symmetric_types())
        if out.journal.before_sha256 != out.journal.after_sha256:
            files[f"{JOURNAL_DIR}/0001.json"] = io.dumps_json(out.journal.model_dump(mode="json")).encode() + b"\n"
            graph = out.graph
    return graph, sorted(files.items())


def commit_graph(ws: Workspace, graph: Graph, *, step: str, extra: Sequence[tuple[str, bytes | None]] = (),
                 seed: int | None = None, method: str | None = None, write_view: bool = True,
                 view_nodes: int | None = None) -> tuple[Graph, Communities, int]:
    """Commit a changed graph with fresh communities and view (and `extra` files: name -> bytes, None to
    remove) as one generation; the search index and narrative become stale. Inside `ws.writer()`."""
    config = Settings.of(ws)
    seed = config.seed if seed is None else seed
    method = config.community_method if method is None else method
    view_nodes = config.view_nodes if view_nodes is None else view_nodes
    comms = detect_communities(graph, seed=seed, method=method)
    graph = assign_communities(graph, comms)
    gen = ws.begin(step, config={"seed": seed, "community_method": method, "view_nodes": view_nodes})
    mark_stale_if_changed(gen, graph.to_json_bytes(end=b"\n"))
    write_graph_outputs(gen, graph, comms, write_view=write_view, view_nodes=view_nodes)
    gen.stage(extra)
    return graph, comms, gen.commit()


def import_graph(workspace: Workspace | str | os.PathLike[str], graph: Graph, *, write_view: bool = True,
                 max_view_nodes: int = VIEW_NODES, lock_timeout: float = 60.0) -> tuple[Graph, int]:
    """Make a graph made elsewhere (a sift-kg project, an export read back) the workspace's graph, with its
    communities and view, as one generation; returns the graph committed and the generation."""
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="import"):
        graph, _, number = commit_graph(ws, graph, step="import", write_view=write_view, view_nodes=max_view_nodes)
    return graph, number


def communities(
    workspace: Workspace | str | os.PathLike[str], *, seed: int = 0,
    method: Literal["louvain", "leiden"] = "louvain", lock_timeout: float = 60.0,
) -> Communities:
    """Find the current graph's communities again (another seed or method): graph.json, communities.json and
    graph.html are rewritten."""
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="communities"):
        _, comms, _ = commit_graph(ws, read_graph(ws), step="communities", seed=seed, method=method)
    return comms


def view(workspace: Workspace | str | os.PathLike[str], *, max_nodes: int | None = None,
         lock_timeout: float = 60.0) -> Path:
    """Draw graph.html again from the current graph (`max_nodes`: the most connected entities shown)."""
    from kgkit.views.graph_page import graph_html

    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="view"):
        nodes = Settings.of(ws).view_nodes if max_nodes is None else max_nodes
        gen = ws.begin("view", config={"view_nodes": nodes})
        gen.write_text(VIEW, graph_html(read_graph(ws), max_nodes=nodes))
        gen.commit()
    return ws.path(VIEW)


@dataclass
class Imported:
    """A sift-kg project moved into a workspace: the graph committed, the extractions that had failed in
    sift-kg (when rebuilt from them), the generation."""

    graph: Graph
    errors: list[str] = field(default_factory=list)
    generation: int = 0


def import_siftkg(
    workspace: Workspace | str | os.PathLike[str], source: str | os.PathLike[str], *, from_extractions: bool = False,
    domain: Domain | str = "general", write_view: bool = True, max_view_nodes: int = VIEW_NODES,
    lock_timeout: float = 60.0,
) -> Imported:
    """Move a sift-kg 0.9.0 project (its output folder, or its graph_data.json) into the workspace: its graph as
    sift-kg built it, or, with `from_extractions` (or when it has no graph_data.json), its extractions/*.json
    rebuilt by kgkit. FileNotFoundError when the folder holds neither."""
    from kgkit.io.importers import read_siftkg_extractions, read_siftkg_graph

    folder = Path(source)
    graph_file = folder / "graph_data.json" if folder.is_dir() else folder
    extractions_dir = folder / "extractions" if (folder / "extractions").is_dir() else folder
    errors: list[str] = []
    if from_extractions or not graph_file.is_file():
        if not folder.is_dir() or not any(extractions_dir.glob("*.json")):
            raise FileNotFoundError(f"{source}: no graph_data.json and no extractions/*.json")
        extractions = read_siftkg_extractions(extractions_dir)
        errors = [e for d in extractions for e in d.errors]
        graph = build_graph(extractions, domain=domain_of(domain))
    else:
        graph = read_siftkg_graph(graph_file)
    committed, number = import_graph(workspace, graph, write_view=write_view, max_view_nodes=max_view_nodes,
                                     lock_timeout=lock_timeout)
    return Imported(graph=committed, errors=errors, generation=number)
