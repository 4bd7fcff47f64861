"""Capitalised words that name no thing, and a span of years after a name.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.nonnames."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.extractors.offline.context_votes import before_noun
from kgkit.extractors.offline.fragments import cut_before_of, date_like, in_quoted_phrase, kept_whole, runs_on
from kgkit.extractors.offline.lexicon import CLASSIFIERS, DEMONYMS, TITLES
from kgkit.extractors.offline.parsed import text_of
from kgkit.extractors.offline.passes import Mention, PassContext
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["NON_NAME_RULES", "drop_non_names", "names_no_thing"]

_UNITS = words("nonnames", "units")
_CURRENCIES = words("nonnames", "currencies")
_ERAS = words("nonnames", "eras")
_BEFORE_ERA = words("nonnames", "before_era")
_STYLES = words("nonnames", "styles")
_GRADES = words("nonnames", "grades")
_GRADE_MARK = re.compile(r"(?:[IVX]+|\d+|[A-Z])\*?")
_LEVELS = words("nonnames", "levels")
_CERTIFIED = words("nonnames", "certified")
_DEMONSTRATIVES = words("nonnames", "demonstratives")
_ADVERBIAL = words("nonnames", "adverbial")
_PORTFOLIO_HOLDERS = words("nonnames", "portfolio_holders")
_POSITIONS = words("nonnames", "positions")
_COMPASS = words("nonnames", "compass")
_HULL = re.compile(r"[A-Z]{1,4}-\d{1,4}")
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_RANGE = words("nonnames", "range")


def _numeric(token: Token | None) -> bool:
    return token is not None and (token.like_num or any(c.isdigit() for c in token.text))


def names_no_thing(doc: Doc, first: int, last: int, label: str) -> str:
    """Why the capitalised words doc[first:last] name no thing (a rule's name), or "" when they may name one.

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> doc = load_model(DEFAULT_MODEL)("It can hold 1600 MW of wind farms and became a Grade II listed building.")
    >>> names_no_thing(doc, 4, 5, "ORG"), names_no_thing(doc, 11, 13, "LOC"), names_no_thing(doc, 0, 1, "ORG")
    ('unit', 'grade', '')
    """
    place = _Place(doc, first, last, label)
    return next((reason for reason, names_nothing in NON_NAME_RULES if names_nothing(place)), "")


class _Place:
    """Capitalised words doc[first:last] with their label and neighbours (what each rule looks at)."""

    def __init__(self, doc: Doc, first: int, last: int, label: str) -> None:
        self.doc, self.first, self.last, self.label = doc, first, last, label
        self.words = doc[first:last]
        self.one = self.words[0] if len(self.words) == 1 else None
        self.before = next((t for t in reversed(doc[:first]) if not t.is_space), None)
        self.after = next((t for t in doc[last:] if not t.is_space), None)

    def bracketed(self) -> bool:
        return self.before is not None and self.before.text == "(" and self.after is not None and self.after.text == ")"


def _unit(p: _Place) -> bool:
    one, before = p.one, p.before
    return one is not None and (
        (one.text in _UNITS and (_numeric(before) or (before is not None and before.lower_ in _BEFORE_ERA)))
        or (one.text in _CURRENCIES and (_numeric(before) or _numeric(p.after)))
        or (one.text in _ERAS and _numeric(p.after)))


def _grade(p: _Place) -> bool:
    words = p.words
    mark = words[1] if len(words) == 2 else p.after if p.one is not None else None
    return (mark is not None and words[0].lower_ in _GRADES and words[0].text[:1].isupper()
            and bool(_GRADE_MARK.fullmatch(mark.text))) or (len(words) == 2 and words[0].text == "Top" and words[1].like_num)


def _certification(p: _Place) -> bool:
    return any(w.lower_ in _LEVELS for w in p.words) and all(w.lower_ in _LEVELS or w.lower_ in DEMONYMS for w in p.words) and (
        (p.after is not None and p.after.is_lower and p.after.lower_ in _CERTIFIED)
        or (p.before is not None and p.before.lower_ in ("certified", "went", "gone")))


def _anaphor(p: _Place) -> bool:
    one = p.one
    return (one is not None and p.before is not None and p.before.text in _DEMONSTRATIVES and one.is_alpha
            and p.label not in ("PERSON", "NORP") and one.lower_ not in DEMONYMS and _written_lower(p.doc, one.lower_))


def _portfolio(p: _Place) -> bool:
    return (p.before is not None and p.before.lower_ == "for" and p.first >= 2
            and p.doc[p.first - 2].lower_ in _PORTFOLIO_HOLDERS and p.label not in ("GPE", "LOC", "NORP"))


NON_NAME_RULES: tuple[tuple[str, Callable[[_Place], bool]], ...] = (
    ("date", lambda p: date_like([t.text for t in p.words])),  # "Calendar Year 1944", "Fiscal Year"
    ("quoted phrase", lambda p: in_quoted_phrase(p.doc, p.first, p.last)),  # '" Dr. [Beat] "'
    ("fragment", lambda p: not kept_whole(p.label)  # "[Creve] Coeur Park", "Nexus [Q]", "Middle-earth"
     and runs_on(p.doc, p.first, p.last, p.label == "PERSON", p.label == "NORP")),
    ("cut before of", lambda p: not kept_whole(p.label) and cut_before_of(p.doc, p.first, p.last, p.label)),
    ("unit", _unit),  # "1600 MW", "the 16th century BCE", "AD 79", "Rs 500 crore"
    ("style", lambda p: p.one is not None and p.one.text in _STYLES),  # "TRH the Duke and Duchess of Cornwall"
    ("grade", _grade),  # "a Grade II listed building", "his List A debut", "a Category 5 hurricane", "the Top 5"
    ("certification", _certification),  # "a Diamond certification", "a certified Canadian Gold album"
    ("anaphor", _anaphor),  # "the other entries of this Contest" (not "this Congress", "these Frenchmen")
    ("adverb", lambda p: p.one is not None and p.one.is_sent_start and p.one.dep_ in _ADVERBIAL and p.label != "NORP"),
    ("portfolio", _portfolio),  # "Minister for Social Protection"
    ("role", lambda p: p.one is not None and p.one.is_title  # "nominated Artist for Peace", "a Physician Assistant"
     and (CLASSIFIERS.get(p.one.lower_) == "PERSON" or p.one.lower_ in _POSITIONS)),
    ("compass", lambda p: p.one is not None and p.one.text in _COMPASS),  # "41 Avenue SW"
    ("hull number", lambda p: p.one is not None and bool(_HULL.fullmatch(p.one.text)) and p.bracketed()),
    ("title initials", lambda p: p.one is not None and p.one.is_upper and p.one.is_alpha and p.bracketed()
     and _spells_title(p.doc, p.before.i, p.one.text)),  # "Teachta Dála (TD)"
    ("law adjective", lambda p: p.label == "LAW" and before_noun(p.doc, p.first, p.last)),  # "my Constitutional duty"
)
"""The reasons a mention names no thing, each with its rule, asked in this order (the first that holds wins)."""


def _written_lower(doc: Doc, word: str) -> bool:
    """The text also writes `word` (or its plural) in lower case: a common noun ("the contest ... this Contest")."""
    return any(t.text in (word, word + "s") for t in doc)


def _spells_title(doc: Doc, bracket: int, letters: str) -> bool:
    """The capitalised words before the bracket at `bracket` are titles whose initials are `letters`: "Teachta
    Dála (TD)", "Chief Executive Officer (CEO)"."""
    words = doc[max(0, bracket - len(letters)) : bracket]
    return (len(words) == len(letters) >= 2 and all(w.text[:1].isupper() and w.lower_ in TITLES for w in words)
            and "".join(w.text[0] for w in words) == letters)


def drop_non_names(doc: Doc, mentions: list[Mention], context: PassContext) -> list[Mention]:
    """The mentions without those that name no thing (`names_no_thing`, the reason counted in `context`), and
    without a span of years they end in."""
    kept = context.keep(mentions, lambda m: names_no_thing(doc, m.first, m.last, m.label))
    return [_without_years(doc, m) for m in kept]


def _without_years(doc: Doc, m: Mention) -> Mention:
    """"the Department of Social Welfare 1993 to 1994" -> "Department of Social Welfare": a span of years after a
    name is when, not part of what."""
    n = m.last - m.first
    if n < 4 or not (_YEAR.fullmatch(doc[m.last - 1].text) and doc[m.last - 2].lower_ in _RANGE
                     and _YEAR.fullmatch(doc[m.last - 3].text)) or not doc[m.last - 4].text[:1].isupper():
        return m
    end = doc[m.last - 4].idx + len(doc[m.last - 4].text)
    text = text_of(doc)
    cut = " ".join(text[m.start : end].split())
    if not m.name.startswith(cut):
        return m
    return replace(m, name=cut, end=end, last=m.last - 3)
