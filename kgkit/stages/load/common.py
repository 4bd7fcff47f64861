"""What every format module of the load stage shares: the failure a parser raises (turned into a
DocumentError by `load_document`), its kinds, the parser signature, and text clean-up.

>>> failure = LoadFailure("binary", "not text")
>>> failure.kind, failure.reason, str(failure)
('binary', 'not text', 'not text')
>>> describe_exception(ValueError("bad header\\nmore detail")), describe_exception(KeyError())
('ValueError: bad header', 'KeyError')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

__all__ = ["CONTROL_CHARS", "ErrorKind", "LoadFailure", "ParseResult", "Parser", "TextBudget", "clean_text",
           "describe_exception", "too_much_text"]

ErrorKind = Literal["too_large", "empty", "binary", "corrupt", "unsupported", "unreadable", "no_text"]
"""The `kind` of a DocumentError."""

ParseResult = tuple[str, dict[str, str]]
"""What a format parser returns: (text, metadata)."""

Parser = Callable[..., ParseResult]
"""A format parser: `parse(data, *, max_chars)` -> (text, metadata) for a file's bytes; raises LoadFailure
(anything else becomes "corrupt"), kind "too_large" once the text would pass `max_chars` characters."""

CONTROL_CHARS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
"""C0 control characters except \\t \\n \\v \\f \\r, plus DEL (the binary check counts these in raw bytes)."""
_TEXT_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # and C1 (U+0080-U+009F: CSI and friends)


class LoadFailure(Exception):
    """Raised inside the parsers; `load_document` turns it into a DocumentError."""

    def __init__(self, kind: ErrorKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: ErrorKind = kind
        self.reason = reason


def describe_exception(exc: BaseException) -> str:
    """One line naming an unexpected parser exception: its type and the first line of its message."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def too_much_text(what: str, max_chars: int) -> LoadFailure:
    """The failure for a document whose text passes the per-document character limit.

    >>> too_much_text("DOCX", 20_000_000).reason
    'DOCX expands to more than 20,000,000 characters of text (the per-document limit); not loaded'
    """
    return LoadFailure("too_large", f"{what} expands to more than {max_chars:,} characters of text "
                                    "(the per-document limit); not loaded")


class TextBudget:
    """Counts the characters a parser extracts and stops it (LoadFailure "too_large") as soon as they pass
    `max_chars`, so a small container that expands to a huge text is refused while it is being read.

    >>> budget = TextBudget(10, "PDF")
    >>> budget.take("12345"), budget.used
    ('12345', 5)
    >>> budget.take("123456")
    Traceback (most recent call last):
    kgkit.stages.load.common.LoadFailure: PDF expands to more than 10 characters of text (the per-document limit); not loaded
    """

    def __init__(self, max_chars: int, what: str) -> None:
        self.max_chars, self.what, self.used = max_chars, what, 0

    def take(self, text: str) -> str:
        self.used += len(text)
        if self.used > self.max_chars:
            raise too_much_text(self.what, self.max_chars)
        return text


def clean_text(text: str) -> str:
    """Normalise newlines to \\n (form feeds and vertical tabs too) and drop other control characters
    (C0, DEL and C1: no escape sequence survives into a document's text).

    >>> clean_text("a\\r\\nb\\rc\\x00d\\x0ce\\x1b[31m\\x9b")
    'a\\nb\\ncd\\ne[31m'
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\v", "\n")
    return _TEXT_CONTROLS.sub("", text)
