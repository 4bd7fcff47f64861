"""What a narrative is written from: the graph's live relations as plain statements with evidence and
documents, the strongest relationship chains, dated facts, the most connected entities — and the extractive
(offline, templated) sentences for each, every one citing its relation ids and documents.

All pure and deterministic: rows are ordered by explicit keys (strength, then id), never by hash order.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import relation_row
>>> ents = pd.DataFrame({"id": ["a", "b", "c"], "name": ["Ada", "Acme", "London"], "type": "Thing",
...     "aliases": [[]] * 3, "mentions": 1, "documents": 1, "confidence": 1.0, "identity": "derived", "degree": 1})
>>> rels = pd.DataFrame([{**relation_row("r1"), "type": "WORKS_FOR", "evidence": "In 1990 Ada joined Acme."},
...                      {**relation_row("r2"), "source": "b", "target": "c", "type": "LOCATED_IN"}])
>>> facts = relation_facts(Graph.empty().replace(entities=ents, relations=rels))
>>> list(facts["statement"])
['Ada works for Acme', 'Acme is located in London']
>>> [[facts.loc[i, "id"] for i in chain] for chain in strongest_chains(facts)]
[['r1', 'r2']]
>>> [(s.date, s.relations) for s in timeline_sentences(facts)]
[('1990', ('r1',))]
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from kgkit.core.constants import WEAK_TYPES
from kgkit.core.graph import Graph
from kgkit.stages.narrate.model import Sentence

MAX_QUOTE = 240
_IS = {"located", "part", "member", "allied", "related", "employed", "married", "born", "based", "mentioned",
       "owned", "opposed", "subsidiary", "child", "parent", "friend", "similar", "near"}
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_NUM = {m: i + 1 for i, m in enumerate(_MONTHS.split("|"))}
_DATES = re.compile(rf"\b(?:(\d{{4}})-(\d{{2}})-(\d{{2}})|({_MONTHS})\s+(\d{{1,2}}),?\s+(\d{{4}})|"
                    rf"(\d{{1,2}})\s+({_MONTHS})\s+(\d{{4}})|({_MONTHS})\s+(\d{{4}})|(1[5-9]\d\d|20\d\d))\b")


def verb(relation_type: str) -> str:
    """LOCATED_IN -> "is located in", ATTACKS -> "attacks"."""
    words = relation_type.lower().replace("_", " ").split()
    if words and words[0] in _IS:
        words.insert(0, "is")
    return " ".join(words) or "is related to"


def quote(text: str | None, limit: int = MAX_QUOTE) -> str | None:
    """Whitespace-collapsed evidence, cut at `limit` characters."""
    if not text:
        return None
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def evidence_date(text: str | None) -> str | None:
    """The first date written in a text, as ISO text (YYYY, YYYY-MM or YYYY-MM-DD); None without one.

    >>> evidence_date("On December 7, 1941 ..."), evidence_date("by 1950"), evidence_date("no date")
    ('1941-12-07', '1950', None)
    """
    m = _DATES.search(text or "")
    if m is None:
        return None
    g = m.groups()
    if g[0]:
        return f"{g[0]}-{g[1]}-{g[2]}"
    if g[3]:
        return f"{g[5]}-{_MONTH_NUM[g[3]]:02d}-{int(g[4]):02d}"
    if g[6]:
        return f"{g[8]}-{_MONTH_NUM[g[7]]:02d}-{int(g[6]):02d}"
    if g[9]:
        return f"{g[10]}-{_MONTH_NUM[g[9]]:02d}"
    return g[11]


def relation_documents(graph: Graph) -> dict[str, tuple[str, ...]]:
    """Relation id -> the paths of the documents its provenance comes from (sorted)."""
    prov = graph.provenance
    rel = (prov["kind"] == "relation").to_numpy()
    paths = dict(zip(graph.documents["id"].tolist(), graph.documents["path"].tolist()))
    found: dict[str, set[str]] = {}
    for item, doc in zip(prov["item_id"][rel].tolist(), prov["document_id"][rel].tolist()):
        found.setdefault(item, set()).add(paths.get(doc, doc))
    return {rid: tuple(sorted(docs)) for rid, docs in found.items()}


def relation_facts(graph: Graph, *, weak_types: tuple[str, ...] = WEAK_TYPES, weak_factor: float = 0.2) -> pd.DataFrame:
    """The relations the graph still believes (``expired_at`` empty), one row each: id, source, target,
    source_name, target_name, type, negated, support, confidence, evidence (quoted), valid_at, statement,
    documents, weak, strength (support x confidence, x `weak_factor` for co-occurrence types); sorted by
    strength (descending), then id."""
    rels = graph.relations[graph.relations["expired_at"].isna().to_numpy()]
    names = dict(zip(graph.entities["id"].tolist(), graph.entities["name"].tolist()))
    docs = relation_documents(graph)
    col = {c: rels[c].tolist() for c in ("id", "source", "target", "type", "evidence", "valid_at")}
    out = pd.DataFrame({
        "id": pd.Series(col["id"], dtype=object), "source": pd.Series(col["source"], dtype=object),
        "target": pd.Series(col["target"], dtype=object), "type": pd.Series(col["type"], dtype=object),
        "negated": rels["negated"].to_numpy(bool), "support": rels["support"].to_numpy(np.int64),
        "confidence": rels["confidence"].to_numpy(float), "valid_at": pd.Series(col["valid_at"], dtype=object)})
    out["source_name"] = pd.Series([names.get(s, s) for s in col["source"]], dtype=object)
    out["target_name"] = pd.Series([names.get(t, t) for t in col["target"]], dtype=object)
    out["evidence"] = pd.Series([quote(e) for e in col["evidence"]], dtype=object)
    out["statement"] = pd.Series([f"{s} {'does not hold: ' + verb(t) if n else verb(t)} {o}" for s, t, o, n in
                                  zip(out["source_name"].tolist(), col["type"], out["target_name"].tolist(),
                                      out["negated"].tolist())], dtype=object)
    out["documents"] = pd.Series([docs.get(r, ()) for r in col["id"]], dtype=object)
    out["weak"] = out["type"].isin(weak_types).to_numpy()
    out["strength"] = out["support"] * out["confidence"].clip(lower=0.01) * np.where(out["weak"], weak_factor, 1.0)
    return out.sort_values(["strength", "id"], ascending=[False, True], kind="stable").reset_index(drop=True)


def strong_facts(facts: pd.DataFrame) -> pd.DataFrame:
    """Non-negated relations, co-occurrence ones only when there is nothing else."""
    live = facts[~facts["negated"]]
    strong = live[~live["weak"]]
    return strong if len(strong) else live


def strongest_chains(facts: pd.DataFrame, *, k: int = 5, length: int = 3) -> list[list[int]]:
    """Up to `k` paths of at most `length` relations (row labels of `facts`), greedily grown from the strongest
    unused relation by the strongest unused relation at either end that reaches a new entity. Co-occurrence
    types are left out unless the graph has nothing else."""
    cand = strong_facts(facts)
    touching: dict[str, list[int]] = {}
    for i, s, t in zip(cand.index, cand["source"], cand["target"]):
        touching.setdefault(s, []).append(i)
        touching.setdefault(t, []).append(i)
    used: set[int] = set()
    chains: list[list[int]] = []
    ends = {i: (s, t) for i, s, t in zip(cand.index, cand["source"], cand["target"])}
    for seed in cand.index:  # already strongest first
        if len(chains) >= k:
            break
        if seed in used:
            continue
        chain, seen = [seed], set(ends[seed])
        head, tail = ends[seed]
        while len(chain) < length:
            grown = False
            for end, at_tail in ((tail, True), (head, False)):
                nxt = next((i for i in touching.get(end, ()) if i not in used and i not in chain
                            and (set(ends[i]) - {end}) and (set(ends[i]) - {end}).isdisjoint(seen)), None)
                if nxt is None:
                    continue
                other = next(iter(set(ends[nxt]) - {end}))
                seen.add(other)
                if at_tail:
                    chain.append(nxt)
                    tail = other
                else:
                    chain.insert(0, nxt)
                    head = other
                grown = True
                break
            if not grown:
                break
        used.update(chain)
        chains.append(chain)
    return chains


def cite(facts: pd.DataFrame, rows: list[int]) -> dict[str, Any]:
    """relations= and documents= for a Sentence written from these fact rows."""
    docs = sorted({d for i in rows for d in facts.at[i, "documents"]})
    return {"relations": tuple(facts.at[i, "id"] for i in rows), "documents": tuple(docs)}


def chain_sentences(facts: pd.DataFrame, chains: list[list[int]]) -> list[Sentence]:
    """One templated sentence per chain: its statements joined, with each relation's support."""
    out = []
    for chain in chains:
        parts = [f"{facts.at[i, 'statement']} (support {facts.at[i, 'support']})" for i in chain]
        text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + ", and " + parts[-1]
        out.append(Sentence(text=text[0].upper() + text[1:] + ".", **cite(facts, chain)))
    return out


