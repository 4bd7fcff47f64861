"""Prompt: propose a domain (entity types, relation types with signatures) from sampled chunks of a corpus.

>>> inp = DiscoveryInput(samples=["Ada Lovelace wrote notes on the Analytical Engine."], max_entity_types=6)
>>> "at most 6 entity types" in render_messages(inp)[-1]["content"]
True
>>> DiscoveryResponse.model_validate({"entity_types": [{"name": "Machine", "description": "A device"}]}).entity_types[0].name
'Machine'
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from kgkit.core.records import short_hash

PROMPT_VERSION = "1"
FALLBACK_TYPES = ("Person", "Organization", "Location", "Other")
MAX_SAMPLE_CHARS = 1500

SYSTEM = """You design the schema of a knowledge graph for a corpus of documents.
From the sample passages, propose the entity types and relation types that capture what the corpus is about.
Types are general enough to recur across documents (not one per entity). Entity type names are singular \
PascalCase nouns; relation type names are UPPER_SNAKE_CASE verbs. Every relation type lists its allowed \
(source type, target type) signatures using only your entity types or the always-present types {fallbacks}."""

USER = """Propose at most {max_entity_types} entity types in total, counting the always-present types \
{fallbacks} (do not describe those), and at most {max_relation_types} relation types.

Sample passages:
{samples}"""


class DiscoveryInput(BaseModel):
    samples: list[str]
    max_entity_types: int = 10
    max_relation_types: int = 12


class ProposedEntityType(BaseModel):
    name: str = Field(min_length=1)
    description: str = ""


class ProposedRelationType(BaseModel):
    name: str = Field(min_length=1)
    description: str = ""
    signatures: list[tuple[str, str]] = Field(default_factory=list, description="(source type, target type) pairs")
    symmetric: bool = False


class DiscoveryResponse(BaseModel):
    """The proposed schema; the caller caps it and adds the fallback types."""

    description: str = ""
    entity_types: list[ProposedEntityType] = Field(default_factory=list)
    relation_types: list[ProposedRelationType] = Field(default_factory=list)


def render_messages(inp: DiscoveryInput) -> list[dict[str, str]]:
    fallbacks = ", ".join(FALLBACK_TYPES)
    samples = "\n\n".join(f"[{i + 1}]\n{s[:MAX_SAMPLE_CHARS]}" for i, s in enumerate(inp.samples))
    return [{"role": "system", "content": SYSTEM.format(fallbacks=fallbacks)},
            {"role": "user", "content": USER.format(max_entity_types=inp.max_entity_types, fallbacks=fallbacks,
                                                    max_relation_types=inp.max_relation_types, samples=samples)}]


PROMPT_HASH = short_hash(PROMPT_VERSION, SYSTEM, USER, json.dumps(DiscoveryResponse.model_json_schema(), sort_keys=True))
