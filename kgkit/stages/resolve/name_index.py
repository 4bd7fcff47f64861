"""The name index behind candidate generation and identity lookups: exact-key groups and blocks.

A *node* is one (type, match key): every entity whose name has that key and type is in the node (the
exact step). Fuzzy steps pair nodes, never raw entities, so a name written ten ways is scored once.
Blocks (each sub-quadratic): person surname + given-name rules, acronyms, and MinHash/LSH bands over
character shingles of the keys that pass the entropy gate. MinHash permutations and the band layout
come from datasketch; signatures and buckets are computed in numpy over all names at once (datasketch's
per-object insert took ~17 s for 100k names here, the vectorised form a few seconds).

>>> idx = build_index([("P:jane smith", "Jane Smith", "Person", 3), ("P:dr jane smith", "Dr. Jane Smith", "Person", 1),
...                    ("P:j smith", "J. Smith", "Person", 1)])
>>> idx.keys, [idx.ids[m] for m in idx.members[0]], idx.node_id(0)
(['jane smith', 'j smith'], ['P:dr jane smith', 'P:jane smith'], 'P:jane smith')
>>> sorted(lexical_pairs(idx))
[(0, 1)]
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.keys import (
    PERSON_TYPES,
    acronym,
    base_key,
    core_key,
    information_bits,
    leading_titles,
    looks_like_acronym,
    match_key,
    shingles,
    squash_key,
)
from kgkit.stages.resolve.name_rules import initials_rule, person_parts, person_slip


@lru_cache(maxsize=8)
def permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The (a, b) of datasketch's MinHash(num_perm, seed, scheme="affine32"), without importing datasketch
    (its import pulls scipy, ~1.5 s); tests assert they are identical."""
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a, b


@lru_cache(maxsize=32)
def lsh_bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows) minimising false positive + false negative probability at the Jaccard threshold, as
    datasketch.lsh._optimal_param(threshold, num_perm, 0.5, 0.5) computes (integrals on a fine grid)."""
    best, opt = float("inf"), (1, num_perm)
    lo, hi = np.linspace(0.0, threshold, 2001), np.linspace(threshold, 1.0, 2001)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = np.trapezoid(1 - (1 - lo**r) ** b, lo)
            fn = np.trapezoid((1 - hi**r) ** b, hi)
            if 0.5 * fp + 0.5 * fn < best:
                best, opt = 0.5 * fp + 0.5 * fn, (b, r)
    return opt


def _fmix32(h: np.ndarray) -> np.ndarray:
    h = h.copy()
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


def minhash_signatures(keys: Sequence[str], config: ResolveConfig, *, chunk: int = 256) -> np.ndarray:
    """(n, num_perm) uint32 MinHash signatures of the keys' character shingles (datasketch permutations).
    Keys go in chunks small enough that the (shingles, num_perm) products stay in the CPU cache (256 keys:
    ~0.5 MB; 8192 took 3x as long in numpy).

    >>> s = minhash_signatures(["acme corporation", "acme corporations", "globex"], ResolveConfig())
    >>> bool((s[0] == s[1]).mean() > (s[0] == s[2]).mean())
    True
    """
    a, b = permutations(config.num_perm, config.seed)
    out = np.empty((len(keys), config.num_perm), dtype=np.uint32)
    for lo in range(0, len(keys), chunk):
        part = keys[lo : lo + chunk]
        grams = [shingles(k, config.shingle) for k in part]
        lengths = np.fromiter((len(g) for g in grams), dtype=np.int64, count=len(grams))
        hashes = np.fromiter((zlib.crc32(s.encode()) for g in grams for s in g), dtype=np.uint32,
                             count=int(lengths.sum()))
        hv = _fmix32(hashes)[:, None]
        with np.errstate(over="ignore"):
            phv = hv * a[None, :] + b[None, :]
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        out[lo : lo + len(part)] = np.minimum.reduceat(phv, starts, axis=0)
    return out


def _band_keys(sig: np.ndarray, type_codes: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(n, bands) uint64: one hash per band of each signature, salted with the type (blocks within a type)."""
    keys = np.empty((sig.shape[0], bands), dtype=np.uint64)
    prime = np.uint64(1099511628211)
    with np.errstate(over="ignore"):
        for j in range(bands):
            h = type_codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(j)
            for c in range(j * rows, (j + 1) * rows):
                h = (h ^ sig[:, c].astype(np.uint64)) * prime
            keys[:, j] = h
    return keys