def dated_facts(facts: pd.DataFrame, *, limit: int = 12) -> pd.DataFrame:
    """Facts with a date: ``valid_at`` when the graph has one, else the first date written in the evidence.
    The `limit` strongest (co-occurrence counting less; one per evidence quote), in date order; column `date`
    added."""
    dates = [str(v)[:10] if isinstance(v, str) and v else evidence_date(e)
             for v, e in zip(facts["valid_at"], facts["evidence"])]
    dated = facts.assign(date=dates)
    dated = dated[dated["date"].notna() & ~dated["negated"]]
    quoted = dated["evidence"].fillna(dated["id"])  # one fact per quote: the strongest (facts are strongest first)
    dated = dated[~quoted.duplicated()].head(limit)
    return dated.sort_values(["date", "strength", "id"], ascending=[True, False, True], kind="stable")


def timeline_sentences(facts: pd.DataFrame, *, limit: int = 12, dated: pd.DataFrame | None = None) -> list[Sentence]:
    """One sentence per dated fact (`dated`, default `dated_facts(facts, limit=limit)`): statement and evidence."""
    out = []
    for i, row in (dated if dated is not None else dated_facts(facts, limit=limit)).iterrows():
        said = f' — "{row["evidence"]}"' if row["evidence"] else ""
        out.append(Sentence(text=f"{row['statement']}{said}", date=row["date"], **cite(facts, [i])))
    return out


