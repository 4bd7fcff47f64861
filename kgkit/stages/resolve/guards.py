"""Policy guards: pairs of names that look alike but that names alone cannot tell apart (a number, a whole
word, a letter or two in a short word), which the policy leaves to a person (docs/resolution.md, "Guards").

>>> policy_guard("john adams", "john quincy adams", "Person")
"differs by the word 'quincy'"
>>> policy_guard("koninklike philips electroncis nv", "koninklijke philips electronics", "Organization") is None
True
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from rapidfuzz.distance import OSA

from kgkit.core.names import normalise_name
from kgkit.stages.resolve.keys import (
    LEGAL_SUFFIXES,
    PERSON_SUFFIXES,
    PERSON_TYPES,
    ROMAN_NUMERAL,
    ROYAL_PREDICATES,
    STOPWORDS,
    TITLES,
    acronym,
    split_suffix,
    squash_key,
)
from kgkit.stages.resolve.name_rules import has_digit, is_typo, person_suffix

SHORT_NAME_LETTERS = 8
"""Outside person names, a word of at most this many letters a letter or two from another word is not taken
for a slip of it: one letter makes another place or body ("Santa Marta" / "Santa Maria", "Henan Sheng" /
"Hunan Sheng", "Omskaya oblast'" / "Tomskaya oblast'"); a longer word may slip ("Koninklike" /
"Koninklijke", "Electroncis" / "Electronics"). One-word names that differ at all are never taken for
slips ("Prussia" / "Russia", "Alexandra" / "Alexandria", "Herefordshire" / "Hertfordshire")."""
SHORT_WORD_LETTERS = 5
"""In a person name, a word shorter than this is not taken for a slip of another ("Jon" / "John", "Lily" /
"Liky"): too many given names are a letter apart. (A word of 5+ letters may slip: "Colegate" /
"Colegamte", name_rules.person_slip; a person name a letter from another person's is the known gap.)"""


def _number(token: str, pos: int, person: bool) -> str | None:
    """The value of a number word: digits ("1812", "2nd"), or a Roman numeral after the first word of a name
    that is not a person's ("World War I" = "World War 1"; a person's numeral is a suffix)."""
    return _number_of(token, pos > 0 and not person)


@lru_cache(maxsize=1 << 16)
def _number_of(token: str, roman: bool) -> str | None:
    if _DIGIT.search(token):
        digits = "".join(ch for ch in token if ch.isdigit()).lstrip("0") or "0"
        return digits if token.isdigit() or token.rstrip("stndrh").isdigit() else token
    if roman and token not in ("v", "x") and ROMAN_NUMERAL.match(token):
        return str(_roman_value(token))  # a lone "V" or "X" is more often a letter ("N. V." cut) than a number
    return None


_DIGIT = re.compile(r"\d")


def _parts(tokens: Sequence[str], person: bool) -> tuple[list[str], list[str], list[str]]:
    """(the number values sorted, the number words as written in the key, the content words) of a key's words."""
    values, numbers, words = [], [], []
    for i, tok in enumerate(tokens):
        value = _number_of(tok, i > 0 and not person)
        if value is not None:
            values.append(value)
            numbers.append(tok)
        elif not _noise(tok, person):
            words.append(tok)
    return sorted(values), numbers, words


@lru_cache(maxsize=1 << 18)
def _key_parts(key: str, person: bool) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A key's words (a person's generational suffix left out) and their `_parts`, once per key (a key is in
    several guarded pairs)."""
    tokens = key.split()
    if person:
        tokens = split_suffix(tokens)[0]
    values, numbers, words = _parts(tokens, person)
    return tuple(tokens), tuple(values), tuple(numbers), tuple(words)


def _roman_value(token: str) -> int:
    values = {"i": 1, "v": 5, "x": 10}
    total = 0
    for i, ch in enumerate(token):
        v = values[ch]
        total += -v if i + 1 < len(token) and values[token[i + 1]] > v else v
    return total


@lru_cache(maxsize=1 << 16)
def _noise(token: str, person: bool) -> bool:
    """Words a name is written with or without, that tell no two things apart: stop words, legal forms and
    royal predicates (organisations), titles and degrees (people)."""
    if token in STOPWORDS:
        return True
    if person:
        return token in TITLES or token in PERSON_SUFFIXES
    return token in LEGAL_SUFFIXES or token in ROYAL_PREDICATES


def _same_word(x: str, y: str, person: bool) -> bool:
    """Two differing words of two names of several words that may be one word written two ways: an initial
    ("j" / "jane"), an abbreviation (not people; "tech" / "technology": 3+ letters cut), a plural, or a slip
    (name_rules.is_typo) in a word long enough (people: SHORT_WORD_LETTERS or more; others: over SHORT_NAME_LETTERS)."""
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    if len(short) == 1:
        return long_.startswith(short)
    if has_digit(x + y):
        return False
    if len(short) >= 4 and _plural(short, long_):
        return True
    if not person and len(short) >= 3 and len(long_) - len(short) >= 3 and long_.startswith(short):
        return True
    return len(short) >= (SHORT_WORD_LETTERS if person else SHORT_NAME_LETTERS + 1) and is_typo(x, y, prefix=False)


def policy_guard(key_a: str, key_b: str, entity_type: str | None = None, name_a: str = "", name_b: str = "") -> str | None:
    """Why two names of one type must not be merged without a person, or None: the names differ by a number
    or a whole word, or are short names a letter or two apart. Checked on match keys (so case, accents,
    legal forms, titles, "The" and word order are already folded); `name_a` / `name_b` (as written) let an
    acronym count and put the words in the reason as written.

    - a number (digits or, outside person names, a Roman numeral after the first word) only one name has, or
      two different numbers: "World War I" / "World War", "War" / "War of 1812", "Apollo 11" / "Apollo 13";
    - a person's generational suffix: "James Anderson Jr." / "James Anderson", "Jr." / "Sr.";
    - a word only one name has (stop words, legal forms, royal predicates, titles aside) that is no initial,
      abbreviation, plural or slip of a word of the other, nor one word written in two or two in one: "John Quincy Adams" / "John Adams", "George W.
      Bush" / "George Bush", "Government of the United Kingdom" / "... United States", "Bank of England" /
      "Bank of Ireland", "Virginia" / "West Virginia";
    - one-word names that differ at all: "Prussia" / "Russia", "Niger" / "Nigeria", "Republic" /
      "Republican", "Alexandra" / "Alexandria";
    - in longer names, a word a letter or two from the other's that is too short to be taken for a slip:
      outside person names up to SHORT_NAME_LETTERS letters ("Santa Marta" / "Santa Maria"), in person names
      under SHORT_WORD_LETTERS ("Jon Stewart" / "John Stewart").

    Names equal up to spacing or a legal form, the same words in another order, and an acronym of the other
    name are not held back here (the scores treat them).

    >>> policy_guard("john adams", "john quincy adams", "Person"), policy_guard("world war i", "world war", "Event")
    ("differs by the word 'quincy'", "numbers differ: 'i' / none")
    >>> policy_guard("prussia", "russia", "Location"), policy_guard("austria", "australia", "Location")
    ("short names a letter or two apart: 'prussia' / 'russia'", "short names a letter or two apart: 'austria' / 'australia'")
    >>> policy_guard("james d anderson jr", "james d anderson", "Person")
    "differs by the suffix 'jr'"
    >>> policy_guard("santa marta", "santa maria", "Location"), policy_guard("jane smith", "j smith", "Person")
    ("words a letter or two apart: 'marta' / 'maria'", None)
    >>> policy_guard("koninklike philips electroncis nv", "koninklijke philips electronics", "Organization") is None
    True
    >>> policy_guard("tva", "tennessee valley authority", "Organization", "TVA", "Tennessee Valley Authority") is None
    True
    """
    if key_a == key_b:
        return None
    person = entity_type in PERSON_TYPES
    ta, tb = key_a.split(), key_b.split()
    if person and "".join(ta) == "".join(tb):
        return None  # a space added or lost ("joshu a hohn")
    if not person and squash_key(key_a) == squash_key(key_b):
        return None  # up to spacing or a legal form (scored as a legal-form pair)
    if len(ta) == 1 and len(tb) > 1 and _acronym_pair(key_a, name_a, key_b, name_b):
        return None
    if len(tb) == 1 and len(ta) > 1 and _acronym_pair(key_b, name_b, key_a, name_a):
        return None
    if person:
        suffix_a, suffix_b = person_suffix(key_a), person_suffix(key_b)
        if suffix_a != suffix_b:
            if suffix_a and suffix_b:
                return f"generational suffixes differ: {_as_written(suffix_a, name_a)!r} / {_as_written(suffix_b, name_b)!r}"
            return f"differs by the suffix {_as_written(suffix_a or suffix_b, name_a if suffix_a else name_b)!r}"
    ta, nums_a, shown_a, words_a = _key_parts(key_a, person)
    tb, nums_b, shown_b, words_b = _key_parts(key_b, person)
    if nums_a != nums_b:
        return f"numbers differ: {_shown(shown_a, name_a)} / {_shown(shown_b, name_b)}"
    if words_a == words_b:
        return None
    if sorted(words_a) == sorted(words_b):
        # people: "Smith John" is John Smith (name_rules.person_slip); other names: "University of Miami" is not
        # "Miami University"
        return None if person else f"the same words in another order: {_shown(words_a, name_a)} / {_shown(words_b, name_b)}"
    if len(words_a) == 1 and len(words_b) == 1:
        x, y = words_a[0], words_b[0]
        shown = f"{_as_written(x, name_a)!r} / {_as_written(y, name_b)!r}"
        if OSA.distance(x, y, score_cutoff=2) <= 2 or _plural(x, y) or x.startswith(y) or y.startswith(x):
            short = "short " if min(len(x), len(y)) <= SHORT_NAME_LETTERS else ""
            return f"{short}names a letter or two apart: {shown}"
        return f"different names: {shown}"
    lone_a = _lone_words(ta, tb, person)
    lone_b = _lone_words(tb, ta, person)
    if not person and not (lone_a and lone_b):
        # a last word of one or two letters only one name has is a cut or misspelt legal form ("Akzo Nobel N",
        # "... Electronics N.C."), not a name word; against another such word ("Plan A" / "Plan B") it counts
        lone_a = [w for w in lone_a if not (len(w) <= 2 and w == ta[-1])]
        lone_b = [w for w in lone_b if not (len(w) <= 2 and w == tb[-1])]
    if not lone_a and not lone_b:
        return None
    near = next(((x, y) for x in lone_a for y in lone_b if OSA.distance(x, y, score_cutoff=2) <= 2), None)
    if near is not None:
        return f"words a letter or two apart: {_as_written(near[0], name_a)!r} / {_as_written(near[1], name_b)!r}"
    if lone_a and lone_b:
        return f"different words: {_shown(lone_a, name_a)} / {_shown(lone_b, name_b)}"
    lone, name = (lone_a, name_a) if lone_a else (lone_b, name_b)
    kind = "initial" if all(len(w) == 1 for w in lone) else "word"
    return f"differs by the {kind}{'s' if len(lone) > 1 else ''} {_shown(lone, name)}"


def _lone_words(tokens: Sequence[str], other: Sequence[str], person: bool) -> list[str]:
    """The content words of `tokens` (no noise word, no number) that are no word of `other` written another
    way (keys._same_word: an initial, abbreviation, plural or slip; noise words of `other` count, so
    "Koniklijke" is a slip of "Koninklijke"), nor one word written in two ("konink lijke" / "koninklijke"),
    nor two written in one ("storagetechnologies" / "storage technologies")."""
    have = set(other)
    joined = {a + b for a, b in itertools.pairwise(other) if min(len(a), len(b)) >= 3}
    out = []
    for i, tok in enumerate(tokens):
        if tok in have or _noise(tok, person) or _number(tok, i, person) is not None:
            continue
        if any(_same_word(tok, o, person) for o in have) or any(_same_glued(tok, o) for o in joined):
            continue
        glued = [a + b for a, b in ((tokens[i - 1] if i > 0 else "", tok), (tok, tokens[i + 1] if i + 1 < len(tokens) else ""))
                 if min(len(a), len(b)) >= 3]
        if any(_same_glued(g, o) for g in glued for o in have):
            continue
        out.append(tok)
    return out


def _same_glued(glued: str, word: str) -> bool:
    """Two words written as one equal a word, or a slip of it (a long word: name_rules.is_typo)."""
    return glued == word or (min(len(glued), len(word)) > 8 and is_typo(glued, word, prefix=False))


def _plural(x: str, y: str) -> bool:
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    return long_ in (short + "s", short + "es") or (short.endswith("y") and long_ == short[:-1] + "ies")


def _acronym_pair(short_key: str, short_name: str, long_key: str, long_name: str) -> bool:
    """short is an acronym of long (keys.acronym of its key or of its name as written)."""
    return short_key in {acronym(long_key), acronym(long_name) if long_name else ""} - {""}


@lru_cache(maxsize=1 << 16)
def _as_written(word: str, name: str) -> str:
    """A key's word as the name writes it ("quincy" in "John Quincy Adams" -> "Quincy"), else the word."""
    tokens = _WORDS.findall(name)
    for token in tokens:
        if token.casefold() == word:
            return token
    for token in tokens:
        if normalise_name(token) == word:
            return token.strip(".")
    return word


