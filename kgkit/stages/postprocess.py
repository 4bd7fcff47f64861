"""Post-processing against the domain: repair reversed directions, flag what needs a person, prune on request.

This module is the one place for the domain rules on relations. `build_graph` applies them to relation
mentions while it builds (so a repaired mention merges with the ones already the right way round);
`postprocess(graph, domain=...)` applies the same rules to any Graph (a loaded or imported one, or after a
domain edit). On a graph kgkit just built it changes nothing.

Rules (vectorised: each distinct (type, source type, target type) is judged once, then broadcast):

- **Direction repair.** A relation whose (source type, target type) breaks its type's declared signatures
  but whose reverse fits is flipped (source <-> target, new id) and flagged ``direction_repaired``. Its
  type is never changed. Symmetric types are stored in a canonical order, so either order fits them.
- **Flags.** ``low_confidence`` (below the threshold), ``signature_violation`` (no declared signature fits
  either way), ``review_required`` (the type says a person must look), ``negated``, ``direction_repaired``.
  Other flags a relation carries (set by people or later stages) are kept.
- **Isolated entities** (degree 0) are kept unless ``prune_isolated=True``.

>>> from kgkit.core.domain import parse_domain
>>> dom = parse_domain("name: d\\nentity_types: {Person: a, Organization: b, Other: c}\\n"
...                    "relation_types: {WORKS_FOR: {description: w, signatures: [[Person, Organization]]}}")
>>> frame = pd.DataFrame({"type": ["WORKS_FOR", "WORKS_FOR"], "source_type": ["Organization", "Person"],
...                       "target_type": ["Person", "Person"]})
>>> reversed_mask(frame, dom).tolist(), signature_ok(frame, dom).tolist()
([True, False], [False, False])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from kgkit.core.constants import LOW_CONFIDENCE
from kgkit.core.domain import Domain
from kgkit.core.graph import Graph
from kgkit.core.names import relation_id
from kgkit.core.stage import stage

DERIVED_FLAGS = ("low_confidence", "signature_violation", "review_required", "negated", "direction_repaired")
"""Flags computed from the domain and the row, in the order they are listed on a relation."""
REVIEW_FLAGS = frozenset({"signature_violation", "review_required"})
_COMBO = ["type", "source_type", "target_type"]


def combined_codes(*columns: Any) -> np.ndarray:
    """One int64 code per row for the combination of several columns (hash-factorised, unsorted).

    >>> combined_codes(["a", "b", "a"], ["x", "x", "x"]).tolist()
    [0, 1, 0]
    """
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for col in columns:
        codes, uniques = pd.factorize(np.asarray(col))
        key = pd.factorize(key * (len(uniques) + 1) + (codes + 1))[0].astype(np.int64)  # stays small
    return key


def _per_combo(frame: pd.DataFrame, judge: Any) -> np.ndarray:
    """Apply `judge(type, source_type, target_type) -> bool` once per distinct combination, broadcast back."""
    if frame.empty:
        return np.zeros(0, dtype=bool)
    cols = [frame[c].to_numpy(dtype=object) for c in _COMBO]
    codes = combined_codes(*cols)
    _, first = np.unique(codes, return_index=True)
    verdicts = np.fromiter((bool(judge(*(str(c[i]) for c in cols))) for i in first), dtype=bool, count=len(first))
    return verdicts[codes]


def signature_ok(frame: pd.DataFrame, domain: Domain) -> np.ndarray:
    """True where a row's (source type, target type) fits its relation type (either order for symmetric types)."""

    def fits(rtype: str, src: str, dst: str) -> bool:
        spec = domain.relation_types.get(rtype)
        if domain.allows(rtype, src, dst):
            return True
        return spec is not None and spec.symmetric and domain.allows(rtype, dst, src)

    return _per_combo(frame, fits)


def reversed_mask(frame: pd.DataFrame, domain: Domain) -> np.ndarray:
    """True where a row breaks its type's signatures one way round but fits the other (never symmetric types)."""

    def backwards(rtype: str, src: str, dst: str) -> bool:
        spec = domain.relation_types.get(rtype)
        if spec is None or spec.symmetric or not spec.signatures:
            return False
        return not domain.allows(rtype, src, dst) and domain.allows(rtype, dst, src)

    return _per_combo(frame, backwards)


def relation_flags(
    frame: pd.DataFrame, domain: Domain, *, low_confidence: float = LOW_CONFIDENCE,
    keep: Sequence[list[str]] | None = None,
) -> list[list[str]]:
    """Flags per row of a frame with type, source_type, target_type, confidence, negated and (optionally)
    direction_repaired columns. `keep` = each row's existing flags: those not derived here are kept, after."""
    n = len(frame)
    review_types = {name for name, spec in domain.relation_types.items() if spec.review_required}
    repaired = frame["direction_repaired"].to_numpy(dtype=bool) if "direction_repaired" in frame else np.zeros(n, bool)
    columns = [
        frame["confidence"].to_numpy(dtype=float) < low_confidence,
        ~signature_ok(frame, domain),
        frame["type"].isin(review_types).to_numpy(),
        frame["negated"].to_numpy(dtype=bool),
        repaired,
    ]
    bits = np.zeros(n, dtype=np.int64)
    for i, col in enumerate(columns):
        bits |= col.astype(np.int64) << i
    patterns = {int(b): [f for i, f in enumerate(DERIVED_FLAGS) if b >> i & 1] for b in np.unique(bits)}
    if keep is None:
        return [list(patterns[b]) for b in bits.tolist()]
    out: list[list[str]] = []
    for b, old in zip(bits.tolist(), keep):
        others = sorted({f for f in (old or ()) if f not in DERIVED_FLAGS})
        out.append(patterns[b] + others)
    return out