def top_entities(graph: Graph, *, k: int = 10) -> pd.DataFrame:
    """The `k` most connected entities (degree, then mentions, then id), degree > 0."""
    ents = graph.entities[graph.entities["degree"] > 0]
    return ents.sort_values(["degree", "mentions", "id"], ascending=[False, False, True], kind="stable").head(k)


def touching(facts: pd.DataFrame) -> dict[str, list[int]]:
    """Entity id -> the rows of its facts, strongest first (an index for `entity_rows`)."""
    out: dict[str, list[int]] = {}
    for i, s, t in zip(facts.index.tolist(), facts["source"].tolist(), facts["target"].tolist()):
        out.setdefault(s, []).append(i)
        if t != s:
            out.setdefault(t, []).append(i)
    return out


def entity_rows(facts: pd.DataFrame, entity: str, *, k: int = 12, index: dict[str, list[int]] | None = None) -> list[int]:
    """The entity's `k` strongest relations (non-negated; co-occurrence only when nothing else)."""
    rows = (index if index is not None else touching(facts)).get(entity, [])
    negated, weak = facts["negated"].to_numpy(), facts["weak"].to_numpy()  # positions = labels (RangeIndex)
    live = [i for i in rows if not negated[i]]
    strong = [i for i in live if not weak[i]][:k]
    return strong or live[:k]


def entity_sentences(entity: dict[str, Any], facts: pd.DataFrame, documents: tuple[str, ...],
                     index: dict[str, list[int]] | None = None) -> list[Sentence]:
    """A templated description: what the graph counts about the entity, its strongest relations, one quote."""
    rows = entity_rows(facts, entity["id"], k=3, index=index)
    n_docs = int(entity["documents"])
    first = (f"{entity['name']} ({entity['type']}) is mentioned {int(entity['mentions'])} times in {n_docs} "
             f"document{'s' if n_docs != 1 else ''} and has {int(entity['degree'])} relations.")
    out = [Sentence(text=first, documents=documents)]
    if rows:
        out.append(Sentence(text="Its strongest relations: " + "; ".join(facts.at[i, "statement"] for i in rows) + ".",
                            **cite(facts, rows)))
        with_quote = [i for i in rows if facts.at[i, "evidence"]]
        if with_quote:
            out.append(Sentence(text=f'Evidence: "{facts.at[with_quote[0], "evidence"]}"',
                                **cite(facts, with_quote[:1])))
    return out


def overview_sentences(graph: Graph, facts: pd.DataFrame, communities: pd.DataFrame | None, *,
                       entities: pd.DataFrame, index: dict[str, list[int]] | None = None) -> list[Sentence]:
    """Counts, the most connected entities, the commonest relation types, the largest communities."""
    paths = sorted(graph.documents["path"].astype(str))
    span = f" ({paths[0]} to {paths[-1]})" if len(paths) > 1 else (f" ({paths[0]})" if paths else "")
    weak = int(facts["weak"].sum())
    out = [Sentence(text=f"The corpus has {len(paths)} documents{span}; its graph holds {len(graph.entities)} "
                         f"entities and {len(facts)} relations" + (f", {weak} of them co-occurrence." if weak else "."),
                    documents=tuple(paths[:3] + paths[-2:] if len(paths) > 5 else paths))]
    if len(entities):
        index = index if index is not None else touching(facts)
        best = [entity_rows(facts, e, k=1, index=index) for e in entities["id"][:5]]
        named = ", ".join(f"{n} ({t}, {int(d)} relations)" for n, t, d in
                          zip(entities["name"][:5], entities["type"][:5], entities["degree"][:5]))
        out.append(Sentence(text=f"The most connected entities are {named}.",
                            **cite(facts, [r[0] for r in best if r])))
    if len(facts):
        counts = facts["type"].value_counts()
        types = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
        examples = [int(facts.index[facts["type"] == t][0]) for t, _ in types]
        out.append(Sentence(text="The commonest relation types are " +
                                 ", ".join(f"{t} ({n})" for t, n in types) + ".", **cite(facts, examples)))
    if communities is not None and len(communities):
        big = communities[communities["size"] > 1].head(3)
        if len(big):
            rows = []
            index = index if index is not None else touching(facts)
            source, target = facts["source"].to_numpy(), facts["target"].to_numpy()
            for members in big["top_entities"]:
                inside = {i for m in members for i in index.get(m, []) if source[i] in members and target[i] in members}
                rows += list(strong_facts(facts.loc[sorted(inside)]).index[:1])
            listed = "; ".join(f"{c} ({lbl}, {int(s)} entities)" for c, lbl, s in
                               zip(big["community"], big["label"], big["size"]))
            out.append(Sentence(text=f"It falls into {len(communities)} communities; the largest are {listed}.",
                                **cite(facts, rows)))
    return [s for s in out if s.relations or s.documents]
