"""Entity resolution over a Workspace: resolve (candidates + policy decisions), record a person's decisions,
apply them and undo the last apply, each a few declared steps (`APPLY_STEPS`, `UNDO_STEPS`, both ending with
`COMMIT_CHANGE_STEPS`): graph, journal and communities in one generation, and what
derives from the graph marked stale instead of rebuilt inline: graph.html (removed until `kgkit view` draws it
again), the search index (`kgkit search` brings it up to date), the narrative (`kgkit narrate`).

>>> import tempfile
>>> from kgkit.testing.workspaces import sample_workspace
>>> ws = sample_workspace(tempfile.mkdtemp())      # two spellings of one person
>>> found = resolve(ws, at="2026-01-01T00:00:00Z")
>>> [(c.source_name, c.target_name) for c in found.pending]   # a slip in a name, a surname: a person decides
[('Charles Babage', 'Charles Babbage'), ('Lovelace', 'Ada Lovelace')]
>>> from kgkit.core.decisions import person_decision
>>> pair = (found.pending[0].source, found.pending[0].target)
>>> _ = record(ws, [person_decision("merge", pair, why="same man, misspelt")])
>>> applied = apply(ws)
>>> applied.changed, len(ws.journal_names()), sorted(applied.stale)
(True, 1, [])
>>> undo(ws).journal, len(ws.journal_names())
('journal/0001.json', 0)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from kgkit import io
from kgkit.core.decisions import split_specs
from kgkit.core.domain import DomainError
from kgkit.core.graph import Graph
from kgkit.io.decisions import (
    CANDIDATES_FILE,
    DECISIONS_FILE,
    candidates_rows,
    decisions_text,
    read_candidates,
    read_decisions,
    read_journal,
)
from kgkit.io.generation import dumps_json
from kgkit.io.workspace import (
    COMMUNITIES,
    GRAPH,
    JOURNAL_DIR,
    VIEW,
    Workspace,
    WorkspaceError,
    as_workspace,
    read_graph,
)
from kgkit.stages.communities import Communities, assign_communities, detect_communities, without_communities
from kgkit.stages.resolve import (
    Decision,
    MergeCandidate,
    Policy,
    ResolveConfig,
    apply_decisions,
    decide,
    merge_candidates,
    pending,
)
from kgkit.stages.resolve import undo as undo_stage
from kgkit.stages.resolve.apply import Applied as AppliedGraph
from kgkit.stages.resolve.apply import journal_between
from kgkit.stages.resolve.regroup import kept_apart_candidates
from kgkit.workflows.graph import DERIVED_BY_GRAPH, VIEW_STALE, rebuild_graph
from kgkit.workflows.pipeline import Settings, Step, execute

__all__ = ["APPLY_STEPS", "COMMIT_CHANGE_STEPS", "UNDO_STEPS", "Applied", "Resolved", "Undone", "apply", "candidates", "decisions",
           "merged_away", "record", "resolve", "symmetric_types", "undo"]


@dataclass
class Resolved:
    """A resolution run: every candidate, the decisions file after it, what waits for a person."""

    candidates: list[MergeCandidate]
    decisions: list[Decision]
    pending: list[MergeCandidate]
    generation: int

    def summary(self) -> dict[str, Any]:
        return {"candidates": len(self.candidates),
                "policy_merges": sum(d.decided_by == "policy" for d in self.decisions),
                "person_decisions": sum(d.decided_by == "person" for d in self.decisions),
                "pending_review": len(self.pending),
                "ambiguous": sum(c.verdict == "ambiguous" for c in self.candidates)}


@dataclass
class Applied:
    """An apply: the graph before and after, the journal written (None when nothing changed)."""

    before: Graph
    graph: Graph
    journal: str | None
    applied: int = 0
    merged_away: int = 0
    generation: int = 0
    undone: list[str] = field(default_factory=list)  # journals undone first: they held merges now kept apart
    stale: dict[str, str] = field(default_factory=dict)  # artefacts now out of date (name -> what to run)
    changed: bool = field(init=False)

    def __post_init__(self) -> None:
        self.changed = self.journal is not None or bool(self.undone)


@dataclass
class Undone:
    """An undo: the journal popped and the graph restored."""

    journal: str
    graph: Graph
    generation: int
    stale: dict[str, str] = field(default_factory=dict)  # artefacts now out of date (name -> what to run)


def symmetric_types(graph: Graph, domain: str | None = None) -> frozenset[str]:
    """Relation types the domain declares symmetric (the `domain` given, else the graph's bundled one)."""
    name = domain or graph.meta.get("domain_name")
    if not name:
        return frozenset()
    try:
        return io.load_domain(name).symmetric_types()
    except DomainError:
        if domain:
            raise
        return frozenset()


def candidates(workspace: Workspace | str | os.PathLike[str]) -> list[MergeCandidate]:
    """The last resolution run's candidates."""
    return read_candidates(as_workspace(workspace))


def decisions(workspace: Workspace | str | os.PathLike[str]) -> list[Decision]:
    """The workspace's decisions (policy, person, llm)."""
    return read_decisions(as_workspace(workspace))


def _groups_after(ws: Workspace, names: Sequence[str]) -> list[dict[str, str]]:
    """For each journal in `names` (oldest first), {entity id: the id it is merged into} after it was applied."""
    root: dict[str, str] = {}
    out = []
    for name in names:
        for away, kept in read_journal(ws, name).mapping.items():
            root[away] = kept
            for k, v in root.items():
                if v == away:
                    root[k] = kept
        out.append(dict(root))
    return out


def _joins(root: dict[str, str], pair: Sequence[str]) -> bool:
    a, b = pair
    return root.get(a, a) == root.get(b, b)


def merged_away(workspace: Workspace | str | os.PathLike[str], pair: Sequence[str]) -> bool:
    """True when the applies still in the graph (its journals) merged the two entities of `pair` into one: a
    keep-apart decision on them (a veto) takes effect at the next `apply`, which undoes those applies first."""
    ws = as_workspace(workspace)
    groups = _groups_after(ws, ws.journal_names())
    return bool(groups) and _joins(groups[-1], pair)


def _to_undo(ws: Workspace, made: Sequence[Decision]) -> list[str]:
    """The journals (oldest first) to undo before applying `made`: from the first apply that joined two
    entities a decision now keeps apart to the last."""
    apart = [d.subjects for d in made if d.kind == "keep_apart" and d.verdict == "accept"]
    names = ws.journal_names()
    if not apart or not names:
        return []
    for i, root in enumerate(_groups_after(ws, names)):
        if any(_joins(root, pair) for pair in apart):
            return names[i:]
    return []


def resolve(
    workspace: Workspace | str | os.PathLike[str], *, embedder: Any = None, auto_accept: float = 0.9,
    margin: float = 0.05, at: str, lock_timeout: float = 60.0, min_probability: float | None = None,
) -> Resolved:
    """Propose merge candidates for the current graph and let the policy decide the ones it is sure of; person
    decisions already in decisions.yaml are kept as they are. `at`: the time stamped on new decisions.
    `min_probability`: score the candidates (and pairs the graph proposes) with the learned model, the
    shipped prior updated by the person decisions so far, and merge only at this probability or above
    (kgkit.stages.resolve.learned; the guards still hold)."""
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="resolve"):
        graph = read_graph(ws)
        found = merge_candidates(graph, config=ResolveConfig(margin=margin, auto_accept=auto_accept),
                                 embedder=embedder)
        earlier = read_decisions(ws)
        found += kept_apart_candidates(found, earlier)  # spellings a person took out of their exact-key group
        if min_probability is not None:
            from kgkit.stages.resolve.learned import learned_candidates
            from kgkit.stages.resolve.prior import PRIOR_MODEL

            found = learned_candidates(graph, found, earlier, PRIOR_MODEL)
        policy = Policy(auto_accept=auto_accept, min_probability=min_probability)
        made = decide(found, decisions=earlier, policy=policy, at=at)
        gen = ws.begin("resolve", config={"auto_accept": auto_accept, "margin": margin,
                                          **({"min_probability": min_probability} if min_probability is not None else {})})
        gen.write_jsonl(CANDIDATES_FILE, candidates_rows(found))
        gen.write_text(DECISIONS_FILE, decisions_text(made))
        number = gen.commit()
    return Resolved(candidates=found, decisions=made, pending=pending(found, made), generation=number)


