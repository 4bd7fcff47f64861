"""Build stage: document extractions -> Graph, with provenance on every entity and relation.

Entities merge when their type and normalised name agree (kgkit.names.entity_id); relations merge when
their endpoints, type and polarity agree, and count their support. A mention seen twice because chunks
overlap counts once (same document span). Ids and row order are deterministic: same input (in any
document order) -> same graph, byte for byte once saved.

The build is vectorised: one lean pass turns the pydantic records into mention rows, then every merge is a
pandas groupby / numpy operation (no Python loop per entity or relation group). Domain rules come from
kgkit.postprocess (direction repair, flags), applied to the mentions; single-valued relation types are
then resolved by kgkit.temporal (a newer fact invalidates an older one, never deletes it).

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

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from hashlib import sha256 as _rid
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from kgkit.domain import Domain
from kgkit.graph import ENTITY_COLUMNS, PROVENANCE_COLUMNS, RELATION_COLUMNS, Graph, empty_table, relation_id
from kgkit.names import entity_id as _entity_id
from kgkit.postprocess import LOW_CONFIDENCE, combined_codes, relation_flags, reversed_mask
from kgkit.stage import stage
from kgkit.temporal import resolve_conflicts
from kgkit.types import DocumentExtraction

__all__ = ["LOW_CONFIDENCE", "build_graph", "relation_id"]

_PROV = ["document_id", "chunk_id", "start", "end", "evidence", "extractor_id", "model", "prompt_hash"]
_CODES = ["dcode", "ccode"]  # document and chunk as integer codes (ranks in sorted-id order, set in _build)
_ENT_COLS = ["item_id", "ecode", "surface", "type", "confidence", *_PROV, *_CODES]
_REL_COLS = ["source", "target", "scode", "tcode", "source_name", "target_name", "source_type", "target_type", "type", "predicate",
             "negated", "confidence", "valid_at", "invalid_at", *_PROV, *_CODES]


def _mention_rows(extractions: Sequence[DocumentExtraction], domain: Domain) -> tuple[list[tuple], list[tuple], list[str], list[str], list[str]]:
    """One tuple per entity / relation mention (the only per-mention Python loop; ids memoised per name), and
    the distinct entity, document and chunk ids: every mention carries their integer codes (list indexes)."""
    ents: list[tuple] = []
    rels: list[tuple] = []
    ids: dict[tuple[str, str], tuple[str, str, int]] = {}
    codes: dict[str, int] = {}
    doc_codes: dict[str, int] = {}
    chunk_codes: dict[str, int] = {}
    canonical = domain.canonical_names

    def ident(name: str, typ: str) -> tuple[str, str, int]:
        canon = canonical.get(name, name)
        eid = entity_id(typ, canon)
        hit = ids[(typ, name)] = (canon, eid, codes.setdefault(eid, len(codes)))
        return hit

    for doc in extractions:
        for where in doc.chunks:
            ext = where.extraction
            if ext.error is not None:
                continue
            doc_id, chunk_id, off = where.document_id, where.chunk_id, where.chunk_start
            tail = (ext.extractor_id, ext.model, ext.prompt_hash, doc_codes.setdefault(doc_id, len(doc_codes)),
                    chunk_codes.setdefault(chunk_id, len(chunk_codes)))
            for e in ext.entities:
                name, eid, code = ids.get((e.type, e.name)) or ident(e.name, e.type)
                span = e.span
                ents.append((eid, code, name, e.type, e.confidence, doc_id, chunk_id,
                             None if span is None else span.start + off, None if span is None else span.end + off,
                             None, *tail))
            for r in ext.relations:
                src_name, src, scode = ids.get((r.source_type, r.source)) or ident(r.source, r.source_type)
                dst_name, dst, tcode = ids.get((r.target_type, r.target)) or ident(r.target, r.target_type)
                if src == dst:
                    continue
                span = r.evidence_span
                rels.append((src, dst, scode, tcode, src_name, dst_name, r.source_type, r.target_type, r.type, r.predicate,
                             r.negated, r.confidence, r.valid_at, r.invalid_at, doc_id, chunk_id,
                             None if span is None else span.start + off, None if span is None else span.end + off,
                             r.evidence, *tail))
    return ents, rels, list(codes), list(doc_codes), list(chunk_codes)


@lru_cache(maxsize=1 << 18)
def entity_id(entity_type: str, name: str) -> str:
    """kgkit.names.entity_id, memoised across builds (a notebook rebuilding a graph re-uses the ids)."""
    return _entity_id(entity_type, name)


_FLOAT = {"confidence"}
_BOOL = {"negated"}
_INT = {"ecode", "scode", "tcode", "dcode", "ccode"}


def _obj(values: Any) -> pd.Series:
    """An object Series (pandas 3 would otherwise infer its arrow-backed str dtype, then convert back).
    Lists stay whole cells (aliases), never broadcast."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return pd.Series(values, dtype=object, copy=False)
    return pd.Series(list(values), dtype=object)


