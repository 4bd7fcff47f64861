"""Typed records that flow between kgkit stages, and their stable forms: sha256, canonical JSON, short hashes
and the relation ids made of them, YAML text read safely.

Every record is a frozen pydantic model with a stable JSON form, so it can be hashed (cache keys),
stored (cache values), diffed and shown as a DataFrame.

>>> doc = Document.from_text("Ada Lovelace met Charles Babbage.", path="notes/a.txt")
>>> doc.id.startswith("doc:")
True
>>> Document.from_text("Other text.", path="notes/a.txt").id == doc.id
False
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from hashlib import sha256
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field


def sha256_hex(data: bytes | str) -> str:
    """Hex sha256 of bytes or of a string's UTF-8 encoding.

    >>> sha256_hex("abc")[:12]
    'ba7816bf8f01'
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> str:
    """Canonical JSON: sorted keys, UTF-8 text, stable separators, no NaN (same value -> same text).

    >>> canonical_json({"b": 1, "a": "é"})
    '{"a":"é","b":1}'
    """
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def short_hash(*parts: str, length: int = 16) -> str:
    """A short, stable hash of several strings (separated so ("ab","c") != ("a","bc")).

    >>> short_hash("a", "b") == short_hash("a", "b") != short_hash("ab")
    True
    """
    return sha256_hex("\x1f".join(parts))[:length]


def relation_ids(sources: Iterable[str], types: Iterable[str], targets: Iterable[str],
                 negated: Iterable[bool]) -> list[str]:
    """Stable relation ids from endpoints, type and polarity, many at once (no function call per relation):
    `rel:` + 16 hex of sha256 of source, type, target and pos|neg joined by U+001F (as `short_hash`)."""
    return ["rel:" + sha256(f"{s}\x1f{t}\x1f{d}\x1f{'neg' if n else 'pos'}".encode()).hexdigest()[:16]
            for s, t, d, n in zip(sources, types, targets, negated)]


def relation_id(source: str, relation_type: str, target: str, negated: bool = False) -> str:
    """Stable relation id from endpoints, type and polarity (one of `relation_ids`)."""
    return relation_ids((source,), (relation_type,), (target,), (negated,))[0]


def safe_load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, parsed by libyaml (PyYAML's CSafeLoader: the general domain in about 0.006 CPU s,
    not 0.06) when PyYAML has it, else by PyYAML's own SafeLoader: the same values. Text with a tab (libyaml
    accepts one after "key:" where PyYAML refuses it) and text libyaml rejects go to SafeLoader, so what PyYAML
    refuses is refused and its error (yaml.YAMLError) reads as PyYAML's own.

    >>> safe_load_yaml("a: [1, two, {b: null}]\\nc: 2026-01-01")
    {'a': [1, 'two', {'b': None}], 'c': datetime.date(2026, 1, 1)}
    """
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None and "\t" not in text:
        try:
            return yaml.load(text, Loader=fast)  # a safe loader: SafeLoader's constructor on libyaml
        except yaml.YAMLError:
            pass
    return yaml.load(text, Loader=yaml.SafeLoader)


class Record(BaseModel):
    """Base for all kgkit records: frozen, no unknown fields, stable JSON."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- ingest


class RawFile(Record):
    """Bytes of one input file, as read by kgkit.io (the stage `load` turns it into a Document)."""

    path: str  # relative path inside the corpus, with forward slashes
    data: bytes
    size: int  # the file's size on disk (data may be empty when the file was too large to read)
    read_error: str | None = None  # set by io when the file could not be read at all


class Document(Record):
    """One loaded document. `id` = content hash + relative path, so a changed file is new input and
    two files with the same stem (a/x.txt, b/x.txt) never collide."""

    id: str
    path: str
    sha256: str  # of the raw bytes
    media_type: str
    text: str
    metadata: dict[str, str] = Field(default_factory=dict)

    @staticmethod
    def make_id(sha256: str, path: str) -> str:
        """`doc:` + 16 hex of hash(content hash, path)."""
        return "doc:" + short_hash(sha256, path)

    @classmethod
    def from_text(cls, text: str, *, path: str, media_type: str = "text/plain") -> Document:
        """Build a Document straight from text (tests, notebooks)."""
        digest = sha256_hex(text)
        return cls(id=cls.make_id(digest, path), path=path, sha256=digest, media_type=media_type, text=text)