def record(workspace: Workspace | str | os.PathLike[str], made: Sequence[Decision], *,
           lock_timeout: float = 60.0) -> list[Decision]:
    """Add a person's decisions (each replaces any earlier decision about the same subjects) and commit the
    decisions file; returns every decision now in it."""
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="review"):
        keys = {d.pair_key for d in made}
        merged = [d for d in read_decisions(ws) if d.pair_key not in keys] + list(made)
        gen = ws.begin("review")
        gen.write_text(DECISIONS_FILE, decisions_text(merged))
        gen.commit()
    return read_decisions(ws)


def _undo_journals(ws: Workspace, base: Graph, names: Sequence[str]) -> tuple[Graph, dict[str, bytes | None]]:
    """`base` with the applies of journals `names` undone (newest first), and the journal files that records:
    each moved to NNNN.undone-<hash>.json."""
    files: dict[str, bytes | None] = {}
    for old in reversed(names):
        journal_before = read_journal(ws, old)
        try:
            base = undo_stage(base, journal_before)
        except ValueError as exc:
            raise WorkspaceError(f"cannot undo {old} to take back a merge now kept apart ({exc}); run `kgkit "
                                 "undo` until that merge is undone, then `kgkit apply`") from exc
        files[old] = None
        files[f"{old[:-5]}.undone-{journal_before.after_sha256[:12]}.json"] = ws.read_bytes(old)
    return base, files


