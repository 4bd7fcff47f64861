"""The LLM extractor and its prompts: `prompt` (entities + relations of one chunk, with its response model),
`context` (a short shared summary of a document), `quotes` (evidence quotes checked against the chunk)."""

from kgkit.extractors.llm.extractor import LLMExtractor

__all__ = ["LLMExtractor"]
