"""Scoring features for a candidate pair, each with the reason a person reads (the MergeCandidate record: kgkit.core.decisions).

>>> from kgkit.stages.resolve.name_index import build_index
>>> idx = build_index([("P:a", "J. Smith", "Person", 1), ("P:b", "Jane Smith", "Person", 4)])
>>> score, features, reasons = score_pair(idx, 0, 1, ("initials",))
>>> score, features["rule_initials"], reasons[0]
(0.92, 1.0, "initials agree: 'j smith' ~ 'jane smith'")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler

from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.guards import policy_guard, slip_guard
from kgkit.stages.resolve.keys import (
    PERSON_TYPES,
    acronym,
    base_key,
    core_key,
    leading_titles,
    looks_like_acronym,
    qualifier_words,
    squash_key,
)
from kgkit.stages.resolve.name_index import NameIndex
from kgkit.stages.resolve.name_rules import initials_rule, person_parts, person_slip, person_suffix, token_conflict


@dataclass(frozen=True)
class GraphContext:
    """What the graph says about entities beyond their names: neighbours and documents."""

    neighbours: Mapping[str, frozenset[str]] = field(default_factory=dict)
    documents: Mapping[str, frozenset[str]] = field(default_factory=dict)


def graph_context(graph: object) -> GraphContext:
    """Neighbour ids (from relations) and document ids (from entity provenance) per entity id."""
    rel = graph.relations  # type: ignore[attr-defined]
    prov = graph.provenance  # type: ignore[attr-defined]
    neighbours: dict[str, set[str]] = {}
    for s, t in zip(rel["source"].tolist(), rel["target"].tolist()):
        neighbours.setdefault(s, set()).add(t)
        neighbours.setdefault(t, set()).add(s)
    ents = prov[prov["kind"] == "entity"]
    documents: dict[str, set[str]] = {}
    for i, d in zip(ents["item_id"].tolist(), ents["document_id"].tolist()):
        documents.setdefault(i, set()).add(d)
    return GraphContext({k: frozenset(v) for k, v in neighbours.items()}, {k: frozenset(v) for k, v in documents.items()})


def _node_set(idx: NameIndex, node: int, table: Mapping[str, frozenset[str]]) -> frozenset[str]:
    members = idx.members[node]
    if len(members) == 1:
        return table.get(idx.ids[members[0]], frozenset())
    out: set[str] = set()
    for e in members:
        out |= table.get(idx.ids[e], frozenset())
    return frozenset(out)


def score_pair(idx: NameIndex, a: int, b: int, blocks: Sequence[str], context: GraphContext | None = None,
               cosine: float | None = None, strings: tuple[float, float, float, float] | None = None
               ) -> tuple[float, dict[str, float], list[str]]:
    """Score node a against node b: string similarity, name rules, embedding cosine, graph evidence.
    `strings` (ratio, token sort, token set, Jaro-Winkler of the keys, in 0..1) when computed in bulk."""
    sets = None
    if context is not None:
        sets = (_node_set(idx, a, context.neighbours), _node_set(idx, b, context.neighbours),
                _node_set(idx, a, context.documents), _node_set(idx, b, context.documents))
    names, rep, types = idx.names, idx.rep, idx.node_types  # idx.node_name inlined: ~700k pairs per 100k names
    return score_names(idx.config, (idx.keys[a], names[rep[a]], types[a]), (idx.keys[b], names[rep[b]], types[b]),
                       blocks, sets, cosine, strings, (idx.titles[a], idx.titles[b]), idx.word_counts.get(types[a]))


def score_names(cfg: ResolveConfig, a: tuple[str, str, str], b: tuple[str, str, str], blocks: Sequence[str] = (),
                sets: tuple[frozenset[str], ...] | None = None, cosine: float | None = None,
                strings: tuple[float, float, float, float] | None = None,
                titles: tuple[frozenset[str], frozenset[str]] | None = None, counts: Mapping[str, int] | None = None
                ) -> tuple[float, dict[str, float], list[str]]:
    """Score two (match key, name, type) triples; `sets` = (neighbours a, neighbours b, documents a, documents b);
    `strings` as in score_pair (computed here when None); `titles`: the person titles each side is written
    with (keys.leading_titles; from the names when None); `counts`: how many person names hold each word
    (NameIndex.word_counts; lets a short word's slip count, name_rules.person_slip)."""
    (ka, na, ta), (kb, nb, tb) = a, b
    reasons: list[str] = []
    ratio, tsort, tset, jw = strings if strings is not None else string_features(ka, kb)
    features: dict[str, float] = {"ratio": ratio, "token_sort": tsort, "token_set": tset, "jaro_winkler": jw}
    string = 0.6 * tsort + 0.4 * jw
    score = string
    people = ta in PERSON_TYPES and tb in PERSON_TYPES
    if string < string_floor(cfg, cosine, sets is not None) and not _rule_possible(ka, na, kb, nb, people):
        return round(string, 4), features, [f"string similarity {string:.2f}"]  # cannot reach min_score
    rule = initials_rule(ka, kb) if people else None
    if rule:
        floor = {"initials": cfg.rule_initials, "middle": cfg.rule_middle, "surname_only": cfg.rule_surname_only}[rule]
        features[f"rule_{rule}"] = 1.0
        label = {"initials": "initials agree", "middle": "same names, one adds a middle name or initial",
                 "surname_only": "one gives only the surname"}[rule]
        if rule == "middle" and person_parts(ka)[0] == person_parts(kb)[0]:
            label = "same names, one adds a generational suffix"
        elif person_suffix(ka) != person_suffix(kb):
            label += " (one adds a generational suffix)"
        reasons.append(f"{label}: {ka!r} ~ {kb!r}")
        # a bare surname ("Smith", "Mr. Smith") says no more than the rule, however alike the strings look
        score = floor if rule == "surname_only" else max(score, floor)
        if rule == "surname_only":
            ta_, tb_ = titles if titles is not None else (leading_titles(na), leading_titles(nb))
            short, other = (ta_, tb_) if not person_parts(ka)[0] else (tb_, ta_)
            if short and other and short & other:
                features["rule_surname_title"] = 1.0
                reasons.append(f"same title ({', '.join(sorted(short & other))}) and surname")
                score = cfg.rule_surname_title
            elif short and other:
                features["title_conflict"] = 1.0
                reasons.append(f"titles differ ({', '.join(sorted(short))} / {', '.join(sorted(other))})")
                score = cfg.rule_title_conflict
    elif people and (slip := person_slip(ka, kb, counts)):
        features[f"rule_{slip}"] = 1.0
        label = {"typo": "misspelt words", "swapped": "same words, another order", "split": "a space added or lost",
                 "swapped_typo": "misspelt words, another order"}[slip]
        reasons.append(f"{label}: {ka!r} ~ {kb!r}")
        if slip in ("swapped", "split"):
            score = max(score, cfg.rule_swapped)
        elif slip == "swapped_typo":  # the string score of the words in one order
            score = max(score, 0.6 * tsort + 0.4 * JaroWinkler.normalized_similarity(ka, " ".join(kb.split()[::-1])))
    elif people:
        features["name_conflict"] = 1.0
        reasons.append(f"given names or surnames disagree: {ka!r} / {kb!r} (capped for review)")
        score = min(score, cfg.person_conflict_cap)
    elif ta == tb and ka != kb and squash_key(ka) == squash_key(kb):
        form_a, form_b = ka[len(base_key(ka)):].strip(), kb[len(base_key(kb)):].strip()
        if form_a and form_b and form_a != form_b:
            features["rule_legal_form_differs"] = 1.0
            reasons.append(f"same name, different legal forms ({form_a!r} / {form_b!r}): {ka!r} ~ {kb!r}")
            score = max(score, cfg.rule_legal_form_differs)
        else:
            features["rule_legal_form"] = 1.0
            reasons.append(f"same name up to spacing or an omitted legal form: {ka!r} ~ {kb!r}")
            score = max(score, cfg.rule_legal_form)
    elif ta == tb and (extra := qualifier_words(ka, kb)):
        features["rule_qualifier"] = 1.0
        reasons.append(f"one name adds only {' '.join(extra)!r} (a year, kind word or legal form): {ka!r} ~ {kb!r}")
        score = max(score, cfg.rule_qualifier)
    elif _is_acronym_of(ka, na, kb, nb) or _is_acronym_of(kb, nb, ka, na):
        features["rule_acronym"] = 1.0
        reasons.append(f"acronym: {na!r} ~ {nb!r}")
        score = max(score, cfg.rule_acronym)
    elif score > cfg.word_conflict_cap and (check := word_check(ka, kb)) is not None:
        features[check[0]] = 1.0
        reasons.append(check[1])
        score = min(score, cfg.word_conflict_cap)
    reasons.append(string_reason(string, tsort, jw))
    if cosine is not None:
        features["cosine"] = round(float(cosine), 4)
        reasons.append(f"embedding cosine {cosine:.2f}")
        if not any(f.startswith("rule_") for f in features):
            score = (1 - cfg.embed_weight) * score + cfg.embed_weight * float(cosine)
    features["same_type"] = float(ta == tb)
    if ta != tb:
        reasons.append(f"types differ ({ta} / {tb}): never merged automatically")
    if sets is not None:
        na_, nb_, da, db = sets
        shared = len(na_ & nb_)
        features["shared_neighbours"] = float(shared)
        if shared:
            score += cfg.neighbour_bonus * shared / len(na_ | nb_)
            reasons.append(f"{shared} shared neighbour(s)")
        features["co_documents"] = float(len(da & db))
        if da & db:
            reasons.append(f"mentioned together in {len(da & db)} document(s)")
    if blocks:
        reasons.append(blocks_reason(blocks))
    score = min(score, 1.0)
    cap = guard_at(cfg)
    slipped = people and ("rule_typo" in features or "rule_swapped_typo" in features)
    if cfg.guards and score > cap and ta == tb and (
            why := policy_guard(ka, kb, ta, na, nb) or (slip_guard(ka, kb, counts) if slipped else None)) is not None:
        features["guard"] = 1.0
        reasons.insert(0, f"{GUARD_PREFIX}{why}")
        score = cap
    return round(score, 4), features, reasons


def word_check(ka: str, kb: str, same_words: bool | None = None) -> tuple[str, str] | None:
    """The word check of two keys of one type that no name rule pairs, as (feature, reason), or None: the same
    words in another order, or a word of each that the other lacks and that is no typo (name_rules.
    token_conflict). Either caps the score at `word_conflict_cap` for review. `same_words`: whether the keys
    hold the same words, when known (from sorted-word codes).

    >>> word_check("miami university", "university of miami"), word_check("hamilton county", "milton county")[0]
    (None, 'word_conflict')
    >>> word_check("university miami", "miami university")[1]
    "same words in another order: 'university miami' / 'miami university' (capped for review)"
    """
    if ka != kb and (same_words if same_words is not None else sorted(ka.split()) == sorted(kb.split())):
        return "word_order", f"same words in another order: {ka!r} / {kb!r} (capped for review)"
    if (conflict := token_conflict(ka, kb)) is not None:
        return "word_conflict", f"different words {conflict[0]!r} / {conflict[1]!r}, not a typo (capped for review)"
    return None


def string_reason(string: float, tsort: float, jw: float) -> str:
    """The reason line of a pair's string score.

    >>> string_reason(0.8, 0.75, 0.875)
    'string similarity 0.80 (token sort 0.75, Jaro-Winkler 0.88)'
    """
    return f"string similarity {string:.2f} (token sort {tsort:.2f}, Jaro-Winkler {jw:.2f})"


def blocks_reason(blocks: Sequence[str]) -> str:
    """The reason line naming the blocks that proposed a pair."""
    return "proposed by: " + ", ".join(blocks)


def plain_cap(cfg: ResolveConfig) -> float:
    """The string score up to which a pair of one type, not people, that no name rule fits (not equal up to
    spacing or legal form, no qualifier words added, no acronym) is scored by its strings alone: above it the
    word checks or the policy guard may change the score (score_names)."""
    return min(cfg.word_conflict_cap, guard_at(cfg))


def guard_at(cfg: ResolveConfig) -> float:
    """The score above which score_names asks guards.policy_guard whether a pair of one type is held back."""
    return min(cfg.guard_cap, cfg.auto_accept - 0.01)


GUARD_PREFIX = "not for the policy, a person decides: "
"""The reason line of a pair guards.policy_guard holds back (first among its reasons)."""


STRING_SCORERS = (fuzz.ratio, fuzz.token_sort_ratio, fuzz.token_set_ratio, JaroWinkler.normalized_similarity)
"""The string features of a pair of keys, in order; the first three are percentages (divided by 100)."""


def string_features(ka: str, kb: str) -> tuple[float, float, float, float]:
    """(ratio, token sort, token set, Jaro-Winkler) of two keys, each in 0..1."""
    return (fuzz.ratio(ka, kb) / 100, fuzz.token_sort_ratio(ka, kb) / 100, fuzz.token_set_ratio(ka, kb) / 100,
            JaroWinkler.normalized_similarity(ka, kb))


def string_floor(cfg: ResolveConfig, cosine: float | None, graph: bool = True) -> float:
    """The lowest string score that can still reach min_score (with the cosine, and the neighbour bonus when
    graph evidence is scored), less 1e-4 as scores are rounded to 4 decimals."""
    bonus = cfg.neighbour_bonus if graph else 0.0
    low = cfg.min_score - bonus
    if cosine is not None:
        low = min(low, (cfg.min_score - bonus - cfg.embed_weight) / (1 - cfg.embed_weight))
    return low - 1e-4


def _rule_possible(ka: str, na: str, kb: str, nb: str, people: bool) -> bool:
    """Cheap necessary conditions of the name rules (so most hopeless pairs skip them)."""
    if people:
        return (ka.rsplit(" ", 1)[-1] == kb.rsplit(" ", 1)[-1] or ka.count(" ") == kb.count(" ")
                or ka.replace(" ", "") == kb.replace(" ", ""))
    if " " not in ka or " " not in kb:
        return True  # acronyms
    return squash_key(ka) == squash_key(kb) or core_key(ka) == core_key(kb)


def _is_acronym_of(key: str, name: str, long_key: str, long_name: str) -> bool:
    return " " not in key and looks_like_acronym(name) and key in {acronym(long_name), acronym(long_key)} - {""}
