"""The confidence of each relation rule, measured, read from data/rule_confidence.json.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.confidence.

>>> fit_rule_confidence({"svo": (92, 145), "appos": (0, 0)})
{'appos': 0.5, 'svo': 0.631}
>>> 0 < rule_confidence()["co-occurrence"] < 1
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

__all__ = ["CODE_RULES", "RULE_CONFIDENCE_FILE", "UNMEASURED", "fit_rule_confidence", "rule_confidence", "rule_confidence_record"]

RULE_CONFIDENCE_FILE = "rule_confidence.json"  # in kgkit/extractors/offline/data
UNMEASURED = 0.5
CODE_RULES = ("nationality", "kind-of", "chain", "chain-transitive", "gazetteer", "gazetteer-far", "piece-country",
              "transitive", "co-occurrence")
"""The rules written in Python (kgkit.extractors.offline.rules, extractor); the others are the patterns' rules."""


def fit_rule_confidence(counts: Mapping[str, tuple[int, int]], *, prior: float = UNMEASURED,
                        weight: int = 4) -> dict[str, float]:
    """Per rule (hits, n) -> (hits + prior * weight) / (n + weight), rounded to 3 digits, rules sorted."""
    return {rule: round((hits + prior * weight) / (n + weight), 3) for rule, (hits, n) in sorted(counts.items())}


def rule_confidence_record(counts: Mapping[str, tuple[int, int]], *, fitted_on: str) -> dict[str, Any]:
    """What the data file holds: what it was measured on, the counts and the confidences."""
    return {"fitted_on": fitted_on,
            "meaning": "share of the rule's relations (distinct source, target, type per document) whose ends are a "
                       "gold pair, smoothed as (hits + 2) / (n + 4)",
            "counts": {rule: list(c) for rule, c in sorted(counts.items())},
            "confidence": fit_rule_confidence(counts)}


def rule_confidence() -> dict[str, float]:
    """Rule -> confidence: the data file's, UNMEASURED for a rule it lacks (all of them before the file exists)."""
    path = resources.files("kgkit.extractors.offline").joinpath("data", RULE_CONFIDENCE_FILE)
    text = path.read_text(encoding="utf-8") if path.is_file() else '{"confidence": {}}'
    from kgkit.extractors.offline.patterns import relation_patterns

    measured = json.loads(text)["confidence"]
    rules = (*CODE_RULES, *(p.rule for p in relation_patterns()))
    return {**dict.fromkeys(rules, UNMEASURED), **{k: float(v) for k, v in measured.items()}}
