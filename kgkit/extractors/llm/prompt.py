"""Prompt: entities and relations of one chunk, in one call, constrained to a domain.

`render_messages(ExtractionInput)` gives the chat messages; `ExtractionResponse` is what the model must return.
Validated against `validation_context(input)` (instructor passes it to pydantic and re-asks with the error):
entity types and relation types must be the domain's, a relation's endpoints must be listed entities, and every
relation's `evidence` must be a quote that occurs in the chunk (whitespace, case and typographic quotes
forgiven). Signatures are *not* enforced here: a relation outside its type's (source, target) signatures is
kept and flagged by the extractor, never rewritten.

>>> from kgkit.core.domain import parse_domain
>>> dom = parse_domain("name: d\\nentity_types: {Person: a human, Organization: a body, Other: else}\\n"
...                    "relation_types: {WORKS_FOR: {description: job, signatures: [[Person, Organization]]}}")
>>> inp = ExtractionInput(text="Ada works for Acme.", domain=dom)
>>> [m["role"] for m in render_messages(inp)]
['system', 'user']
>>> ok = {"entities": [{"name": "Ada", "type": "Person"}, {"name": "Acme", "type": "Organization"}],
...       "relations": [{"source": "Ada", "target": "Acme", "type": "WORKS_FOR", "evidence": "Ada works for Acme"}]}
>>> len(ExtractionResponse.model_validate(ok, context=validation_context(inp)).relations)
1
>>> bad = {**ok, "relations": [{**ok["relations"][0], "evidence": "Ada founded Acme"}]}
>>> ExtractionResponse.model_validate(bad, context=validation_context(inp))
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for ExtractionResponse
...
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from kgkit.core.domain import Domain
from kgkit.core.records import short_hash
from kgkit.extractors.llm.context import MAX_WORDS as SUMMARY_MAX_WORDS
from kgkit.extractors.llm.context import short_summary
from kgkit.extractors.llm.quotes import find_quote
from kgkit.llm.validation import validation_context as current_context

PROMPT_VERSION = "3"
SUMMARY_REQUEST = f"""
This chunk opens a longer document. Also write `summary`: at most {SUMMARY_MAX_WORDS} words on what the document is \
about (its subject, main people, organisations and places, and its time), from this text only; it is given to \
the readers of the document's later chunks.
"""

SYSTEM = """You extract a knowledge graph from one chunk of a document.
Return the named entities the chunk mentions and the relations the chunk states between them.
Rules:
- Use only the entity types and relation types listed; when no specific type fits, use {fallback_entity} for an \
entity and {fallback_relation} for a relation.
- Name entities as the text names them (full name at first mention); do not invent entities. A later short \
form ("Roosevelt", "the Act") is the same entity: use the full name.
- Only named things are entities: not headings, page numbers, licence or publisher boilerplate, generic \
capitalised words ("the Government", "the Nation", "Federal"), nor a title or role alone ("the President", \
"Secretary of State"). A person's name goes without the title ("Prime Minister Churchill" -> "Churchill").
- Give one name one type. A place stays a place even when it acts ("Japan attacked", "Washington agreed" \
when Washington is the city); a book, film or song is a work, not a person.
- Every relation links two entities from your entity list (by their exact name) and carries `evidence`: a short \
quote copied verbatim from the chunk that states the relation.
- Mark `negated` when the text says the relation does not hold; leave out a relation the text only hopes for, \
plans, proposes or states as a condition ("if Japan attacks ..."); give `valid_at` (ISO date) only when the \
text says when it held.
- Example: "At Potsdam, Marshal Stalin and Prime Minister Attlee met." -> entities Potsdam (a place), Stalin \
and Attlee (persons); relations Stalin -> Attlee (a meeting), Stalin -> Potsdam and Attlee -> Potsdam (being \
there), each with that sentence as evidence, in the types listed below.
- Return empty lists when the chunk states nothing of interest."""

USER = """Entity types:
{entity_types}

Relation types (allowed source -> target types):
{relation_types}
{context}
Chunk:
\"\"\"
{text}
\"\"\""""