_WORDS = re.compile(r"[\w.'\u2019`]+")


def _shown(words: Sequence[str], name: str) -> str:
    return " ".join(repr(_as_written(w, name)) for w in words) if words else "none"


def slip_guard(key_a: str, key_b: str, counts: Mapping[str, int] | None) -> str | None:
    """Why two person names one slip apart (name_rules.person_slip 'typo' / 'swapped_typo') are left to a person:
    a word differs from the other's by a letter or two and the names of the type do not show one spelling
    rare beside an attested one (`counts`: how many person names hold each word, NameIndex.word_counts).
    "Jane Austen" / "Jane Austin" written once each, or "Waller" / "Walker" written in several names each,
    are two names as often as one; "Aidn" (once) beside "Aidan" (in many names) is a slip. None when
    `counts` is None (no corpus to tell) or every differing word is a rare spelling of an attested one.

    >>> slip_guard("jane austen", "jane austin", {"jane": 2, "austen": 1, "austin": 1})
    "a letter from another person's name: 'austen' / 'austin' (neither spelling is a rare slip of the other)"
    >>> slip_guard("aidn smith", "aidan smith", {"aidn": 1, "aidan": 7, "smith": 8}) is None
    True
    """
    if counts is None:
        return None
    ta, tb = key_a.split(), key_b.split()
    if len(ta) != len(tb):
        return None
    if len(ta) == 2 and sum(x != y for x, y in zip(ta, tb)) > sum(x != y for x, y in zip(ta, tb[::-1])):
        tb = tb[::-1]
    for x, y in zip(ta, tb):
        if x == y:
            continue
        cx, cy = counts.get(x, 0), counts.get(y, 0)
        if min(cx, cy) > 1 or max(cx, cy) < 2:
            return f"a letter from another person's name: {x!r} / {y!r} (neither spelling is a rare slip of the other)"
    return None
