"""SearchItem: one searchable thing (an entity, a relation as a fact sentence, or a chunk of text), and the
pure stages that turn a Graph and Chunks into items.

An item's `hash` covers everything it is indexed under, so an index replaces an item exactly when its
content changed (and skips it when it did not).

>>> from kgkit.core.records import Chunk
>>> c = Chunk(id="doc:1#0:ab", document_id="doc:1", index=0, start=0, end=12, text="Ada met Bob.")
>>> item = items_from_chunks([c])[0]
>>> item.kind, item.id, item.document_id
('chunk', 'doc:1#0:ab', 'doc:1')
>>> item.hash == items_from_chunks([c])[0].hash
True
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

from kgkit.core.records import Chunk, short_hash
from kgkit.stages.search.text import document_name, fact_sentence

if TYPE_CHECKING:
    from kgkit.core.graph import Graph

Kind = Literal["entity", "relation", "chunk"]
KINDS: tuple[str, ...] = ("entity", "relation", "chunk")


@dataclass(frozen=True)
class SearchItem:
    """What the index stores for one item. `title` is the high-weight field (names, aliases, document path),
    `body` the rest (description, fact sentence, chunk text). `documents` lists every document the item comes
    from (`document_id` is the first); `entities` the entity ids it is about (itself, a relation's endpoints,
    the entities mentioned in a chunk): the graph channel and entity roll-up walk through them."""

    id: str
    kind: str
    title: str
    body: str
    type: str | None = None  # entity type, relation type, or None for chunks
    document_id: str | None = None
    documents: tuple[str, ...] = ()
    chunk_id: str | None = None
    start: int | None = None
    end: int | None = None
    evidence: str | None = None
    created_at: str | None = None
    expired_at: str | None = None
    entities: tuple[str, ...] = ()
    hash: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"item kind must be one of {KINDS}, got {self.kind!r}")
        if not self.hash:
            object.__setattr__(self, "hash", item_hash(self))

    @property
    def text(self) -> str:
        """The text embedded for the dense channel: an entity's names and body; a relation's evidence sentence
        (relations found in one sentence share its vector, embedded once), or its fact when it has none; a
        chunk's document name and text."""
        if self.kind == "relation":
            return self.evidence or self.body
        title = document_name(self.title) if self.kind == "chunk" else self.title
        return f"{title}\n{self.body}" if self.body and title else self.body or title

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_HASHED = tuple(f.name for f in fields(SearchItem) if f.name != "hash")


def item_hash(item: SearchItem) -> str:
    """Content hash of every indexed field (not the hash itself). The fields hold strings, numbers, None and
    tuples of strings, so they go to JSON as they are (what `asdict` would copy first)."""
    data = {k: getattr(item, k) for k in _HASHED}
    return short_hash(json.dumps(data, sort_keys=True, default=list), length=24)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def items_from_chunks(chunks: Iterable[Chunk], *, entities_by_chunk: Mapping[str, Sequence[str]] | None = None,
                      paths: Mapping[str, str] | None = None) -> list[SearchItem]:
    """One item per chunk: body = chunk text, title = the document's path when known."""
    entities_by_chunk = entities_by_chunk or {}
    paths = paths or {}
    return [
        SearchItem(id=c.id, kind="chunk", title=paths.get(c.document_id, ""), body=c.text, document_id=c.document_id,
                   documents=(c.document_id,), chunk_id=c.id, start=c.start, end=c.end,
                   entities=tuple(sorted(entities_by_chunk.get(c.id, ()))))
        for c in chunks
    ]


def entities_by_chunk(graph: Graph) -> dict[str, list[str]]:
    """chunk id -> the ids of the entities (and relation endpoints) mentioned in it, from provenance."""
    prov = graph.provenance
    out: dict[str, set[str]] = defaultdict(set)
    entity_rows = prov[prov["kind"] == "entity"]
    for chunk_id, item_id in zip(entity_rows["chunk_id"], entity_rows["item_id"]):
        out[chunk_id].add(item_id)
    return {k: sorted(v) for k, v in out.items()}


def items_from_graph(graph: Graph) -> list[SearchItem]:
    """Entity items (name + aliases; type and description in the body) and relation items (fact sentences),
    each with the documents and first provenance row (chunk, span, evidence) it came from."""
    from kgkit.core.graph import json_cell as clean  # missing (None, NaN, NA) -> None; loaded with the graph

    prov = graph.provenance
    first: dict[str, dict[str, Any]] = {}
    docs: dict[str, list[str]] = defaultdict(list)
    for row in prov.to_dict("records"):
        first.setdefault(row["item_id"], row)
        if row["document_id"] not in docs[row["item_id"]]:
            docs[row["item_id"]].append(row["document_id"])
    names = dict(zip(graph.entities["id"], graph.entities["name"]))
    has_description = "description" in graph.entities.columns
    out: list[SearchItem] = []
    for row in graph.entities.to_dict("records"):
        p = first.get(row["id"], {})
        aliases = [a for a in (row.get("aliases") or []) if a != row["name"]]
        description = clean(row.get("description")) if has_description else None
        body = " ".join(x for x in (row["type"], description or "") if x)
        out.append(SearchItem(
            id=row["id"], kind="entity", title=" ; ".join([row["name"], *aliases]), body=body, type=row["type"],
            document_id=p.get("document_id"), documents=tuple(docs.get(row["id"], ())), chunk_id=p.get("chunk_id"),
            start=_int(clean(p.get("start"))), end=_int(clean(p.get("end"))), evidence=clean(p.get("evidence")),
            entities=(row["id"],)))
    for row in graph.relations.to_dict("records"):
        p = first.get(row["id"], {})
        evidence = clean(row.get("evidence")) or clean(p.get("evidence"))
        source, target = names.get(row["source"], row["source"]), names.get(row["target"], row["target"])
        rtype = f"NOT {row['type']}" if row.get("negated") else row["type"]
        out.append(SearchItem(
            id=row["id"], kind="relation", title=f"{source} ; {target}",
            body=fact_sentence(source, rtype, target, evidence), type=row["type"],
            document_id=p.get("document_id"), documents=tuple(docs.get(row["id"], ())), chunk_id=p.get("chunk_id"),
            start=_int(clean(p.get("start"))), end=_int(clean(p.get("end"))), evidence=evidence,
            created_at=clean(row.get("created_at")), expired_at=clean(row.get("expired_at")),
            entities=(row["source"], row["target"])))
    return out