@dataclass
class NameIndex:
    """Entities grouped into (type, match key) nodes, with the blocks that pair nodes. Build with build_index."""

    config: ResolveConfig
    ids: list[str]  # entity level
    names: list[str]
    types: list[str]
    mentions: list[int]
    node_of: list[int]  # entity -> node
    keys: list[str] = field(default_factory=list)  # node level
    node_types: list[str] = field(default_factory=list)
    members: list[list[int]] = field(default_factory=list)
    rep: list[int] = field(default_factory=list)  # representative entity: most mentions, then shortest id, then id
    gated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    bits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=float))  # information_bits per node
    by_key: dict[str, list[int]] = field(default_factory=dict)  # key -> nodes (any type)
    by_alias: dict[str, list[int]] = field(default_factory=dict)  # alias key -> entities
    by_surname: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    by_acronym: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    by_base: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (type, squash_key: no legal form, spaces)
    by_core: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (type, key without qualifiers)
    lsh_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    band_keys: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint64))
    type_code: dict[str, int] = field(default_factory=dict)
    titles: list[frozenset[str]] = field(default_factory=list)  # person titles the node's names are written with
    word_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # type -> word -> person nodes holding it

    def node_name(self, node: int) -> str:
        return self.names[self.rep[node]]

    def node_id(self, node: int) -> str:
        return self.ids[self.rep[node]]


def build_index(entities: Iterable[tuple[str, str, str, int]], *, config: ResolveConfig = ResolveConfig(),
                aliases: dict[str, Sequence[str]] | None = None) -> NameIndex:
    """Index (id, name, type, mentions) rows; `aliases` (id -> other names) are used for exact lookups."""
    rows = sorted(entities, key=lambda r: r[0])
    ids = [r[0] for r in rows]
    idx = NameIndex(config=config, ids=ids, names=[r[1] for r in rows], types=[r[2] for r in rows],
                    mentions=[int(r[3]) for r in rows], node_of=[])
    node_at: dict[tuple[str, str], int] = {}
    for e, (_, name, typ, _m) in enumerate(rows):
        key = match_key(name, typ)
        node = node_at.get((typ, key))
        if node is None:
            node = node_at[(typ, key)] = len(idx.keys)
            idx.keys.append(key)
            idx.node_types.append(typ)
            idx.members.append([])
            idx.by_key.setdefault(key, []).append(node)
        idx.members[node].append(e)
        idx.node_of.append(node)
    idx.rep = [m[0] if len(m) == 1 else min(m, key=lambda e: (-idx.mentions[e], len(idx.ids[e]), idx.ids[e]))
               for m in idx.members]
    if aliases:
        pos = {i: e for e, i in enumerate(ids)}
        for eid, names in aliases.items():
            if eid in pos:
                for alias in names:
                    idx.by_alias.setdefault(match_key(alias, idx.types[pos[eid]]), []).append(pos[eid])
    for node, key in enumerate(idx.keys):
        typ = idx.node_types[node]
        if typ in PERSON_TYPES:
            idx.by_surname.setdefault((typ, person_parts(key)[1]), []).append(node)
            counts = idx.word_counts.setdefault(typ, {})
            for word in set(key.split()):
                counts[word] = counts.get(word, 0) + 1
            idx.titles.append(frozenset().union(*(leading_titles(idx.names[e]) for e in idx.members[node])))
        else:
            idx.by_base.setdefault((typ, squash_key(key)), []).append(node)
            if core_key(key) != base_key(key):
                idx.by_core.setdefault((typ, core_key(key)), []).append(node)
            idx.titles.append(frozenset())
        name = idx.node_name(node)
        for acr in {acronym(name), acronym(key)} - {""}:
            idx.by_acronym.setdefault((typ, acr), []).append(node)
    bits = np.array([information_bits(k) for k in idx.keys], dtype=float)
    chars = np.array([len(k.replace(" ", "")) for k in idx.keys], dtype=int)
    idx.bits = bits
    idx.gated = (bits < config.lsh_min_bits) | (chars < config.lsh_min_chars)
    idx.type_code = {t: i for i, t in enumerate(sorted(set(idx.node_types)))}
    idx.lsh_nodes = np.flatnonzero(~idx.gated)
    if len(idx.lsh_nodes):
        sig = minhash_signatures([idx.keys[n] for n in idx.lsh_nodes], config)
        codes = np.array([idx.type_code[idx.node_types[n]] for n in idx.lsh_nodes], dtype=np.int64)
        idx.band_keys = _band_keys(sig, codes, *lsh_bands(config.lsh_threshold, config.num_perm))
    return idx


