"""Narratives, entity descriptions and community labels — LLM-written within the budget, extractive offline.

- `narrate(graph, communities=None, llm=None, cache=None, ...) -> Narrative` (kgkit/stages/narrate/core.py): overview,
  main relationship chains, timeline of dated facts, descriptions of the most connected entities, community
  labels. Every sentence cites the relation ids and documents it was written from.
- `label_communities(items, llm=None)` with `community_inputs(graph, communities, facts)` (labels.py): community
  labels for `Cache.map`, one entry per community's content.
- `Narrative.to_markdown()`, `.entity_frame()`, `.community_frame()`, `.to_json_dict()` (model.py).
- The workflow that reads a workspace's graph and writes narrative.md / narrative.json is
  `kgkit.workflows.narrate.narrate`.

>>> from kgkit.testing.builders import ada_works_for_acme
>>> n = narrate(ada_works_for_acme())
>>> n.entity_frame()[["name", "source"]].values.tolist()
[['Ada', 'extractive'], ['Acme', 'extractive']]
"""

from kgkit.stages.narrate.core import narrate
from kgkit.stages.narrate.labels import CommunityInput, community_inputs, label_communities, offline_label
from kgkit.stages.narrate.model import (
    CommunityLabel,
    CommunityText,
    EntityDescription,
    Narrative,
    Section,
    Sentence,
    SourceRelation,
)
from kgkit.stages.narrate.prompt import cited_sentences

__all__ = ["CommunityInput", "CommunityLabel", "CommunityText", "EntityDescription", "Narrative", "Section",
           "Sentence", "SourceRelation", "cited_sentences", "community_inputs", "label_communities", "narrate",
           "offline_label"]