@dataclass(frozen=True)
class _Change:
    """What applying the decisions makes of the graph: the stage's result (its graph without communities: they
    are found again), the journals undone first (a veto), the journal files to write or remove, the new journal."""

    out: AppliedGraph
    undone: list[str]
    files: list[tuple[str, bytes | None]]
    journal: str | None

    @property
    def changed(self) -> bool:
        return self.journal is not None or bool(self.undone)


def _find_communities(graph: Graph, settings: Settings) -> tuple[Graph, Communities]:
    """The graph's communities (the settings' seed and method) and the graph that carries them."""
    comms = detect_communities(graph, seed=settings.seed, method=settings.community_method)
    return assign_communities(graph, comms), comms


def _commit_change(ws: Workspace, graph: Graph, communities: Communities, files: Sequence[tuple[str, bytes | None]],
                   step: str) -> tuple[int]:
    """Commit a graph a decision changed (apply, undo), its communities and `files` (name -> bytes, None to
    remove) as one generation. When graph.json's bytes change, graph.html is removed (a view of the graph
    before would mislead; the next `kgkit view` draws it) and marked stale, with the index and narrative."""
    gen = ws.begin(step)
    graph_bytes = graph.to_json_bytes(end=b"\n")
    if not ws.holds(GRAPH, graph_bytes):
        gen.mark_stale({name: why for name, why in {**DERIVED_BY_GRAPH, VIEW: VIEW_STALE}.items() if ws.exists(name)})
        if ws.exists(VIEW):
            gen.remove(VIEW)
    gen.write_bytes(GRAPH, graph_bytes)
    gen.write_json(COMMUNITIES, communities.to_json_dict())
    gen.stage(files)
    return (gen.commit(),)


COMMIT_CHANGE_STEPS = (
    Step("communities", _find_communities, inputs=("graph", "settings"), outputs=("graph", "communities")),
    Step("commit", _commit_change, inputs=("ws", "graph", "communities", "files", "step"), outputs=("generation",)),
)
"""The end of `apply` and `undo`: the changed graph's communities found, then graph, communities and `files`
committed, the derived artefacts marked stale."""


def _read_graph(ws: Workspace) -> tuple[Graph]:
    return (read_graph(ws),)


def _read_decisions(ws: Workspace) -> tuple[list[Decision]]:
    return (read_decisions(ws),)


def _apply_decisions(ws: Workspace, before: Graph, decisions: list[Decision], domain: str | None) -> tuple[_Change]:
    """The decisions applied to the graph (see `apply`); communities are derived: the journal records the merge
    itself, they are found again afterwards."""
    base = without_communities(before)
    specs = split_specs(decisions)
    rejects = any(d.kind == "reject_relation" for d in decisions)  # only then does a symmetric type matter
    symmetric = symmetric_types(before, domain) if rejects else frozenset()
    if [s.new_id for s in specs] != list(before.meta.get("splits", [])):  # a split made or withdrawn
        undone, files = [], {}
        out = apply_decisions(rebuild_graph(ws, splits=specs), decisions, symmetric=symmetric)
        out = replace(out, journal=journal_between(base, out.graph, out.journal.entries, out.mapping))
    else:
        undone = _to_undo(ws, decisions)
        base, files = _undo_journals(ws, base, undone)
        out = apply_decisions(base, decisions, symmetric=symmetric)
    name: str | None = None
    if out.journal.before_sha256 != out.journal.after_sha256:  # else an undo alone (or nothing) is the change
        kept = [n for n in ws.journal_names() if n not in undone]
        name = f"{JOURNAL_DIR}/{int(PurePosixPath(kept[-1]).stem) + 1 if kept else 1:04d}.json"
        files[name] = dumps_json(out.journal.model_dump(mode="json")).encode() + b"\n"
    return (_Change(out=out, undone=undone, files=sorted(files.items()), journal=name),)


