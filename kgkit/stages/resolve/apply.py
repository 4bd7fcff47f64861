"""Apply decisions to a graph (a pure stage) and undo them exactly.

- Merges are transitive (union-find): A->B and B->C put A's edges on C. The kept entity of a group is the
  one merges point into (a target that is never a source), else the most mentioned, then the smallest id.
  A merge that would join two entities kept apart is skipped and says so in the journal.
- No edge is lost: relations are rewired to the kept entities; relations that become parallel (same source,
  type, target, polarity) are re-aggregated: support summed, confidence noisy-or, provenance concatenated,
  flags united, evidence from the most confident. A relation between two merged entities becomes a
  self-loop flagged ``self_loop`` (kept, not dropped). Names merged away become aliases.
- A rejected relation is removed in its stated direction only; in both directions only for relation
  types the caller declares symmetric (`domain.symmetric_types()`: the domain's `symmetric: true`).
- The journal holds every decision's outcome and the exact row-level difference of the four tables, so
  `undo(applied_graph, journal)` gives back the prior graph, byte for byte once saved.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.core.decisions import person_decision
>>> from kgkit.testing.builders import edge_row, entity_row
>>> g = Graph.empty().replace(entities=pd.DataFrame([entity_row("a"), entity_row("b", mentions=2), entity_row("c")]),
...     relations=pd.DataFrame([edge_row("a", "c"), edge_row("b", "c")]))
>>> out = apply_decisions(g, [person_decision("merge", ("a", "b"))])
>>> list(out.graph.entities["id"]), out.graph.relations["support"].tolist(), out.mapping
(['b', 'c'], [2], {'a': 'b'})
>>> undo(out.graph, out.journal).to_json_dict() == g.to_json_dict()
True
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from kgkit.core.decisions import DECIDER_RANK, Decision, Journal, JournalEntry, TableDiff, UnionFind
from kgkit.core.graph import TABLES, Graph
from kgkit.core.records import relation_id
from kgkit.core.stage import stage


@dataclass(frozen=True)
class Applied:
    graph: Graph
    journal: Journal
    mapping: dict[str, str]


# --------------------------------------------------------------------------- merges


def _groups(decisions: Sequence[Decision], ids: set[str], mentions: dict[str, int]
            ) -> tuple[dict[str, str], list[JournalEntry]]:
    joined = UnionFind(sorted(ids))
    find = joined.find
    apart = [d.subjects for d in decisions if d.kind == "keep_apart" and d.verdict == "accept"]
    merges = [d for d in decisions if d.kind == "merge" and d.verdict == "accept"]
    merges.sort(key=lambda d: (DECIDER_RANK[d.decided_by], -(d.score or 0.0), d.id))
    entries: list[JournalEntry] = []
    sources: set[str] = set()
    targets: set[str] = set()
    for d in merges:
        a, b = d.subjects
        if a not in ids or b not in ids:
            entries.append(JournalEntry(decision_id=d.id, kind=d.kind, status="skipped", subjects=d.subjects,
                                        detail="an entity is not in the graph (already merged, or renamed)"))
            continue
        ra, rb = find(a), find(b)
        if ra == rb:
            entries.append(JournalEntry(decision_id=d.id, kind=d.kind, status="skipped", subjects=d.subjects,
                                        detail="already in one group"))
            continue
        clash = next(((x, y) for x, y in apart if x in ids and y in ids and {find(x), find(y)} == {ra, rb}), None)
        if clash:
            entries.append(JournalEntry(decision_id=d.id, kind=d.kind, status="skipped", subjects=d.subjects,
                                        detail=f"would join {clash[0]} and {clash[1]}, which are kept apart"))
            continue
        joined.union(ra, rb)
        sources.add(a)
        targets.add(b)
        entries.append(JournalEntry(decision_id=d.id, kind=d.kind, status="applied", subjects=d.subjects,
                                    detail=f"{a} -> {b}"))
    mapping: dict[str, str] = {}
    for group in joined.groups():
        if len(group) < 2:
            continue
        pool = [i for i in group if i in targets and i not in sources] or group
        keep = min(pool, key=lambda i: (-mentions.get(i, 0), i))
        mapping.update({i: keep for i in group if i != keep})
    return mapping, entries


def _merge_entities(ents: pd.DataFrame, mapping: dict[str, str], prov: pd.DataFrame) -> pd.DataFrame:
    if not mapping:
        return ents
    groups: dict[str, list[int]] = defaultdict(list)
    for pos, eid in enumerate(ents["id"].tolist()):
        groups[mapping.get(eid, eid)].append(pos)
    ent_prov = prov[prov["kind"] == "entity"]
    docs = ent_prov.groupby("item_id")["document_id"].nunique()
    records = ents.to_dict("records")
    rows = []
    for row in records:
        eid = row["id"]
        if eid in mapping:
            continue
        if len(groups[eid]) > 1:
            part = [records[p] for p in groups[eid]]
            names = {r["name"] for r in part} | {a for r in part for a in (r["aliases"] or [])}
            row = {**row, "aliases": sorted(names - {row["name"]}), "mentions": sum(int(r["mentions"]) for r in part),
                   "documents": int(docs.get(eid, 0)), "confidence": max(float(r["confidence"]) for r in part)}
        rows.append(row)
    return pd.DataFrame(rows, columns=ents.columns)


def _noisy_or(values: Iterable[float]) -> float:
    p = 1.0
    for v in values:
        p *= 1.0 - min(max(float(v), 0.0), 1.0)
    return round(1.0 - p, 6)


def _aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One relation from parallel ones (plain records: a pandas sort per group is ~1000x slower)."""
    by_conf = sorted(rows, key=lambda r: (-r["confidence"], r["_old"]))
    by_support = sorted(rows, key=lambda r: (-r["support"], r["_old"]))
    valid = [r["valid_at"] for r in rows if r["valid_at"] is not None]
    invalid = [r["invalid_at"] for r in rows if r["invalid_at"] is not None]
    created = [r["created_at"] for r in rows if r["created_at"] is not None]
    expired = [r["expired_at"] for r in rows]
    flags = sorted({f for r in rows for f in (r["flags"] or [])})
    return {**by_conf[0], "predicate": next((r["predicate"] for r in by_support if r["predicate"] is not None), None),
            "evidence": next((r["evidence"] for r in by_conf if r["evidence"] is not None), None),
            "confidence": _noisy_or(r["confidence"] for r in rows), "support": sum(int(r["support"]) for r in rows),
            "valid_at": min(valid) if valid else None, "invalid_at": max(invalid) if invalid else None,
            "created_at": min(created) if created else None,
            "expired_at": None if any(e is None for e in expired) else max(expired), "flags": flags}


