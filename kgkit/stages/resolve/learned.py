"""A learned pair scorer: features of a candidate (its name similarities, the rarity of the words the names
share or do not, the rule that proposed it, and what the graph knows: shared neighbours, attributes that
agree or conflict, co-occurring documents) weighted by a logistic model whose weights are fitted, not set
by hand — a prior fitted on data the project may ship (`kgkit.stages.resolve.prior`), updated by the
decisions a person makes (a Gaussian prior centred on the prior weights: few decisions move it a little,
many move it far). Each candidate gets a probability; the policy auto-accepts only above a stated
probability (`Policy.min_probability`), and review asks, in turn, about the candidates whose answer would
teach the model most (closest to 0.5: uncertainty sampling, as the dedupe library does) and the likeliest of
those only a person can merge (guarded: `pending`, `decisions.doubt_order`).

    model = PRIOR_MODEL                                             # or fit_model(X, y) / update_model(...)
    scored = score_candidates(candidates, graph, model)             # features["probability"] on each
    decide(scored, policy=Policy(min_probability=0.99), at=now)     # merges only p >= 0.99 (guards still hold)
    pending(scored, decisions)                                      # doubt_order: teach / likely in turn

>>> m = PairModel(("token_sort",), (8.0,), -6.0)
>>> [round(float(p), 3) for p in m.probability(np.array([[0.5], [1.0]]))]
[0.119, 0.881]
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgkit.core.decisions import Decision, MergeCandidate
from kgkit.core.names import normalise_name
from kgkit.core.stage import gc_paused, stage
from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.decisions import Policy
from kgkit.stages.resolve.keys import PERSON_TYPES

FEATURES: tuple[str, ...] = (
    "ratio", "token_sort", "token_set", "jaro_winkler", "score", "exact", "rule_name", "rule_slip",
    "rule_surname_only", "rule_org", "conflict", "guard", "ambiguous", "person", "idf_shared", "idf_lone",
    "neighbour_share", "neighbour_none", "attr_agree", "attr_conflict", "co_documents",
)
"""The model's inputs, each in 0..1 (see pair_features)."""

SIGNS: dict[str, int] = {
    **dict.fromkeys(("ratio", "token_sort", "token_set", "jaro_winkler", "score", "exact", "rule_name", "rule_slip",
                     "rule_org", "idf_shared", "neighbour_share", "attr_agree", "co_documents"), 1),
    **dict.fromkeys(("conflict", "guard", "ambiguous", "idf_lone", "attr_conflict"), -1),
}
"""What each feature may say, whatever the training data: similar names, a rule, shared rare words and
neighbours, agreeing attributes only ever raise the probability; a conflict, a guard, a rival, a rare word
only one name has, a conflicting attribute only ever lower it (fit_model bounds the weights so; the rest are
free). Without these bounds a prior fitted on PATSTAT learned that a rare extra word raises the odds (its true
pairs carry addresses), which on a news corpus proposed "Rural Electrification Administration" = "Security
Administration" at 1.0."""

_NAME_RULES = ("rule_initials", "rule_middle", "rule_surname_title")
_SLIP_RULES = ("rule_typo", "rule_swapped", "rule_swapped_typo", "rule_split")
_ORG_RULES = ("rule_legal_form", "rule_qualifier", "rule_acronym")
_CONFLICTS = ("name_conflict", "word_conflict", "word_order", "title_conflict", "rule_legal_form_differs")


