"""Page furniture and boilerplate: found in a document's text and blanked out before chunking and extraction.

What counts as furniture (each removed span is recorded with its kind):

- ``gutenberg``: a Project Gutenberg header (up to and including the ``*** START OF ...`` line, with the
  "Produced by" credit after it) and its licence (from the ``*** END OF ...`` line to the end).
- ``heading``: a line in capitals ("I. FINANCIAL", "STAVE ONE.") and a Markdown ``#`` heading; skipped when most
  of the document is in capitals (a telegram, an old statute).
- ``page``: a line that is only a page number ("12", "- 12 -", "Page 12", "xiv") and inline ``[Pg 12]`` markers.
- ``contents``: table-of-contents entries (a title, a wide gap or dot leaders, a page number) with the lines of
  their paragraph, and ``[Illustration ...]`` blocks.
- ``note``: an editor's note in square brackets: a cross-reference ("[See APP Note.]") anywhere, and a bracketed
  line of its own of at most 12 words ("[Delivered in person before a joint session]", "[In millions]"). A
  bracketed word inside a sentence ("[the States]", an editor's correction) and a longer bracketed paragraph (a
  passage the speaker left out) are the text's and stay.
- ``table``: a table: its lines of figures ("1946 67,229", "Income after taxes $134 ...... $132"), its ruled lines
  ("______ ______"), and the short lines of words above and between them (its header rows and column heads:
  "Total Budget expenditures", "Calendar Year 1944 (global war)"). A block needs two lines of figures or rules at
  most three lines apart; its header rows are the lines just above it that end no sentence (at most six, each
  under 70 characters), so a paragraph before a table keeps its words.

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
_CROSS_REFERENCE = re.compile(r"\[\s*see\s[^\]\n]{1,200}\]", re.IGNORECASE)
_BRACKETED_LINE = re.compile(r"\[[^\]\n]{1,300}\]")
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


_CELL = re.compile(r"[-+–—(]*\$?\d(?:[\d,.]*\d)?\)?%?|\.{2,}|-{2,}|[-–—]")
_RULE = re.compile(r"[\s_=\-–—.]*[_=\-–—]{5,}[\s_=\-–—.]*")
_SENTENCE_END = re.compile(r"[.!?:;,]['\"”’)\]]*\s*$")
_HEADER_MAX = 70


def _is_figure_row(line: str) -> bool:
    """A table row: a label of at most eight words before two or more figures or leaders ("Receipts $198 ...... 0")."""
    tokens = line.split()
    cells = 0
    for token in reversed(tokens):
        if not _CELL.fullmatch(token):
            break
        cells += 1
    return cells >= 2 and len(tokens) - cells <= 8 and not re.search(r"[A-Za-z]{2,}\.$", line.rstrip())


def _kind(line: str) -> str:
    """'row' (figures, rules), 'prose' (ends a sentence, or long) or 'short' (a few words ending no sentence)."""
    if _is_table_line(line) or _RULE.fullmatch(line) or _is_figure_row(line):
        return "row"
    if len(line) >= _HEADER_MAX or _SENTENCE_END.search(line):
        return "prose"
    return "short"


def _tables(text: str, lines: list[tuple[int, int]], skip: set[int]) -> list[tuple[int, int, str]]:
    """The table blocks among the non-blank lines: their rows, the short lines between them and the header rows
    above; `skip` holds the indexes of lines already furniture (a heading inside a table is passed over)."""
    kinds = ["skip" if k in skip else _kind(text[s:e].strip()) for k, (s, e) in enumerate(lines)]
    rows = [k for k, kind in enumerate(kinds) if kind == "row"]
    spans: list[tuple[int, int, str]] = []
    blocks: list[list[int]] = []
    for k in rows:
        between = kinds[blocks[-1][-1] + 1 : k] if blocks else []
        if blocks and "prose" not in between and len([b for b in between if b == "short"]) <= 3:
            blocks[-1].append(k)
        else:
            blocks.append([k])
    for block in blocks:
        if len(block) < 2:  # a lone line of figures with hardly a letter goes, alone; a lone labelled row stays
            s, e = lines[block[0]]
            spans += [(s, e, "table")] if _is_table_line(text[s:e]) or _RULE.fullmatch(text[s:e].strip()) else []
            continue
        first, last = block[0], block[-1]
        taken = [k for k in range(first, last + 1) if kinds[k] in ("row", "short")]
        above = first - 1
        while above >= 0 and first - above <= 6 and kinds[above] in ("short", "skip"):
            if kinds[above] == "short":
                taken.append(above)
            above -= 1
        spans += [(lines[k][0], lines[k][1], "table") for k in taken]
    return spans


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
    skip: set[int] = set()
    for k, (s, e) in enumerate(lines):
        line = text[s:e].strip()
        if _PAGE.fullmatch(line) and (any(c.isdigit() for c in line) or len(line) <= 7):
            spans.append((s, e, "page"))
            skip.add(k)
        elif (not mostly_caps and _is_caps_line(line) and len(line) <= 120) or _MARKDOWN_HEADING.fullmatch(line):
            spans.append((s, e, "heading"))
            skip.add(k)
        elif _BRACKETED_LINE.fullmatch(line) and len(line.split()) <= 12 and not _ILLUSTRATION.fullmatch(line):
            spans.append((s, e, "note"))
            skip.add(k)
    spans += _tables(text, lines, skip)
    for para in _PARAGRAPH.finditer(text, lo, hi):
        last = para.group().rsplit("\n", 1)[-1].strip()
        if len(last) > 8 and _CONTENTS.fullmatch(last):
            spans.append((para.start(), para.end(), "contents"))
    spans += [(m.start(), m.end(), "page") for m in _INLINE_PAGE.finditer(text, lo, hi)]
    spans += [(m.start(), m.end(), "contents") for m in _ILLUSTRATION.finditer(text, lo, hi)]
    spans += [(m.start(), m.end(), "note") for m in _CROSS_REFERENCE.finditer(text, lo, hi)]
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


@stage(version="2")
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

