"""The candidate cascade (a pure stage): exact key -> name rules + entropy-gated LSH -> embedding neighbours.

Each step only sees what earlier steps left: the exact step groups names into (type, match key) nodes;
the lexical blocks pair nodes; embedding neighbours are searched only for nodes still without a unique
match. A name-rule pair merges into the more informative name ("J. Smith" -> "Jane Smith"), any other pair
into the better-attested one (more mentions). Identity is decided per pair from the less informative name's side: its best match must lead
the runner-up (another node) by `margin`, and the types must agree, else the verdict is ambiguous.

>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import entity_row
>>> import pandas as pd
>>> ents = pd.DataFrame([entity_row("Person:jane smith", "Jane Smith", "Person", 5), entity_row("Person:dr jane smith",
...     "Dr. Jane Smith", "Person", 1), entity_row("Person:j smith", "J. Smith", "Person", 1)])
>>> g = Graph.empty().replace(entities=ents)
>>> [(c.source, c.target, c.step, c.verdict) for c in merge_candidates(g)]
[('Person:dr jane smith', 'Person:jane smith', 'exact', 'unique'), ('Person:j smith', 'Person:jane smith', 'rule', 'unique')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import JaroWinkler

from kgkit.core.decisions import MergeCandidate
from kgkit.core.stage import gc_paused, stage
from kgkit.stages.embed import Embedder
from kgkit.stages.resolve.bulk import (
    bulk_strings,
    contains_sorted,
    node_codes,
    plain_pairs,
    rule_possible_bulk,
    swapped_close,
    token_sorted_keys,
)
from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.name_index import (
    NameIndex,
    build_index,
    lsh_pair_codes,
    rule_pairs,
    slip_pair_codes,
    sorted_unique,
)
from kgkit.stages.resolve.scoring import (
    STRING_SCORERS,
    GraphContext,
    blocks_reason,
    graph_context,
    guard_at,
    plain_cap,
    score_names,
    score_pair,
    string_floor,
    string_reason,
    word_check,
)
from kgkit.stages.resolve.verdicts import SLIP_RULES, Scored, verdicts

_RULES = {"initials", "middle", "surname_only", "legal_form", "qualifier", "acronym", "slip"}


def index_graph(graph: Any, *, config: ResolveConfig = ResolveConfig()) -> NameIndex:
    """A NameIndex over a graph's entities (names, types, mentions; aliases for exact lookups)."""
    ents = graph.entities
    rows = zip(ents["id"].tolist(), ents["name"].tolist(), ents["type"].tolist(), ents["mentions"].tolist())
    aliases = {i: list(a) for i, a in zip(ents["id"].tolist(), ents["aliases"].tolist()) if a is not None and len(a)}
    return build_index(rows, config=config, aliases=aliases)


def embedding_neighbours(idx: NameIndex, nodes: Sequence[int], embedder: Embedder) -> dict[tuple[int, int], float]:
    """Exact cosine top-k among nodes of the same type, for the given query nodes (blocked by type)."""
    cfg = idx.config
    by_type: dict[str, list[int]] = defaultdict(list)
    for n, t in enumerate(idx.node_types):
        by_type[t].append(n)
    wanted = set(nodes)
    out: dict[tuple[int, int], float] = {}
    for _typ, members in sorted(by_type.items()):
        queries = [n for n in members if n in wanted]
        if not queries or len(members) < 2 or len(members) > cfg.embed_max_nodes:
            continue
        vectors = np.asarray(embedder([idx.keys[n] for n in members]), dtype=np.float32)
        pos = {n: i for i, n in enumerate(members)}
        k = min(cfg.embed_top_k + 1, len(members))
        for lo in range(0, len(queries), 1024):
            q = queries[lo : lo + 1024]
            sims = vectors[[pos[n] for n in q]] @ vectors.T
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            for row, n in enumerate(q):
                for col in top[row]:
                    other, cos = members[int(col)], float(sims[row, col])
                    if other != n and cos >= cfg.embed_min_cosine:
                        out[(min(n, other), max(n, other))] = cos
    return out