def lsh_pair_codes(idx: NameIndex) -> np.ndarray:
    """Node pairs sharing at least one LSH band (same type, both past the entropy gate), as sorted unique
    int64 codes `a * len(idx.keys) + b` with a < b. Buckets of 2..max_bucket members are expanded in numpy,
    one bucket size at a time (a Python loop over ~3M pairs took ~7 s per 100k names)."""
    nodes = idx.lsh_nodes.astype(np.int64)
    n_nodes = np.int64(len(idx.keys))
    chunks: list[np.ndarray] = []
    for j in range(idx.band_keys.shape[1]):
        order = np.argsort(idx.band_keys[:, j], kind="stable")
        ks = idx.band_keys[order, j]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        sizes = np.diff(np.r_[starts, len(ks)])
        wanted = (sizes >= 2) & (sizes <= idx.config.max_bucket)
        for size in np.unique(sizes[wanted]):
            first = starts[wanted & (sizes == size)]
            members = nodes[order[first[:, None] + np.arange(size)[None, :]]]  # (buckets, size)
            x, y = np.triu_indices(int(size), 1)
            a, b = members[:, x].ravel(), members[:, y].ravel()
            chunks.append(np.minimum(a, b) * n_nodes + np.maximum(a, b))
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    return sorted_unique(np.concatenate(chunks))


def sorted_unique(codes: np.ndarray) -> np.ndarray:
    """np.unique of a 1-d array by a sort and a neighbour compare (numpy 2's hashing np.unique took ~1.7 s for
    the ~1.5M pair codes of 100k names, this ~0.03 s).

    >>> sorted_unique(np.array([5, 1, 5, 3])).tolist()
    [1, 3, 5]
    """
    codes = np.sort(codes)
    return codes[np.r_[True, codes[1:] != codes[:-1]]] if len(codes) else codes


