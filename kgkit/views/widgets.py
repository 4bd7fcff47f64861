"""Notebook widgets (anywidget): the Python side holds synced traits only; converters are pure functions.

Explorer is the graph explorer of graph.html in a notebook (`Explorer.from_graph(graph)`); the entities a
person selects in it arrive in its `selected` trait.

MergeReview shows merge candidates (both names and types, score, features, reasons, evidence sentences with
the documents they come from, neighbours) and lets a person accept / reject / skip each, edit the name the
kept entity carries, use keyboard shortcuts and accept everything above a threshold. Given the decisions
(`decisions=`), every candidate is shown, the ones the policy (or an LLM judge) already decided too, marked
("policy merged: score 0.97 — v to veto"): undecided first, closest to the policy threshold first (where a
decision teaches most), then the decided ones. A veto (v, or reject) becomes a person's keep_apart. The front end is the plain ES modules in
``widgets/`` (``merge_review_logic.js`` = pure state transitions, ``merge_review.js`` = rendering), shipped
as one module string (anywidget loads ``_esm`` from a string, so the relative import is inlined).

    review = MergeReview.from_candidates(candidates, graph=graph)      # a notebook cell shows it
    decisions = actions_to_decisions(review.candidates, review.actions, who="me", at=now)

>>> from kgkit.core.decisions import MergeCandidate
>>> c = MergeCandidate(source="P:j smith", target="P:jane smith", source_name="J. Smith", target_name="Jane Smith",
...     source_type="Person", target_type="Person", score=0.92, step="rule", verdict="unique", features={},
...     reasons=("initials agree",))
>>> payload = candidates_payload([c])
>>> payload[0]["key"], payload_to_candidates(payload) == [c]
('P:j smith|P:jane smith', True)
>>> [(d.kind, d.subjects, d.decided_by) for d in actions_to_decisions(payload, {payload[0]["key"]:
...     {"verdict": "reject", "canonical": "Jane Smith"}})]
[('keep_apart', ('P:j smith', 'P:jane smith'), 'person')]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgkit.core.decisions import Decision, MergeCandidate, person_decision

_HERE = Path(__file__).resolve().parent
WIDGET_DIRS = (_HERE,)
"""Where the ES modules are looked for: inside the package (a wheel) or the repository's widgets/."""
_CANDIDATE_FIELDS = tuple(MergeCandidate.model_fields)


def widget_dir() -> Path:
    """The directory holding the widget ES modules."""
    for d in WIDGET_DIRS:
        if (d / "merge_review.js").exists():
            return d
    raise FileNotFoundError(f"widget modules not found in {[str(d) for d in WIDGET_DIRS]}")


def bundle_esm(name: str, directory: Path | None = None) -> str:
    """One ES module: `<name>_logic.js` followed by `<name>.js` without its import of the logic module."""
    d = directory or widget_dir()
    logic = (d / f"{name}_logic.js").read_text(encoding="utf-8")
    view = (d / f"{name}.js").read_text(encoding="utf-8")
    pattern = re.compile(r'^import \{[^}]*\} from "\./' + re.escape(name) + r'_logic\.js";\n', re.MULTILINE)
    view, n = pattern.subn("", view)
    if n != 1:
        raise ValueError(f"{name}.js must import {name}_logic.js exactly once")
    return logic + "\n" + view


def merge_review_esm(directory: Path | None = None) -> str:
    """The MergeReview front end as one ES module string."""
    return bundle_esm("merge_review", directory)


def candidate_key(c: MergeCandidate | Mapping[str, Any]) -> str:
    """The widget's key of a candidate: "source|target"."""
    source, target = (c.source, c.target) if isinstance(c, MergeCandidate) else (c["source"], c["target"])
    return f"{source}|{target}"


Context = tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]


