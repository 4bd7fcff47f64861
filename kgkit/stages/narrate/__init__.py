"""Narratives, entity descriptions and community labels — LLM-written within the budget, extractive offline.

- `narrate(graph, communities=None, llm=None, cache=None, ...) -> Narrative` (kgkit/stages/narrate/core.py): overview,
  main relationship chains, timeline of dated facts, descriptions of the most connected entities, community
  labels. Every sentence cites the relation ids and documents it was written from.
- `label_communities(items, llm=None)` with `community_inputs(graph, communities, facts)` (labels.py): community
  labels for `Cache.map`, one entry per community's content.
- `Narrative.to_markdown()`, `.entity_frame()`, `.community_frame()`, `.to_json_dict()` (model.py).
- `narrate_workspace(workspace)` (workspace.py): the driver the CLI and the demo use (reads graph.json, writes
  narrative.md and narrative.json).

>>> import pandas as pd
>>> from kgkit.core.graph import Graph, _rel
>>> ents = pd.DataFrame({"id": ["a", "b"], "name": ["Ada", "Acme"], "type": "Thing", "aliases": [[]] * 2,
...     "mentions": 2, "documents": 1, "confidence": 1.0, "identity": "derived", "degree": 1})
>>> rels = pd.DataFrame([{**_rel("r1", None, None), "type": "WORKS_FOR", "evidence": "Ada joined Acme."}])
>>> n = narrate(Graph.empty().replace(entities=ents, relations=rels))
>>> n.entity_frame()[["name", "source"]].values.tolist()
[['Ada', 'extractive'], ['Acme', 'extractive']]
"""

from kgkit.stages.narrate.core import cited_sentences, narrate
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
from kgkit.workflows.narrate import narrate_workspace

__all__ = ["CommunityInput", "CommunityLabel", "CommunityText", "EntityDescription", "Narrative", "Section",
           "Sentence", "SourceRelation", "cited_sentences", "community_inputs", "label_communities", "narrate",
           "narrate_workspace", "offline_label"]
