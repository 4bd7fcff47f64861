"""Import sift-kg 0.9.0 output so its users can move over (I/O layer: these functions read files).

- :func:`read_siftkg_extractions` reads ``extractions/*.json`` (one sift-kg DocumentExtraction per document)
  into kgkit DocumentExtractions, ready for :func:`kgkit.stages.build.build_graph`. A document sift-kg failed on
  (``error`` set) or a file that is not a valid extraction becomes an error record, never an empty success.
- :func:`read_siftkg_mentions` reads the same files straight into build_graph's row input
  (:class:`kgkit.stages.mention_rows.Mentions`), without a pydantic record per mention: the same graph, built from
  sift-kg files several times faster (what ``kgkit build`` on a sift-kg folder needs).
- :func:`read_siftkg_graph` reads sift-kg's ``graph_data.json`` (networkx node-link: ``nodes``, ``links``)
  into a Graph as sift-kg built it: its entity ids are kept (identity ``source``), DOCUMENT nodes become the
  documents table, MENTIONED_IN links become entity provenance, every other link a relation with one
  provenance row per sift-kg mention.

sift-kg's UPPER_SNAKE entity types map to kgkit names (``PERSON`` -> ``Person``, ``ORGANIZATION`` ->
``Organization``, unknown ``FINANCIAL_INSTITUTION`` -> ``FinancialInstitution``); pass ``type_map`` to
override, or a ``domain`` to map through its NER labels and fall back to its fallback type.

>>> kgkit_type("ORGANIZATION"), kgkit_type("GPE"), kgkit_type("FINANCIAL_INSTITUTION")
('Organization', 'Location', 'FinancialInstitution')
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd

from kgkit.core.constants import LOW_CONFIDENCE
from kgkit.core.domain import Domain
from kgkit.core.graph import (
    DOCUMENT_COLUMNS,
    ENTITY_COLUMNS,
    PROVENANCE_COLUMNS,
    RELATION_COLUMNS,
    Graph,
    GraphMeta,
    empty_table,
)
from kgkit.core.records import (
    ChunkExtraction,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    TextExtraction,
    relation_id,
)
from kgkit.core.stage import gc_paused
from kgkit.stages.mention_rows import ChunkRow, DocumentRow, Mentions

SIFTKG_TYPES: dict[str, str] = {
    "PERSON": "Person", "PEOPLE": "Person", "ORGANIZATION": "Organization", "ORGANISATION": "Organization",
    "ORG": "Organization", "COMPANY": "Organization", "LOCATION": "Location", "PLACE": "Location",
    "GPE": "Location", "LOC": "Location", "FAC": "Location", "EVENT": "Event", "LAW": "Law", "GROUP": "Group",
    "NORP": "Group", "PRODUCT": "Product", "WORK": "Work", "WORK_OF_ART": "Work", "DATE": "Date",
    "CONCEPT": "Concept", "OTHER": "Other", "DOCUMENT": "Document",
}
_ENTITY_FIELDS = set(ExtractedEntity.model_fields)
_RELATION_FIELDS = set(ExtractedRelation.model_fields)


def kgkit_type(siftkg_type: str, *, type_map: Mapping[str, str] | None = None, domain: Domain | None = None) -> str:
    """The kgkit entity type for a sift-kg entity_type (see the module docstring for the rules)."""
    key = str(siftkg_type).strip().upper()
    if type_map and key in type_map:
        return type_map[key]
    if domain is not None:
        by_label = domain.entity_type_for_label(key)
        if by_label:
            return by_label
        name = SIFTKG_TYPES.get(key) or _pascal(key)
        return name if name in domain.entity_types else domain.fallback_entity_type
    return SIFTKG_TYPES.get(key) or _pascal(key) or "Other"


def _pascal(key: str) -> str:
    return "".join(part.capitalize() for part in key.replace("-", "_").replace(" ", "_").split("_") if part)


def _attrs(raw: Any) -> dict[str, str]:
    """sift-kg attributes are free JSON; kgkit keeps them as strings (non-strings as JSON)."""
    if not isinstance(raw, dict):
        return {}
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True) for k, v in raw.items()}


def _one_extraction(path: Path, data: dict[str, Any], *, types: dict[str, str], type_map: Mapping[str, str] | None,
                    domain: Domain | None) -> DocumentExtraction:
    sift_id = str(data.get("document_id") or path.stem)
    doc_id = f"doc:{sift_id}"
    model = data.get("model_used") or None
    entities, types_by_name = [], {}
    # Every field is coerced here (str / float / dict[str, str]), so the many small records are built with
    # model_construct, skipping a second validation pass (2,000 files hold ~80k mentions), and share one
    # fields-set (pydantic copies it on model_copy): ~0.7 KB less per record.
    for ent in data.get("entities") or []:
        label = str(ent.get("entity_type") or "OTHER")
        etype = types.get(label)
        if etype is None:
            etype = types[label] = kgkit_type(label, type_map=type_map, domain=domain)
        attrs = _attrs(ent.get("attributes"))
        if ent.get("context"):
            attrs["context"] = str(ent["context"])
        name = str(ent["name"])
        entities.append(ExtractedEntity.model_construct(
            _ENTITY_FIELDS, name=name, type=etype, span=None, label=label, confidence=float(ent.get("confidence", 1.0)), attributes=attrs))
        types_by_name.setdefault(name.casefold(), etype)  # sift-kg resolves endpoints case-insensitively
    relations = []
    for rel in data.get("relations") or []:
        src, dst = str(rel["source_entity"]), str(rel["target_entity"])
        evidence = rel.get("evidence")
        relations.append(ExtractedRelation.model_construct(
            _RELATION_FIELDS, source=src, source_type=types_by_name.get(src.casefold(), "Other"), target=dst,
            target_type=types_by_name.get(dst.casefold(), "Other"), type=str(rel["relation_type"]), predicate=None,
            evidence=str(evidence) if evidence else None, evidence_span=None, negated=False,
            confidence=float(rel.get("confidence", 1.0)), valid_at=None, invalid_at=None, attributes={}))
    extraction = TextExtraction(
        entities=tuple(entities), relations=tuple(relations), extractor_id=f"siftkg:{model or 'unknown'}",
        quality="imported", model=model, error=data.get("error") or None, cost_usd=float(data.get("cost_usd") or 0.0))
    chunk = ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=extraction)
    return DocumentExtraction(document_id=doc_id, path=str(data.get("document_path") or path.name), chunks=(chunk,))


def _error_extraction(path: Path, reason: str) -> DocumentExtraction:
    doc_id = f"doc:{path.stem}"
    failed = TextExtraction(extractor_id="siftkg:unknown", quality="imported", error=reason)
    return DocumentExtraction(document_id=doc_id, path=path.name,
                              chunks=(ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=failed),))


def _extraction_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The ``*.json`` files of OUT/extractions (or of the folder itself), sorted by name (Path order, by a
    str key: pathlib's own comparison costs more than reading the small files at n2000)."""
    base = Path(folder) / "extractions" if (Path(folder) / "extractions").is_dir() else Path(folder)
    return sorted(base.glob("*.json"), key=str)