def _document_names(graph: Any) -> dict[str, str]:
    """{document id: its path} from the graph's documents table (the id itself when the path is unknown)."""
    docs = getattr(graph, "documents", None)
    if docs is None or docs.empty or "path" not in docs:
        return {}
    return {str(i): str(p) for i, p in zip(docs["id"].tolist(), docs["path"].tolist()) if isinstance(p, str) and p}


def _context(graph: Any, ids: set[str], *, evidence: int, neighbours: int) -> Context:
    """Evidence sentences, the document each comes from (its path) and neighbour names for the given entity
    ids (bounded per entity)."""
    ev: dict[str, list[str]] = {i: [] for i in ids}
    src: dict[str, list[str]] = {i: [] for i in ids}
    nb: dict[str, list[str]] = {i: [] for i in ids}
    if graph is None or not ids:
        return ev, src, nb
    paths = _document_names(graph)

    def doc_name(doc: Any) -> str:
        return paths.get(str(doc), "") if isinstance(doc, str) and doc else ""

    prov = graph.provenance
    rows = prov[(prov["kind"] == "entity") & prov["item_id"].isin(ids) & prov["evidence"].notna()]
    for item, text, doc in zip(rows["item_id"].tolist(), rows["evidence"].tolist(), rows["document_id"].tolist()):
        if len(ev[item]) < evidence and text not in ev[item]:
            ev[item].append(str(text))
            src[item].append(doc_name(doc))
    names = dict(zip(graph.entities["id"].tolist(), graph.entities["name"].tolist()))
    rel = graph.relations
    touching = rel[rel["source"].isin(ids) | rel["target"].isin(ids)]
    rel_prov = prov[(prov["kind"] == "relation") & prov["item_id"].isin(set(touching["id"].tolist()))]
    rel_doc: dict[str, str] = {}
    for item, doc in zip(rel_prov["item_id"].tolist(), rel_prov["document_id"].tolist()):
        rel_doc.setdefault(item, doc_name(doc))
    for rid, s, t, text in zip(touching["id"].tolist(), touching["source"].tolist(), touching["target"].tolist(),
                               touching["evidence"].tolist()):
        for me, other in ((s, t), (t, s)):
            if me in nb and other != me and len(nb[me]) < neighbours:
                name = str(names.get(other, other))
                if name not in nb[me]:
                    nb[me].append(name)
            # entity mentions often carry no sentence: the evidence of a relation it takes part in stands in
            if me in ev and isinstance(text, str) and text and len(ev[me]) < evidence and text not in ev[me]:
                ev[me].append(text)
                src[me].append(rel_doc.get(rid, ""))
    return ev, src, nb


def decision_index(decisions: Sequence[Decision]) -> dict[tuple[str, str], Decision]:
    """{sorted entity pair: the decision that counts for it} over merge / keep-apart decisions (person over
    llm over policy)."""
    from kgkit.core.decisions import combine

    return {tuple(sorted(d.subjects)): d for d in combine(decisions)  # type: ignore[misc]
            if d.kind in ("merge", "keep_apart")}


def decision_label(d: Decision | None, score: float) -> str:
    """How a card or the terminal review marks a candidate someone already decided ("" when undecided).

    >>> from kgkit.core.decisions import Decision
    >>> decision_label(Decision(kind="merge", subjects=("a", "b"), decided_by="policy"), 0.97)
    'policy merged: score 0.97 — v to veto'
    """
    if d is None:
        return ""
    who = d.decided_by if d.decided_by != "person" else f"person ({d.who})" if d.who else "person"
    if d.verdict != "accept":
        return f"{who} withdrew a decision: score {score:.2f}"
    if d.kind == "merge":
        return f"{who} merged: score {score:.2f} — v to veto"
    return f"{who} kept apart: score {score:.2f}"