@dataclass(frozen=True)
class PairModel:
    """Logistic weights over named features: p = 1 / (1 + exp(-(intercept + weights . x)))."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float

    def logit(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=float) @ np.asarray(self.weights) + self.intercept

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.logit(x)))

    def to_dict(self) -> dict[str, Any]:
        return {"intercept": round(self.intercept, 6), "weights": {f: round(w, 6) for f, w in zip(self.features, self.weights)}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PairModel:
        w = d["weights"]
        return cls(tuple(w), tuple(float(v) for v in w.values()), float(d["intercept"]))


@dataclass(frozen=True)
class PairContext:
    """What pair_features needs from the graph: word document frequencies, neighbours by relation, documents."""

    word_df: Mapping[str, int]
    n_names: int
    neighbours: Mapping[str, Mapping[str, frozenset[str]]]  # entity -> relation label -> neighbour ids
    degree: Mapping[str, int]
    documents: Mapping[str, frozenset[str]]


def pair_context(graph: Any) -> PairContext:
    """Word frequencies over the entity names, neighbours grouped by relation type (and direction), and
    documents per entity, from a graph's tables."""
    ents = graph.entities
    df: Counter[str] = Counter()
    for name in ents["name"].tolist():
        df.update(set(normalise_name(name).split()))
    rel = graph.relations
    by: dict[str, dict[str, set[str]]] = {}
    degree: Counter[str] = Counter()
    for s, t, r in zip(rel["source"].tolist(), rel["target"].tolist(), rel["type"].tolist()):
        by.setdefault(s, {}).setdefault(f">{r}", set()).add(t)
        by.setdefault(t, {}).setdefault(f"<{r}", set()).add(s)
        degree[s] += 1
        degree[t] += 1
    prov = graph.provenance
    rows = prov[prov["kind"] == "entity"]
    docs: dict[str, set[str]] = {}
    for i, d in zip(rows["item_id"].tolist(), rows["document_id"].tolist()):
        docs.setdefault(i, set()).add(d)
    return PairContext(dict(df), max(len(ents), 1), {e: {k: frozenset(v) for k, v in m.items()} for e, m in by.items()},
                       dict(degree), {k: frozenset(v) for k, v in docs.items()})


def _idf(ctx: PairContext, word: str) -> float:
    return math.log((ctx.n_names + 1) / (ctx.word_df.get(word, 0) + 1)) / math.log(ctx.n_names + 1)


class _Lookups:
    """Per-call caches for feature rows: a name's words and a word's idf (a name is in many candidates)."""

    def __init__(self, ctx: PairContext | None) -> None:
        self.ctx, self.words, self.idf = ctx, {}, {}

    def name_words(self, name: str) -> frozenset[str]:
        got = self.words.get(name)
        if got is None:
            got = self.words[name] = frozenset(normalise_name(name).split())
        return got

    def weight(self, word: str) -> float:
        got = self.idf.get(word)
        if got is None:
            got = self.idf[word] = _idf(self.ctx, word)  # type: ignore[arg-type]
        return got


def pair_features(c: MergeCandidate, ctx: PairContext | None) -> list[float]:
    """The FEATURES of one candidate (each in 0..1). Word rarity: idf_shared is the share of the two names'
    word weight (inverse document frequency over all names) in words both hold, idf_lone the rarest word
    only one holds. Graph: neighbour_share is 1 - prod(1 - 1/(k-1)) over the shared neighbours, k the
    number of entities a neighbour is linked to (two records sharing a date of birth: 1; a reference work
    200 names cite: 0.005), attr_agree / attr_conflict the share of relation types both
    entities have whose neighbours meet / do not meet (a birth year, a place, a co-author), co_documents
    whether they are mentioned in one document."""
    return _features(c, _Lookups(ctx))


