"""Prompts, one module per task, each with its typed input, `render_messages(...)` and its pydantic response model.

- `extraction`: entities + relations of one chunk, constrained to a domain, every relation with an evidence quote
- `context`: a short summary of a document's first chunk, shared by the document's chunks
- `discovery`: a domain (entity types, relation types with signatures) proposed from sampled chunks

A prompt's `PROMPT_HASH` covers its version, its templates and its response schema; it is part of the LLM
extractor's id and of every request key, so editing a prompt re-asks exactly the requests it renders.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from pydantic import ValidationInfo

VALIDATION_CONTEXT: ContextVar[dict[str, Any] | None] = ContextVar("kgkit_validation_context", default=None)
"""What a response is validated against (the chunk, the domain's types), set by `kgkit.llm.LLMClient.ask` for the
duration of one request. Not passed as instructor's `context=`: instructor would render every message as a Jinja
template with it, and a document containing `{{` would be altered or fail."""


def validation_context(info: ValidationInfo) -> dict[str, Any]:
    """The context a validator checks against: pydantic's (model_validate(context=...)) or the current request's."""
    return info.context or VALIDATION_CONTEXT.get() or {}