def _read_one(path: Path, *, types: dict[str, str], type_map: Mapping[str, str] | None,
              domain: Domain | None) -> DocumentExtraction:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return _one_extraction(path, data, types=types, type_map=type_map, domain=domain)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # JSONDecodeError and pydantic errors are ValueErrors
        return _error_extraction(path, f"not a sift-kg extraction file: {type(exc).__name__}: {exc}")


def read_siftkg_extractions(folder: str | os.PathLike[str], *, type_map: Mapping[str, str] | None = None,
                            domain: Domain | None = None) -> list[DocumentExtraction]:
    """Every ``*.json`` in ``folder`` (sift-kg's OUT/extractions, or OUT itself), sorted by file name, as kgkit
    DocumentExtractions: one chunk per document, extractor ``siftkg:<model_used>``, quality ``imported``.
    Entity context is kept in the entity's ``context`` attribute; relation evidence becomes provenance
    evidence. Failed documents and unreadable files come back with an error, not dropped."""
    types: dict[str, str] = {}
    return [_read_one(path, types=types, type_map=type_map, domain=domain)
            for path in _extraction_files(folder)]


class _SiftEntity(msgspec.Struct, gc=False):
    name: str
    entity_type: str | None = None
    confidence: float = 1.0


class _SiftRelation(msgspec.Struct, gc=False):
    source_entity: str
    target_entity: str
    relation_type: str
    confidence: float = 1.0
    evidence: str | None = None


