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

__all__ = ["CONTROL_CHARS", "ErrorKind", "LoadFailure", "ParseResult", "Parser", "clean_text", "describe_exception"]

ErrorKind = Literal["too_large", "empty", "binary", "corrupt", "unsupported", "unreadable", "no_text"]
"""The `kind` of a DocumentError."""

ParseResult = tuple[str, dict[str, str]]
"""What a format parser returns: (text, metadata)."""

Parser = Callable[[bytes], ParseResult]
"""A format parser: a file's bytes -> (text, metadata); raises LoadFailure (or anything else: "corrupt")."""

CONTROL_CHARS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
"""C0 control characters except \\t \\n \\v \\f \\r, plus DEL."""


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


def clean_text(text: str) -> str:
    """Normalise newlines to \\n (form feeds and vertical tabs too) and drop other control characters.

    >>> clean_text("a\\r\\nb\\rc\\x00d\\x0ce")
    'a\\nb\\ncd\\ne'
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\v", "\n")
    return CONTROL_CHARS.sub("", text)
