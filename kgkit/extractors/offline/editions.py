"""Editions: a year, season or ordinal before a name that makes it one edition of an event or one unit.

"The 2004 NFL Draft", "the 2016–17 Ranji Trophy" and "the 24th Infantry Division" are names with their number: the
number tells which draft, season or division, and without it the name is another thing (the NFL Draft held every
year). An ordinal counts before a unit too ("the 9th District"); a year before a body is a date, not part of its
name ("the 1995 European Parliament").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import HEADS
from kgkit.extractors.offline.passes import Span
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["edition_number", "editions"]

_EDITION = re.compile(r"(?:1[5-9]\d\d|20\d\d)(?:[–-]\d\d(?:\d\d)?)?|\d{1,3}(?:st|nd|rd|th)")  # 2004, 2016–17, 24th
_EVENT_HEADS = frozenset(w for w, label in HEADS.items() if label == "EVENT") | words("editions", "event_heads")
_UNIT_HEADS = words("editions", "unit_heads")


def edition_number(tokens: Sequence[Token]) -> bool:
    """Whether a name's first word is the year, season or ordinal of the event or unit the rest names: "2004 NFL
    Draft", "2016–17 Ranji Trophy", "24th Infantry Division" (an ordinal only before a unit: not "1995 European
    Parliament", which is the parliament in 1995).

    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> [edition_number(nlp(n)) for n in ("2004 NFL Draft", "24th Infantry Division", "1995 European Parliament")]
    [True, True, False]
    """
    if len(tokens) < 2 or not _EDITION.fullmatch(tokens[0].text) or not tokens[1].text[:1].isupper():
        return False
    last = tokens[-1].lower_
    return last in _EVENT_HEADS or last.rstrip("s") in _EVENT_HEADS or (tokens[0].text[-1].isalpha() and last in _UNIT_HEADS)


def editions(doc: Doc, spans: list[Span]) -> list[Span]:
    """A name takes the year, season or ordinal just before it that makes it one edition or unit ("the 2004 [NFL
    Draft]", "the 2016–17 [Ranji Trophy]")."""
    taken = {i for s in spans for i in range(s.start, s.end)}
    return [replace(s, start=s.start - 1) if s.start > 0 and s.start - 1 not in taken and edition_number(doc[s.start - 1 : s.end])
            else s for s in spans]