def slip_pair_codes(idx: NameIndex) -> np.ndarray:
    """Person node pairs that may be one name with slips (name_rules.person_slip), as sorted unique codes like
    lsh_pair_codes. Names of 2-3 words meet when they share the first two letters of one word and, of
    another word, a deletion variant (the word less one letter), or one's word is the other's deletion
    variant: a one-letter slip in that word, whichever order the words are in ("lily nguyen" / "liky
    nguyen" meet at "ng" + "liy"; "bea reid" / "beau reid" at "re" + "bea"). Names equal without spaces
    meet too. Character shingles miss these in short names (one slip in "lara slape" changes a third of its
    shingles). Pairs sharing a word exactly meet only through the other words (where their slip is). Of
    the pairs that meet, those person_slip accepts are returned (the others are no slips: "james smith" /
    "jane smith" meet at "sm" + "jame")."""
    exact: dict[tuple[str, ...], list[int]] = defaultdict(list)
    deleted: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)  # -> (the word, node)
    joined: dict[tuple[str, str], list[int]] = defaultdict(list)
    for node, key in enumerate(idx.keys):
        typ = idx.node_types[node]
        if typ not in PERSON_TYPES:
            continue
        tokens = key.split()
        if not 2 <= len(tokens) <= 3:
            continue
        joined[(typ, "".join(tokens))].append(node)
        for j, word in enumerate(tokens):
            if len(word) < 3:
                continue
            dels = {word[:k] + word[k + 1 :] for k in range(len(word))}
            for i, other in enumerate(tokens):
                if i != j:
                    exact[(typ, other[:2], word)].append(node)
                    for v in dels:
                        deleted[(typ, other[:2], v)].append((word, node))
    n = len(idx.keys)
    cap = idx.config.max_bucket
    codes: list[int] = []
    for members in joined.values():
        if 2 <= len(members) <= cap:
            codes.extend(x * n + y for i, x in enumerate(members) for y in members[i + 1 :])
    for k, entries in deleted.items():
        ys = exact.get(k, [])
        if len(entries) + len(ys) > cap or len(entries) + len(ys) < 2:
            continue
        # two different words with one deletion in common (the same word in both names is not a slip there)
        codes.extend(min(x, y) * n + max(x, y) for i, (w, x) in enumerate(entries) for v, y in entries[i + 1 :]
                     if w != v and x != y)
        codes.extend(min(x, y) * n + max(x, y) for _w, x in entries for y in ys if x != y)
    met = sorted_unique(np.array(codes, dtype=np.int64))
    keys, counts = idx.keys, idx.word_counts
    slip = [person_slip(keys[c // n], keys[c % n], counts.get(idx.node_types[c // n])) is not None for c in met.tolist()]
    return met[np.array(slip, dtype=bool)] if len(met) else met


def lsh_pairs(idx: NameIndex) -> set[tuple[int, int]]:
    """Node pairs sharing at least one LSH band (same type, both past the entropy gate)."""
    n = len(idx.keys)
    return {(int(c) // n, int(c) % n) for c in lsh_pair_codes(idx)}


def rule_pairs(idx: NameIndex) -> dict[tuple[int, int], str]:
    """Node pairs from the name rules: person initials / middle names / surname only, legal form, qualifier
    words (keys.core_key: a year, kind word, legal form or royal predicate anywhere), acronyms."""
    out: dict[tuple[int, int], str] = {}
    cap = idx.config.max_bucket * 4
    for nodes in idx.by_surname.values():
        if len(nodes) < 2:
            continue
        # initials / middle-name rules need one first initial: pair within first-initial sub-blocks;
        # a surname-only name pairs with the whole block, unless the block is too big to mean anything
        by_initial: dict[str, list[int]] = defaultdict(list)
        bare: list[int] = []
        for n in nodes:
            given = person_parts(idx.keys[n])[0]
            (by_initial[given[0][0]] if given else bare).append(n)
        groups = [b for b in by_initial.values() if 2 <= len(b) <= cap]
        if bare and len(nodes) <= idx.config.max_bucket:
            groups.append(nodes)
        for group in groups:
            parts = {n: idx.keys[n] for n in group}
            for x in range(len(group)):
                for y in range(x + 1, len(group)):
                    a, b = (group[x], group[y]) if group[x] < group[y] else (group[y], group[x])
                    if (a, b) in out:
                        continue
                    rule = initials_rule(parts[group[x]], parts[group[y]])
                    if rule:
                        out[(a, b)] = rule
    for block, rule in ((idx.by_base, "legal_form"), (idx.by_core, "qualifier")):
        for key, nodes in block.items():
            if rule == "qualifier":
                nodes = sorted({*nodes, *idx.by_base.get((key[0], squash_key(key[1])), [])})  # the core name itself too
            if 2 <= len(nodes) <= idx.config.max_bucket:
                for x in range(len(nodes)):
                    for y in range(x + 1, len(nodes)):
                        out.setdefault((nodes[x], nodes[y]), rule)
    for node, key in enumerate(idx.keys):
        if " " in key or not looks_like_acronym(idx.node_name(node)):
            continue
        expansions = [n for n in idx.by_acronym.get((idx.node_types[node], key), []) if n != node]
        for other in expansions[: idx.config.max_bucket]:
            a, b = sorted((node, other))
            out.setdefault((a, b), "acronym")
    return out


def lexical_pairs(idx: NameIndex) -> dict[tuple[int, int], tuple[str, ...]]:
    """Every node pair the lexical blocks propose, with the blocks that proposed it."""
    found: dict[tuple[int, int], list[str]] = defaultdict(list)
    for pair, rule in rule_pairs(idx).items():
        found[pair].append(rule)
    n = len(idx.keys)
    for code in slip_pair_codes(idx).tolist():
        if (code // n, code % n) not in found:
            found[(code // n, code % n)].append("slip")
    for pair in lsh_pairs(idx):
        found[pair].append("lsh")
    return {p: tuple(v) for p, v in found.items()}


def query_lsh(idx: NameIndex, key: str, typ: str) -> list[int]:
    """Nodes of type `typ` sharing an LSH band with `key` (for identity lookups of a new name)."""
    if typ not in idx.type_code or not len(idx.lsh_nodes):
        return []
    sig = minhash_signatures([key], idx.config)
    bands = _band_keys(sig, np.array([idx.type_code[typ]]), *lsh_bands(idx.config.lsh_threshold, idx.config.num_perm))
    hits = np.flatnonzero((idx.band_keys == bands[0][None, :]).any(axis=1))
    return [int(idx.lsh_nodes[h]) for h in hits]
