"""Page furniture and boilerplate: found in a document's text and blanked out before chunking and extraction.

What counts as furniture (each removed span is recorded with its kind):

- ``gutenberg``: a Project Gutenberg header (up to and including the ``*** START OF ...`` line, with the
  "Produced by" credit after it) and its licence (from the ``*** END OF ...`` line to the end).
- ``heading``: a line in capitals ("I. FINANCIAL", "STAVE ONE.") and a Markdown ``#`` heading; skipped when most
  of the document is in capitals (a telegram, an old statute).
- ``page``: a line that is only a page number ("12", "- 12 -", "Page 12", "xiv") and inline ``[Pg 12]`` markers.
- ``contents``: table-of-contents entries (a title, a wide gap or dot leaders, a page number) with the lines of
  their paragraph, and ``[Illustration ...]`` blocks.
- ``table``: a line of figures with hardly a letter ("1946 67,229").

Blanking keeps every offset: each removed character becomes a space (line breaks stay), so the document's length,
its paragraphs and every span into it are unchanged, and provenance needs no remapping. The removed spans are
returned (``Furniture.spans``) and recorded in the document's metadata (``furniture``: ``start-end:kind`` items).

>>> text = "I. FINANCIAL\\n\\nThe Budget is balanced.\\n\\n12\\n"
>>> found = find_furniture(text)
>>> [(text[s:e], kind) for s, e, kind in found.spans]
[('I. FINANCIAL', 'heading'), ('12', 'page')]
>>> found.text
'            \\n\\nThe Budget is balanced.\\n\\n  \\n'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgkit.core.records import Document
from kgkit.core.stage import stage

__all__ = ["Furniture", "find_furniture", "strip_furniture"]

_GUTENBERG_START = re.compile(r"^\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE | re.IGNORECASE)
_GUTENBERG_END = re.compile(
    r"^(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG|End of (?:the )?Project Gutenberg'?s?|\*END\*THE SMALL PRINT)",
    re.MULTILINE | re.IGNORECASE)
_CREDIT = re.compile(r"\s*(?:Produced by|E-text prepared by|Transcribed from)[^\n]*(?:\n[^\n]+)*", re.IGNORECASE)
_LINE = re.compile(r"[^\n]*")
_PAGE = re.compile(r"[-–—\s\[(]*(?:page|pg\.?|p\.)?\s*(?:\d{1,4}|[ivxlcdm]{1,7})[-–—\s\])]*", re.IGNORECASE)
_INLINE_PAGE = re.compile(r"\[\s*(?:Pg|Page|p\.)\s*[\divxlc]+\s*\]", re.IGNORECASE)
_CONTENTS = re.compile(r"\S.*?(?:\s{3,}|\s*\.{3,}\s*|\s*(?:\. ){3,})(?:\d{1,4}|[ivxlcdm]{1,7}|_\w+_)\s*", re.IGNORECASE)
_ILLUSTRATION = re.compile(r"\[Illustrations?\b[^\]]{0,2000}\]", re.IGNORECASE)
_PARAGRAPH = re.compile(r"\S(?:[^\n]|\n(?![ \t\r]*\n))*")
_MARKDOWN_HEADING = re.compile(r"\s{0,3}#{1,6}\s+\S.*")


@dataclass(frozen=True)
class Furniture:
    """A text with its furniture blanked out, and the removed spans: (start, end, kind), in text order."""

    text: str
    spans: tuple[tuple[int, int, str], ...]

    def metadata(self) -> str:
        """The spans as one metadata value: "start-end:kind" items separated by spaces."""
        return " ".join(f"{s}-{e}:{k}" for s, e, k in self.spans)


def _lines(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line of text[start:end], line breaks excluded."""
    end = len(text) if end is None else end
    return [(start + m.start(), start + m.end()) for m in _LINE.finditer(text[start:end]) if m.end() > m.start()]


def _is_caps_line(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters if c.isalpha() and c.lower() != c.upper())


def _is_table_line(line: str) -> bool:
    visible = [c for c in line if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    digits = sum(c.isdigit() for c in visible)
    return digits >= 2 and letters <= 0.2 * len(visible) and len(visible) >= 4


def find_furniture(text: str) -> Furniture:
    """The furniture of a text (see the module docstring), blanked out with spaces; the same text -> the same result."""
    spans: list[tuple[int, int, str]] = []
    lo, hi = 0, len(text)
    if (start := _GUTENBERG_START.search(text)) is not None:
        lo = start.end()
        if (credit := _CREDIT.match(text, lo)) is not None:
            lo = credit.end()
        spans.append((0, lo, "gutenberg"))
    if (end := _GUTENBERG_END.search(text, lo)) is not None and (start is not None or "gutenberg" in text[end.start():].lower()):
        hi = end.start()
        spans.append((hi, len(text), "gutenberg"))
    lines = [(s, e) for s, e in _lines(text, lo, hi) if text[s:e].strip()]
    caps = sum(_is_caps_line(text[s:e]) for s, e in lines)
    mostly_caps = bool(lines) and caps > 0.5 * len(lines)
    for s, e in lines:
        line = text[s:e].strip()
        if _PAGE.fullmatch(line) and (any(c.isdigit() for c in line) or len(line) <= 7):
            spans.append((s, e, "page"))
        elif (not mostly_caps and _is_caps_line(line) and len(line) <= 120) or _MARKDOWN_HEADING.fullmatch(line):
            spans.append((s, e, "heading"))
        elif _is_table_line(line):
            spans.append((s, e, "table"))
    for para in _PARAGRAPH.finditer(text, lo, hi):
        last = para.group().rsplit("\n", 1)[-1].strip()
        if len(last) > 8 and _CONTENTS.fullmatch(last):
            spans.append((para.start(), para.end(), "contents"))
    spans += [(m.start(), m.end(), "page") for m in _INLINE_PAGE.finditer(text, lo, hi)]
    spans += [(m.start(), m.end(), "contents") for m in _ILLUSTRATION.finditer(text, lo, hi)]
    merged = _merge(spans)
    if not merged:
        return Furniture(text, ())
    out, at = [], 0
    for s, e, _ in merged:
        out += [text[at:s], re.sub(r"[^\n]", " ", text[s:e])]
        at = e
    out.append(text[at:])
    return Furniture("".join(out), tuple(merged))


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Sorted spans, overlapping ones joined (the first kind kept)."""
    out: list[tuple[int, int, str]] = []
    for s, e, kind in sorted(spans):
        if out and s <= out[-1][1]:
            ps, pe, pk = out[-1]
            out[-1] = (ps, max(pe, e), pk)
        else:
            out.append((s, e, kind))
    return out


@stage(version="1")
def strip_furniture(document: Document) -> Document:
    """The document with its furniture blanked out (same id, length and offsets) and the removed spans in its
    metadata ("furniture"); a document without furniture is returned as it is.

    >>> doc = Document.from_text("CHAPTER ONE\\n\\nScrooge was there.", path="a.txt")
    >>> out = strip_furniture(doc)
    >>> out.text.strip(), out.metadata["furniture"], out.id == doc.id
    ('Scrooge was there.', '0-11:heading', True)
    """
    found = find_furniture(document.text)
    if not found.spans:
        return document
    return document.model_copy(update={"text": found.text, "metadata": {**document.metadata, "furniture": found.metadata()}})