def review_order(candidates: Sequence[MergeCandidate], decisions: Sequence[Decision] = (), *,
                 threshold: float = 0.9) -> list[MergeCandidate]:
    """Every candidate once per pair, in review order: undecided first — those a learned model scored in
    `decisions.doubt_order` (in turn: the least sure of what the policy could merge, the likeliest of what only a
    person can), then the others, score closest to the policy `threshold` first — then the decided ones
    (person decisions last), best score first.

    >>> c = lambda s, t, x: MergeCandidate(source=s, target=t, source_name=s, target_name=t, source_type="P",
    ...     target_type="P", score=x, step="rule", verdict="unique", features={}, reasons=())
    >>> from kgkit.core.decisions import Decision
    >>> done = [Decision(kind="merge", subjects=("a", "b"), decided_by="policy")]
    >>> [(x.source, x.score) for x in review_order([c("a", "b", .97), c("c", "d", .6), c("e", "f", .88)], done)]
    [('e', 0.88), ('c', 0.6), ('a', 0.97)]
    >>> p = lambda s, t, prob: c(s, t, .9).model_copy(update={"features": {"probability": prob}})
    >>> guarded = p("War", "War of 1812", .95)   # a whole word and a number apart: only a person merges it
    >>> [x.source for x in review_order([guarded, p("Ann Lee", "Ann  Lee", .6), p("Bo", "Bo", .99), c("e", "f", .9)])]
    ['Ann Lee', 'War', 'Bo', 'e']
    """
    from kgkit.stages.resolve.decisions import Policy, doubt_order

    index = decision_index(decisions)
    rank = {"llm": 1, "policy": 1, "person": 2}
    seen: set[tuple[str, str]] = set()
    out = []
    for c in candidates:
        pair = tuple(sorted((c.source, c.target)))
        if pair not in seen:
            seen.add(pair)  # type: ignore[arg-type]
            out.append(c)

    def key(c: MergeCandidate) -> tuple[Any, ...]:
        d = index.get(tuple(sorted((c.source, c.target))))  # type: ignore[arg-type]
        if d is None:
            return (0, abs(c.score - threshold), -c.score, c.source, c.target)
        return (rank[d.decided_by], 0.0, -c.score, c.source, c.target)

    out.sort(key=key)
    scored = [c for c in out if key(c)[0] == 0 and "probability" in (c.features or {})]
    order = doubt_order([c.features["probability"] for c in scored], [Policy().person_only(c) for c in scored])
    chosen = {id(c) for c in scored}
    return [scored[i] for i in order] + [c for c in out if id(c) not in chosen]


def candidates_payload(candidates: Sequence[MergeCandidate], *, graph: Any = None, evidence: int = 2,
                       neighbours: int = 5, decisions: Sequence[Decision] | None = None,
                       threshold: float = 0.9) -> list[dict[str, Any]]:
    """Candidates as the widget's `candidates` trait: JSON-ready dicts with a key, plus (given a graph) up to
    `evidence` evidence sentences per entity with `evidence_documents` (the path of the document each comes
    from, "" when unknown) and `neighbours` neighbour names. Given `decisions`, every candidate is listed in
    `review_order` and each carries `decided_by` / `decision` (kind) / `status` (its `decision_label`) for the
    decision that already covers it (None / None / "" when undecided); without, the order is kept."""
    if decisions is not None:
        candidates = review_order(candidates, decisions, threshold=threshold)
    index = decision_index(decisions or [])
    ids = {i for c in candidates for i in (c.source, c.target)}
    ev, src, nb = _context(graph, ids, evidence=evidence, neighbours=neighbours)
    out = []
    for c in candidates:
        row = c.model_dump(mode="json")
        row["reasons"] = list(c.reasons)
        d = index.get(tuple(sorted((c.source, c.target))))  # type: ignore[arg-type]
        row.update(key=candidate_key(c), evidence=ev.get(c.source, []) + ev.get(c.target, []),
                   evidence_documents=src.get(c.source, []) + src.get(c.target, []),
                   source_neighbours=nb.get(c.source, []), target_neighbours=nb.get(c.target, []),
                   decided_by=d.decided_by if d else None, decision=d.kind if d else None,
                   status=decision_label(d, c.score))
        out.append(row)
    return out


