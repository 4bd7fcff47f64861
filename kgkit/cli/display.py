"""Text from documents made safe for the terminal: every name, path, reason or snippet the CLI prints.

A file name or an entity name can hold anything: rich markup (`[bold red]`, `[/]`), emoji codes
(`:warning:`), escape sequences that recolour or retitle the terminal (ESC, CSI), newlines that forge
extra lines, bidirectional overrides that reverse what is shown, and (from a name that is not valid UTF-8)
lone surrogates. `plain` shows control characters as visible escapes; `safe` also escapes rich markup,
for text inside a `console.print` string. `console()` is a rich Console that does not replace emoji codes.

>>> plain("a\\x1b[31mred\\nline\\u202e")
'a\\\\x1b[31mred\\\\nline\\\\u202e'
>>> safe("[bold red]x[/] a[/]b")
'\\\\[bold red]x\\\\[/] a\\\\[/]b'
>>> plain("caf\\udce9.txt")
'caf\\\\xe9.txt'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["console", "plain", "safe"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not UTF-8 (os.fsdecode's surrogate escape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def plain(text: Any, *, newlines: bool = False) -> str:
    """`text` with control characters, bidirectional overrides and lone surrogates written as visible
    escapes (\\x1b, \\n, \\u202e); with `newlines`, line breaks are kept (multi-line messages)."""
    value = str(text)
    if newlines:
        return "\n".join(_UNSAFE.sub(_visible, line) for line in value.split("\n"))
    return _UNSAFE.sub(_visible, value)


def safe(text: Any, *, newlines: bool = False) -> str:
    """`plain(text)` with rich markup escaped, to put inside a string given to `console.print`."""
    from rich.markup import escape

    return escape(plain(text, newlines=newlines))


def console(**options: Any) -> Any:
    """A rich Console for CLI output: emoji codes (":warning:") in document text stay as written."""
    from rich.console import Console

    return Console(emoji=False, **options)
