"""Two graphs in one explorer: what changed from `before` to `after` (added / removed / kept), and the merge
preview (a graph against what applying decisions would make of it). Pure: Graphs in, the explorer's payload out.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import entity_row
>>> a = Graph.empty().replace(entities=pd.DataFrame([entity_row("P:ada", "Ada", "Person"), entity_row("P:bob", "Bob", "Person")]))
>>> b = Graph.empty().replace(entities=pd.DataFrame([entity_row("P:ada", "Ada", "Person"), entity_row("P:cy", "Cy", "Person")]))
>>> p = overlay_payload(a, b)
>>> sorted((n["id"], n["group"]) for n in p["nodes"])
[('P:ada', 'kept'), ('P:bob', 'removed'), ('P:cy', 'added')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from kgkit.core.constants import VIEW_NODES
from kgkit.core.graph import Graph
from kgkit.views.explorer.payload import explorer_payload

__all__ = ["DIFF_COLOURS", "merge_preview_payload", "overlay_payload"]

DIFF_COLOURS = {"added": "#0072B2", "removed": "#D55E00", "kept": "#BBBBBB"}  # blue / vermillion: colour-blind safe


def _union(first: pd.DataFrame, second: pd.DataFrame, key: str = "id") -> pd.DataFrame:
    """Rows of `first`, then the rows of `second` whose key `first` lacks."""
    if second.empty:
        return first
    return pd.concat([first, second[~second[key].isin(set(first[key]))]], ignore_index=True)


def _status(item: str, before: set[str], after: set[str]) -> str:
    return "added" if item not in before else "removed" if item not in after else "kept"


def overlay_payload(before: Graph, after: Graph, *, labels: tuple[str, str] = ("before", "after"),
                    max_nodes: int | None = VIEW_NODES, title: str | None = None, seed: int = 0) -> dict[str, Any]:
    """The explorer's payload for both graphs at once: every entity and relation of either, coloured by
    whether `after` added it (blue), removed it (vermillion) or kept it (grey); each carries `diff`."""
    ents = _union(after.entities, before.entities)
    b_ent, a_ent = set(before.entities["id"]), set(after.entities["id"])
    status = {i: _status(i, b_ent, a_ent) for i in ents["id"]}
    rels = _union(after.relations, before.relations)
    prov = pd.concat([after.provenance, before.provenance], ignore_index=True).drop_duplicates(
        ["item_id", "kind", "document_id", "chunk_id", "start", "end"])
    docs = _union(after.documents, before.documents)
    union = Graph(ents, rels, prov, docs, dict(after.meta))
    heading = title if title is not None else f"{labels[0]} \u2192 {labels[1]}"
    payload = explorer_payload(union, max_nodes=max_nodes, color_by="diff", title=heading, seed=seed, groups=status)
    b_rel, a_rel = set(before.relations["id"]), set(after.relations["id"])
    for node in payload["nodes"]:
        node["colour"] = DIFF_COLOURS[node["group"]]
        node["diff"] = node["group"]
    for edge in payload["edges"]:
        edge["diff"] = _status(edge["id"], b_rel, a_rel)
        if edge["diff"] != "kept":
            edge["colour"] = DIFF_COLOURS[edge["diff"]]
    payload["legend"] = [[g, DIFF_COLOURS[g], n] for g, _, n in payload["legend"]]
    counts = {k: sum(1 for n in payload["nodes"] if n["diff"] == k) for k in DIFF_COLOURS}
    rel_counts = {k: sum(1 for e in payload["edges"] if e["diff"] == k) for k in DIFF_COLOURS}
    payload["note"] = (f"{labels[1]} against {labels[0]}: entities +{counts['added']} \u2212{counts['removed']}, "
                       f"relations +{rel_counts['added']} \u2212{rel_counts['removed']} \u00b7 {payload['note']}")
    return payload


def merge_preview_payload(graph: Graph, decisions: Sequence[Any], **kwargs: Any) -> dict[str, Any]:
    """What applying `decisions` (kgkit.stages.resolve Decisions) would change in `graph`, as an overlay."""
    from kgkit.stages.resolve import apply_decisions

    applied = apply_decisions(graph, decisions).graph
    kwargs.setdefault("labels", ("now", "after apply"))
    return overlay_payload(graph, applied, **kwargs)
