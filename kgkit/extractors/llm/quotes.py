"""Find a quote in a text, forgiving whitespace, case and typographic quotes; offsets are into the original.

>>> find_quote("Ada  MET\\ncharles", "Then Ada met Charles.")
Span(start=5, end=20)
>>> find_quote("“Ada”", 'He said "Ada".')
Span(start=8, end=13)
>>> find_quote("Bob", "Ada met Charles.") is None
True
"""

from __future__ import annotations

from kgkit.core.records import Span

_FOLD = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "\u00a0": " "})


def _normalise(text: str) -> tuple[str, list[int]]:
    """Folded text (whitespace runs -> one space, quotes and dashes straightened, lower case) and, per folded
    character, its index in the original."""
    out: list[str] = []
    index: list[int] = []
    in_space = False
    for i, ch in enumerate(text.translate(_FOLD)):
        if ch.isspace():
            if not in_space and out:
                out.append(" ")
                index.append(i)
            in_space = True
            continue
        in_space = False
        out.append(ch.lower())
        index.append(i)
    return "".join(out), index


def find_quote(quote: str, text: str) -> Span | None:
    """The span of `quote` in `text` (first occurrence), or None when it does not occur."""
    needle, _ = _normalise(quote.strip())
    needle = needle.strip()
    if not needle:
        return None
    hay, index = _normalise(text)
    at = hay.find(needle)
    if at < 0:
        return None
    return Span(start=index[at], end=index[at + len(needle) - 1] + 1)