class DocumentError(Record):
    """A file that could not be turned into a Document, and why. The rest of the run goes on."""

    path: str
    reason: str
    kind: Literal["too_large", "empty", "binary", "corrupt", "unsupported", "unreadable", "no_text"]


class Chunk(Record):
    """A span of a document's text. `id` = document id + index + text hash: stable across re-runs."""

    id: str
    document_id: str
    index: int
    start: int  # character offsets into Document.text
    end: int
    text: str

    @staticmethod
    def make_id(document_id: str, index: int, text: str) -> str:
        return f"{document_id}#{index}:{short_hash(text, length=8)}"


# --------------------------------------------------------------------------- extraction


class Span(Record):
    """Character offsets [start, end) into a text."""

    start: int
    end: int


class Provenance(Record):
    """Where a fact came from: the document and chunk (the episode), the span or evidence sentence,
    and the extractor (plus model and prompt hash for LLM extractors)."""

    document_id: str
    chunk_id: str
    start: int | None = None  # character offsets into the *document* text
    end: int | None = None
    evidence: str | None = None
    extractor_id: str
    model: str | None = None
    prompt_hash: str | None = None


class ExtractedEntity(Record):
    """An entity mention as an extractor saw it, with spans relative to the chunk text."""

    name: str
    type: str
    span: Span | None = None
    label: str | None = None  # the extractor's own label (e.g. spaCy's "GPE") before domain mapping
    confidence: float = 1.0
    attributes: dict[str, str] = Field(default_factory=dict)


class ExtractedRelation(Record):
    """A relation mention: source/target refer to entities by (name, type) as extracted."""

    source: str
    source_type: str
    target: str
    target_type: str
    type: str
    predicate: str | None = None  # surface predicate (e.g. verb lemma + preposition) for offline rules
    evidence: str | None = None  # the sentence or quote supporting the relation
    evidence_span: Span | None = None  # relative to the chunk text
    negated: bool = False
    confidence: float = 1.0
    valid_at: str | None = None  # ISO date when the text says when it held
    invalid_at: str | None = None
    attributes: dict[str, str] = Field(default_factory=dict)


class TextExtraction(Record):
    """What an extractor found in one piece of text. Cached by the text's content, so it carries no
    document or chunk ids (a renamed file re-uses it). `error` set = the extraction failed: it is never
    an empty success, and it is never cached."""

    entities: tuple[ExtractedEntity, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    extractor_id: str
    quality: Literal["offline", "llm", "human", "imported"] = "offline"
    model: str | None = None
    prompt_hash: str | None = None
    error: str | None = None
    cost_usd: float = 0.0
    tokens: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None


class ChunkExtraction(Record):
    """A TextExtraction placed in its chunk: spans are shifted to document offsets by `locate`."""

    chunk_id: str
    document_id: str
    chunk_start: int = 0
    extraction: TextExtraction

    @property
    def error(self) -> str | None:
        return self.extraction.error


class DocumentExtraction(Record):
    """All chunk extractions of one document, in chunk order."""

    document_id: str
    path: str
    sha256: str = ""
    media_type: str = ""
    chunks: tuple[ChunkExtraction, ...]

    @property
    def errors(self) -> list[str]:
        return [f"{c.chunk_id}: {c.error}" for c in self.chunks if c.error is not None]


IdentityQuality = Literal["source", "derived", "ephemeral"]


# --------------------------------------------------------------------------- reports


class Page(Record):
    """One page of a sorted list in a JSON report: the list's total, the window asked for, the rows.

    >>> Page(total=3, offset=2, limit=2, items=[{"id": "c"}]).model_dump()
    {'total': 3, 'offset': 2, 'limit': 2, 'items': [{'id': 'c'}]}
    """

    total: int
    offset: int
    limit: int
    items: list[dict[str, Any]]
