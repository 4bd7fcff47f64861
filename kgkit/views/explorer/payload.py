"""The explorer's data: a Graph as one JSON-ready dict (pure: no files, no clock, no randomness).

Everything a person reads is there in plain text (the page and the widget insert it with textContent):
documents by relative path (their hash ids only as `document_ids`, for tooltips), entities with type,
community, degree, aliases, identity and the documents they occur in, each mention's evidence sentence with
the span to highlight, relations with evidence, documents, confidence, support, flags and valid / invalid
times. Sentences are stored once (`sentences`) and referred to by index.

>>> from kgkit.testing.builders import entity_row, relation_row
>>> from kgkit.core.graph import Graph
>>> import pandas as pd
>>> g = Graph.empty().replace(entities=pd.DataFrame([entity_row("P:ada", "Ada", "Person", 1, degree=1),
...     entity_row("O:acme", "Acme", "Organization", 1, degree=1)]), relations=pd.DataFrame([{**relation_row("r1"),
...     "source": "P:ada", "target": "O:acme", "type": "WORKS_FOR", "evidence": "Ada works for Acme."}]))
>>> p = explorer_payload(g)
>>> [n["name"] for n in p["nodes"]], p["edges"][0]["evidence"], p["types"][0]
(['Acme', 'Ada'], 'Ada works for Acme.', ['Organization', '#E69F00', 1])
"""

from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from kgkit.core.constants import VIEW_NODES, WEAK_TYPES
from kgkit.core.graph import Graph
from kgkit.stages.postprocess import REVIEW_FLAGS
from kgkit.views.explorer.layout import community_layout
from kgkit.views.explorer.palette import EDGE_COLOUR, FAINT_COLOUR, FLAGGED_COLOUR, OTHER_COLOUR, PALETTE, type_colours
from kgkit.views.explorer.palette import value_text as _text

__all__ = ["PAYLOAD_FORMAT", "explorer_payload", "select_entities"]

PAYLOAD_FORMAT = "kgkit.explorer/1"
MENTIONS_PER_ENTITY = 12
LABELLED = 30  # entities labelled at the default zoom (the most connected)


