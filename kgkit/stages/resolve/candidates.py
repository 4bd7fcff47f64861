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
from typing import Any, NamedTuple

import numpy as np
from rapidfuzz.distance import JaroWinkler

from kgkit.core.decisions import MergeCandidate
from kgkit.core.stage import stage
from kgkit.stages.build import gc_paused
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
from kgkit.stages.resolve.keys import PERSON_TYPES
from kgkit.stages.resolve.name_index import (
    NameIndex,
    build_index,
    lsh_pair_codes,
    rule_pairs,
    slip_pair_codes,
    sorted_unique,
)
from kgkit.stages.resolve.name_rules import person_parts
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

_SLIPS = {"rule_typo", "rule_swapped", "rule_swapped_typo", "rule_split"}
"""Rules that pair two spellings of one full person name (name_rules.person_slip)."""
_RULES = {"initials", "middle", "surname_only", "legal_form", "qualifier", "acronym", "slip"}


class Scored(NamedTuple):
    """A scored node pair (a tuple: ~500k of these per 100k names, built ~3x faster than a frozen dataclass)."""

    score: float
    step: str
    features: dict[str, float]
    reasons: tuple[str, ...]
    blocks: tuple[str, ...]


def index_graph(graph: Any, *, config: ResolveConfig = ResolveConfig()) -> NameIndex:
    """A NameIndex over a graph's entities (names, types, mentions; aliases for exact lookups)."""
    ents = graph.entities
    rows = zip(ents["id"].tolist(), ents["name"].tolist(), ents["type"].tolist(), ents["mentions"].tolist())
    aliases = {i: list(a) for i, a in zip(ents["id"].tolist(), ents["aliases"].tolist()) if a is not None and len(a)}
    return build_index(rows, config=config, aliases=aliases)


def _information(idx: NameIndex, node: int) -> tuple[int, float, int]:
    """How much a name says: its words (a person's given names, titles not counted), then its bits."""
    key = idx.keys[node]
    words = len(person_parts(key)[0]) if idx.node_types[node] in PERSON_TYPES else key.count(" ")
    return (words, float(idx.bits[node]), node)


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


def _spelling_pair(idx: NameIndex, a: int, b: int, info_a: tuple[int, float, int], info_b: tuple[int, float, int],
                   s: Scored) -> bool:
    """Two spellings of one name rather than a shorter and a fuller form: people paired by a slip rule
    (name_rules.person_slip; a lost space may change the word count), other names with as many words paired on
    the strings or up to spacing (not names differing in legal form, which may be two companies)."""
    if idx.node_types[a] in PERSON_TYPES:
        return bool(_SLIPS & s.features.keys()) and (info_a[0] == info_b[0] or "rule_split" in s.features)
    return info_a[0] == info_b[0] and "rule_legal_form_differs" not in s.features


def _hapax_words(idx: NameIndex, node: int, other: int) -> bool:
    """Every word of node's key that other's key lacks is written in no other name of its type. Word counts
    exist for person names only (NameIndex.word_counts), so for other types this always holds."""
    counts = idx.word_counts.get(idx.node_types[node], {})
    own = set(idx.keys[other].split())
    return all(counts.get(w, 0) <= 1 for w in idx.keys[node].split() if w not in own)


def _ranked(scored: dict[tuple[int, int], Scored]) -> dict[int, list[tuple[float, int]]]:
    """node -> its (score, other node) pairs, best first, then by other node: one numpy sort of every pair
    from both sides (not a Python sort of tuples per node).

    >>> _ranked({(0, 1): Scored(0.9, "lsh", {}, (), ()), (0, 2): Scored(0.95, "lsh", {}, (), ())})
    {0: [(0.95, 2), (0.9, 1)], 1: [(0.9, 0)], 2: [(0.95, 0)]}
    """
    if not scored:
        return {}
    a = np.fromiter((p[0] for p in scored), dtype=np.int64, count=len(scored))
    b = np.fromiter((p[1] for p in scored), dtype=np.int64, count=len(scored))
    score = np.fromiter((s.score for s in scored.values()), dtype=np.float64, count=len(scored))
    node, other, score = np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([score, score])
    order = np.lexsort((other, -score, node))
    node = node[order]
    items = list(zip(score[order].tolist(), other[order].tolist()))
    starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]]).tolist()
    return {n: items[lo:hi] for n, lo, hi in zip(node[starts].tolist(), starts, [*starts[1:], len(items)])}


