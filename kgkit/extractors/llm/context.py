"""Prompt: a short summary of a document's first chunk, given to every chunk of the document as context.

>>> msgs = render_messages(ContextInput(text="The Apollo 11 mission landed on the Moon in July 1969."))
>>> msgs[-1]["content"].startswith("Summarise")
True
>>> ContextResponse(summary="A report on Apollo 11.").summary
'A report on Apollo 11.'
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field, field_validator

from kgkit.core.records import short_hash

PROMPT_VERSION = "1"
MAX_WORDS = 60

SYSTEM = "You write short, factual summaries that help someone read later parts of the same document."
USER = """Summarise in at most {max_words} words what this document is about: its subject, the main people, \
organisations and places, and its time. Use only what the text says.

Beginning of the document:
\"\"\"
{text}
\"\"\""""


class ContextInput(BaseModel):
    text: str  # the document's first chunk


class ContextResponse(BaseModel):
    """A summary of at most MAX_WORDS words."""

    summary: str = Field(min_length=1, description=f"At most {MAX_WORDS} words")

    _short = field_validator("summary")(lambda cls, value: short_summary(value))


def short_summary(value: str) -> str:
    """A summary's validator: at most MAX_WORDS words (the error tells the model how many it wrote)."""
    if len(value.split()) > MAX_WORDS:
        raise ValueError(f"the summary has {len(value.split())} words; write at most {MAX_WORDS}")
    return value.strip()


def render_messages(inp: ContextInput) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER.format(max_words=MAX_WORDS, text=inp.text)}]


PROMPT_HASH = short_hash(PROMPT_VERSION, SYSTEM, USER, json.dumps(ContextResponse.model_json_schema(), sort_keys=True))