def _features(c: MergeCandidate, look: _Lookups) -> list[float]:
    f, ctx = c.features, look.ctx
    name_rule = slip = org = conflict = 0.0
    for k in f:
        if k in _NAME_RULES:
            name_rule = 1.0
        elif k in _SLIP_RULES:
            slip = 1.0
        elif k in _ORG_RULES:
            org = 1.0
        if k in _CONFLICTS:
            conflict = 1.0
    idf_shared = idf_lone = share = attr_agree = attr_conflict = co_docs = 0.0
    none = 1.0
    if ctx is not None:
        wa, wb = look.name_words(c.source_name), look.name_words(c.target_name)
        weight = look.weight
        total = sum(weight(w) for w in wa | wb) or 1.0
        idf_shared = sum(weight(w) for w in wa & wb) / total
        idf_lone = max((weight(w) for w in wa ^ wb), default=0.0)
        na, nb = ctx.neighbours.get(c.source, {}), ctx.neighbours.get(c.target, {})
        sa = set().union(*na.values()) - {c.target} if na else set()
        sb = set().union(*nb.values()) - {c.source} if nb else set()
        if sa or sb:
            none = 0.0
            # a neighbour linked to k entities says "these two" with weight 1/(k-1): a date of birth two
            # records share says much, a reference work 200 names cite says next to nothing
            miss = 1.0
            for n in sa & sb:
                miss *= 1.0 - 1.0 / max(ctx.degree.get(n, 2) - 1, 1)
            share = 1.0 - miss
        both = [r for r in na if r in nb]
        if both:
            attr_agree = sum(bool(na[r] & nb[r]) for r in both) / len(both)
            attr_conflict = 1.0 - attr_agree
        docs_a = ctx.documents.get(c.source)
        co_docs = float(bool(docs_a and docs_a & ctx.documents.get(c.target, frozenset())))
    # in FEATURES order
    return [f.get("ratio", 0.0), f.get("token_sort", 0.0), f.get("token_set", 0.0), f.get("jaro_winkler", 0.0), c.score,
            float(c.step == "exact"), name_rule, slip, f.get("rule_surname_only", 0.0), org, conflict,
            f.get("guard", 0.0), float(c.verdict != "unique"), float(c.source_type in PERSON_TYPES), idf_shared, idf_lone,
            share, none, attr_agree, attr_conflict, co_docs]


def feature_matrix(candidates: Sequence[MergeCandidate], ctx: PairContext | None) -> np.ndarray:
    """pair_features of every candidate, one row each (shape (n, len(FEATURES))).

    >>> feature_matrix([], None).shape == (0, len(FEATURES))
    True
    """
    look = _Lookups(ctx)
    return np.array([_features(c, look) for c in candidates], dtype=float).reshape(len(candidates), len(FEATURES))


def fit_model(x: np.ndarray, y: np.ndarray, *, prior: PairModel | None = None, strength: float = 1.0,
              sample_weight: np.ndarray | None = None) -> PairModel:
    """Maximum a posteriori logistic weights: log loss + strength/2 * |w - prior|^2 (prior: zero weights when
    None, i.e. plain L2-regularised logistic regression), each weight within its SIGNS bound. With a prior,
    few labels leave it nearly as it was.

    >>> x = np.array([[0.2], [0.4], [0.6], [0.9], [1.0], [0.95]]); y = np.array([0, 0, 0, 1, 1, 1])
    >>> m = fit_model(x, y, strength=0.01)
    >>> bool(m.probability(np.array([[0.97]]))[0] > 0.9 > 0.1 > m.probability(np.array([[0.3]]))[0])
    True
    """
    from scipy.optimize import minimize

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    k = x.shape[1]
    w0 = np.zeros(k + 1) if prior is None else np.array([*prior.weights, prior.intercept])
    xb = np.hstack([x, np.ones((len(x), 1))])
    reg = np.full(k + 1, strength)
    reg[-1] = strength * 0.01  # the intercept (the base rate) is free to move

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = xb @ w
        p = 1.0 / (1.0 + np.exp(-z))
        nll = np.sum(sw * (np.logaddexp(0.0, z) - y * z))
        d = w - w0
        return nll + 0.5 * float(np.sum(reg * d * d)), xb.T @ (sw * (p - y)) + reg * d

    names = FEATURES if k == len(FEATURES) else ()
    bounds = [(0.0, None) if SIGNS.get(f) == 1 else (None, 0.0) if SIGNS.get(f) == -1 else (None, None) for f in names]
    bounds += [(None, None)] * (k + 1 - len(bounds))
    start = np.clip(w0, [b[0] if b[0] is not None else -np.inf for b in bounds],
                    [b[1] if b[1] is not None else np.inf for b in bounds])
    res = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds)
    w = res.x
    return PairModel(FEATURES if k == len(FEATURES) else tuple(f"x{i}" for i in range(k)),
                     tuple(float(v) for v in w[:-1]), float(w[-1]))


