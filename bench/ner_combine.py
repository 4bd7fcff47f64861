"""The rules' entities and a learned NER's, one fitted decision: every candidate name of a document (found by the
rules, by the learned model or by both) gets features (which side found it, whether both agree on the name or only
overlap, the learned label, the rules' type, spaCy label and vote margin, its words' count and capitals, where it
first stands) and two logistic models fitted on gold (bench/bench_extract.py --write-combiner) decide whether it
is a name and which gold class it is (PER, ORG, LOC, MISC). A bench component: the extractor does not use it.

    model = combiner()                                    # bench/out/combiner.json, else None
    kept = decide(candidates(rules, learned, text), model)  # [(candidate, domain type)]

>>> c = candidates([Found("Paris", ((0, 5),), type="Location")], [Found("Paris", ((0, 5),), label="LOC")], "Paris is")
>>> c[0].rules.type, c[0].learned.label, c[0].features["both"]
('Location', 'LOC', 1.0)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgkit.extractors.offline.lexicon import _FUNCTION_WORDS, DEMONYMS, GENERIC, TITLES

__all__ = ["CLASSES", "COMBINER_FILE", "Candidate", "Combiner", "Found", "candidates", "combiner", "decide",
           "fit_combiner", "type_for"]

COMBINER_FILE = Path(__file__).resolve().parent / "out" / "combiner.json"  # bench output, not shipped
CLASSES = ("PER", "ORG", "LOC", "MISC")
LEARNED_LABELS = ("PER", "ORG", "LOC", "MISC")
RULE_TYPES = ("Person", "Organization", "Location", "Group", "Event", "Law", "Work", "Product", "Other")
SPACY_LABELS = ("PERSON", "ORG", "GPE", "NORP", "LOC", "FAC", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "LANGUAGE")
_COMMON = GENERIC | TITLES | _FUNCTION_WORDS
_CLASS_TYPE = {"PER": "Person", "ORG": "Organization", "LOC": "Location"}


@dataclass(frozen=True)
class Found:
    """One side's entity of a document: its name, character spans, and the rules' type, spaCy label and votes
    ("Location:2.5,Person:1") or the learned model's label."""

    name: str
    spans: tuple[tuple[int, int], ...]
    type: str = ""
    label: str = ""
    votes: str = ""


@dataclass
class Candidate:
    """A name of a document and what each side says of it (None: that side has no entity of this name)."""

    name: str
    spans: tuple[tuple[int, int], ...]
    rules: Found | None
    learned: Found | None
    features: dict[str, float] = field(default_factory=dict)


def _key(name: str) -> str:
    name = re.sub(r"[^\w\s]", "", name.casefold().replace("-", " "))
    name = " ".join(name.split())
    return name[4:] if name.startswith("the ") else name


def _overlapping(spans: Sequence[tuple[int, int]], others: Sequence[Found]) -> Found | None:
    return next((o for o in others if any(s < e2 and s2 < e for s, e in spans for s2, e2 in o.spans)), None)


def _inside(spans: Sequence[tuple[int, int]], other: Found | None, *, strict: bool) -> bool:
    """Every span lies within one of `other`'s (strict: and is shorter)."""
    return bool(spans) and other is not None and all(
        any(s2 <= s and e <= e2 and (not strict or e - s < e2 - s2) for s2, e2 in other.spans) for s, e in spans)


def _margin(votes: str) -> tuple[float, float]:
    weights = sorted((float(w) for _, _, w in (v.rpartition(":") for v in votes.split(",") if ":" in v)), reverse=True)
    top = weights[0] if weights else 0.0
    return top, top - (weights[1] if len(weights) > 1 else 0.0)