class _SiftFile(msgspec.Struct, gc=False):
    """The fields of a sift-kg extraction file that the graph uses, strictly typed: a file that does not fit
    (a number where a name belongs, a confidence as text, ...) goes through read_siftkg_extractions' record
    path instead, with its coercions and error records. Fields the graph does not use (entity attributes
    and context) are not decoded."""

    document_id: str | None = None
    document_path: str | None = None
    model_used: str | None = None
    error: str | None = None
    cost_usd: float | None = None  # not used by the graph; typed so a bad value takes the record path
    entities: list[_SiftEntity] | None = None
    relations: list[_SiftRelation] | None = None


_DECODE_FILE = msgspec.json.Decoder(_SiftFile).decode


def read_siftkg_mentions(folder: str | os.PathLike[str], *, type_map: Mapping[str, str] | None = None,
                         domain: Domain | None = None) -> Mentions:
    """The files read_siftkg_extractions reads, as build_graph's row input: ``build_graph(read_siftkg_mentions(
    f), ...)`` gives the same graph as ``build_graph(read_siftkg_extractions(f), ...)`` (same bytes once
    saved), without a pydantic record per mention. A file the typed decoder does not accept takes the
    record path (same coercions, same error records)."""
    with gc_paused():  # many small acyclic rows: no cyclic-GC passes over them while they are made
        return _read_mentions(_extraction_files(folder), type_map, domain)


def _read_mentions(paths: list[Path], type_map: Mapping[str, str] | None, domain: Domain | None) -> Mentions:
    types: dict[str, str] = {}
    documents: list[DocumentRow] = []
    extractors: set[str] = set()
    chunks: list[ChunkRow] = []
    for path in paths:
        try:
            data = _DECODE_FILE(path.read_bytes())
        except (OSError, msgspec.MsgspecError):
            slow = Mentions.of([_read_one(path, types=types, type_map=type_map, domain=domain)])
            documents += slow.documents
            extractors.update(slow.extractors)
            chunks += slow.chunks
            continue
        doc_id = f"doc:{data.document_id or path.stem}"
        model = data.model_used or None
        extractor = f"siftkg:{model or 'unknown'}"
        error = data.error or None
        documents.append(DocumentRow(doc_id, data.document_path or path.name, "", "", 1, 0 if error is None else 1))
        extractors.add(extractor)
        if error is not None:
            continue
        ents, by_name = [], {}  # EntityMention / RelationMention rows, as plain tuples (kgkit.stages.mention_rows)
        for ent in data.entities or ():
            label = ent.entity_type or "OTHER"
            etype = types.get(label)
            if etype is None:
                etype = types[label] = kgkit_type(label, type_map=type_map, domain=domain)
            ents.append((ent.name, etype, ent.confidence, None, None))
            by_name.setdefault(ent.name.casefold(), etype)  # sift-kg resolves endpoints case-insensitively
        rels = [(r.source_entity, by_name.get(r.source_entity.casefold(), "Other"), r.target_entity,
                 by_name.get(r.target_entity.casefold(), "Other"), r.relation_type, None, False, r.confidence, None,
                 None, None, None, r.evidence or None) for r in data.relations or ()]
        chunks.append(ChunkRow(doc_id, f"{doc_id}#0", extractor, model, None, ents, rels))
    return Mentions(documents, sorted(extractors), chunks)


# --------------------------------------------------------------------------- graph_data.json


def _aliases(node: dict[str, Any]) -> list[str]:
    attrs = node.get("attributes") if isinstance(node.get("attributes"), dict) else {}
    found: set[str] = set()
    for key in ("aliases", "also_known_as"):
        value = attrs.get(key, node.get(key))
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, list):
            found.update(str(v) for v in value)
    return sorted(found - {node.get("name")})


