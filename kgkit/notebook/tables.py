"""Tables a person reads in a notebook: names and document paths first, hash ids last.

Pure functions of a Graph (and of search hits): nothing is read or written.

- `document_names(graph)`: {document id: its relative path};
- `hits_table(hits, graph)`: search hits led by name, kind, document (path), score and match, the ids last;
- `entity_details(graph, entity_id)`: one entity as a person reads it (an `EntityDetails`, shown as HTML by
  marimo and Jupyter): its documents by path with a sentence from each, its relations with their evidence;
- `topology_tables(graph)`: the graph's shape as tables: communities (size, top members), hubs, bridges and
  the connections between communities;
- `community_colours(payload)`: {community: colour} as the explorer draws them, for a table beside it.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import entity_row, relation_row
>>> g = Graph.empty().replace(
...     entities=pd.DataFrame([entity_row("P:ada", "Ada", "Person", 1, degree=1),
...                            entity_row("O:acme", "Acme", "Organization", 1, degree=1)]),
...     relations=pd.DataFrame([{**relation_row("r1"), "source": "P:ada", "target": "O:acme", "type": "WORKS_FOR",
...                              "evidence": "Ada works for <b>Acme</b>."}]))
>>> d = entity_details(g, "P:ada")
>>> d.name, d.relations["relation"].tolist()
('Ada', ['Ada —WORKS_FOR→ Acme'])
>>> "&lt;b&gt;Acme&lt;/b&gt;" in d._repr_html_()  # every string escaped
True
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from kgkit.stages.search.text import snippet

if TYPE_CHECKING:
    from kgkit.core.graph import Graph

__all__ = ["EntityDetails", "community_colours", "document_names", "entity_details", "hits_table", "topology_tables"]

HIT_TABLE_COLUMNS = ["name", "kind", "type", "document", "score", "match", "text", "entities", "id", "document_id"]
"""`hits_table`'s columns: what a person reads first, the hash ids last."""