def features(c: Candidate, rules: Sequence[Found], learned: Sequence[Found], text: str,
             dropped: Sequence[tuple[int, int, str, str]] = ()) -> dict[str, float]:
    """The candidate's inputs, each 0/1 or a small number (a side's view of an overlapping entity when it has
    none of this name; `dropped`: what the rules' passes dropped, (start, end, pass, reason), a feature per
    pass and reason of a record on one of the candidate's spans)."""
    r = c.rules or _overlapping(c.spans, rules)
    le = c.learned or _overlapping(c.spans, learned)
    words = c.name.split()
    first = min(c.spans)[0] if c.spans else -1
    before = text[max(0, first - 3) : first].strip() if first >= 0 else ""
    top, margin = _margin(r.votes if r else "")
    out = {
        "rules_only": float(c.rules is not None and c.learned is None),
        "learned_only": float(c.learned is not None and c.rules is None),
        "both": float(c.rules is not None and c.learned is not None),
        "other_overlaps": float((c.rules is None and r is not None) or (c.learned is None and le is not None)),
        "vote_top": min(top, 6.0) / 6.0, "vote_margin": min(margin, 6.0) / 6.0,
        "words_1": float(len(words) == 1), "words_2": float(len(words) == 2), "words_3": float(len(words) == 3),
        "words_4": float(len(words) >= 4), "upper": float(c.name.isupper() and len(c.name) > 1),
        "all_title": float(all(w[:1].isupper() for w in words)), "lower_word": float(any(w[:1].islower() for w in words)),
        "digit": float(any(ch.isdigit() for ch in c.name)), "the": float(c.name.lower().startswith("the ")),
        "mentions": min(len(c.spans), 8) / 8.0, "opens_sentence": float(first == 0 or before.endswith((".", "!", "?"))),
        "alias": float(c.rules is not None and c.learned is not None and c.rules.name != c.learned.name),
        "generic": float(all(w.lower() in _COMMON for w in words)),
        "demonym": float(c.name.lower() in DEMONYMS),
        "lower_elsewhere": float(bool(re.search(rf"(?<!\w){re.escape(c.name.lower())}(?!\w)", text))),
        "inside_other": float(_inside(c.spans, r if c.rules is None else le, strict=True)),
        "holds_other": float(_inside((r if c.rules is None else le).spans if (r if c.rules is None else le) else (),
                                     Found(c.name, c.spans), strict=True)),
    }
    spans = set(c.spans)
    for start, end, step, why in dropped:
        if (start, end) in spans:
            out[f"dropped:{step}:{why.split(':', 1)[0]}"] = 1.0
            out["dropped"] = 1.0
    for lab in LEARNED_LABELS:
        out[f"learned:{lab}"] = float(le is not None and le.label == lab)
    for t in RULE_TYPES:
        out[f"rules:{t}"] = float(r is not None and r.type == t)
    for lab in SPACY_LABELS:
        out[f"spacy:{lab}"] = float(r is not None and r.label == lab)
    for lab in LEARNED_LABELS:  # the learned label against the rules' type: what the type model weighs
        for t in RULE_TYPES:
            out[f"{lab}x{t}"] = out[f"learned:{lab}"] * out[f"rules:{t}"]
    return out


def candidates(rules: Sequence[Found], learned: Sequence[Found], text: str,
               dropped: Sequence[tuple[int, int, str, str]] = ()) -> list[Candidate]:
    """One candidate per name of either side (a name both give once; a learned name on the mentions of one rules
    entity is that entity's), in first-found order, with its features (`dropped`: see features)."""
    by_key: dict[str, Candidate] = {}
    at_span: dict[tuple[int, int], Candidate] = {}
    for side, found in (("rules", rules), ("learned", learned)):
        for f in found:
            same = {id(at_span[s]): at_span[s] for s in f.spans if s in at_span}
            if side == "learned" and _key(f.name) not in by_key and len(same) == 1 \
                    and all(s in at_span for s in f.spans):  # the rules' entity's own mentions, another name
                c = next(iter(same.values()))
            else:
                c = by_key.setdefault(_key(f.name), Candidate(f.name, (), None, None))
            if getattr(c, side) is None:
                setattr(c, side, f)
            c.spans = tuple(sorted({*c.spans, *f.spans}))
            if side == "rules":
                at_span.update((s, c) for s in f.spans)
    out = list(by_key.values())
    for c in out:
        c.features = features(c, rules, learned, text, dropped)
    return out


