"""Prompts, one module per task, each with its typed input, `render_messages(...)` and its pydantic response model.

- `extraction`: entities + relations of one chunk, constrained to a domain, every relation with an evidence quote
- `context`: a short summary of a document's first chunk, shared by the document's chunks
- `discovery`: a domain (entity types, relation types with signatures) proposed from sampled chunks

A prompt's `PROMPT_HASH` covers its version, its templates and its response schema; it is part of the LLM
extractor's id and of every request key, so editing a prompt re-asks exactly the requests it renders.
"""
