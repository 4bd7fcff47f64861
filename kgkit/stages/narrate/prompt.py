"""Prompts: narrative sections, entity descriptions and community labels, every sentence citing relation ids.

The model is given numbered facts, each with its relation id (``rel:...``), a plain-language statement, the
evidence quote and the documents it comes from. It must answer with sentences, each citing the ids of the
facts it was written from. A citation of an id that was not given (an invented or mistyped id) or a sentence
with no citation fails validation against the request's context (``{"relations": allowed ids}``), and
instructor re-asks with the error; still invalid after the re-asks, the caller falls back to extractive text.

>>> fact = Fact(id="rel:1", statement="Ada works for Acme", evidence="Ada works for Acme.", documents=["a.txt"])
>>> msgs = render_messages(SectionInput(task="overview", facts=[fact], context=["1 document"]))
>>> [m["role"] for m in msgs], "rel:1" in msgs[-1]["content"]
(['system', 'user'], True)
>>> ok = {"sentences": [{"text": "Ada works for Acme.", "relations": ["rel:1"]}]}
>>> SectionResponse.model_validate(ok, context={"relations": ["rel:1"]}).sentences[0].relations
['rel:1']
>>> SectionResponse.model_validate({"sentences": [{"text": "Made up.", "relations": ["rel:9"]}]},
...                                context={"relations": ["rel:1"]})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for SectionResponse
...
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from kgkit.core.records import Record, short_hash
from kgkit.llm.validation import validation_context
from kgkit.stages.narrate.model import Sentence

PROMPT_VERSION = "1"
MAX_EVIDENCE_CHARS = 300
Task = Literal["overview", "chains", "timeline", "entity", "community"]

SYSTEM = """You write short, factual prose about a knowledge graph extracted from a corpus of documents.
Use only the facts you are given; never add knowledge of your own. Every sentence you write must cite, in its \
`relations` list, the ids (like rel:0123abcd) of the facts it is written from, copied exactly. Cite only ids \
from the facts list. Write plain sentences without ids or brackets in the text."""

TASKS: dict[str, str] = {
    "overview": "Write an overview of the corpus in at most {max_sentences} sentences: what it is about, the main "
                "actors and what connects them.",
    "chains": "Each numbered chain below is a path of related facts. Write one sentence per chain (at most "
              "{max_sentences}) telling how its entities are connected.",
    "timeline": "Write a timeline of at most {max_sentences} sentences from the dated facts, in date order; give "
                "each sentence the `date` of its facts (as written in the fact).",
    "entity": "Describe the entity {subject} in at most {max_sentences} sentences: what it is and how it relates "
              "to others.",
    "community": "These entities form one community of the graph. Give it a `label` of at most 6 words naming "
                 "what holds it together, and describe it in at most {max_sentences} sentences.",
}

USER = """{task}

{context}
Facts:
{facts}"""


class Fact(Record):
    """One relation as the model sees it."""

    id: str
    statement: str  # "Ada works for Acme"
    evidence: str | None = None
    documents: list[str] = Field(default_factory=list)
    date: str | None = None


class SectionInput(Record):
    """What one narrative request is rendered from."""

    task: Task
    facts: list[Fact]
    context: list[str] = Field(default_factory=list)  # lines about the graph (counts, chains, members, terms)
    subject: str = ""
    max_sentences: int = 5

    @property
    def allowed(self) -> list[str]:
        return [f.id for f in self.facts]


class CitedSentence(BaseModel):
    """One sentence and the relation ids it was written from (at least one, all of them given)."""

    text: str = Field(min_length=1)
    relations: list[str] = Field(description="ids of the facts this sentence is written from (rel:...)")
    date: str | None = Field(default=None, description="timeline only: the date of the facts")

    @field_validator("relations")
    @classmethod
    def _given_ids_only(cls, value: list[str], info: ValidationInfo) -> list[str]:
        cleaned = list(dict.fromkeys(v.strip().strip("[]()") for v in value if v.strip()))
        if not cleaned:
            raise ValueError("every sentence must cite at least one fact id in `relations`")
        allowed = validation_context(info).get("relations")
        if allowed is not None:
            unknown = [v for v in cleaned if v not in set(allowed)]
            if unknown:
                raise ValueError(f"{unknown} are not ids of the facts given; cite only ids from the facts list")
        return cleaned


class SectionResponse(BaseModel):
    """A section's sentences."""

    sentences: list[CitedSentence] = Field(min_length=1, max_length=20)


class LabelResponse(BaseModel):
    """A community's label and description."""

    label: str = Field(min_length=1, max_length=80)
    sentences: list[CitedSentence] = Field(min_length=1, max_length=10)

    @field_validator("label")
    @classmethod
    def _short(cls, value: str) -> str:
        if len(value.split()) > 8:
            raise ValueError("the label must have at most 8 words")
        return value.strip()


def cited_sentences(answer: Sequence[CitedSentence], documents: Mapping[str, Sequence[str]],
                    dates: Mapping[str, str] | None = None) -> list[Sentence]:
    """Sentences from an LLM answer, keeping only citations of the given facts (`documents`: id -> paths);
    a sentence left with no citation is dropped. A sentence without a date gets its facts' earliest one
    (`dates`: id -> date, timeline facts).

    >>> told = [CitedSentence(text="Ada  works for Acme.", relations=["rel:1", "rel:9"]),
    ...         CitedSentence(text="Made up.", relations=["rel:9"])]
    >>> [(s.text, s.relations, s.documents) for s in cited_sentences(told, {"rel:1": ["a.txt"]})]
    [('Ada works for Acme.', ('rel:1',), ('a.txt',))]
    """
    out = []
    for s in answer:
        rels = tuple(r for r in dict.fromkeys(s.relations) if r in documents)
        if rels and s.text.strip():
            docs = tuple(sorted({d for r in rels for d in documents[r]}))
            known = sorted(dates[r] for r in rels if dates and r in dates)
            date = s.date or (known[0] if known else None)
            out.append(Sentence(text=" ".join(s.text.split()), relations=rels, documents=docs, date=date))
    return out


def _fact_line(i: int, fact: Fact) -> str:
    parts = [f"[{i}] {fact.id}: {fact.statement}"]
    if fact.date:
        parts.append(f"date: {fact.date}")
    if fact.evidence:
        parts.append(f'evidence: "{fact.evidence[:MAX_EVIDENCE_CHARS]}"')
    if fact.documents:
        parts.append("documents: " + ", ".join(fact.documents[:3]))
    return "; ".join(parts)


def render_messages(inp: SectionInput) -> list[dict[str, str]]:
    task = TASKS[inp.task].format(max_sentences=inp.max_sentences, subject=inp.subject)
    context = "".join(line + "\n" for line in inp.context)
    facts = "\n".join(_fact_line(i + 1, f) for i, f in enumerate(inp.facts))
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER.format(task=task, context=context, facts=facts)}]


PROMPT_HASH = short_hash(PROMPT_VERSION, SYSTEM, USER, json.dumps(TASKS, sort_keys=True),
                         json.dumps(SectionResponse.model_json_schema(), sort_keys=True),
                         json.dumps(LabelResponse.model_json_schema(), sort_keys=True))