def decision_labels(candidates: Sequence[MergeCandidate], decisions: Iterable[Decision]) -> dict[int, int]:
    """Candidate position -> 1 (a person merged the pair) / 0 (a person kept it apart or vetoed the merge)."""
    label: dict[frozenset[str], int] = {}
    for d in decisions:
        if d.decided_by != "person" or d.kind not in ("merge", "keep_apart") or len(d.subjects) != 2:
            continue
        label[frozenset(d.subjects)] = int(d.kind == "merge" and d.verdict == "accept")
    return {i: label[frozenset((c.source, c.target))] for i, c in enumerate(candidates)
            if frozenset((c.source, c.target)) in label}


def update_model(prior: PairModel, candidates: Sequence[MergeCandidate], decisions: Iterable[Decision],
                 ctx: PairContext | None, *, strength: float = 1.0, policy: Policy = Policy()) -> PairModel:
    """The prior updated by a person's decisions on these candidates (active learning); the prior itself
    when there are none. Only decisions on pairs the policy could merge on their probability count: a pair
    only a person can merge (`Policy.person_only`: guarded, proposed by the graph alone, types apart) is never
    the model's to decide, and its answers (a likely-looking guarded pair that is two things) would teach the
    model about pairs it never decides, at the expense of those it does."""
    labels = {i: y for i, y in decision_labels(candidates, decisions).items() if not policy.person_only(candidates[i])}
    if not labels:
        return prior
    rows = sorted(labels)
    x = feature_matrix([candidates[i] for i in rows], ctx)
    return fit_model(x, np.array([labels[i] for i in rows]), prior=prior, strength=strength)


@stage(version="1")
def score_candidates(candidates: Sequence[MergeCandidate], graph: Any, model: PairModel, *,
                     context: PairContext | None = None) -> list[MergeCandidate]:
    """Each candidate with features["probability"] (the model's, that it is one entity) and
    features["rival_probability"] (the best probability of another candidate of its less informative side,
    the source), and a reason line. The policy reads both (Policy.min_probability). `context`: pair_context
    of the graph when already computed (graph may then be None)."""
    ctx = context if context is not None else pair_context(graph) if graph is not None else None
    with gc_paused():  # many small records, none cyclic: a full collection would walk them all, again and again
        return _scored(candidates, model.probability(feature_matrix(candidates, ctx)) if candidates else np.zeros(0))


def _scored(candidates: Sequence[MergeCandidate], probs: np.ndarray) -> list[MergeCandidate]:
    plist = probs.tolist()
    best: dict[str, tuple[float, float]] = {}  # source -> its two best probabilities (for the rival of each)
    for c, p in zip(candidates, plist):
        top, second = best.get(c.source, (0.0, 0.0))
        best[c.source] = (p, top) if p > top else (top, max(second, p))
    out = []
    for c, p in zip(candidates, plist):
        top, second = best[c.source]
        rival = second if p == top else top
        feats = {**c.features, "probability": round(p, 4), "rival_probability": round(rival, 4)}
        # the candidate's own fields (already valid) with two more features and a reason: no re-validation
        out.append(MergeCandidate.trusted(**{**c.__dict__, "features": feats,
                                             "reasons": (*c.reasons, f"learned probability {p:.2f}")}))
    return out


def threshold_for_precision(probs: np.ndarray, labels: np.ndarray, precision: float) -> float:
    """The lowest probability whose accepted set (p >= it) still has at least `precision` on labelled data
    (1.0 + a little when none reaches it: accept nothing).

    >>> threshold_for_precision(np.array([0.99, 0.95, 0.9, 0.6]), np.array([1, 1, 0, 1]), 0.99)
    0.95
    """
    order = np.argsort(-probs, kind="stable")
    hits = np.cumsum(labels[order])
    prec = hits / np.arange(1, len(order) + 1)
    ok = np.nonzero(prec >= precision)[0]
    if len(ok) == 0:
        return 1.0 + 1e-9
    i = int(ok[-1])
    return float(probs[order][i])