def _items(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        return [_text(v) for v in list(value) if _text(v)]
    return [_text(value)] if _text(value) else []


def _number(value: Any, default: float = 0.0) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return default
    return default if math.isnan(out) else out


def select_entities(graph: Graph, max_nodes: int | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(entities, relations) kept for a view: the top `max_nodes` entities by degree, then mentions, then id
    (all when None), and the relations between them, both in a stable order."""
    ents = graph.entities.drop_duplicates("id")
    ents = ents.sort_values(["degree", "mentions", "id"], ascending=[False, False, True], kind="mergesort")
    if max_nodes is not None:
        ents = ents.head(max_nodes)
    keep = set(ents["id"])
    rels = graph.relations.drop_duplicates("id")
    rels = rels[rels["source"].isin(keep) & rels["target"].isin(keep)].sort_values("id", kind="mergesort")
    return ents, rels


def find_span(text: str, terms: Sequence[str]) -> tuple[int, int] | None:
    """Where the first of `terms` (longest first) occurs in `text` as a whole word, case-insensitively.

    >>> find_span("Mr. Hull went to Moscow.", ["Cordell Hull", "Hull"])
    (4, 8)
    """
    for term in sorted({t for t in terms if t}, key=len, reverse=True):
        match = re.search(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text, re.IGNORECASE)
        if match:
            return match.start(), match.end()
    return None


class _Sentences:
    """Evidence sentences stored once, referred to by index."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.index: dict[str, int] = {}

    def add(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.texts)
            self.texts.append(text)
        return self.index[text]


def _mentions(graph: Graph, ents: pd.DataFrame, docs: dict[str, int], sentences: _Sentences,
              terms: dict[str, list[str]]) -> tuple[dict[str, list[list[int]]], dict[str, int]]:
    """{entity id: [[document, sentence, start, end], ...]} (at most MENTIONS_PER_ENTITY, distinct sentences)
    and {entity id: number of mentions}. A mention without its own sentence takes the sentence of a relation
    found in the same document around it (its span offset into that sentence), so the span is exact."""
    prov = graph.provenance
    ids = set(ents["id"])
    rel = prov[(prov["kind"] == "relation") & prov["evidence"].notna() & prov["start"].notna()]
    spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for doc, s, e, text in zip(rel["document_id"].tolist(), rel["start"].tolist(), rel["end"].tolist(),
                               rel["evidence"].tolist()):
        spans[doc].append((int(s), int(e), str(text)))
    starts = {}
    for doc in spans:
        spans[doc].sort()
        starts[doc] = [s for s, _, _ in spans[doc]]
    rows = prov[(prov["kind"] == "entity") & prov["item_id"].isin(ids)]
    rows = rows.sort_values(["item_id", "document_id", "start"], kind="mergesort", na_position="last")
    out: dict[str, list[list[int]]] = defaultdict(list)
    seen: dict[str, set[int]] = defaultdict(set)
    counts: dict[str, int] = defaultdict(int)
    for item, doc, start, end, text in zip(rows["item_id"].tolist(), rows["document_id"].tolist(),
                                           rows["start"].tolist(), rows["end"].tolist(), rows["evidence"].tolist()):
        counts[item] += 1
        if len(out[item]) >= MENTIONS_PER_ENTITY:
            continue
        sentence, span = _text(text), None
        if not sentence and doc in spans and not pd.isna(start) and not pd.isna(end):
            s, e = int(start), int(end)
            last = bisect.bisect_right(starts[doc], s) - 1
            for rs, re_, rtext in reversed(spans[doc][max(0, last - 8) : last + 1]):  # the nearest few before it
                if rs <= s and e <= re_ and len(rtext) == re_ - rs:
                    sentence, span = rtext, (s - rs, e - rs)
                    break
        if not sentence:
            out[item].append([docs.get(_text(doc), -1), -1, 0, 0])
            continue
        span = span or find_span(sentence, terms.get(item, [])) or (0, 0)
        idx = sentences.add(sentence)
        if idx in seen[item]:
            continue
        seen[item].add(idx)
        out[item].append([docs.get(_text(doc), -1), idx, span[0], span[1]])
    return dict(out), dict(counts)


def _documents_of(graph: Graph, ids: set[str], docs: dict[str, int]) -> dict[str, list[int]]:
    """{item id: sorted indexes of the documents its provenance names}."""
    prov = graph.provenance
    rows = prov[prov["item_id"].isin(ids)][["item_id", "document_id"]].drop_duplicates()
    out: dict[str, set[int]] = defaultdict(set)
    for item, doc in zip(rows["item_id"].tolist(), rows["document_id"].tolist()):
        if _text(doc) in docs:
            out[item].add(docs[_text(doc)])
    return {k: sorted(v) for k, v in out.items()}


def _community_table(ents: pd.DataFrame) -> tuple[list[list[Any]], dict[str, str]]:
    """[[id, size, colour, label]] (largest first; label = its three most connected names) and {id: colour}:
    the largest communities get distinct palette colours, the rest grey."""
    if "community" not in ents:
        return [], {}
    rows = ents[ents["community"].notna()]
    table, colours = [], {}
    groups = sorted(rows.groupby("community", sort=True), key=lambda kv: (-len(kv[1]), str(kv[0])))
    for n, (cid, members) in enumerate(groups):
        colour = PALETTE[n] if n < len(PALETTE) else OTHER_COLOUR
        label = ", ".join(_text(x) for x in members["name"].head(3).tolist())  # members keep degree order
        colours[str(cid)] = colour
        table.append([str(cid), len(members), colour, label])
    return table, colours


def _edge(row: dict[str, Any], docs_of: dict[str, list[int]], faint_types: Sequence[str]) -> dict[str, Any]:
    flags = _items(row["flags"])
    review = [f for f in flags if f in REVIEW_FLAGS]
    weak = _text(row["type"]) in faint_types
    return {
        "id": _text(row["id"]), "source": _text(row["source"]), "target": _text(row["target"]),
        "type": _text(row["type"]), "predicate": _text(row["predicate"]), "negated": bool(row["negated"]),
        "confidence": round(_number(row["confidence"]), 3), "support": int(_number(row["support"])),
        "evidence": _text(row["evidence"]), "docs": docs_of.get(_text(row["id"]), []), "flags": flags,
        "review": bool(review), "weak": weak, "valid_at": _text(row["valid_at"]) or None,
        "invalid_at": _text(row["invalid_at"]) or None,
        "colour": FLAGGED_COLOUR if review else FAINT_COLOUR if weak else EDGE_COLOUR,
    }  # fmt: skip


def explorer_payload(
    graph: Graph,
    *,
    max_nodes: int | None = VIEW_NODES,
    color_by: str = "type",
    title: str | None = None,
    seed: int = 0,
    faint_types: Sequence[str] = WEAK_TYPES,
    groups: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The explorer's JSON for `graph` (see the module docstring); `max_nodes` keeps the most connected
    entities (None: all), `color_by` is an entity column (or "community"), `seed` fixes the layout.
    `groups` ({entity id: group}) colours by something the graph has no column for; `color_by` names it."""
    if groups is None and color_by not in graph.entities.columns:
        raise ValueError(f"color_by must be an entity column, not {color_by!r}")
    if max_nodes is not None and max_nodes < 1:
        raise ValueError("max_nodes must be at least 1")
    ents, rels = select_entities(graph, max_nodes)
    total = int(graph.entities["id"].nunique())
    doc_rows = graph.documents.drop_duplicates("id").sort_values("path", kind="mergesort")
    doc_ids = [_text(i) for i in doc_rows["id"].tolist()]
    doc_names = [_text(p) or _text(i) for i, p in zip(doc_rows["id"].tolist(), doc_rows["path"].tolist())]
    docs = {d: n for n, d in enumerate(doc_ids)}
    ent_records = ents.to_dict("records")
    terms = {_text(r["id"]): [_text(r["name"]), *_items(r["aliases"])] for r in ent_records}
    sentences = _Sentences()
    mentions, mention_counts = _mentions(graph, ents, docs, sentences, terms)
    docs_of = _documents_of(graph, set(ents["id"]) | set(rels["id"]), docs)
    communities, community_colours = _community_table(ents)
    if groups is not None:
        groups_of = [groups.get(_text(r["id"]), "(none)") for r in ent_records]
    else:
        groups_of = [(_text(r[color_by]) or "(none)") for r in ent_records]
    colours = community_colours if color_by == "community" else type_colours(groups_of)
    entity_types = type_colours(_text(r["type"]) or "Other" for r in ent_records)
    positions = community_layout([_text(r["id"]) for r in ent_records],
                                 list(zip(rels["source"].tolist(), rels["target"].tolist())),
                                 {_text(r["id"]): (_text(r.get("community")) or None) for r in ent_records}, seed=seed)
    nodes = []
    for rank, (row, group) in enumerate(zip(ent_records, groups_of)):
        eid = _text(row["id"])
        x, y = positions[eid]
        nodes.append({
            "id": eid, "name": _text(row["name"]) or eid, "type": _text(row["type"]) or "Other", "group": group,
            "colour": colours.get(group, OTHER_COLOUR), "community": _text(row.get("community")) or None,
            "degree": int(_number(row["degree"])), "mentions": int(_number(row["mentions"])),
            "aliases": _items(row["aliases"]), "identity": _text(row["identity"]),
            "confidence": round(_number(row["confidence"]), 3), "docs": docs_of.get(eid, []),
            "mention_count": mention_counts.get(eid, 0), "x": x, "y": y, "rank": rank,
        })  # fmt: skip
    nodes.sort(key=lambda n: n["id"])
    edges = [_edge(r, docs_of, faint_types) for r in rels.to_dict("records")]
    legend: dict[str, int] = defaultdict(int)
    for g in groups_of:
        legend[g] += 1
    rel_counts: dict[str, list[Any]] = {}
    for e in edges:
        rel_counts.setdefault(e["type"], [e["type"], 0, e["weak"]])[1] += 1
    times = sorted({t for e in edges for t in (e["valid_at"], e["invalid_at"]) if t})
    total_rel = len(graph.relations)
    if total > len(nodes):
        note = f"showing {len(nodes)} of {total} entities (top by degree) \u00b7 {len(edges)} of {total_rel} relations"
    else:
        note = f"{total} entities \u00b7 {total_rel} relations"
    return {
        "format": PAYLOAD_FORMAT, "title": title if title is not None else "Knowledge graph", "note": note,
        "colour_by": color_by, "total_entities": total, "total_relations": total_rel,
        "legend": [[g, colours.get(g, OTHER_COLOUR), legend[g]]
                   for g in sorted(legend, key=lambda g: (-legend[g], g) if color_by == "community" else (0, g))],
        "types": [[t, c, sum(1 for n in nodes if n["type"] == t)] for t, c in sorted(entity_types.items())],
        "relation_types": sorted(rel_counts.values()), "communities": communities,
        "documents": doc_names, "document_ids": doc_ids, "nodes": nodes, "edges": edges,
        "sentences": sentences.texts, "mentions": {k: mentions[k] for k in sorted(mentions)},
        "time": {"min": times[0], "max": times[-1], "steps": times} if times else None,
        "labelled": min(LABELLED, len(nodes)),
    }  # fmt: skip