def payload_to_candidates(payload: Sequence[Mapping[str, Any]]) -> list[MergeCandidate]:
    """The MergeCandidate records back from a `candidates` payload (extra display fields dropped)."""
    return [MergeCandidate(**{k: row[k] for k in _CANDIDATE_FIELDS}) for row in payload]


def actions_to_decisions(payload: Sequence[Mapping[str, Any]], actions: Mapping[str, Mapping[str, Any]], *,
                         who: str | None = None, at: str | None = None) -> list[Decision]:
    """Person decisions for what the widget recorded, in candidate order: accept -> merge (source into
    target, or target into source when the edited canonical name is the source's), reject (or veto, on a
    candidate the policy merged) -> keep_apart, skip -> nothing. A canonical name that is neither entity's name is recorded in `why` (see
    `canonical_names` for applying it). Actions on keys not in the payload are ignored."""
    out = []
    for row in payload:
        action = actions.get(row["key"])
        if not action or action.get("verdict") not in ("accept", "reject"):
            continue
        source, target = row["source"], row["target"]
        canonical = str(action.get("canonical") or row["target_name"]).strip()
        why = f"review: score {float(row['score']):.2f}"
        if action["verdict"] == "reject":
            vetoed = row.get("decision") == "merge" and row.get("decided_by") not in (None, "person")
            note = f"; vetoed the {row['decided_by']} merge" if vetoed else "; rejected"
            out.append(person_decision("keep_apart", (source, target), who=who, at=at, why=why + note))
            continue
        if canonical == row["source_name"] and canonical != row["target_name"]:
            source, target = target, source
        elif canonical != row["target_name"]:
            why += f"; canonical name {canonical!r}"
        d = person_decision("merge", (source, target), who=who, at=at, why=why + "; accepted")
        out.append(d.model_copy(update={"score": float(row["score"])}))
    return out