def score_nodes(idx: NameIndex, context: GraphContext | None = None, embedder: Embedder | None = None
                ) -> dict[tuple[int, int], Scored]:
    """Scored node pairs above `min_score`, from the lexical blocks and then the embedding neighbours.

    Pairs a name rule proposed are scored in full. LSH-only pairs (the bulk: ~1M per 100k names) are first
    scored on the strings in vectorised rapidfuzz calls; those that cannot reach `min_score` and that no
    name rule could lift are dropped before any per-pair Python, and the rest get their string features
    passed in."""
    cfg = idx.config
    scored: dict[tuple[int, int], Scored] = {}
    steps: dict[tuple[str, ...], str] = {}  # blocks -> step, once per distinct tuple of block labels
    min_score = cfg.min_score

    # score_pair's arguments per node, built once (not twice per pair: ~700k pairs per 100k names)
    triples = [(key, idx.names[rep], typ) for key, rep, typ in zip(idx.keys, idx.rep, idx.node_types)]
    titles, counts, types = idx.titles, idx.word_counts, idx.node_types

    def add(pair: tuple[int, int], blocks: tuple[str, ...], cosine: float | None = None,
            strings: tuple[float, float, float, float] | None = None) -> None:
        x, y = pair
        if context is None:  # score_pair without graph evidence
            s, f, r = score_names(cfg, triples[x], triples[y], blocks, None, cosine, strings, (titles[x], titles[y]),
                                  counts.get(types[x]))
        else:
            s, f, r = score_pair(idx, x, y, blocks, context, cosine, strings)
        if s >= min_score:
            scored[pair] = Scored(s, steps.get(blocks) or step_of(blocks), f, tuple(r), blocks)

    def step_of(blocks: tuple[str, ...]) -> str:
        step = steps[blocks] = "rule" if set(blocks) & _RULES else ("lsh" if "lsh" in blocks else "embedding")
        return step

    n = len(idx.keys)
    rules = rule_pairs(idx)
    lsh = lsh_pair_codes(idx)
    rule_codes = np.array(sorted(a * n + b for a, b in rules), dtype=np.int64)
    # the three fuzz scores in bulk; Jaro-Winkler pair by pair (rapidfuzz's bulk form differs from it in the
    # last bit for ~1% of pairs, and these pairs have always been scored with the scalar one)
    token_sorted = token_sorted_keys(idx.keys)
    ratio, tsort, tset = (v.tolist() for v in bulk_strings(idx, rule_codes // n, rule_codes % n, STRING_SCORERS[:3],
                                                            token_sorted))
    keys, jaro = idx.keys, JaroWinkler.normalized_similarity
    for code, also_lsh, *strings in zip(rule_codes.tolist(), contains_sorted(lsh, rule_codes).tolist(), ratio, tsort, tset):
        pair = x, y = (code // n, code % n)
        add(pair, (rules[pair], "lsh") if also_lsh else (rules[pair],), strings=(*strings, jaro(keys[x], keys[y])))
    slips = slip_pair_codes(idx)
    codes = sorted_unique(np.concatenate([lsh, slips]))  # np.union1d, without its slow hashing unique
    codes = codes[~contains_sorted(rule_codes, codes)]
    a, b = codes // n, codes % n
    tsort, jw = bulk_strings(idx, a, b, STRING_SCORERS[1::2], token_sorted)
    floor = string_floor(cfg, None, context is not None)
    keep = (0.6 * tsort + 0.4 * jw) >= floor
    per_node = node_codes(idx)
    keep |= rule_possible_bulk(idx, a, b, swapped_close(idx, a, b, tsort, keep, floor), per_node)
    codes, a, b, tsort, jw = codes[keep], a[keep], b[keep], tsort[keep], jw[keep]
    ratio, tset = bulk_strings(idx, a, b, STRING_SCORERS[0::2])
    from_lsh = contains_sorted(lsh, codes).tolist()
    from_slip = contains_sorted(slips, codes).tolist()
    labels = {(True, False): ("lsh",), (False, True): ("slip",), (True, True): ("slip", "lsh")}
    # without graph evidence, pairs no name rule can touch are scored here as score_names would (the same
    # score, features and reasons), without a call into its rule cascade: by their strings alone up to
    # plain_cap, above it capped by the word check when that leaves them to no policy guard
    plain = (plain_pairs(per_node, a, b, 0.6 * tsort + 0.4 * jw, np.inf) if context is None
             else np.zeros(len(a), dtype=bool))
    same_words = (per_node["sorted_words"][a] == per_node["sorted_words"][b]).tolist()
    cap, word_cap = plain_cap(cfg), cfg.word_conflict_cap
    checked = word_cap <= guard_at(cfg)  # a pair capped by the word check is then never guarded
    for x, y, r, ts, tst, j, in_l, in_s, alone, same in zip(
            a.tolist(), b.tolist(), ratio.tolist(), tsort.tolist(), tset.tolist(), jw.tolist(), from_lsh, from_slip,
            plain.tolist(), same_words):
        blocks = labels[(in_l, in_s)]
        string = 0.6 * ts + 0.4 * j
        check = None
        if alone and string > cap and not (checked and string > word_cap
                                            and (check := word_check(keys[x], keys[y], same)) is not None):
            alone = False  # neither plain nor capped: the whole cascade (the policy guard may hold it back)
        if not alone:
            add((x, y), blocks, strings=(r, ts, tst, j))
            continue
        score = round(min(string, word_cap) if check else string, 4)
        if score >= min_score:
            features = {"ratio": r, "token_sort": ts, "token_set": tst, "jaro_winkler": j}
            lines = (string_reason(string, ts, j), blocks_reason(blocks))
            if check:
                features[check[0]] = 1.0
                lines = (check[1], *lines)
            features["same_type"] = 1.0
            scored[(x, y)] = Scored(score, steps.get(blocks) or step_of(blocks), features, lines, blocks)
    if embedder is not None:
        settled = {q for q, _o, v in verdicts(idx, scored).values() if v != "ambiguous"}
        left = [n for n in range(len(idx.keys)) if n not in settled and not idx.gated[n]]
        for pair, cos in sorted(embedding_neighbours(idx, left, embedder).items()):
            old = scored.get(pair)
            add(pair, (*old.blocks, "embedding") if old else ("embedding",), cos)
    return scored


def _candidate(idx: NameIndex, src: int, dst: int, score: float, step: str, verdict: str,
               features: dict[str, float], reasons: Sequence[str]) -> MergeCandidate:
    ids, names, types = idx.ids, idx.names, idx.types
    return MergeCandidate.from_fields(ids[src], ids[dst], names[src], names[dst], types[src], types[dst], score, step,
                                      verdict, features, tuple(reasons))


def exact_candidates(idx: NameIndex) -> list[MergeCandidate]:
    """Members of one (type, key) node -> its representative; one key under several types -> ambiguous."""
    return [_candidate(idx, *row) for row in _exact_rows(idx)]


def _exact_rows(idx: NameIndex) -> list[tuple[int, int, float, str, str, dict[str, float], tuple[str, ...]]]:
    """exact_candidates' (source, target, score, step, verdict, features, reasons), entity positions."""
    out = []
    for node, members in enumerate(idx.members):
        rep = idx.rep[node]
        for e in members:
            if e != rep:
                out.append((e, rep, 1.0, "exact", "unique", {"same_key": 1.0, "same_type": 1.0},
                            (f"same match key {idx.keys[node]!r} (case, accents, punctuation, titles, "
                             "legal suffixes and name order ignored)",)))
    for key, nodes in idx.by_key.items():
        for other in nodes[1:]:
            a, b = idx.rep[nodes[0]], idx.rep[other]
            out.append((a, b, 1.0, "exact", "ambiguous", {"same_key": 1.0, "same_type": 0.0},
                        (f"same match key {key!r}", f"types differ ({idx.types[a]} / {idx.types[b]}): "
                         "never merged automatically")))
    return out


@stage(version="2")  # 2: policy guards cap held-back pairs (issue 14)
def merge_candidates(graph: Any, *, config: ResolveConfig = ResolveConfig(), embedder: Embedder | None = None,
                     use_graph: bool = True) -> list[MergeCandidate]:
    """Every merge candidate of a graph's entities, best first, each with its features, reasons and
    identity verdict. `embedder` (optional) adds the embedding-neighbour step; `use_graph` adds shared
    neighbours and co-occurring documents as features."""
    with gc_paused():  # ~1M small acyclic records per 100k names: cyclic-GC passes over them cost ~25% of the run
        return _merge_candidates(graph, config, embedder, use_graph)


def _merge_candidates(graph: Any, config: ResolveConfig, embedder: Embedder | None, use_graph: bool
                      ) -> list[MergeCandidate]:
    idx = index_graph(graph, config=config)
    context = graph_context(graph) if use_graph else None
    scored = score_nodes(idx, context, embedder)
    rows = _exact_rows(idx)
    margin_reason = ("the only close candidate sharing neighbours or documents "
                     f"(others within the margin {idx.config.margin} share none)")
    rep, mentions = idx.rep, idx.mentions
    for pair, (query, other, verdict) in verdicts(idx, scored).items():
        s = scored[pair]
        src, dst = rep[query], rep[other]
        if (s.step != "rule" or SLIP_RULES & s.features.keys()) and mentions[src] > mentions[dst]:
            src, dst = dst, src  # a spelling variant goes into the better-attested form
        reasons = s.reasons
        if verdict == "unique_by_context":
            verdict, reasons = "unique", (*reasons, margin_reason)
        rows.append((src, dst, s.score, s.step, verdict, s.features, reasons))
    del scored
    # best first, then by source and target id: entity positions follow id order (build_index sorts by id),
    # so one stable numpy sort of numbers replaces a sort of 600k records on (-score, source, target)
    src, dst, score = (np.fromiter((r[i] for r in rows), dtype=dtype, count=len(rows))
                       for i, dtype in ((0, np.int64), (1, np.int64), (2, np.float64)))
    order = np.lexsort((dst, src, -score)).tolist()
    if not order:
        return []
    # the rows' columns in that order, then each record's values zipped from them (C loops, no Python frame a row)
    src, dst, score, step, verdict, features, reasons = zip(*map(rows.__getitem__, order))
    del rows
    ids, names, types = idx.ids, idx.names, idx.types
    return MergeCandidate.from_rows(zip(map(ids.__getitem__, src), map(ids.__getitem__, dst), map(names.__getitem__, src),
                                        map(names.__getitem__, dst), map(types.__getitem__, src),
                                        map(types.__getitem__, dst), score, step, verdict, features, reasons))
