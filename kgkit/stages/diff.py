"""Diff two extraction runs (a pure stage): per document and chunk, entities and relations added, removed,
changed; summary counts and agreement.

A run is a sequence of DocumentExtraction (two extractors, two models, two prompt or domain versions, or
before and after a document changed). Documents are matched by path and chunks by their position in the
document, so a changed document (new id) is still compared with its earlier version. Within a chunk an
entity is identified by its normalised name: the same name with another type is *changed*. A relation is
identified by (source, type, target, polarity) over normalised names; a removed and an added relation with
the same endpoints pair up as *changed* (type or polarity). Agreement = unchanged / all distinct items.

>>> from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, TextExtraction
>>> def run(*ents):
...     t = TextExtraction(extractor_id="x", entities=tuple(ExtractedEntity(name=n, type=k) for n, k in ents))
...     return [DocumentExtraction(document_id="d", path="a.txt", chunks=(ChunkExtraction(chunk_id="d#0",
...             document_id="d", extraction=t),))]
>>> d = diff_extractions(run(("Ada", "Person"), ("Acme", "Organization")), run(("ada", "Person"), ("Acme", "Location"),
...     ("Paris", "Location")))
>>> d.entities.model_dump(), d.entity_agreement
({'same': 1, 'added': 1, 'removed': 0, 'changed': 1}, 0.3333333333333333)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from kgkit.core.names import normalise_name
from kgkit.core.records import Chunk, ChunkExtraction, DocumentExtraction, Record, TextExtraction
from kgkit.core.stage import stage

Status = Literal["same", "added", "removed", "changed"]


class Mark(Record):
    """A highlighted span of chunk text (chunk-relative offsets) and what it marks."""

    start: int
    end: int
    label: str
    status: Status


class ItemDiff(Record):
    """One entity or relation and how it differs between run A and run B."""

    kind: Literal["entity", "relation"]
    key: str
    status: Status
    a: str | None = None  # how run A states it ("Ada (Person)", "Ada -WORKS_FOR-> Acme")
    b: str | None = None
    detail: str = ""


class Counts(Record):
    same: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0

    @property
    def total(self) -> int:
        return self.same + self.added + self.removed + self.changed

    def agreement(self) -> float:
        return self.same / self.total if self.total else 1.0


class ChunkDiff(Record):
    index: int
    chunk_id_a: str | None
    chunk_id_b: str | None
    text_a: str = ""
    text_b: str = ""
    error_a: str | None = None
    error_b: str | None = None
    marks_a: tuple[Mark, ...] = ()
    marks_b: tuple[Mark, ...] = ()
    entities: tuple[ItemDiff, ...] = ()
    relations: tuple[ItemDiff, ...] = ()

    @property
    def differs(self) -> bool:
        return any(i.status != "same" for i in (*self.entities, *self.relations)) or self.error_a != self.error_b


class DocumentDiff(Record):
    path: str
    presence: Literal["both", "only_a", "only_b"]
    changed_text: bool  # the document's content differs between the runs
    chunks: tuple[ChunkDiff, ...]


class ExtractionDiff(Record):
    label_a: str
    label_b: str
    documents: tuple[DocumentDiff, ...]
    entities: Counts
    relations: Counts

    @property
    def entity_agreement(self) -> float:
        return self.entities.agreement()

    @property
    def relation_agreement(self) -> float:
        return self.relations.agreement()


def _entities(t: TextExtraction | None) -> dict[str, str]:
    """{normalised name: "name (type)"} (first mention wins; several types -> sorted and joined)."""
    types: dict[str, set[str]] = defaultdict(set)
    names: dict[str, str] = {}
    for e in t.entities if t else ():
        key = normalise_name(e.name) or e.name
        names.setdefault(key, e.name)
        types[key].add(e.type)
    return {k: f"{names[k]} ({'/'.join(sorted(types[k]))})" for k in names}


def _relations(t: TextExtraction | None) -> dict[tuple[str, str, str, bool], str]:
    out: dict[tuple[str, str, str, bool], str] = {}
    for r in t.relations if t else ():
        key = (normalise_name(r.source), r.type, normalise_name(r.target), r.negated)
        out.setdefault(key, f"{r.source} -{'NOT ' if r.negated else ''}{r.type}-> {r.target}")
    return out


def _entity_diff(a: dict[str, str], b: dict[str, str]) -> list[ItemDiff]:
    out = []
    for key in sorted(a.keys() | b.keys()):
        va, vb = a.get(key), b.get(key)
        if va is None:
            out.append(ItemDiff(kind="entity", key=key, status="added", b=vb))
        elif vb is None:
            out.append(ItemDiff(kind="entity", key=key, status="removed", a=va))
        else:
            ta, tb = va.rsplit(" (", 1)[1][:-1], vb.rsplit(" (", 1)[1][:-1]
            status: Status = "same" if ta == tb else "changed"
            out.append(ItemDiff(kind="entity", key=key, status=status, a=va, b=vb,
                                detail="" if status == "same" else f"type {ta} -> {tb}"))
    return out


def _relation_diff(a: dict[tuple[str, str, str, bool], str], b: dict[tuple[str, str, str, bool], str]) -> list[ItemDiff]:
    out = []
    removed = sorted(a.keys() - b.keys())
    added = sorted(b.keys() - a.keys())
    for key in sorted(a.keys() & b.keys()):
        out.append(ItemDiff(kind="relation", key="|".join(map(str, key)), status="same", a=a[key], b=b[key]))
    by_ends: dict[tuple[str, str], list[tuple[str, str, str, bool]]] = defaultdict(list)
    for key in added:
        by_ends[(key[0], key[2])].append(key)
    for key in removed:
        partners = by_ends.get((key[0], key[2]))
        if partners:
            other = partners.pop(0)
            what = []
            if key[1] != other[1]:
                what.append(f"type {key[1]} -> {other[1]}")
            if key[3] != other[3]:
                what.append("negated" if other[3] else "no longer negated")
            out.append(ItemDiff(kind="relation", key="|".join(map(str, key)), status="changed", a=a[key], b=b[other],
                                detail="; ".join(what)))
        else:
            out.append(ItemDiff(kind="relation", key="|".join(map(str, key)), status="removed", a=a[key]))
    for keys in by_ends.values():
        for key in keys:
            out.append(ItemDiff(kind="relation", key="|".join(map(str, key)), status="added", b=b[key]))
    order = {"same": 0, "changed": 1, "removed": 2, "added": 3}
    return sorted(out, key=lambda i: (order[i.status], i.key))


def _marks(t: TextExtraction | None, status: dict[str, Status]) -> tuple[Mark, ...]:
    out = []
    for e in t.entities if t else ():
        if e.span is not None and e.span.end > e.span.start:
            out.append(Mark(start=e.span.start, end=e.span.end, label=f"{e.name} ({e.type})",
                            status=status.get(normalise_name(e.name) or e.name, "same")))
    return tuple(sorted(set(out), key=lambda m: (m.start, -m.end, m.label)))


def _chunk_diff(index: int, ca: ChunkExtraction | None, cb: ChunkExtraction | None, texts: dict[str, str]) -> ChunkDiff:
    ta, tb = (ca.extraction if ca else None), (cb.extraction if cb else None)
    ents = _entity_diff(_entities(ta), _entities(tb))
    rels = _relation_diff(_relations(ta), _relations(tb))
    status = {i.key: i.status for i in ents}
    return ChunkDiff(index=index, chunk_id_a=ca.chunk_id if ca else None, chunk_id_b=cb.chunk_id if cb else None,
                     text_a=texts.get(ca.chunk_id, "") if ca else "", text_b=texts.get(cb.chunk_id, "") if cb else "",
                     error_a=ta.error if ta else None, error_b=tb.error if tb else None,
                     marks_a=_marks(ta, status), marks_b=_marks(tb, status), entities=tuple(ents), relations=tuple(rels))


def _count(items: Iterable[ItemDiff]) -> Counts:
    c: dict[str, int] = defaultdict(int)
    for i in items:
        c[i.status] += 1
    return Counts(**c)


@stage(version="1")
def diff_extractions(run_a: Sequence[DocumentExtraction], run_b: Sequence[DocumentExtraction], *,
                     chunks: Sequence[Chunk] = (), label_a: str = "A", label_b: str = "B") -> ExtractionDiff:
    """The difference between two extraction runs. `chunks` (of either run) supply the chunk text shown
    with each run's highlighted spans; without them the diff has no text but is otherwise complete."""
    texts = {c.id: c.text for c in chunks}
    da: dict[str, DocumentExtraction] = {d.path: d for d in run_a}
    db: dict[str, DocumentExtraction] = {d.path: d for d in run_b}
    docs = []
    for path in sorted(da.keys() | db.keys()):
        a, b = da.get(path), db.get(path)
        ca, cb = (a.chunks if a else ()), (b.chunks if b else ())
        rows = [_chunk_diff(i, ca[i] if i < len(ca) else None, cb[i] if i < len(cb) else None, texts)
                for i in range(max(len(ca), len(cb)))]
        presence: Any = "both" if a and b else ("only_a" if a else "only_b")
        changed = bool(a and b and (a.sha256 != b.sha256 or a.document_id != b.document_id))
        docs.append(DocumentDiff(path=path, presence=presence, changed_text=changed, chunks=tuple(rows)))
    every = [c for d in docs for c in d.chunks]
    return ExtractionDiff(label_a=label_a, label_b=label_b, documents=tuple(docs),
                          entities=_count(i for c in every for i in c.entities),
                          relations=_count(i for c in every for i in c.relations))