class ExtractionInput(BaseModel):
    """What the extraction prompt is rendered from."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    text: str
    domain: Domain
    context: str | None = None  # a short summary of the document, shared by its chunks
    summarise: bool = False  # the document's first chunk: also return the summary its later chunks get


class EntityOut(BaseModel):
    name: str = Field(min_length=1, description="The entity's name as written in the chunk")
    type: str = Field(description="One of the listed entity types")


class RelationOut(BaseModel):
    source: str = Field(description="Name of the source entity (from the entity list)")
    target: str = Field(description="Name of the target entity (from the entity list)")
    type: str = Field(description="One of the listed relation types")
    evidence: str = Field(min_length=1, description="A verbatim quote from the chunk stating the relation")
    negated: bool = False
    valid_at: str | None = Field(default=None, description="ISO date when the text says when it held")


class ExtractionResponse(BaseModel):
    """Entities and relations found in the chunk."""

    entities: list[EntityOut] = Field(default_factory=list)
    relations: list[RelationOut] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_against_chunk(self, info: ValidationInfo) -> ExtractionResponse:
        ctx = current_context(info)
        if not ctx:
            return self  # structure only (no chunk to check against)
        problems = _problems(self, text=ctx["text"], entity_types=ctx["entity_types"],
                             relation_types=ctx["relation_types"])
        if problems:
            raise ValueError("; ".join(problems[:12]))
        return self


class ExtractionWithSummary(ExtractionResponse):
    """Entities and relations of a document's first chunk, and a short summary of the document for its other chunks."""

    summary: str = Field(min_length=1, description=f"At most {SUMMARY_MAX_WORDS} words on what the document is about")

    _short = field_validator("summary")(lambda cls, value: short_summary(value))


def response_model(inp: ExtractionInput) -> type[ExtractionResponse]:
    """What the model must return for this input: with a `summary` for a document's first chunk."""
    return ExtractionWithSummary if inp.summarise else ExtractionResponse


def _problems(resp: ExtractionResponse, *, text: str, entity_types: list[str], relation_types: list[str]) -> list[str]:
    out: list[str] = []
    names = {e.name for e in resp.entities}
    for i, e in enumerate(resp.entities):
        if e.type not in entity_types:
            out.append(f"entities[{i}] {e.name!r}: type {e.type!r} is not one of {entity_types}")
    for i, r in enumerate(resp.relations):
        where = f"relations[{i}] {r.source!r} -{r.type}-> {r.target!r}"
        if r.type not in relation_types:
            out.append(f"{where}: type {r.type!r} is not one of {relation_types}")
        for end in (r.source, r.target):
            if end not in names:
                out.append(f"{where}: {end!r} is not in the entity list; add it or use a listed name")
        if find_quote(r.evidence, text) is None:
            out.append(f"{where}: evidence {r.evidence[:80]!r} is not a verbatim quote from the chunk")
    return out


def validation_context(inp: ExtractionInput) -> dict[str, Any]:
    """What the response is checked against: the chunk text and the domain's type names."""
    rtypes = sorted(set(inp.domain.relation_types) | {inp.domain.fallback_relation_type})
    return {"text": inp.text, "entity_types": sorted(inp.domain.entity_types), "relation_types": rtypes}


def _entity_lines(domain: Domain) -> str:
    return "\n".join(f"- {name}: {t.description}" for name, t in sorted(domain.entity_types.items()))


def _relation_lines(domain: Domain) -> str:
    lines = []
    for name, r in sorted(domain.relation_types.items()):
        sigs = ", ".join(f"{s} -> {t}" for s, t in r.signatures) or "any -> any"
        lines.append(f"- {name} ({sigs}): {r.description}")
    if domain.fallback_relation_type not in domain.relation_types:
        lines.append(f"- {domain.fallback_relation_type} (any -> any): a relation no other type describes")
    return "\n".join(lines)


def render_messages(inp: ExtractionInput) -> list[dict[str, str]]:
    """System + user messages for one chunk (deterministic: same input -> same messages)."""
    d = inp.domain
    context = f"\nDocument context (for reference only; extract from the chunk):\n{inp.context}\n" if inp.context else ""
    if inp.summarise:
        context += SUMMARY_REQUEST
    return [
        {"role": "system", "content": SYSTEM.format(fallback_entity=d.fallback_entity_type,
                                                    fallback_relation=d.fallback_relation_type)},
        {"role": "user", "content": USER.format(entity_types=_entity_lines(d), relation_types=_relation_lines(d),
                                                context=context, text=inp.text)},
    ]


PROMPT_HASH = short_hash(PROMPT_VERSION, SYSTEM, USER, SUMMARY_REQUEST,
                         json.dumps(ExtractionResponse.model_json_schema(), sort_keys=True),
                         json.dumps(ExtractionWithSummary.model_json_schema(), sort_keys=True))