APPLY_STEPS = (
    Step("graph", _read_graph, inputs=("ws",), outputs=("before",)),
    Step("decisions", _read_decisions, inputs=("ws",), outputs=("decisions",)),
    Step("apply", _apply_decisions, inputs=("ws", "before", "decisions", "domain"), outputs=("change",)),
)
"""`apply` up to the change: graph and decisions read, decisions applied; when the graph changed,
`COMMIT_CHANGE_STEPS` (communities, commit) follow."""


def _undo_last(ws: Workspace) -> tuple[str, Graph, list[tuple[str, bytes | None]]]:
    """The last apply undone: its journal's name, the graph restored (without communities), the journal files
    (the journal moved to NNNN.undone-<hash>.json)."""
    names = ws.journal_names()
    if not names:
        raise WorkspaceError("nothing to undo: no applied journal in this workspace")
    journal = read_journal(ws, names[-1])
    restored = undo_stage(without_communities(read_graph(ws)), journal)
    kept = f"{names[-1][:-5]}.undone-{journal.after_sha256[:12]}.json"
    return names[-1], restored, [(names[-1], None), (kept, ws.read_bytes(names[-1]))]


UNDO_STEPS = (
    Step("undo", _undo_last, inputs=("ws",), outputs=("journal", "graph", "files")),
    *COMMIT_CHANGE_STEPS,
)
"""`undo`: the last journal undone, then the restored graph's communities found and everything committed."""


def apply(workspace: Workspace | str | os.PathLike[str], *, domain: str | None = None,
          lock_timeout: float = 60.0) -> Applied:
    """Apply the accepted decisions: the merged graph with its communities and its journal (journal/NNNN.json),
    one generation; graph.html is removed and, with the search index and narrative, marked stale
    (`Applied.stale`): `kgkit view WS` draws it again. Nothing is written when the graph already reflects every
    decision.

    A keep-apart decision (a person's veto) on entities an earlier apply merged undoes that apply and every
    later one first (their journals are kept as NNNN.undone-<hash>.json, as `undo` does), then applies all
    decisions again, in the same generation; `Applied.undone` names those journals.

    A split decision made or withdrawn since the graph was built rebuilds the graph from the workspace's
    extractions with the splits, then applies every decision; its journal still undoes it exactly."""
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="apply"):
        done = execute(APPLY_STEPS, {"ws": ws, "domain": domain})
        change: _Change = done["change"]
        if not change.changed:
            return Applied(before=done["before"], graph=done["before"], journal=None,
                           generation=ws.manifest().generation, stale=dict(ws.manifest().stale))
        done = execute(COMMIT_CHANGE_STEPS, {**done, "graph": change.out.graph, "files": change.files, "step": "apply",
                                             "settings": Settings.of(ws)})
    entries = change.out.journal.entries
    return Applied(before=done["before"], graph=done["graph"], journal=change.journal,
                   applied=sum(e.status == "applied" for e in entries), merged_away=len(change.out.mapping),
                   generation=done["generation"], undone=change.undone, stale=dict(ws.manifest().stale))


def undo(workspace: Workspace | str | os.PathLike[str], *, lock_timeout: float = 60.0) -> Undone:
    """Restore the graph as it was before the last apply (the same entities and relations, byte for byte in
    graph.json, communities found again) and pop its journal, one generation; graph.html, the search index and
    the narrative are marked stale as `apply` marks them (`Undone.stale`)."""
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="undo"):
        done = execute(UNDO_STEPS, {"ws": ws, "step": "undo", "settings": Settings.of(ws)})
    return Undone(journal=done["journal"], graph=done["graph"], generation=done["generation"],
                  stale=dict(ws.manifest().stale))