def _rewire(rel: pd.DataFrame, mapping: dict[str, str], symmetric: set[str]) -> tuple[pd.DataFrame, dict[str, str]]:
    """Relations with endpoints mapped, parallel ones aggregated; returns the table and old id -> new id."""
    if not mapping or rel.empty:
        return rel, {}
    src = rel["source"].map(lambda s: mapping.get(s, s))
    dst = rel["target"].map(lambda s: mapping.get(s, s))
    swap = rel["type"].isin(symmetric) & (dst < src)
    src, dst = src.where(~swap, dst), dst.where(~swap, src)
    new_ids = [relation_id(s, t, d, bool(n)) for s, t, d, n in zip(src, rel["type"], dst, rel["negated"])]
    moved = (src != rel["source"]) | (dst != rel["target"])
    renamed = {old: new for old, new, m in zip(rel["id"], new_ids, moved) if m}
    hit = set(renamed.values())
    involved = moved | pd.Series([i in hit for i in rel["id"]], index=rel.index)
    work = rel[involved].assign(_old=rel["id"][involved], id=[n for n, inv in zip(new_ids, involved) if inv],
                                source=src[involved], target=dst[involved])
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in work.to_dict("records"):
        groups[record["id"]].append(record)
    merged = [_aggregate(groups[k]) for k in sorted(groups)]
    for row in merged:
        row.pop("_old")
    for row in merged:
        if row["source"] == row["target"] and "self_loop" not in row["flags"]:
            row["flags"] = sorted([*row["flags"], "self_loop"])
    out = pd.concat([rel[~involved], pd.DataFrame(merged, columns=rel.columns)], ignore_index=True)
    return out, renamed


def _reject(rel: pd.DataFrame, decisions: Sequence[Decision], mapping: dict[str, str], symmetric: set[str]
            ) -> tuple[pd.DataFrame, list[JournalEntry], set[str]]:
    entries, removed = [], set()
    keys = list(zip(rel["source"], rel["type"], rel["target"]))
    for d in decisions:
        if d.kind != "reject_relation" or d.verdict != "accept":
            continue
        s, t = (mapping.get(x, x) for x in d.subjects)
        want = {(s, d.relation_type, t)}
        if d.relation_type in symmetric:
            want.add((t, d.relation_type, s))
        ids = {i for i, k in zip(rel["id"], keys) if k in want} - removed
        removed |= ids
        direction = "both directions (symmetric type)" if d.relation_type in symmetric else "this direction only"
        entries.append(JournalEntry(decision_id=d.id, kind=d.kind, status="applied" if ids else "skipped",
                                    subjects=d.subjects, detail=f"removed {len(ids)} relation(s), {direction}"))
    return rel[~rel["id"].isin(removed)], entries, removed