def reliability(probs: np.ndarray, labels: np.ndarray, bins: Sequence[float] = (0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0001)
                ) -> list[tuple[str, int, float, float]]:
    """Calibration table: (probability bin, candidates, mean predicted, observed share of true pairs)."""
    out = []
    for lo, hi in itertools.pairwise(bins):
        m = (probs >= lo) & (probs < hi)
        if m.any():
            out.append((f"{lo:.2f}-{min(hi, 1):.2f}", int(m.sum()), float(probs[m].mean()), float(labels[m].mean())))
    return out


@stage(version="1")
def context_candidates(graph: Any, candidates: Sequence[MergeCandidate], *, types: Iterable[str] | None = None,
                       max_degree: int = 12, config: ResolveConfig = ResolveConfig()) -> list[MergeCandidate]:
    """Pairs the names did not propose but the graph does: two entities of one type that share a rare
    neighbour (one linked to at most `max_degree` entities: a date of birth, a co-author, a street, not a
    country). Step "context", verdict "ambiguous" (names alone do not single them out), scored on the
    names like any pair; the model ranks them, only a person merges them (Policy.refusal).
    `types`: only entities of these types (default: every type)."""
    from kgkit.stages.resolve.keys import match_key
    from kgkit.stages.resolve.scoring import score_names

    ents = graph.entities
    name = dict(zip(ents["id"].tolist(), ents["name"].tolist()))
    typ = dict(zip(ents["id"].tolist(), ents["type"].tolist()))
    wanted = set(types) if types is not None else None
    linked: dict[str, set[str]] = {}
    rel = graph.relations
    for s, t in zip(rel["source"].tolist(), rel["target"].tolist()):
        linked.setdefault(t, set()).add(s)
        linked.setdefault(s, set()).add(t)
    seen = {frozenset((c.source, c.target)) for c in candidates}
    out: list[MergeCandidate] = []
    for members in linked.values():
        if len(members) > max_degree:
            continue
        for a, b in itertools.combinations(sorted(members), 2):
            ta = typ.get(a)
            if ta is None or ta != typ.get(b) or (wanted is not None and ta not in wanted):
                continue
            pair = frozenset((a, b))
            if pair in seen:
                continue
            seen.add(pair)
            score, feats, reasons = score_names(config, (match_key(name[a], ta), name[a], ta), (match_key(name[b], ta), name[b], ta))
            out.append(MergeCandidate.trusted(
                source=a, target=b, source_name=name[a], target_name=name[b], source_type=ta, target_type=ta,
                score=score, step="context", verdict="ambiguous", features=feats,
                reasons=("proposed by the graph: a shared rare neighbour", *reasons)))
    return out


def learned_candidates(graph: Any, candidates: Sequence[MergeCandidate], decisions: Iterable[Decision],
                       prior: PairModel, *, strength: float = 1.0, context_floor: float = 0.1) -> list[MergeCandidate]:
    """The cascade's candidates plus the graph's (context_candidates) that the model gives at least
    `context_floor`, scored by the prior updated with the person decisions so far (update_model): what
    `kgkit resolve --min-probability` decides on, and what review orders by how much an answer would teach."""
    decisions = list(decisions)
    ctx = pair_context(graph)
    everything = [*candidates, *context_candidates(graph, candidates)]
    model = update_model(prior, everything, decisions, ctx, strength=strength)
    decided = {frozenset(d.subjects) for d in decisions}
    return [c for c in score_candidates(everything, None, model, context=ctx)
            if c.step != "context" or c.features["probability"] >= context_floor
            or frozenset((c.source, c.target)) in decided]
