"""Build stage: document extractions -> Graph, with provenance on every entity and relation.

Entities merge when their type and normalised name agree (kgkit.core.names.entity_id); relations merge when
their endpoints, type and polarity agree, and count their support. A mention seen twice because chunks
overlap counts once (same document span). Ids and row order are deterministic: same input (in any
document order) -> same graph, byte for byte once saved.

The build is vectorised: one lean pass turns the pydantic records into mention rows, then every merge is a
pandas groupby / numpy operation (no Python loop per entity or relation group). Domain rules come from
kgkit.stages.postprocess (direction repair, flags), applied to the mentions; single-valued relation types are
then resolved by kgkit.stages.temporal (a newer fact invalidates an older one, never deletes it).

>>> from kgkit.core.domain import parse_domain
>>> from kgkit.core.records import *
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

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from kgkit.core.domain import Domain
from kgkit.core.graph import ENTITY_COLUMNS, PROVENANCE_COLUMNS, RELATION_COLUMNS, Graph, GraphMeta, empty_table
from kgkit.core.names import entity_id as _entity_id
from kgkit.core.records import DocumentExtraction, relation_ids
from kgkit.core.stage import gc_paused, stage
from kgkit.stages.keyed_arrays import extreme_per_key, factor, fill_per_key, lists_per_key, ranks, top_per_key
from kgkit.stages.mention_rows import (
    ChunkRow,
    DocumentRow,
    EntityMention,
    Mentions,
    RelationMention,
    chunk_rows,
    document_rows,
    extractor_ids,
)
from kgkit.stages.postprocess import combined_codes, relation_flags, reversed_mask
from kgkit.stages.splits import SplitSpec, split_ids
from kgkit.stages.temporal import resolve_conflicts

__all__ = ["Mentions", "build_graph"]  # Mentions: kgkit.stages.mention_rows, re-exported


def _mention_frames(chunks: Iterable[ChunkRow], domain: Domain, splits: Sequence[SplitSpec] = ()
                    ) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, list[str], list[str]]:
    """Entity and relation mention frames from Mentions.chunks rows, and the distinct entity, document and chunk
    ids the mentions' integer codes index. No Python step per mention: the rows are transposed to named columns
    (EntityMention / RelationMention of column tuples), each distinct (type, name) is resolved to its entity id
    once, and chunk-level fields (document, chunk, extractor) are taken per mention by chunk index."""
    ent_rows: list[tuple] = []
    rel_rows: list[tuple] = []
    sizes: list[tuple[int, int]] = []
    places: list[tuple[str, str, str, str | None, str | None]] = []
    doc_codes: dict[str, int] = {}
    chunk_codes: dict[str, int] = {}
    codes: list[tuple[int, int]] = []
    for row in chunks:
        places.append((row.document_id, row.chunk_id, row.extractor_id, row.model, row.prompt_hash))
        codes.append((doc_codes.setdefault(row.document_id, len(doc_codes)),
                      chunk_codes.setdefault(row.chunk_id, len(chunk_codes))))
        ent_rows += row.entities
        rel_rows += row.relations
        sizes.append((len(row.entities), len(row.relations)))
    ne, nr = len(ent_rows), len(rel_rows)
    ent = EntityMention._make(_columns(ent_rows, len(EntityMention._fields)))
    rel = RelationMention._make(_columns(rel_rows, len(RelationMention._fields)))
    del ent_rows, rel_rows
    doc_col, chunk_col, extractor_col, model_col, prompt_col = (_objects(c) for c in _columns(places, 5))
    dcode, ccode = (np.array(c, dtype=np.int64).reshape(-1) for c in _columns(codes, 2))
    counts = np.array(sizes, dtype=np.int64).reshape(-1, 2)
    ent_chunk = np.repeat(np.arange(len(places)), counts[:, 0])
    rel_chunk = np.repeat(np.arange(len(places)), counts[:, 1])
    # entity ids: one canonical-name lookup and one entity_id per distinct (type, name)
    types = np.concatenate([_objects(ent.type), _objects(rel.source_type), _objects(rel.target_type)])
    names = np.concatenate([_objects(ent.name), _objects(rel.source), _objects(rel.target)])
    tcode, tvals = pd.factorize(types, use_na_sentinel=False)
    ncode, nvals = pd.factorize(names, use_na_sentinel=False)
    pairs, inverse = np.unique(tcode.astype(np.int64) * max(len(nvals), 1) + ncode, return_inverse=True)
    canonical = domain.canonical_names
    canon = _objects([canonical.get(n, n) for n in nvals[pairs % max(len(nvals), 1)].tolist()])
    pair_ids = _objects([entity_id(t, c) for t, c in zip(tvals[pairs // max(len(nvals), 1)].tolist(), canon.tolist())])
    pair_code, entity_ids = pd.factorize(pair_ids)
    code, canon = pair_code[inverse.reshape(-1)].astype(np.int64), canon[inverse.reshape(-1)]
    ids = np.asarray(entity_ids, dtype=object)[code]
    if splits:  # same name, another thing: a person's split moves these mentions to a new entity
        slot_chunk = np.concatenate([ent_chunk, rel_chunk, rel_chunk])
        ids = split_ids(ids, doc_col[slot_chunk], chunk_col[slot_chunk], splits)
        code, entity_ids = pd.factorize(ids)
        code = code.astype(np.int64)

    def chunk_fields(at: np.ndarray) -> dict[str, Any]:
        return {"document_id": _obj(doc_col[at]), "chunk_id": _obj(chunk_col[at]),
                "extractor_id": _obj(extractor_col[at]), "model": _obj(model_col[at]),
                "prompt_hash": _obj(prompt_col[at]), "dcode": dcode[at], "ccode": ccode[at]}

    ents = pd.DataFrame({
        "item_id": _obj(ids[:ne]), "ecode": code[:ne], "surface": _obj(canon[:ne]), "type": _obj(types[:ne]),
        "confidence": np.array(ent.confidence, dtype=float), "start": _obj(ent.start), "end": _obj(ent.end),
        "evidence": _obj(np.full(ne, None, dtype=object)), **chunk_fields(ent_chunk)}, copy=False)
    src, dst = slice(ne, ne + nr), slice(ne + nr, ne + 2 * nr)
    keep = code[src] != code[dst]  # a relation from an entity to itself is dropped
    rels = pd.DataFrame({
        "source": _obj(ids[src]), "target": _obj(ids[dst]), "scode": code[src], "tcode": code[dst],
        "source_name": _obj(canon[src]), "target_name": _obj(canon[dst]), "source_type": _obj(types[src]),
        "target_type": _obj(types[dst]), "type": _obj(rel.type), "predicate": _obj(rel.predicate),
        "negated": np.array(rel.negated, dtype=bool), "confidence": np.array(rel.confidence, dtype=float),
        "valid_at": _obj(rel.valid_at), "invalid_at": _obj(rel.invalid_at), "start": _obj(rel.start),
        "end": _obj(rel.end), "evidence": _obj(rel.evidence), **chunk_fields(rel_chunk)}, copy=False)
    if not keep.all():
        rels = rels[keep].reset_index(drop=True)
    return ents, rels, np.asarray(entity_ids, dtype=object), list(doc_codes), list(chunk_codes)


def _columns(rows: list[tuple], width: int) -> list[tuple]:
    """Rows -> columns (one C-level transpose), `width` empty columns when there are no rows."""
    return list(zip(*rows)) if rows else [()] * width


def _objects(values: Any) -> np.ndarray:
    """A 1-d object array of the values as they are (never a 2-d array of tuples or characters)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@lru_cache(maxsize=1 << 18)