def canonical_names(payload: Sequence[Mapping[str, Any]], actions: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """{kept entity id: edited name} for accepted merges whose canonical name is neither entity's name."""
    out = {}
    for row in payload:
        action = actions.get(row["key"]) or {}
        name = str(action.get("canonical") or "").strip()
        if action.get("verdict") == "accept" and name and name not in (row["source_name"], row["target_name"]):
            out[row["target"]] = name
    return out


def cluster_payload(points: Any, *, candidates: Sequence[Any] = (), colour_by: str = "type") -> tuple[list[dict[str, Any]], list[list[int]]]:
    """(points, pairs) traits of ClusterMap from a `kgkit.views.cluster.cluster_points` table: one dict per
    point (id, name, group, colour, x, y, candidate) and the [i, j] row pairs of the candidates."""
    from kgkit.views.cluster import candidate_pairs, colour_groups, point_colours

    groups = colour_groups(points, colour_by)
    colours = point_colours(groups, colour_by)
    pairs = [[a, b] for a, b, _ in candidate_pairs(points, candidates)]
    marked = {i for p in pairs for i in p}
    rows = [{"id": str(i), "name": str(n), "group": str(g), "colour": colours[g], "x": float(x), "y": float(y),
             "candidate": k in marked}
            for k, (i, n, g, x, y) in enumerate(zip(points["id"], points["name"], groups, points["x"], points["y"]))]
    return rows, pairs


def _widget_class() -> dict[str, type]:
    import anywidget
    import traitlets

    from kgkit.core.constants import VIEW_NODES
    from kgkit.views.explorer import explorer_esm, explorer_payload, merge_preview_payload, overlay_payload

    class MergeReview(anywidget.AnyWidget):
        """Merge-approval widget. Traits: `candidates` (payload, Python -> browser), `actions`
        ({key: {verdict, canonical}}, browser -> Python), `cursor`, `threshold`."""

        _esm = merge_review_esm()
        candidates = traitlets.List(traitlets.Dict()).tag(sync=True)
        actions = traitlets.Dict().tag(sync=True)
        cursor = traitlets.Int(0).tag(sync=True)
        threshold = traitlets.Float(0.9).tag(sync=True)

        @classmethod
        def from_candidates(cls, candidates: Sequence[MergeCandidate], *, graph: Any = None,
                            threshold: float = 0.9, decisions: Sequence[Decision] | None = None,
                            **kwargs: Any) -> MergeReview:
            """`decisions`: show every candidate, the decided ones marked (e.g. `resolved.candidates` with
            `decisions=resolved.decisions`), in review order around `threshold`."""
            return cls(candidates=candidates_payload(candidates, graph=graph, decisions=decisions,
                                                     threshold=threshold, **kwargs), threshold=threshold)

    class ClusterMap(anywidget.AnyWidget):
        """2-D entity map with box selection. Traits: `points`, `pairs` (Python -> browser), `selected`
        (entity ids chosen in the chart, browser -> Python), `width`, `height`."""

        _esm = bundle_esm("cluster_map")
        points = traitlets.List(traitlets.Dict()).tag(sync=True)
        pairs = traitlets.List(traitlets.List()).tag(sync=True)
        selected = traitlets.List(traitlets.Unicode()).tag(sync=True)
        width = traitlets.Int(760).tag(sync=True)
        height = traitlets.Int(520).tag(sync=True)

        @classmethod
        def from_points(cls, points: Any, *, candidates: Sequence[Any] = (), colour_by: str = "type",
                        **kwargs: Any) -> ClusterMap:
            rows, pairs = cluster_payload(points, candidates=candidates, colour_by=colour_by)
            return cls(points=rows, pairs=pairs, **kwargs)

    class Explorer(anywidget.AnyWidget):
        """The graph explorer (the same ES module as graph.html). Traits: `payload` (the graph, Python ->
        browser: `kgkit.views.explorer.explorer_payload`), `selected` (entity ids chosen in the explorer,
        both ways: another cell reads it, or sets it to select an entity), `height` (CSS size)."""

        _esm = explorer_esm()
        payload = traitlets.Dict().tag(sync=True)
        selected = traitlets.List(traitlets.Unicode()).tag(sync=True)
        height = traitlets.Unicode("620px").tag(sync=True)

        @classmethod
        def from_graph(cls, graph: Any, *, max_nodes: int | None = VIEW_NODES, color_by: str = "type",
                       title: str | None = None, seed: int = 0, **kwargs: Any) -> Explorer:
            return cls(payload=explorer_payload(graph, max_nodes=max_nodes, color_by=color_by, title=title,
                                                seed=seed), **kwargs)

        @classmethod
        def overlay(cls, before: Any, after: Any, *, labels: tuple[str, str] = ("before", "after"),
                    max_nodes: int | None = VIEW_NODES, **kwargs: Any) -> Explorer:
            """Both graphs in one view: added (blue), removed (vermillion), kept (grey)."""
            return cls(payload=overlay_payload(before, after, labels=labels, max_nodes=max_nodes), **kwargs)

        @classmethod
        def merge_preview(cls, graph: Any, decisions: Sequence[Decision], *, max_nodes: int | None = VIEW_NODES,
                          **kwargs: Any) -> Explorer:
            """What applying `decisions` would change in `graph` (nothing is applied)."""
            return cls(payload=merge_preview_payload(graph, decisions, max_nodes=max_nodes), **kwargs)

    return {"MergeReview": MergeReview, "ClusterMap": ClusterMap, "Explorer": Explorer}


def __getattr__(name: str) -> Any:  # anywidget/traitlets load only when a widget is used
    if name in ("MergeReview", "ClusterMap", "Explorer"):
        classes = _widget_class()
        globals().update(classes)
        return classes[name]
    raise AttributeError(name)