def _text(value: Any) -> str:
    """A cell as text: "" for None / NaN / NA."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _items(value: Any) -> list[str]:
    """A list cell (list, tuple or array) as a list of texts; a scalar as a one-item list."""
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        return [_text(v) for v in list(value) if _text(v)]
    return [_text(value)] if _text(value) else []


def document_names(graph: Graph) -> dict[str, str]:
    """{document id: its relative path} (the id itself where the graph records no path)."""
    docs = graph.documents
    return {_text(i): _text(p) or _text(i) for i, p in zip(docs["id"].tolist(), docs["path"].tolist())}


def _entity_names(graph: Graph) -> dict[str, str]:
    ents = graph.entities
    return {_text(i): _text(n) or _text(i) for i, n in zip(ents["id"].tolist(), ents["name"].tolist())}


def _documents_text(ids: Sequence[str], names: Mapping[str, str]) -> str:
    """'a.txt', or 'a.txt +2 more' for several documents (paths; an unknown id as itself)."""
    paths = [names.get(i, i) for i in dict.fromkeys(ids)]
    if not paths:
        return ""
    return paths[0] if len(paths) == 1 else f"{paths[0]} +{len(paths) - 1} more"


def hits_table(hits: pd.DataFrame, graph: Graph | None = None) -> pd.DataFrame:
    """Search hits (`kgkit.stages.search.SearchIndex.search`, the `search` workflow) as a person reads them,
    in `HIT_TABLE_COLUMNS` order: the entity's name, the relation as "A —TYPE→ B" or the passage's document;
    kind, type, the document by relative path ("+N more" when several), score, match ("exact" / "phrase"
    when the query names the item), the evidence or text cut short, the entities it is about by name; then
    the hit's id and its document's hash id. Without a graph, documents and entities keep their ids."""
    docs = document_names(graph) if graph is not None else {}
    names = _entity_names(graph) if graph is not None else {}
    ends: dict[str, tuple[str, str]] = {}
    if graph is not None and "relation" in set(hits.get("kind", pd.Series(dtype=object))):
        rels = graph.relations
        ends = {_text(i): (_text(s), _text(t)) for i, s, t in
                zip(rels["id"].tolist(), rels["source"].tolist(), rels["target"].tolist())}
    rows = []
    for hit in hits.to_dict("records"):
        kind, title, hid = _text(hit.get("kind")), _text(hit.get("title")), _text(hit.get("id"))
        name = title or hid
        if kind == "relation" and hid in ends:
            source, target = ends[hid]
            name = f"{names.get(source, source)} —{_text(hit.get('type'))}→ {names.get(target, target)}"
        doc_ids = [_text(hit.get("document_id"))] if _text(hit.get("document_id")) else []
        doc_ids += [d for d in _items(hit.get("documents")) if d not in doc_ids]
        score = hit.get("score")
        rows.append({
            "name": name, "kind": kind, "type": _text(hit.get("type")), "document": _documents_text(doc_ids, docs),
            "score": round(float(score), 3) if _text(score) else None, "match": _text(hit.get("match")),
            "text": snippet(_text(hit.get("evidence")) or _text(hit.get("text")), 160),
            "entities": ", ".join(names.get(e, e) for e in _items(hit.get("entities"))[:5]),
            "id": hid, "document_id": _text(hit.get("document_id")),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=HIT_TABLE_COLUMNS)


# --------------------------------------------------------------------------- one entity


def _table_html(frame: pd.DataFrame) -> str:
    """A small left-aligned HTML table, every cell escaped."""
    if not len(frame):
        return "<p>none</p>"
    cell = 'style="text-align:left;vertical-align:top;padding:2px 8px 2px 0"'
    head = "".join(f"<th {cell}>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td {cell}>{html.escape(_text(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


@dataclass(frozen=True)
class EntityDetails:
    """One entity as a person reads it: what it is, the documents it occurs in (by relative path, with the
    number of mentions and a sentence from each), its relations (with the other entity's name, evidence and
    documents). Shown as HTML (`_repr_html_`, every string escaped) in marimo and Jupyter; `id` appears only
    as a tooltip there."""

    id: str
    name: str
    type: str
    community: str
    degree: int
    mentions: int
    aliases: tuple[str, ...]
    identity: str
    documents: pd.DataFrame = field(repr=False)  # document, mentions, sentence, document_id
    relations: pd.DataFrame = field(repr=False)  # relation, type, with, confidence, support, documents, evidence, id

    def summary(self) -> dict[str, Any]:
        """The scalar facts, JSON-ready."""
        return {"id": self.id, "name": self.name, "type": self.type, "community": self.community,
                "degree": self.degree, "mentions": self.mentions, "aliases": list(self.aliases),
                "identity": self.identity, "documents": len(self.documents), "relations": len(self.relations)}

    def _repr_html_(self) -> str:
        e = html.escape
        facts = [f"{self.type}", f"community {self.community}" if self.community else "",
                 f"degree {self.degree}", f"{self.mentions} mentions",
                 f"aliases: {', '.join(self.aliases)}" if self.aliases else "",
                 f"identity: {self.identity}" if self.identity else ""]
        documents = self.documents.drop(columns=["document_id"])
        relations = self.relations.drop(columns=["id"])
        return (f'<div class="kg-entity-details" data-entity="{e(self.id, quote=True)}">'
                f'<h3 title="{e(self.id, quote=True)}" style="margin:0 0 4px"><strong>{e(self.name)}</strong></h3>'
                f'<p style="margin:0 0 8px">{e(" · ".join(f for f in facts if f))}</p>'
                f"<h4>Documents ({len(documents)})</h4>{_table_html(documents)}"
                f"<h4>Relations ({len(relations)})</h4>{_table_html(relations)}</div>")


def entity_details(graph: Graph, entity_id: str, *, relations: int = 30) -> EntityDetails:
    """The details of `entity_id` in `graph` (KeyError when absent): its documents, most mentioned first, each
    with the sentence of its first mention (or of a relation of it found there), and up to `relations`
    relations, most supported first."""
    ents = graph.entities[graph.entities["id"] == entity_id]
    if ents.empty:
        raise KeyError(entity_id)
    row = ents.iloc[0]
    docs, names = document_names(graph), _entity_names(graph)
    prov = graph.provenance
    rels = graph.relations[(graph.relations["source"] == entity_id) | (graph.relations["target"] == entity_id)]
    rels = rels.sort_values(["support", "confidence", "id"], ascending=[False, False, True], kind="mergesort")
    rel_prov = prov[(prov["kind"] == "relation") & prov["item_id"].isin(set(rels["id"]))]
    rel_docs: dict[str, list[str]] = {}
    # a sentence per document: the entity's own evidence, else the sentence one of its relations was found in there
    sentence: dict[str, str] = {}
    rank = {rid: n for n, rid in enumerate(rels["id"].tolist())}  # the most supported relation's sentence first
    rel_prov = rel_prov.assign(_rank=rel_prov["item_id"].map(rank)).sort_values("_rank", kind="mergesort")
    for item, doc, text in zip(rel_prov["item_id"].tolist(), rel_prov["document_id"].tolist(),
                               rel_prov["evidence"].tolist()):
        rel_docs.setdefault(_text(item), []).append(_text(doc))
        if _text(text):
            sentence.setdefault(_text(doc), _text(text))
    mine = prov[(prov["kind"] == "entity") & (prov["item_id"] == entity_id)]
    counts: dict[str, int] = {}
    own: dict[str, str] = {}
    for doc, text in zip(mine["document_id"].tolist(), mine["evidence"].tolist()):
        counts[_text(doc)] = counts.get(_text(doc), 0) + 1
        if _text(text):
            own.setdefault(_text(doc), _text(text))
    for doc in rel_docs.values():
        for d in doc:
            counts.setdefault(d, 0)
    terms = [t.lower() for t in (_text(row["name"]), *_items(row["aliases"])) if t]
    lacking = {d for d in counts if not own.get(d) and not sentence.get(d)}
    if lacking and terms:  # a sentence of that document naming the entity (its mentions carry none)
        there = prov[(prov["kind"] == "relation") & prov["document_id"].isin(lacking) & prov["evidence"].notna()]
        for doc, text in zip(there["document_id"].tolist(), there["evidence"].tolist()):
            if any(t in _text(text).lower() for t in terms):
                sentence.setdefault(_text(doc), _text(text))
    ordered = sorted(counts, key=lambda d: (-counts[d], docs.get(d, d)))
    documents = pd.DataFrame(
        [{"document": docs.get(d, d), "mentions": counts[d], "sentence": snippet(own.get(d) or sentence.get(d, ""), 240),
          "document_id": d} for d in ordered], columns=["document", "mentions", "sentence", "document_id"])
    rel_rows = []
    for r in rels.head(relations).to_dict("records"):
        source, target = _text(r["source"]), _text(r["target"])
        other = target if source == entity_id else source
        rel_rows.append({
            "relation": f"{names.get(source, source)} —{'not ' if bool(r['negated']) else ''}{_text(r['type'])}→ "
                        f"{names.get(target, target)}",
            "type": _text(r["type"]), "with": names.get(other, other), "confidence": round(float(r["confidence"]), 2),
            "support": int(r["support"]), "documents": _documents_text(rel_docs.get(_text(r["id"]), []), docs),
            "evidence": snippet(_text(r["evidence"]), 240), "id": _text(r["id"]),
        })  # fmt: skip
    return EntityDetails(
        id=entity_id, name=_text(row["name"]) or entity_id, type=_text(row["type"]),
        community=_text(row.get("community")), degree=int(row["degree"]) if _text(row["degree"]) else 0,
        mentions=int(row["mentions"]) if _text(row["mentions"]) else 0, aliases=tuple(_items(row["aliases"])),
        identity=_text(row.get("identity")), documents=documents,
        relations=pd.DataFrame(rel_rows, columns=["relation", "type", "with", "confidence", "support", "documents",
                                                  "evidence", "id"]))


# --------------------------------------------------------------------------- the graph's shape


def community_colours(payload: Mapping[str, Any]) -> dict[str, str]:
    """{community id: colour} as the explorer draws them (an `explorer_payload` coloured by community, e.g.
    `Explorer.from_graph(graph, color_by="community").payload`): the largest communities distinct palette
    colours, the rest one grey.

    >>> community_colours({"communities": [["c0", 5, "#0072B2", "Ada, Bob"], ["c1", 2, "#E69F00", "Cy"]]})
    {'c0': '#0072B2', 'c1': '#E69F00'}
    """
    return {str(row[0]): str(row[2]) for row in payload.get("communities") or []}


def topology_tables(graph: Graph, *, limit: int = 10, seed: int = 0,
                    colours: Mapping[str, str] | None = None) -> dict[str, pd.DataFrame]:
    """The graph's shape (`kgkit.stages.topology.topology_report`) as tables of names, `limit` rows each:

    - `communities`: community, label, size, relations, top members (names), key terms (with `colours`, the
      colour each has in the explorer first);
    - `hubs`: the most connected entities: name, type, community, degree, mentions, documents;
    - `bridges`: entities whose relations reach other communities: name, type, community, degree, the number
      of communities reached, relations across;
    - `connections`: pairs of communities (by label) and the relations between them.

    Ids come last (`id`) or not at all; the counts are `topology_report(graph).counts`."""
    from kgkit.stages.topology import MAX_LIMIT, topology_report

    report = topology_report(graph, limit=MAX_LIMIT, seed=seed)
    names = _entity_names(graph)
    label = {str(c["community"]): _text(c["label"]) for c in report.communities.items}

    def community(cid: Any) -> str:
        cid = _text(cid)
        return f"{cid} · {label[cid]}" if label.get(cid) else cid

    communities = pd.DataFrame([{
        **({"colour": (colours or {}).get(str(c["community"]), "")} if colours is not None else {}),
        "community": str(c["community"]), "label": _text(c["label"]), "size": c["size"], "relations": c["relations"],
        "top members": ", ".join(names.get(i, i) for i in c["top_entities"]), "key terms": ", ".join(c["terms"]),
    } for c in report.communities.items[:limit]])  # fmt: skip
    ents = graph.entities.sort_values(["degree", "mentions", "id"], ascending=[False, False, True], kind="mergesort")
    hubs = pd.DataFrame([{"name": _text(r["name"]), "type": _text(r["type"]), "community": community(r.get("community")),
                          "degree": int(r["degree"]), "mentions": int(r["mentions"]), "documents": int(r["documents"]),
                          "id": _text(r["id"])} for r in ents.head(limit).to_dict("records")],
                        columns=["name", "type", "community", "degree", "mentions", "documents", "id"])
    bridges = pd.DataFrame([{"name": _text(b["name"]), "type": _text(b["type"]), "community": community(b["community"]),
                             "degree": b["degree"], "communities reached": b["communities"],
                             "relations across": b["cross_relations"], "id": b["id"]}
                            for b in report.bridges.items[:limit]],
                           columns=["name", "type", "community", "degree", "communities reached", "relations across",
                                    "id"])
    connections = pd.DataFrame([{"between": community(c["source"]), "and": community(c["target"]),
                                 "relations": c["relations"]} for c in report.connections.items[:limit]],
                               columns=["between", "and", "relations"])
    return {"communities": communities, "hubs": hubs, "bridges": bridges, "connections": connections}
