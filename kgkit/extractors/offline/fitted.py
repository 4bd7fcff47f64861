"""Fitted weights of the offline extractor's type vote (kgkit.extractors.offline.votes), read from a data file.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.fitted.

    weights = type_weights()                      # the shipped file's, else HAND_WEIGHTS
    with use_type_weights(other):                 # the vote uses `other` inside the block (cross-validation)
        ...
    with traced_cues() as trace:                  # every mention's cues, for fitting
        ...

>>> type_weights()["label"] > 0 and "country" in HAND_WEIGHTS
True
>>> weight_of({"head": 2.0}, "head:ORG")
2.0
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HAND_WEIGHTS", "TYPE_VOTE_FILE", "CueTrace", "cue_sums", "fit_type_weights", "record_cues", "traced_cues",
           "type_vote_accuracy", "type_weights", "type_weights_fingerprint", "use_type_weights", "weight_of"]

TYPE_VOTE_FILE = Path(__file__).resolve().parent / "models" / "type_vote.json"
HAND_WEIGHTS: dict[str, float] = {
    "label": 1.0, "head": 2.0, "classifier": 2.5, "title": 2.0, "locative": 1.2, "country": 3.0, "place": 1.5,
    "short_place": 0.8, "org_place": 1.1, "quote": 1.5, "acronym": 1.2, "name": 0.1, "context": 1.5,
    "demonym": 2.0, "weak_title": 1.2, "with_people": 1.2, "team": 2.0, "numbered": 1.5, "call_sign": 2.5,
    "given_name": 1.5, "alias": 1.5,
}
"""The hand-set weights of rules 10 (each cue's), the prior the fit starts from and is drawn towards."""
MIN_WEIGHT = 0.01  # every cue only ever votes for its type
_ACTIVE: list[Mapping[str, float]] = []
_TRACES: list[list[CueTrace]] = []


@dataclass(frozen=True)
class CueTrace:
    """One mention's cues: the text it was parsed from, its name, and (cue key, domain type) per cue."""

    text: str
    name: str
    cues: tuple[tuple[str, str], ...]


def weight_of(weights: Mapping[str, float], key: str) -> float:
    """The weight of a cue key, else of its cue ("label:PERSON" -> "label")."""
    got = weights.get(key)
    return got if got is not None else weights[key.split(":", 1)[0]]


def _load(path: Path) -> dict[str, float]:
    if not path.is_file():
        return dict(HAND_WEIGHTS)
    data = json.loads(path.read_text(encoding="utf-8"))
    return {**HAND_WEIGHTS, **{k: float(v) for k, v in data["weights"].items()}}


_SHIPPED = _load(TYPE_VOTE_FILE)


def type_weights() -> Mapping[str, float]:
    """The weights the vote uses now: those of a `use_type_weights` block, else the shipped file's."""
    return _ACTIVE[-1] if _ACTIVE else _SHIPPED


def type_weights_fingerprint() -> str:
    """A hash of the shipped weights file (empty when there is none): part of what the extractor's output depends
    on, for its id.

    >>> len(type_weights_fingerprint()) in (0, 16)
    True
    """
    return hashlib.sha256(TYPE_VOTE_FILE.read_bytes()).hexdigest()[:16] if TYPE_VOTE_FILE.is_file() else ""


@contextlib.contextmanager
def use_type_weights(weights: Mapping[str, float]) -> Iterator[None]:
    """The vote uses `weights` (completed by HAND_WEIGHTS) inside the block."""
    _ACTIVE.append({**HAND_WEIGHTS, **weights})
    try:
        yield
    finally:
        _ACTIVE.pop()


@contextlib.contextmanager
def traced_cues() -> Iterator[list[CueTrace]]:
    """Every mention's cues voted inside the block, in order."""
    trace: list[CueTrace] = []
    _TRACES.append(trace)
    try:
        yield trace
    finally:
        _TRACES.remove(trace)


def record_cues(text: str, name: str, cues: Sequence[tuple[str, str]]) -> None:
    """Called by the vote: keep the cues in every open `traced_cues` block (nothing when none is open)."""
    for trace in _TRACES:
        trace.append(CueTrace(text, name, tuple(cues)))


def cue_sums(cues: Sequence[tuple[str, str]], weights: Mapping[str, float]) -> dict[str, float]:
    """Each type's vote: the sum of the weights of the cues that name it.

    >>> cue_sums([("label:ORG", "Organization"), ("country", "Location"), ("head", "Organization")], HAND_WEIGHTS)
    {'Organization': 3.0, 'Location': 3.0}
    """
    out: dict[str, float] = {}
    for key, etype in cues:
        out[etype] = out.get(etype, 0.0) + weight_of(weights, key)
    return out


def type_vote_accuracy(examples: Sequence[tuple[Sequence[tuple[str, str]], frozenset[str]]],
                       weights: Mapping[str, float]) -> float:
    """Share of examples (cues, the gold's compatible domain types) whose winning type is compatible.

    >>> type_vote_accuracy([((("label:ORG", "Organization"), ("country", "Location")), frozenset({"Location"}))],
    ...                    HAND_WEIGHTS)
    1.0
    """
    hits = 0
    for cues, gold in examples:
        sums = cue_sums(cues, weights)
        hits += bool(sums) and min(sums, key=lambda t: (-sums[t], t)) in gold
    return hits / len(examples) if examples else 0.0


def fit_type_weights(examples: Sequence[tuple[Sequence[tuple[str, str]], frozenset[str]]], *,
                     prior: Mapping[str, float] = HAND_WEIGHTS, strength: float = 1.0,
                     min_count: int = 20) -> dict[str, float]:
    """Maximum a posteriori weights of the conditional logit over each example's voted types: log loss of the
    gold's compatible types + strength/2 * |w - prior|^2, each weight at least MIN_WEIGHT. Keys seen fewer than
    `min_count` times keep their cue's weight. The weights are scaled so that spaCy's label weighs 1 on
    average (the hand-set votes added after this one keep their meaning); an example none of whose voted types
    is compatible says nothing and is left out.

    >>> ex = [((("label:PERSON", "Person"), ("country", "Location")), frozenset({"Person"}))] * 30
    >>> w = fit_type_weights(ex, min_count=1)
    >>> w["label:PERSON"] > w["country"]
    True
    """
    import numpy as np
    from scipy.optimize import minimize

    counts: dict[str, int] = {}
    for cues, _ in examples:
        for key, _ in cues:
            counts[key] = counts.get(key, 0) + 1
    keys = sorted({k.split(":", 1)[0] for k in counts} | {k for k, n in counts.items() if n >= min_count})
    index = {k: i for i, k in enumerate(keys)}
    rows = []  # per example: (matrix types x keys of cue counts, mask of compatible types)
    for cues, gold in examples:
        types = sorted({t for _, t in cues})
        if not types or not gold & set(types) or len(types) < 2:
            continue
        m = np.zeros((len(types), len(keys)))
        for key, etype in cues:
            m[types.index(etype), index[key if key in index else key.split(":", 1)[0]]] += 1.0
        rows.append((m, np.array([t in gold for t in types])))
    w0 = np.array([weight_of(prior, k) for k in keys])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.5 * strength * float(np.sum((w - w0) ** 2)), strength * (w - w0)
        for m, ok in rows:
            z = m @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            q = p * ok / (p * ok).sum()  # the compatible types' posterior share
            total -= math.log(max(float((p * ok).sum()), 1e-300))
            grad += m.T @ (p - q)
        return total, grad

    res = minimize(loss, w0, jac=True, method="L-BFGS-B", bounds=[(MIN_WEIGHT, None)] * len(keys))
    labels = [float(res.x[i]) for k, i in index.items() if k.startswith("label:") and counts.get(k, 0) >= min_count]
    scale = len(labels) / sum(labels) if labels else 1.0
    unseen = {k: round(w * scale, 4) for k, w in prior.items() if k not in index}
    return {**unseen, **{k: round(float(res.x[i]) * scale, 4) for k, i in index.items()}}