def read_siftkg_graph(path: str | os.PathLike[str], *, type_map: Mapping[str, str] | None = None,
                      domain: Domain | None = None) -> Graph:
    """A Graph from sift-kg's ``graph_data.json`` (see the module docstring for the mapping)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    sift_meta = data.get("metadata") or {}
    created = sift_meta.get("created_at")
    nodes = {n["id"]: n for n in data.get("nodes") or [] if n.get("id") is not None}
    docs = {k: n for k, n in nodes.items() if str(n.get("entity_type", "")).upper() == "DOCUMENT"}
    ents = {k: n for k, n in nodes.items() if k not in docs}

    def doc_id(sift_doc: str) -> str:
        return sift_doc if sift_doc.startswith("doc:") else f"doc:{sift_doc}"

    prov: list[dict[str, Any]] = []
    rels: list[dict[str, Any]] = []
    for link in data.get("links", data.get("edges")) or []:
        src, dst, rtype = link.get("source"), link.get("target"), str(link.get("relation_type", ""))
        if src not in nodes or dst not in nodes:
            continue
        if rtype == "MENTIONED_IN" and dst in docs:
            prov.append(_prov(src, "entity", dst, ents.get(src, {}).get("context") or None))
            continue
        if src in docs or dst in docs:
            continue
        conf = float(link.get("confidence", 1.0))
        rid = relation_id(src, rtype, dst)
        rels.append({"id": rid, "source": src, "target": dst, "type": rtype, "predicate": None, "negated": False,
                     "confidence": conf, "support": int(link.get("support_count") or 1),
                     "evidence": link.get("evidence") or None, "valid_at": None, "invalid_at": None,
                     "created_at": created, "expired_at": None,
                     "flags": ["low_confidence"] if conf < LOW_CONFIDENCE else []})
        mentions = link.get("mentions") or [{"source_document": link.get("source_document"), "evidence": link.get("evidence")}]
        for m in mentions:
            if m.get("source_document"):
                prov.append(_prov(rid, "relation", doc_id(str(m["source_document"])), m.get("evidence") or None))
    degree: dict[str, int] = {}
    for r in rels:
        degree[r["source"]] = degree.get(r["source"], 0) + 1
        degree[r["target"]] = degree.get(r["target"], 0) + 1
    ent_rows = []
    for key, n in ents.items():
        sources = n.get("source_documents") or []
        ent_rows.append({"id": key, "name": str(n.get("name", key)),
                         "type": kgkit_type(n.get("entity_type", "OTHER"), type_map=type_map, domain=domain),
                         "aliases": _aliases(n), "mentions": len(sources), "documents": len(set(sources)),
                         "confidence": float(n.get("confidence", 1.0)), "identity": "source", "degree": degree.get(key, 0)})
    doc_rows = [{"id": doc_id(k),
                 "path": str((n.get("attributes") or {}).get("path") or n.get("name") or k), "sha256": "",
                 "media_type": "", "chunks": 0, "errors": 0} for k, n in docs.items()]
    meta: GraphMeta = {"domain": domain.id if domain else None, "domain_name": domain.name if domain else None,
                       "extractors": ["siftkg"], "builder": "kgkit.io.importers.siftkg/1", "source": "sift-kg",
                       "sift_kg_version": sift_meta.get("sift_kg_version"), "sift_kg_created_at": created}
    return Graph(entities=_table(ent_rows, ENTITY_COLUMNS, ["id"]), relations=_table(rels, RELATION_COLUMNS, ["id"]),
                 provenance=_table(prov, PROVENANCE_COLUMNS, ["kind", "item_id", "document_id"]),
                 documents=_table(doc_rows, DOCUMENT_COLUMNS, ["path"]), meta=meta)


def _prov(item: str, kind: str, document: str, evidence: str | None) -> dict[str, Any]:
    return {"item_id": item, "kind": kind, "document_id": document, "chunk_id": f"{document}#0", "start": None,
            "end": None, "evidence": evidence, "extractor_id": "siftkg", "model": None, "prompt_hash": None}


def _table(rows: list[dict[str, Any]], columns: dict[str, str], order: list[str]) -> pd.DataFrame:
    if not rows:
        return empty_table(columns)
    return pd.DataFrame(rows).sort_values(order, kind="stable").reset_index(drop=True)