def verdicts(idx: NameIndex, scored: dict[tuple[int, int], Scored]) -> dict[tuple[int, int], tuple[int, int, str]]:
    """Per scored pair: (query node, other node, verdict). The query is the less informative name; the pair
    is unique when the other node is the query's best match and leads the runner-up by `margin`. A rival
    that itself matches the best at `auto_accept` or more is another spelling of it, not a runner-up (a
    name written 300 ways would otherwise never be unique); "Jane Smith" / "John Smith" stay rivals.
    When the margin leaves it open, a close candidate (within the margin of the query's best) is
    "unique_by_context" when it is the only one sharing neighbours or documents with the query
    (`ResolveConfig.context_tiebreak`)."""
    ranked = _ranked(scored)
    close = idx.config.auto_accept
    info = {n: _information(idx, n) for n in ranked}  # once per node, not per pair and rival
    types = idx.node_types
    links: dict[int, set[int]] = defaultdict(set)  # node -> nodes of its type it matches at `close` or more
    for (a, b), s in scored.items():
        if s.score >= close and types[a] == types[b]:
            links[a].add(b)
            links[b].add(a)

    def spelling(n: int, other: int, query: int) -> bool:
        """n is another spelling of other: linked to it, or through a third name (not the query) linked to
        both — for people, one with as many given names as the shorter of the two."""
        near = links.get(other)
        if not near:
            return False
        if n in near:
            return True
        for score, w in ranked[n]:
            if score < close:
                return False
            if (w != query and w != other and w in near and types[w] == types[n]
                    and (types[w] not in PERSON_TYPES or info[w][0] >= min(info[n][0], info[other][0]))):
                return True  # a shorter form ("C. Campbell") links two people: for people only as full a name counts
        return False

    def context(x: int, y: int) -> float:
        f = scored[(x, y) if x < y else (y, x)].features
        return f.get("shared_neighbours", 0.0) + f.get("co_documents", 0.0)

    margin = idx.config.margin

    def verdict_from(query: int, other: int, s: Scored) -> str:
        runner_up = 0.0
        for score, n in ranked[query]:
            if n != other and not spelling(n, other, query):
                runner_up = score
                break
            if score < s.score - margin:
                break
        return "unique" if s.score - runner_up >= margin else "ambiguous"

    out = {}
    tiebreak = idx.config.context_tiebreak
    for (a, b), s in scored.items():
        info_a, info_b = info[a], info[b]
        query, other = (a, b) if info_a <= info_b else (b, a)
        same_type = types[a] == types[b]
        verdict = verdict_from(query, other, s) if same_type else "ambiguous"
        if verdict == "unique":
            out[(a, b)] = (query, other, verdict)
            continue
        if (verdict == "ambiguous" and same_type and ranked[other][0][1] == query
                and _spelling_pair(idx, a, b, info_a, info_b, s) and _hapax_words(idx, other, query)
                and verdict_from(other, query, s) == "unique"):
            # a misspelling (as informative, its own words written nowhere else) whose best match is clearly
            # the other name: settled from its side ("Colegamte" -> "Colegate" while "Colegtae" also points
            # there: the hub of several misspellings is not ambiguous between them). Words written in several
            # names are names ("Muller" / "Miller"): the margin rule stands.
            query, other, verdict = other, query, "unique"
        if (verdict == "ambiguous" and same_type and tiebreak and s.score >= ranked[query][0][0] - margin
                and context(query, other) > 0):
            # the margin left it open: the graph decides when this is the one close candidate it links
            rivals = [n for score, n in ranked[query] if score >= ranked[query][0][0] - margin and n != other
                      and not spelling(n, other, query)]
            if all(context(query, n) == 0 for n in rivals):
                verdict = "unique_by_context"
        out[(a, b)] = (query, other, verdict)
    return out


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
        if (s.step != "rule" or _SLIPS & s.features.keys()) and mentions[src] > mentions[dst]:
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
