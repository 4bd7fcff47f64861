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
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from kgkit.core.stage import stage
from kgkit.stages.build import gc_paused
from kgkit.stages.embed import Embedder
from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.index import (
    NameIndex,
    build_index,
    lsh_pair_codes,
    rule_pairs,
    slip_pair_codes,
    sorted_unique,
)
from kgkit.stages.resolve.keys import PERSON_TYPES, acronym, core_key, looks_like_acronym, squash_key
from kgkit.stages.resolve.name_rules import person_parts
from kgkit.stages.resolve.scoring import (
    STRING_SCORERS,
    GraphContext,
    MergeCandidate,
    graph_context,
    score_names,
    score_pair,
    string_floor,
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


def _contains(sorted_codes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values[i] in sorted_codes, for a sorted array (a binary search; np.isin hashes both sides)."""
    if not len(sorted_codes):
        return np.zeros(len(values), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_codes, values), len(sorted_codes) - 1)
    return sorted_codes[pos] == values


def _bulk_strings(idx: NameIndex, a: np.ndarray, b: np.ndarray, scorers: Sequence[Any]) -> list[np.ndarray]:
    """String scores of node pairs (a[i], b[i]) in one vectorised rapidfuzz call per scorer, in 0..1."""
    keys = np.asarray(idx.keys, dtype=object)
    left, right = keys[a].tolist(), keys[b].tolist()
    out = []
    for scorer in scorers:
        v = process.cpdist(left, right, scorer=scorer, workers=1, dtype=np.float64)
        out.append(v if scorer is JaroWinkler.normalized_similarity else v / 100)
    return out


def _swapped_close(idx: NameIndex, a: np.ndarray, b: np.ndarray, tsort: np.ndarray, done: np.ndarray,
                   floor: float) -> np.ndarray:
    """Whether pairs (a[i], b[i]) of two-word names, the words of b swapped, reach `floor` on the string
    score (name_rules.person_slip's 'swapped_typo' is scored so); pairs already `done` are not computed."""
    two = np.fromiter((k.count(" ") == 1 for k in idx.keys), dtype=bool, count=len(idx.keys))
    todo = np.flatnonzero(~done & two[a] & two[b] & (tsort >= (floor - 0.4) / 0.6))
    out = np.zeros(len(a), dtype=bool)
    if len(todo):
        keys = np.asarray(idx.keys, dtype=object)
        swapped = [" ".join(k.split()[::-1]) for k in keys[b[todo]].tolist()]
        jw = process.cpdist(keys[a[todo]].tolist(), swapped, scorer=JaroWinkler.normalized_similarity, workers=1,
                            dtype=np.float64)
        out[todo] = (0.6 * tsort[todo] + 0.4 * jw) >= floor
    return out


def _rule_possible_bulk(idx: NameIndex, a: np.ndarray, b: np.ndarray, sorted_close: np.ndarray | None = None
                        ) -> np.ndarray:
    """Whether a name rule could fire for same-type node pairs (a[i], b[i]): a necessary condition, from
    per-node codes compared in numpy. People: one surname and agreeing first given initials (or no given
    name: name_rules.initials_rule), or as many words with the same words sorted or all but one word in place
    (name_rules.person_slip), or as many words with the token sort close enough (`sorted_close`: the words
    swapped and misspelt, scored in one order), or the same letters without spaces. Others: one name up to spacing and legal form, or up to qualifier words
    (keys.core_key), or one an acronym of the other."""
    codes: dict[object, int] = {}

    def code(value: object) -> int:
        return codes.setdefault(value, len(codes))

    rows = []
    for node, key in enumerate(idx.keys):
        tokens = key.split()
        given, surname = person_parts(key)
        drops = [code(("drop", i, *tokens[:i], *tokens[i + 1 :]) if len(tokens) <= 4 else "long")
                 for i in range(min(len(tokens), 4))]
        name = idx.node_name(node)
        own = code(("acr", key)) if " " not in key and looks_like_acronym(name) else -1
        rows.append((idx.node_types[node] in PERSON_TYPES, code(("j", key.replace(" ", ""))), code(("s", surname)),
                     code(("i", given[0][0])) if given else -1, len(tokens), code(("w", *sorted(tokens))),
                     *drops, *[-2 - node] * (4 - len(drops)), code(("b", squash_key(key))), code(("c", core_key(key))), own,
                     *[code(("acr", x)) if x else -2 for x in (acronym(name), acronym(key))]))
    f = np.array(rows, dtype=np.int64).T
    person, joined, f = f[0].astype(bool), f[1], f[1:]
    surname, initial, words, sorted_words = f[1], f[2], f[3], f[4]
    drops, squash, core, own, acrs = f[5:9], f[9], f[10], f[11], f[12:14]

    def same(v: np.ndarray) -> np.ndarray:
        return v[a] == v[b]

    initials = same(surname) & ((initial[a] < 0) | (initial[b] < 0) | same(initial))
    slip = same(words) & (same(sorted_words) | (drops[:, a] == drops[:, b]).any(axis=0))
    if sorted_close is not None:
        slip |= same(words) & sorted_close
    slip |= same(joined)
    acronym_of = ((own[a] >= 0) & (acrs[:, b] == own[a]).any(axis=0)) | ((own[b] >= 0) & (acrs[:, a] == own[b]).any(axis=0))
    return np.where(person[a] & person[b], initials | slip, same(squash) | same(core) | acronym_of)


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
            step = steps.get(blocks)
            if step is None:
                step = steps[blocks] = "rule" if set(blocks) & _RULES else ("lsh" if "lsh" in blocks else "embedding")
            scored[pair] = Scored(s, step, f, tuple(r), blocks)

    n = len(idx.keys)
    rules = rule_pairs(idx)
    lsh = lsh_pair_codes(idx)
    rule_codes = np.array(sorted(a * n + b for a, b in rules), dtype=np.int64)
    for code, also_lsh in zip(rule_codes.tolist(), _contains(lsh, rule_codes).tolist()):
        pair = (code // n, code % n)
        add(pair, (rules[pair], "lsh") if also_lsh else (rules[pair],))
    slips = slip_pair_codes(idx)
    codes = sorted_unique(np.concatenate([lsh, slips]))  # np.union1d, without its slow hashing unique
    codes = codes[~_contains(rule_codes, codes)]
    a, b = codes // n, codes % n
    tsort, jw = _bulk_strings(idx, a, b, STRING_SCORERS[1::2])
    floor = string_floor(cfg, None, context is not None)
    keep = (0.6 * tsort + 0.4 * jw) >= floor
    keep |= _rule_possible_bulk(idx, a, b, _swapped_close(idx, a, b, tsort, keep, floor))
    codes, a, b, tsort, jw = codes[keep], a[keep], b[keep], tsort[keep], jw[keep]
    ratio, tset = _bulk_strings(idx, a, b, STRING_SCORERS[0::2])
    from_lsh = _contains(lsh, codes).tolist()
    from_slip = _contains(slips, codes).tolist()
    labels = {(True, False): ("lsh",), (False, True): ("slip",), (True, True): ("slip", "lsh")}
    for x, y, *strings, in_l, in_s in zip(a.tolist(), b.tolist(), ratio.tolist(), tsort.tolist(), tset.tolist(),
                                          jw.tolist(), from_lsh, from_slip):
        add((x, y), labels[(in_l, in_s)], strings=tuple(strings))  # type: ignore[arg-type]
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


def verdicts(idx: NameIndex, scored: dict[tuple[int, int], Scored]) -> dict[tuple[int, int], tuple[int, int, str]]:
    """Per scored pair: (query node, other node, verdict). The query is the less informative name; the pair
    is unique when the other node is the query's best match and leads the runner-up by `margin`. A rival
    that itself matches the best at `auto_accept` or more is another spelling of it, not a runner-up (a
    name written 300 ways would otherwise never be unique); "Jane Smith" / "John Smith" stay rivals.
    When the margin leaves it open, a close candidate (within the margin of the query's best) is
    "unique_by_context" when it is the only one sharing neighbours or documents with the query
    (`ResolveConfig.context_tiebreak`)."""
    by_node: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for (a, b), s in scored.items():
        by_node[a].append((-s.score, b))
        by_node[b].append((-s.score, a))
    ranked: dict[int, list[tuple[float, int]]] = {}  # node -> (score, other), best first, then by node
    for n, lst in by_node.items():
        lst.sort()  # (-score, other): the order (score descending, other ascending) without a key function
        ranked[n] = [(-neg, o) for neg, o in lst]
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
    for (a, b), s in scored.items():
        info_a, info_b = info[a], info[b]
        query, other = (a, b) if info_a <= info_b else (b, a)
        same_type = idx.node_types[a] == idx.node_types[b]
        verdict = verdict_from(query, other, s) if same_type else "ambiguous"
        if (verdict == "ambiguous" and same_type and ranked[other][0][1] == query
                and _spelling_pair(idx, a, b, info_a, info_b, s) and _hapax_words(idx, other, query)
                and verdict_from(other, query, s) == "unique"):
            # a misspelling (as informative, its own words written nowhere else) whose best match is clearly
            # the other name: settled from its side ("Colegamte" -> "Colegate" while "Colegtae" also points
            # there: the hub of several misspellings is not ambiguous between them). Words written in several
            # names are names ("Muller" / "Miller"): the margin rule stands.
            query, other, verdict = other, query, "unique"
        if (verdict == "ambiguous" and same_type and idx.config.context_tiebreak and s.score >= ranked[query][0][0] - margin
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
    return MergeCandidate.trusted(source=idx.ids[src], target=idx.ids[dst], source_name=idx.names[src],
                                  target_name=idx.names[dst], source_type=idx.types[src], target_type=idx.types[dst],
                                  score=score, step=step, verdict=verdict, features=features, reasons=tuple(reasons))  # type: ignore[arg-type]


def exact_candidates(idx: NameIndex) -> list[MergeCandidate]:
    """Members of one (type, key) node -> its representative; one key under several types -> ambiguous."""
    out = []
    for node, members in enumerate(idx.members):
        rep = idx.rep[node]
        for e in members:
            if e != rep:
                out.append(_candidate(idx, e, rep, 1.0, "exact", "unique", {"same_key": 1.0, "same_type": 1.0},
                                      [f"same match key {idx.keys[node]!r} (case, accents, punctuation, titles, "
                                       "legal suffixes and name order ignored)"]))
    for key, nodes in idx.by_key.items():
        for other in nodes[1:]:
            a, b = idx.rep[nodes[0]], idx.rep[other]
            out.append(_candidate(idx, a, b, 1.0, "exact", "ambiguous", {"same_key": 1.0, "same_type": 0.0},
                                  [f"same match key {key!r}", f"types differ ({idx.types[a]} / {idx.types[b]}): "
                                   "never merged automatically"]))
    return out


@stage(version="2")  # 2: policy guards cap held-back pairs (issue 14)
def merge_candidates(graph: Any, *, config: ResolveConfig = ResolveConfig(), embedder: Embedder | None = None,
                     use_graph: bool = True) -> list[MergeCandidate]:
    """Every merge candidate of a graph's entities, best first, each with its features, reasons and
    identity verdict. `embedder` (optional) adds the embedding-neighbour step; `use_graph` adds shared
    neighbours and co-occurring documents as features."""
    with gc_paused():  # ~1M small acyclic records per 100k names: cyclic-GC passes over them cost ~25% of the run
        idx = index_graph(graph, config=config)
        context = graph_context(graph) if use_graph else None
        scored = score_nodes(idx, context, embedder)
        out = exact_candidates(idx)
        for pair, (query, other, verdict) in verdicts(idx, scored).items():  # order: the sort below (pairs unique)
            s = scored[pair]
            src, dst = idx.rep[query], idx.rep[other]
            if (s.step != "rule" or _SLIPS & s.features.keys()) and idx.mentions[src] > idx.mentions[dst]:
                src, dst = dst, src  # a spelling variant goes into the better-attested form
            reasons = s.reasons
            if verdict == "unique_by_context":
                verdict, reasons = "unique", (*reasons, "the only close candidate sharing neighbours or documents "
                                               f"(others within the margin {idx.config.margin} share none)")
            out.append(_candidate(idx, src, dst, s.score, s.step, verdict, s.features, reasons))
        return sorted(out, key=lambda c: (-c.score, c.source, c.target))
