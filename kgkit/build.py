"""Build stage: document extractions -> Graph, with provenance on every entity and relation.

Entities merge when their type and normalised name agree (kgkit.names.entity_id); relations merge when
their endpoints, type and polarity agree, and count their support. A mention seen twice because chunks
overlap counts once (same document span). Ids and row order are deterministic: same input -> same graph,
byte for byte once saved.

>>> from kgkit.domain import parse_domain
>>> from kgkit.types import *
>>> dom = parse_domain("name: d\\nentity_types: {Person: a, Organization: b, Other: c}")
>>> te = TextExtraction(extractor_id="x", entities=(ExtractedEntity(name="Ada", type="Person"),
...     ExtractedEntity(name="Acme", type="Organization")), relations=(ExtractedRelation(source="Ada",
...     source_type="Person", target="Acme", target_type="Organization", type="RELATED_TO"),))
>>> ce = ChunkExtraction(chunk_id="c1", document_id="d1", extraction=te)
>>> g = build_graph([DocumentExtraction(document_id="d1", path="a.txt", chunks=(ce,))], domain=dom)
>>> list(g.entities["id"]), int(g.relations["support"][0])
(['Organization:acme', 'Person:ada'], 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from kgkit.domain import Domain
from kgkit.extract import provenance_of
from kgkit.graph import ENTITY_COLUMNS, PROVENANCE_COLUMNS, RELATION_COLUMNS, Graph, empty_table
from kgkit.names import entity_id
from kgkit.stage import stage
from kgkit.types import DocumentExtraction, short_hash

LOW_CONFIDENCE = 0.5  # relations whose combined confidence is below this are flagged low_confidence


def relation_id(source: str, relation_type: str, target: str, negated: bool = False) -> str:
    """Stable relation id from endpoints, type and polarity."""
    return "rel:" + short_hash(source, relation_type, target, "neg" if negated else "pos")


def _most_common(values: pd.Series) -> str:
    """Most frequent value; ties broken by the value itself, so the choice is deterministic."""
    counts = values.value_counts()
    top = counts[counts == counts.max()].index
    return str(sorted(top)[0])


def _mention_rows(extractions: Sequence[DocumentExtraction], domain: Domain) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    ents: list[dict[str, Any]] = []
    rels: list[dict[str, Any]] = []
    for doc in extractions:
        for where in doc.chunks:
            if where.error is not None:
                continue
            for ent in where.extraction.entities:
                name = domain.canonical_name(ent.name)
                prov = provenance_of(ent, where)
                ents.append({"item_id": entity_id(ent.type, name), "surface": name, "type": ent.type,
                             "confidence": ent.confidence, **prov.model_dump()})
            for rel in where.extraction.relations:
                src_name, dst_name = domain.canonical_name(rel.source), domain.canonical_name(rel.target)
                src_t, dst_t = rel.source_type, rel.target_type
                src, dst = entity_id(src_t, src_name), entity_id(dst_t, dst_name)
                if src == dst:
                    continue
                spec = domain.relation_types.get(rel.type)
                if spec is not None and spec.symmetric and dst < src:  # one direction for symmetric types
                    src, dst, src_name, dst_name, src_t, dst_t = dst, src, dst_name, src_name, dst_t, src_t
                prov = provenance_of(rel, where)
                rels.append({
                    "item_id": relation_id(src, rel.type, dst, rel.negated), "source": src, "target": dst,
                    "source_name": src_name, "target_name": dst_name, "source_type": src_t, "target_type": dst_t,
                    "type": rel.type, "predicate": rel.predicate, "negated": rel.negated,
                    "confidence": rel.confidence, "valid_at": rel.valid_at, "invalid_at": rel.invalid_at,
                    **prov.model_dump(),
                })
    return ents, rels


def _dedupe_spans(df: pd.DataFrame) -> pd.DataFrame:
    """Drop repeats of one mention seen in two overlapping chunks (same item, document and span)."""
    spanned = df["start"].notna()
    once = df[spanned].drop_duplicates(["item_id", "document_id", "start", "end"])
    return pd.concat([once, df[~spanned]], ignore_index=True)


def _entities_table(ents: pd.DataFrame, rels: pd.DataFrame) -> pd.DataFrame:
    # endpoints named only by a relation still become entities (an LLM may relate what it did not list)
    ends = pd.concat([
        rels[["source", "source_name", "source_type"]].set_axis(["item_id", "surface", "type"], axis=1),
        rels[["target", "target_name", "target_type"]].set_axis(["item_id", "surface", "type"], axis=1),
    ], ignore_index=True) if len(rels) else pd.DataFrame(columns=["item_id", "surface", "type"])
    missing = ends[~ends["item_id"].isin(set(ents["item_id"]))].drop_duplicates("item_id")
    rows = []
    for item, group in ents.groupby("item_id", sort=True):
        name = _most_common(group["surface"])
        rows.append({"id": item, "name": name, "type": group["type"].iloc[0],
                     "aliases": sorted(set(group["surface"]) - {name}), "mentions": len(group),
                     "documents": group["document_id"].nunique(), "confidence": float(group["confidence"].max()),
                     "identity": "derived"})
    for row in missing.itertuples(index=False):
        rows.append({"id": row.item_id, "name": row.surface, "type": row.type, "aliases": [], "mentions": 0,
                     "documents": 0, "confidence": 0.0, "identity": "derived"})
    if not rows:
        return empty_table(ENTITY_COLUMNS)
    table = pd.DataFrame(rows).sort_values("id", kind="stable").reset_index(drop=True)
    degree = pd.concat([rels["source"], rels["target"]]).value_counts() if len(rels) else pd.Series(dtype="int64")
    table["degree"] = table["id"].map(degree).fillna(0).astype("int64")
    return table


def _relations_table(rels: pd.DataFrame, domain: Domain, learned_at: str | None) -> pd.DataFrame:
    if rels.empty:
        return empty_table(RELATION_COLUMNS)
    rows = []
    for item, group in rels.groupby("item_id", sort=True):
        first = group.iloc[0]
        conf = float(1.0 - np.prod(1.0 - group["confidence"].clip(0, 1).to_numpy()))
        best = group.sort_values(["confidence", "document_id", "start"], ascending=[False, True, True], kind="stable").iloc[0]
        preds = group["predicate"].dropna()
        valid = group["valid_at"].dropna()
        invalid = group["invalid_at"].dropna()
        flags = []
        if conf < LOW_CONFIDENCE:
            flags.append("low_confidence")
        if not domain.allows(first["type"], first["source_type"], first["target_type"]):
            flags.append("signature_violation")
        spec = domain.relation_types.get(first["type"])
        if spec is not None and spec.review_required:
            flags.append("review_required")
        if bool(first["negated"]):
            flags.append("negated")
        rows.append({
            "id": item, "source": first["source"], "target": first["target"], "type": first["type"],
            "predicate": _most_common(preds) if len(preds) else None, "negated": bool(first["negated"]),
            "confidence": round(conf, 6), "support": len(group), "evidence": best["evidence"],
            "valid_at": min(valid) if len(valid) else None, "invalid_at": max(invalid) if len(invalid) else None,
            "created_at": learned_at, "expired_at": None, "flags": flags,
        })
    return pd.DataFrame(rows)


def _provenance_table(ents: pd.DataFrame, rels: pd.DataFrame) -> pd.DataFrame:
    cols = list(PROVENANCE_COLUMNS)
    parts = [df.assign(kind=kind)[cols] for df, kind in ((ents, "entity"), (rels, "relation")) if len(df)]
    if not parts:
        return empty_table(PROVENANCE_COLUMNS)
    table = pd.concat(parts, ignore_index=True)
    order = table.assign(_s=table["start"].fillna(-1))
    order = order.sort_values(["kind", "item_id", "document_id", "_s", "chunk_id"], kind="stable")
    return order[cols].reset_index(drop=True)


@stage(version="1")
def build_graph(
    extractions: Sequence[DocumentExtraction], *, domain: Domain, learned_at: str | None = None
) -> Graph:
    """Merge document extractions into one Graph. `learned_at` (ISO time, passed in: stages never read the
    clock) becomes the relations' created_at. Entities without relations are kept."""
    ent_rows, rel_rows = _mention_rows(extractions, domain)
    prov_cols = list(PROVENANCE_COLUMNS)
    ents = pd.DataFrame(ent_rows, columns=["item_id", "surface", "type", "confidence", *prov_cols[2:]])
    rels = pd.DataFrame(rel_rows, columns=["item_id", "source", "target", "source_name", "target_name", "source_type",
                                           "target_type", "type", "predicate", "negated", "confidence", "valid_at",
                                           "invalid_at", *prov_cols[2:]])
    ents, rels = _dedupe_spans(ents), _dedupe_spans(rels)
    documents = pd.DataFrame(
        [{"id": d.document_id, "path": d.path, "sha256": d.sha256, "media_type": d.media_type,
          "chunks": len(d.chunks), "errors": len(d.errors)} for d in extractions],
        columns=["id", "path", "sha256", "media_type", "chunks", "errors"],
    ).sort_values("path", kind="stable")
    extractors = sorted({c.extraction.extractor_id for d in extractions for c in d.chunks})
    meta = {"domain": domain.id, "domain_name": domain.name, "extractors": extractors, "builder": "kgkit.build/1"}
    return Graph(entities=_entities_table(ents, rels), relations=_relations_table(rels, domain, learned_at),
                 provenance=_provenance_table(ents, rels), documents=documents, meta=meta)