@stage(version="1")
def postprocess(
    graph: Graph, *, domain: Domain, repair: bool = True, prune_isolated: bool = False,
    low_confidence: float = LOW_CONFIDENCE,
) -> Graph:
    """Apply the domain rules to a graph: flip reversed relations (types kept), recompute flags, and
    optionally drop entities without relations. Returns a new Graph; the input is not changed."""
    ents, rels = graph.entities, graph.relations
    types = pd.Series(ents["type"].to_numpy(), index=ents["id"].to_numpy())
    frame = rels.assign(source_type=rels["source"].map(types), target_type=rels["target"].map(types))
    provenance = graph.provenance
    repaired = np.array([any(f == "direction_repaired" for f in flags) for flags in rels["flags"]], dtype=bool)
    if repair and len(frame):
        flip = reversed_mask(frame, domain)
        if flip.any():
            frame = frame.copy()
            cols = ["source", "target", "source_type", "target_type"]
            frame.loc[flip, cols] = frame.loc[flip, ["target", "source", "target_type", "source_type"]].to_numpy()
            new_ids = [relation_id(s, t, d, bool(n)) for s, t, d, n in
                       frame.loc[flip, ["source", "type", "target", "negated"]].itertuples(index=False, name=None)]
            renamed = dict(zip(frame.loc[flip, "id"], new_ids))
            frame.loc[flip, "id"] = new_ids
            repaired = repaired | flip
            is_rel = provenance["kind"] == "relation"
            provenance = provenance.assign(item_id=provenance["item_id"].where(
                ~is_rel, provenance["item_id"].map(lambda i: renamed.get(i, i))))
            if frame["id"].duplicated().any():
                frame = _merge_duplicates(frame.assign(direction_repaired=repaired))
                repaired = frame["direction_repaired"].to_numpy(dtype=bool)
    frame = frame.assign(direction_repaired=repaired)
    frame["flags"] = relation_flags(frame, domain, low_confidence=low_confidence, keep=list(frame["flags"]))
    relations = frame.drop(columns=["source_type", "target_type", "direction_repaired"]).sort_values(
        "id", kind="stable").reset_index(drop=True)
    degree = pd.concat([relations["source"], relations["target"]]).value_counts()
    entities = ents.assign(degree=ents["id"].map(degree).fillna(0).astype("int64"))
    if prune_isolated:
        gone = set(entities["id"][entities["degree"] == 0])
        entities = entities[entities["degree"] > 0].reset_index(drop=True)
        provenance = provenance[~((provenance["kind"] == "entity") & provenance["item_id"].isin(gone))]
    return graph.replace(entities=entities, relations=relations, provenance=provenance.reset_index(drop=True))


def _merge_duplicates(frame: pd.DataFrame) -> pd.DataFrame:
    """Merge relation rows that became one relation after a flip (rare): support adds up, confidence is the
    noisy-or, evidence comes from the most confident row, times widen, flags join."""
    frame = frame.sort_values(["id", "confidence"], ascending=[True, False], kind="stable")
    g = frame.groupby("id", sort=True)

    def first_valid(col: str, how: str) -> pd.Series:
        return getattr(frame.dropna(subset=[col]).groupby("id")[col], how)()

    out = g.first()
    out["support"] = g["support"].sum()
    out["confidence"] = [round(float(x), 6) for x in 1.0 - g["confidence"].apply(lambda c: np.prod(1.0 - c.clip(0, 1)))]
    out["direction_repaired"] = g["direction_repaired"].any()
    out["flags"] = g["flags"].agg(lambda fs: sorted({f for flags in fs for f in flags}))
    for col, how in (("valid_at", "min"), ("invalid_at", "max"), ("created_at", "min")):
        out[col] = first_valid(col, how).reindex(out.index).astype(object).where(lambda s: s.notna(), None)
    expired = g["expired_at"].agg(lambda s: None if s.isna().any() else max(s))
    out["expired_at"] = expired
    return out.reset_index()


def needs_review(graph: Graph) -> pd.DataFrame:
    """The relations a person should look at (signature violations and review-required types).

    >>> len(needs_review(Graph.empty()))
    0
    """
    mask = [bool(REVIEW_FLAGS.intersection(flags)) for flags in graph.relations["flags"]]
    return graph.relations[mask].reset_index(drop=True)