def entity_id(entity_type: str, name: str) -> str:
    """kgkit.core.names.entity_id, memoised across builds (a notebook rebuilding a graph re-uses the ids)."""
    return _entity_id(entity_type, name)


def _obj(values: Any) -> pd.Series:
    """An object Series (pandas 3 would otherwise infer its arrow-backed str dtype, then convert back).
    Lists stay whole cells (aliases), never broadcast."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return pd.Series(values, dtype=object, copy=False)
    return pd.Series(list(values), dtype=object)


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
    if not spanned.any():  # nothing to compare (sift-kg mentions carry no spans): no copy
        return df
    once = df[spanned].drop_duplicates([*key, "dcode", "start", "end"])
    return pd.concat([once, df[~spanned]], ignore_index=True)


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
    names = fill_per_key(n, *top_per_key(ecode, ents["surface"].to_numpy()))
    unseen = mentions[xcode] == 0
    end_names = np.concatenate([rels["source_name"].to_numpy(), rels["target_name"].to_numpy()])
    k, v = top_per_key(xcode[unseen], end_names[unseen])
    names[k] = v
    # aliases: the other surface forms of the entity's own mentions, sorted
    scode, surfaces = factor(ents["surface"].to_numpy())
    combo = np.unique(ecode * len(surfaces) + scode) if m else np.zeros(0, np.int64)
    akey, aval = combo // max(len(surfaces), 1), surfaces[combo % max(len(surfaces), 1)] if m else np.zeros(0, object)
    other = aval != names[akey]
    aliases = lists_per_key(akey[other], aval[other])
    table = pd.DataFrame({
        "id": _obj(ids), "name": _obj(names), "type": _obj(types),
        "aliases": _obj([aliases.get(i, []) for i in range(n)]), "mentions": mentions.astype(np.int64),
        "documents": documents.astype(np.int64), "confidence": confidence, "identity": "derived", "degree": 0,
        "community": None,
    })
    return table[list(ENTITY_COLUMNS)]


def _created(keys: np.ndarray, rels: pd.DataFrame, learned_at: str | Mapping[str, str] | None, n: int) -> np.ndarray:
    """Per relation, when the graph learned it: one time for the run (every relation then has it), or the
    earliest time of the documents supporting it (a mapping document id -> time)."""
    if learned_at is None or isinstance(learned_at, str):
        return np.full(n, learned_at, dtype=object)
    return extreme_per_key(keys, rels["document_id"].map(dict(learned_at)).to_numpy(dtype=object), n, "min")


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
    r = rels[["source", "target", "type", "negated", "source_type", "target_type", "predicate", "evidence", "valid_at",
              "invalid_at", "document_id", "direction_repaired"]].iloc[order]  # only what is read below
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
        "predicate": _obj(fill_per_key(n, *top_per_key(c, r["predicate"].to_numpy()))),
        "support": np.diff(np.r_[starts, len(c)]).astype(np.int64),
        "confidence": [round(x, 6) for x in (1.0 - np.multiply.reduceat(1.0 - np.clip(conf[order], 0, 1), starts)).tolist()],
        "evidence": _obj(fill_per_key(n, first_has[0], evidence[has[first_has[1]]])),
        "valid_at": _obj(extreme_per_key(c, r["valid_at"].to_numpy(), n, "min")),
        "invalid_at": _obj(extreme_per_key(c, r["invalid_at"].to_numpy(), n, "max")),
        "created_at": _obj(_created(c, r, learned_at, n)),
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
            rows = df[[c for c in cols if c != "kind"]].iloc[order]  # only the provenance columns are moved
            parts.append(rows.assign(kind=_obj([kind] * len(df)).to_numpy())[cols])
    if not parts:
        return empty_table(PROVENANCE_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def _relation_mentions(rels: pd.DataFrame, domain: Domain, repair: bool, rank: np.ndarray) -> pd.DataFrame:
    """Relation mentions with symmetric types ordered, reversed ones repaired, ids and sorted codes."""
    rels["scode"], rels["tcode"] = rank[rels["scode"].to_numpy()], rank[rels["tcode"].to_numpy()]
    symmetric = domain.symmetric_types()
    rels = _swap(rels, (rels["type"].isin(symmetric).to_numpy() & (rels["tcode"] < rels["scode"]).to_numpy()))
    flip = reversed_mask(rels, domain) if repair else np.zeros(len(rels), dtype=bool)
    rels = _swap(rels, flip)
    rels["direction_repaired"] = flip
    codes = combined_codes(rels["scode"].to_numpy(), rels["type"].to_numpy(dtype=object), rels["tcode"].to_numpy(),
                           rels["negated"].to_numpy())
    _, first = np.unique(codes, return_index=True)
    src, typ, dst = (rels[c].to_numpy(dtype=object)[first].tolist() for c in ("source", "type", "target"))
    ids = _objects(relation_ids(src, typ, dst, rels["negated"].to_numpy(bool)[first].tolist()))
    rels["item_id"] = _obj(ids[codes])
    rels["rcode"] = ranks(ids)[codes]
    return rels


@stage(version="2")
def build_graph(
    extractions: Sequence[DocumentExtraction] | Mentions,
    *,
    domain: Domain,
    learned_at: str | Mapping[str, str] | None = None,
    repair: bool = True,
    resolve: bool = True,
    splits: Sequence[SplitSpec] = (),
) -> Graph:
    """Merge document extractions (or their Mentions rows) into one Graph. Entities without relations are kept.

    - `learned_at` (ISO time, passed in: stages never read the clock) becomes the relations' created_at:
      one time for the whole input, or a mapping document id -> time (a relation gets the earliest time of
      the documents that support it). None leaves created_at empty ("always known").
    - `repair` (default on): relations extracted the wrong way round for their type's signatures are
      flipped and flagged ``direction_repaired`` (kgkit.stages.postprocess); their type never changes.
    - `resolve` (default on): single-valued relation types are resolved in world/graph time
      (kgkit.stages.temporal.resolve_conflicts): an older fact is invalidated, never deleted.
    - `splits` (kgkit.stages.resolve.split.split_specs of the accepted split decisions): mentions of a split
      entity in the named documents or chunks become its split-off entity.
    """
    with gc_paused():
        graph = _build(extractions, domain, learned_at, repair, tuple(splits))
    return resolve_conflicts(graph, domain=domain) if resolve else graph


def _build(extractions: Sequence[DocumentExtraction] | Mentions, domain: Domain,
           learned_at: str | Mapping[str, str] | None, repair: bool, splits: tuple[SplitSpec, ...] = ()) -> Graph:
    if isinstance(extractions, Mentions):
        doc_rows, extractors, chunks = extractions.documents, extractions.extractors, extractions.chunks
    else:
        doc_rows, extractors, chunks = document_rows(extractions), extractor_ids(extractions), chunk_rows(extractions)
    ents, rels, entity_ids, doc_ids, chunk_ids = _mention_frames(chunks, domain, splits)
    del chunks
    places = {"dcode": ranks(doc_ids), "ccode": ranks(chunk_ids)}
    rank = ranks(entity_ids)  # entity code -> position in sorted-id order: codes then sort like ids
    sorted_ids = np.empty(len(entity_ids), dtype=object)
    sorted_ids[rank] = entity_ids
    ents["ecode"] = rank[ents["ecode"].to_numpy()]
    rels = _relation_mentions(rels, domain, repair, rank)
    for df in (ents, rels):
        for col, codes in places.items():
            df[col] = codes[df[col].to_numpy()]
    ents, rels = _dedupe_spans(ents, ["ecode"]), _dedupe_spans(rels, ["rcode"])
    documents = pd.DataFrame(doc_rows, columns=list(DocumentRow._fields)).sort_values(["path", "id"], kind="stable")
    meta: GraphMeta = {"domain": domain.id, "domain_name": domain.name, "extractors": extractors,
                       "builder": "kgkit.build/1"}
    if splits:
        meta["splits"] = sorted(spec.new_id for spec in splits)
    relations = _relations_table(rels, domain, learned_at)
    entities = _entities_table(ents, rels, sorted_ids)
    degree = pd.concat([relations["source"], relations["target"]]).value_counts()
    entities["degree"] = entities["id"].map(degree).fillna(0).astype("int64")
    return Graph(entities=entities, relations=relations, provenance=_provenance_table(ents, rels),
                 documents=documents, meta=meta)