def _matrix(cs: Sequence[Candidate], names: Sequence[str]) -> np.ndarray:
    """One row per candidate, one column per named feature (0 where a candidate lacks it)."""
    return np.array([[c.features.get(f, 0.0) for f in names] for c in cs], dtype=float).reshape(len(cs), -1)


@dataclass(frozen=True)
class Combiner:
    """Logistic weights over named features: `accept` (is it a name), `types` (one row per gold class)."""

    features: tuple[str, ...]
    accept: tuple[float, ...]
    accept_bias: float
    types: tuple[tuple[float, ...], ...]
    type_bias: tuple[float, ...]
    threshold: float = 0.5

    def matrix(self, cs: Sequence[Candidate]) -> np.ndarray:
        return _matrix(cs, self.features)

    def p_name(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(x @ np.asarray(self.accept) + self.accept_bias)))

    def classes(self, x: np.ndarray) -> list[str]:
        scores = x @ np.asarray(self.types).T + np.asarray(self.type_bias)
        return [CLASSES[k] for k in scores.argmax(axis=1)]

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "accept": [round(w, 6) for w in self.accept],
                "accept_bias": round(self.accept_bias, 6), "types": [[round(w, 6) for w in row] for row in self.types],
                "type_bias": [round(b, 6) for b in self.type_bias], "threshold": self.threshold}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Combiner:
        return cls(tuple(data["features"]), tuple(data["accept"]), float(data["accept_bias"]),
                   tuple(tuple(r) for r in data["types"]), tuple(data["type_bias"]), float(data.get("threshold", 0.5)))


def fit_combiner(cs: Sequence[Candidate], is_name: Sequence[bool], gold_class: Sequence[str | None], *,
                 strength: float = 1.0) -> Combiner:
    """Fit both models (scikit-learn's L2 logistic regression, C = 1 / strength): `accept` on every candidate,
    `types` on the candidates that are names (their gold class)."""
    from sklearn.linear_model import LogisticRegression

    names = tuple(sorted({f for c in cs for f in c.features}))
    x = _matrix(cs, names)
    accept = LogisticRegression(C=1.0 / strength, max_iter=2000).fit(x, np.asarray(is_name, dtype=int))
    typed = [i for i, g in enumerate(gold_class) if g in CLASSES]
    y = np.array([CLASSES.index(gold_class[i]) for i in typed])
    kind = LogisticRegression(C=1.0 / strength, max_iter=2000).fit(x[typed], y)
    rows = np.zeros((len(CLASSES), len(names)))
    bias = np.full(len(CLASSES), -1e3)
    if len(kind.classes_) == 2:  # one row of weights: the second class's score against the first's 0
        rows[kind.classes_[1]], bias[kind.classes_[1]], bias[kind.classes_[0]] = kind.coef_[0], kind.intercept_[0], 0.0
    else:
        for k, cls in enumerate(kind.classes_):
            rows[cls], bias[cls] = kind.coef_[k], kind.intercept_[k]
    return Combiner(names, tuple(accept.coef_[0]), float(accept.intercept_[0]), tuple(map(tuple, rows)), tuple(bias))


def type_for(gold_class: str, c: Candidate) -> str:
    """A gold class as a domain type: PER, ORG, LOC their own (a Group the rules voted stays on LOC: a
    nationality); MISC the rules' type when it is none of those three, else Other."""
    rtype = c.rules.type if c.rules else ""
    if gold_class == "LOC" and rtype == "Group":
        return "Group"
    if gold_class in _CLASS_TYPE:
        return _CLASS_TYPE[gold_class]
    return rtype if rtype and rtype not in _CLASS_TYPE.values() else "Other"


def decide(cs: Sequence[Candidate], model: Combiner) -> list[tuple[Candidate, str]]:
    """The candidates the model takes for names, each with its domain type."""
    if not cs:
        return []
    x = model.matrix(cs)
    keep = model.p_name(x) >= model.threshold
    return [(c, type_for(k, c)) for c, k, ok in zip(cs, model.classes(x), keep) if ok]


def combiner(path: Path = COMBINER_FILE) -> Combiner | None:
    """The fitted combiner of the data file, None when it is absent."""
    return Combiner.from_dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None