def _frame(rows: list[tuple], columns: list[str]) -> pd.DataFrame:
    """Rows -> a DataFrame of plain object columns (no per-cell string inference), floats and bools typed."""
    data: dict[str, Any] = {}
    for i, name in enumerate(columns):
        values = list(map(itemgetter(i), rows))  # one column at a time: never every column as tuples at once
        if name in _FLOAT:
            data[name] = np.fromiter(values, dtype=float, count=len(rows))
        elif name in _INT:
            data[name] = np.fromiter(values, dtype=np.int64, count=len(rows))
        elif name in _BOOL:
            data[name] = np.fromiter(values, dtype=bool, count=len(rows))
        else:
            data[name] = _obj(values)
    return pd.DataFrame(data, copy=False)


def _swap(df: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    """Swap the source and target columns where mask is set."""
    if not mask.any():
        return df
    df = df.copy()
    a = ["source", "scode", "source_name", "source_type"]
    b = ["target", "tcode", "target_name", "target_type"]
    df.loc[mask, a + b] = df.loc[mask, b + a].to_numpy()
    return df


def _dedupe_spans(df: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """Drop repeats of one mention seen in two overlapping chunks (same item, document and span)."""
    spanned = df["start"].notna()
    once = df[spanned].drop_duplicates([*key, "dcode", "start", "end"])
    return pd.concat([once, df[~spanned]], ignore_index=True)


def _factor(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Sorted integer codes (-1 for missing) and the sorted distinct values (Python order, as sorted())."""
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _top(keys: np.ndarray, values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per integer key, the most frequent non-missing value; ties go to the smallest value (deterministic).
    Returns (keys that have a value, their value)."""
    vcode, vals = _factor(values)
    keep = vcode >= 0
    if not keep.any():
        return np.zeros(0, np.int64), np.zeros(0, object)
    combo, counts = np.unique(keys[keep] * len(vals) + vcode[keep], return_counts=True)
    uk, uv = combo // len(vals), combo % len(vals)
    order = np.lexsort((uv, -counts, uk))
    uk, uv = uk[order], uv[order]
    first = np.r_[True, uk[1:] != uk[:-1]]
    return uk[first], vals[uv[first]]


def _extreme(keys: np.ndarray, values: Any, n: int, how: str) -> np.ndarray:
    """Per integer key in range(n), the min or max of text values (ISO times) or None, via sorted codes
    (pandas' groupby min/max on text falls back to one Python call per group)."""
    out = np.full(n, None, dtype=object)
    vcode, vals = _factor(values)
    keep = vcode >= 0
    if keep.any():
        best = pd.Series(vcode[keep]).groupby(keys[keep], sort=False).agg(how)
        out[best.index.to_numpy()] = vals[best.to_numpy()]
    return out


def _fill(n: int, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.full(n, None, dtype=object)
    out[keys] = values
    return out


def _lists(keys: np.ndarray, values: np.ndarray) -> dict[Any, list[Any]]:
    """Group values (already sorted by key) into lists per key, with numpy splits instead of a groupby loop."""
    if len(keys) == 0:
        return {}
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return dict(zip(keys[starts].tolist(), (chunk.tolist() for chunk in np.split(values, starts[1:]))))


def _entities_table(ents: pd.DataFrame, rels: pd.DataFrame, sorted_ids: np.ndarray) -> pd.DataFrame:
    """One row per entity id. Endpoints named only by a relation still become entities (an LLM may relate
    what it did not list): named by their most common surface form there, with 0 mentions."""
    # codes are ranks in sorted-id order over every id seen; keep those still present, densely renumbered
    ecode, xcode = ents["ecode"].to_numpy(), np.concatenate([rels["scode"].to_numpy(), rels["tcode"].to_numpy()])
    present = np.zeros(len(sorted_ids), dtype=bool)
    present[ecode] = True
    present[xcode] = True
    dense = np.cumsum(present) - 1
    ids, ecode, xcode = sorted_ids[present], dense[ecode], dense[xcode]
    n, m = len(ids), len(ents)
    if n == 0:
        return empty_table(ENTITY_COLUMNS)
    mentions = np.bincount(ecode, minlength=n)
    doc_code = ents["dcode"].to_numpy()
    pairs = np.unique(ecode * (doc_code.max(initial=0) + 1) + doc_code)
    documents = np.bincount(pairs // (doc_code.max(initial=0) + 1), minlength=n)
    confidence = np.zeros(n)
    if m:
        best = pd.Series(ents["confidence"].to_numpy(float)).groupby(ecode, sort=False).max()
        confidence[best.index.to_numpy()] = best.to_numpy()
    types = np.empty(n, dtype=object)
    types[xcode] = np.concatenate([rels["source_type"].to_numpy(), rels["target_type"].to_numpy()])
    types[ecode] = ents["type"].to_numpy()
    names = _fill(n, *_top(ecode, ents["surface"].to_numpy()))
    unseen = mentions[xcode] == 0
    end_names = np.concatenate([rels["source_name"].to_numpy(), rels["target_name"].to_numpy()])
    k, v = _top(xcode[unseen], end_names[unseen])
    names[k] = v
    # aliases: the other surface forms of the entity's own mentions, sorted
    scode, surfaces = _factor(ents["surface"].to_numpy())
    combo = np.unique(ecode * len(surfaces) + scode) if m else np.zeros(0, np.int64)
    akey, aval = combo // max(len(surfaces), 1), surfaces[combo % max(len(surfaces), 1)] if m else np.zeros(0, object)
    other = aval != names[akey]
    aliases = _lists(akey[other], aval[other])
    table = pd.DataFrame({
        "id": _obj(ids), "name": _obj(names), "type": _obj(types),
        "aliases": _obj([aliases.get(i, []) for i in range(n)]), "mentions": mentions.astype(np.int64),
        "documents": documents.astype(np.int64), "confidence": confidence, "identity": "derived", "degree": 0,
        "community": None,
    })
    return table[list(ENTITY_COLUMNS)]


def _learned(rels: pd.DataFrame, learned_at: str | Mapping[str, str] | None) -> np.ndarray:
    """Per relation mention, when the graph learned it (one time for the run, or one per document)."""
    if learned_at is None or isinstance(learned_at, str):
        return np.full(len(rels), learned_at, dtype=object)
    return rels["document_id"].map(dict(learned_at)).to_numpy(dtype=object)


def _relations_table(rels: pd.DataFrame, domain: Domain, learned_at: str | Mapping[str, str] | None) -> pd.DataFrame:
    if rels.empty:
        return empty_table(RELATION_COLUMNS)
    code = rels["rcode"].to_numpy()
    n = int(code.max()) + 1
    ids = np.empty(n, dtype=object)
    ids[code] = rels["item_id"].to_numpy()
    conf = rels["confidence"].to_numpy(float)
    start = rels["start"].astype("float64").fillna(np.inf).to_numpy()
    # within each relation: most confident mention first (its evidence is shown), then document and offset
    order = np.lexsort((start, rels["dcode"].to_numpy(), -conf, code))
    r = rels.iloc[order]
    c = code[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    col = {name: r[name].to_numpy()[starts] for name in ("source", "target", "type", "negated", "source_type",
                                                       "target_type")}
    evidence = r["evidence"].to_numpy()
    has = np.flatnonzero(pd.notna(evidence))
    first_has = np.unique(c[has], return_index=True)
    out = pd.DataFrame({
        "id": _obj(ids), **{k: _obj(v) for k, v in col.items() if k != "negated"},
        "negated": col["negated"].astype(bool),
        "predicate": _obj(_fill(n, *_top(c, r["predicate"].to_numpy()))),
        "support": np.diff(np.r_[starts, len(c)]).astype(np.int64),
        "confidence": [round(float(x), 6) for x in 1.0 - np.multiply.reduceat(1.0 - np.clip(conf[order], 0, 1), starts)],
        "evidence": _obj(_fill(n, first_has[0], evidence[has[first_has[1]]])),
        "valid_at": _obj(_extreme(c, r["valid_at"].to_numpy(), n, "min")),
        "invalid_at": _obj(_extreme(c, r["invalid_at"].to_numpy(), n, "max")),
        "created_at": _obj(_extreme(c, _learned(r, learned_at), n, "min")),
        "expired_at": _obj(np.full(n, None, dtype=object)),
        "direction_repaired": np.logical_or.reduceat(r["direction_repaired"].to_numpy(bool), starts),
    })
    out["flags"] = relation_flags(out, domain)
    return out[list(RELATION_COLUMNS)]


def _provenance_table(ents: pd.DataFrame, rels: pd.DataFrame) -> pd.DataFrame:
    """Entity rows, then relation rows; each by item id (its sorted code), document, offset, chunk."""
    cols = list(PROVENANCE_COLUMNS)
    parts = []
    for df, kind, key in ((ents, "entity", "ecode"), (rels, "relation", "rcode")):
        if len(df):
            start = df["start"].astype("float64").fillna(-1).to_numpy()
            order = np.lexsort((df["ccode"].to_numpy(), start, df["dcode"].to_numpy(), df[key].to_numpy()))
            parts.append(df.iloc[order].assign(kind=_obj([kind] * len(df)).to_numpy())[cols])
    if not parts:
        return empty_table(PROVENANCE_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def _relation_mentions(rows: list[tuple], domain: Domain, repair: bool, rank: np.ndarray) -> pd.DataFrame:
    """Relation mention rows with symmetric types ordered, reversed ones repaired, ids and sorted codes."""
    rels = _frame(rows, _REL_COLS)
    rels["scode"], rels["tcode"] = rank[rels["scode"].to_numpy()], rank[rels["tcode"].to_numpy()]
    symmetric = [name for name, spec in domain.relation_types.items() if spec.symmetric]
    rels = _swap(rels, (rels["type"].isin(symmetric).to_numpy() & (rels["tcode"] < rels["scode"]).to_numpy()))
    flip = reversed_mask(rels, domain) if repair else np.zeros(len(rels), dtype=bool)
    rels = _swap(rels, flip)
    rels["direction_repaired"] = flip
    codes = combined_codes(rels["scode"].to_numpy(), rels["type"].to_numpy(dtype=object), rels["tcode"].to_numpy(),
                           rels["negated"].to_numpy())
    _, first = np.unique(codes, return_index=True)
    uniques = rels[["source", "type", "target", "negated"]].to_numpy(dtype=object)[first]
    ids = np.empty(len(uniques), dtype=object)
    ids[:] = [_rid(f"{s}\x1f{t}\x1f{d}\x1f{'neg' if n else 'pos'}".encode()).hexdigest()[:16] for s, t, d, n in uniques]
    ids = "rel:" + ids  # the same ids as kgkit.graph.relation_id, without a function call per relation
    rels["item_id"] = _obj(ids[codes])
    rels["rcode"] = _ranks(ids)[codes]
    return rels


def _ranks(values: list[str] | np.ndarray) -> np.ndarray:
    """Position of each (distinct) value in sorted order."""
    order = np.argsort(np.asarray(values, dtype=object), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


@stage(version="2")
def build_graph(
    extractions: Sequence[DocumentExtraction],
    *,
    domain: Domain,
    learned_at: str | Mapping[str, str] | None = None,
    repair: bool = True,
    resolve: bool = True,
) -> Graph:
    """Merge document extractions into one Graph. Entities without relations are kept.

    - `learned_at` (ISO time, passed in: stages never read the clock) becomes the relations' created_at:
      one time for the whole input, or a mapping document id -> time (a relation gets the earliest time of
      the documents that support it). None leaves created_at empty ("always known").
    - `repair` (default on): relations extracted the wrong way round for their type's signatures are
      flipped and flagged ``direction_repaired`` (kgkit.postprocess); their type never changes.
    - `resolve` (default on): single-valued relation types are resolved in world/graph time
      (kgkit.temporal.resolve_conflicts): an older fact is invalidated, never deleted.
    """
    with _gc_paused():
        graph = _build(extractions, domain, learned_at, repair)
    return resolve_conflicts(graph, domain=domain) if resolve else graph


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building: the build allocates many small acyclic objects
    (mention rows), and each full collection would walk every record of the input (~30% of build time).
    The previous state is restored, also on error."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _build(extractions: Sequence[DocumentExtraction], domain: Domain, learned_at: str | Mapping[str, str] | None,
           repair: bool) -> Graph:
    ent_rows, rel_rows, entity_ids, doc_ids, chunk_ids = _mention_rows(extractions, domain)
    places = {"dcode": _ranks(doc_ids), "ccode": _ranks(chunk_ids)}
    rank = _ranks(entity_ids)  # entity code -> position in sorted-id order: codes then sort like ids
    sorted_ids = np.empty(len(entity_ids), dtype=object)
    sorted_ids[rank] = entity_ids
    ents = _frame(ent_rows, _ENT_COLS)
    del ent_rows  # the rows are in the frame now: free them before the next big allocation
    ents["ecode"] = rank[ents["ecode"].to_numpy()]
    rels = _relation_mentions(rel_rows, domain, repair, rank)
    for df in (ents, rels):
        for col, ranks in places.items():
            df[col] = ranks[df[col].to_numpy()]
    ents, rels = _dedupe_spans(ents, ["ecode"]), _dedupe_spans(rels, ["rcode"])
    del rel_rows
    documents = pd.DataFrame(
        [(d.document_id, d.path, d.sha256, d.media_type, len(d.chunks), len(d.errors)) for d in extractions],
        columns=["id", "path", "sha256", "media_type", "chunks", "errors"],
    ).sort_values(["path", "id"], kind="stable")
    extractors = sorted({c.extraction.extractor_id for d in extractions for c in d.chunks})
    meta = {"domain": domain.id, "domain_name": domain.name, "extractors": extractors, "builder": "kgkit.build/1"}
    relations = _relations_table(rels, domain, learned_at)
    entities = _entities_table(ents, rels, sorted_ids)
    degree = pd.concat([relations["source"], relations["target"]]).value_counts()
    entities["degree"] = entities["id"].map(degree).fillna(0).astype("int64")
    return Graph(entities=entities, relations=relations, provenance=_provenance_table(ents, rels),
                 documents=documents, meta=meta)