def _split_entries(decisions: Sequence[Decision], ids: set[str]) -> list[JournalEntry]:
    """Splits are made at build time (kgkit.stages.splits); the journal says whether the graph has each."""
    return [JournalEntry(decision_id=d.id, kind=d.kind, subjects=d.subjects,
                         status="applied" if d.subjects[1] in ids else "skipped",
                         detail="split at build" if d.subjects[1] in ids else
                         "not in this graph (no mention in those documents, or not rebuilt since: `kgkit apply`)")
            for d in decisions if d.kind == "split" and d.verdict == "accept"]


# --------------------------------------------------------------------------- diff and undo


def _canon(row: dict[str, Any]) -> str:
    return repr(tuple(row.values()))  # rows of one table share a column order; repr is exact for str/int/float


def _diff(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> TableDiff:
    b, a = [_canon(r) for r in before], [_canon(r) for r in after]
    left = Counter(a)
    removed, common_before = [], []
    for pos, (row, text) in enumerate(zip(before, b)):
        if left[text] > 0:
            left[text] -= 1
            common_before.append(text)
        else:
            removed.append((pos, row))
    left = Counter(b)
    added, common_after = [], []
    for pos, text in enumerate(a):
        if left[text] > 0:
            left[text] -= 1
            common_after.append(text)
        else:
            added.append(pos)
    order = None
    if common_before != common_after:
        slots: dict[str, list[int]] = defaultdict(list)
        for i, text in enumerate(common_after):
            slots[text].append(i)
        order = [slots[text].pop(0) for text in common_before]
    return TableDiff(removed=removed, added=added, order=order)


def undo(graph: Graph, journal: Journal) -> Graph:
    """The graph as it was before the apply that wrote `journal` (ValueError if `graph` is not its result)."""
    if graph.sha256() != journal.after_sha256:
        raise ValueError("this graph is not the one the journal's apply produced (changed since?); not undone")
    data = graph.to_json_dict()
    out: dict[str, Any] = {"format": data["format"], "meta": journal.meta_before}
    for name in TABLES:
        diff = journal.tables[name]
        added = set(diff.added)
        rows = [r for i, r in enumerate(data[name]) if i not in added]
        if diff.order is not None:
            rows = [rows[i] for i in diff.order]
        for pos, row in sorted(diff.removed, key=lambda x: x[0]):
            rows.insert(pos, row)
        out[name] = rows
    restored = Graph.from_json_dict(out)
    if restored.sha256() != journal.before_sha256:
        raise ValueError("undo did not reproduce the prior graph exactly")
    return restored


@stage(version="1")
def apply_decisions(graph: Graph, decisions: Sequence[Decision], *, symmetric: Iterable[str] = ()) -> Applied:
    """A new graph with the accepted decisions applied, the journal that undoes it, and the merge mapping."""
    sym = set(symmetric)
    ents = graph.entities
    ids = set(ents["id"])
    mapping, entries = _groups(decisions, ids, dict(zip(ents["id"], ents["mentions"].astype(int))))
    rel, renamed = _rewire(graph.relations, mapping, sym)
    rel, rejected, removed = _reject(rel, decisions, mapping, sym)
    rejected += _split_entries(decisions, ids)
    prov = graph.provenance
    prov = prov[~((prov["kind"] == "relation") & prov["item_id"].map(lambda i: renamed.get(i, i)).isin(removed))]
    if mapping or renamed:
        item = [mapping.get(i, i) if k == "entity" else renamed.get(i, i) for i, k in zip(prov["item_id"], prov["kind"])]
        prov = prov.assign(item_id=item)
    ents = _merge_entities(ents, mapping, prov)
    degree = pd.concat([rel["source"], rel["target"]]).value_counts()
    ents = ents.assign(degree=ents["id"].map(degree).fillna(0).astype("int64"))
    after = graph.replace(entities=ents, relations=rel.reset_index(drop=True), provenance=prov.reset_index(drop=True))
    return Applied(graph=after, journal=journal_between(graph, after, entries + rejected, mapping), mapping=mapping)


def journal_between(before: Graph, after: Graph, entries: Sequence[JournalEntry], mapping: dict[str, str]) -> Journal:
    """The journal that takes `after` back to `before` exactly (`undo(after, journal)`), whatever made it: an
    apply, or a rebuild that made a new split."""
    before_json, after_json = before.to_json_dict(), after.to_json_dict()
    return Journal(before_sha256=before.sha256(), after_sha256=after.sha256(), entries=list(entries),
                   mapping=mapping, meta_before=dict(before.meta),
                   tables={t: _diff(before_json[t], after_json[t]) for t in TABLES})
