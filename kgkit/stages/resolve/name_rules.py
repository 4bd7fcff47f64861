"""How two names agree or slip (pure string functions over match keys, `kgkit.stages.resolve.keys`):
a person key's parts, initials ("j smith" / "jane smith"), typos and slips, and a word one name has that the
other lacks.

>>> initials_rule("j smith", "jane smith"), person_slip("jon smith", "jon smyth")
('initials', 'typo')
>>> token_conflict("hamilton county", "milton county")
('hamilton', 'milton')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from rapidfuzz.distance import OSA

from kgkit.stages.resolve.keys import TITLES, split_suffix

__all__ = ["has_digit", "initials_rule", "is_typo", "person_parts", "person_slip", "person_suffix", "token_conflict"]


def person_parts(key: str) -> tuple[tuple[str, ...], str]:
    """(given names without titles, surname) of a person match key; a generational suffix is neither
    (`person_suffix`).

    >>> person_parts("jane b smith"), person_parts("james d anderson jr")
    ((('jane', 'b'), 'smith'), (('james', 'd'), 'anderson'))
    """
    given, surname, _suffix = _person_split(key)
    return given, surname


@lru_cache(maxsize=1 << 18)
def _person_split(key: str) -> tuple[tuple[str, ...], str, str]:
    """(given names without titles, surname, generational suffix) of a person key, once per key."""
    tokens, suffix = split_suffix(key.split())
    return tuple(t for t in tokens[:-1] if t not in TITLES), (tokens[-1] if tokens else ""), " ".join(suffix)


def person_suffix(key: str) -> str:
    """The generational suffix of a person match key ("jr", "iii"; "" when none).

    >>> person_suffix("james d anderson jr"), person_suffix("elizabeth ii"), person_suffix("jane smith")
    ('jr', 'ii', '')
    """
    return _person_split(key)[2]


def initials_rule(key_a: str, key_b: str) -> str | None:
    """How two person keys with one surname agree: 'initials' ("j smith" / "jane smith"), 'middle'
    ("jane b smith" / "jane smith"), 'surname_only' ("smith" / "jane smith") or None (they conflict).

    >>> initials_rule("jane b smith", "jane smith"), initials_rule("smith", "jane smith"), initials_rule("john smith", "jane smith")
    ('middle', 'surname_only', None)
    """
    given_a, last_a = person_parts(key_a)
    given_b, last_b = person_parts(key_b)
    suffix_a, suffix_b = person_suffix(key_a), person_suffix(key_b)
    if not last_a or last_a != last_b or (suffix_a and suffix_b and suffix_a != suffix_b):
        return None  # another surname, or father and son ("Jr" / "Sr", "II" / "III")
    if given_a == given_b and given_a:
        return "middle" if suffix_a != suffix_b else None  # one adds a suffix: the policy guard holds it back
    if not given_a or not given_b:
        return "surname_only"
    short, long_ = (given_a, given_b) if len(given_a) <= len(given_b) else (given_b, given_a)
    # every given name of the shorter form matches, in order, a name or initial of the longer one
    used_initial = False
    pos = 0
    for tok in short:
        while pos < len(long_):
            other = long_[pos]
            pos += 1
            if tok == other:
                break
            if (len(tok) == 1 and other.startswith(tok)) or (len(other) == 1 and tok.startswith(other)):
                used_initial = True
                break
        else:
            return None
    first, other_first = short[0], long_[0]
    if not (first == other_first or ((len(first) == 1 or len(other_first) == 1) and first[0] == other_first[0])):
        return None  # the first given names must agree ("Sarah" never pairs with "Sofia S.")
    if len(short) < len(long_) and not used_initial:
        return "middle"
    return "initials"


def has_digit(text: str) -> bool:
    """Whether any character is a digit (str.isdigit); a text of letters only is answered without a scan.

    >>> has_digit("apollo"), has_digit("apollo11"), has_digit("no. \u00b2")
    (False, True, True)
    """
    return not text.isalpha() and any(ch.isdigit() for ch in text)


def is_typo(a: str, b: str, *, prefix: bool = True) -> bool:
    """Two words one slip apart: Levenshtein distance 1, or 2 for words over 8 letters with one first
    letter, or one word a prefix (4+ letters) of the other.

    >>> is_typo("alkatel", "alcatel"), is_typo("hamilton", "milton"), is_typo("winchester", "manchester"), is_typo("1991", "1997")
    (True, False, False, False)
    >>> is_typo("nobel", "noble")
    True
    """
    if has_digit(a + b):
        return False  # "1991" / "1997", "No. 3" / "No. 5": numbers are never typos of each other
    if prefix and min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)):
        return True  # an abbreviation: "koninkl" / "koninklijke"
    limit = 2 if min(len(a), len(b)) > 8 and a[0] == b[0] else 1
    return OSA.distance(a, b, score_cutoff=limit) <= limit  # OSA: a swapped pair of letters is one slip


def person_slip(key_a: str, key_b: str, counts: Mapping[str, int] | None = None) -> str | None:
    """How two person keys are one name written with slips, else None:

    - 'swapped': the same words in another order ("smith john" / "john smith");
    - 'split': the same letters, a space added or lost ("joshu a hohn" / "joshua hohn");
    - 'typo': as many words, in order or (two words) swapped ('swapped_typo'), each pair of words equal or
      one slip apart (`is_typo` without prefixes). A word of 5+ letters may slip; a shorter one
      ("lily" / "liky", "bea" / "beau") only when `counts` (how many names of the type hold each word) shows
      one side written in one name only and the other in several: a rare word next to a common one is a
      slip of it, two attested words ("mark" / "mary") are two names.

    >>> person_slip("jon smith", "jon smyth"), person_slip("smith john", "john smith"), person_slip("janet smith", "janett smith")
    ('typo', 'swapped', 'typo')
    >>> person_slip("mark smith", "mary smith") is None  # short given names: too many real pairs one letter apart
    True
    >>> person_slip("lily nguyen", "liky nguyen", {"lily": 4, "liky": 1, "nguyen": 9})
    'typo'
    >>> person_slip("sarah stewart", "sofia stewart") is None
    True
    >>> person_slip("stubbs jaxck", "jack stubbs", {"jack": 3, "jaxck": 1}), person_slip("joshu a hohn", "joshua hohn")
    ('swapped_typo', 'split')
    """
    ta, tb = key_a.split(), key_b.split()
    if ta == tb or min(len(ta), len(tb)) < 2:
        return None
    if len(ta) != len(tb):
        return "split" if "".join(ta) == "".join(tb) else None
    if sorted(ta) == sorted(tb):
        return "swapped"
    if _slipped(ta, tb, counts):
        return "typo"
    if len(ta) == 2 and _slipped(ta, tb[::-1], counts):
        return "swapped_typo"
    return None


def _slipped(ta: Sequence[str], tb: Sequence[str], counts: Mapping[str, int] | None) -> bool:
    """Every pair of words equal or one slip apart (see person_slip), at least one not equal."""
    differ = [(x, y) for x, y in zip(ta, tb) if x != y]
    if not differ:
        return False
    for x, y in differ:
        short = min(len(x), len(y))
        if short < 3 or abs(len(x) - len(y)) > 2:
            return False
        distance = OSA.distance(x, y, score_cutoff=2)
        if distance > 2 or (distance == 2 and (short < 6 or x[0] != y[0])) or has_digit(x + y):
            return False
        if (distance == 2 and short <= 8) or short < 5:  # a slip in a short word, or two in a mid-length one:
            cx, cy = (counts.get(x, 0), counts.get(y, 0)) if counts is not None else (2, 2)
            if min(cx, cy) > 1 or max(cx, cy) < 2:  # only a rare spelling beside an attested one
                return False
    return True


def token_conflict(key_a: str, key_b: str) -> tuple[str, str] | None:
    """A word of each name that the other lacks and that is no typo of any word there ("hamilton county" /
    "milton county"); None when one name only adds words or the differences are typos.

    >>> token_conflict("hamilton county", "milton county"), token_conflict("philips electronics", "koninklijke philips electronics")
    (('hamilton', 'milton'), None)
    """
    ta, tb = set(key_a.split()), set(key_b.split())
    only_a, only_b = ta - tb, tb - ta
    if not only_a or not only_b:
        return None
    typos = [(w, v) for w in only_a for v in only_b if is_typo(w, v)]  # is_typo is symmetric: each pair once
    lone_a, lone_b = only_a.difference(w for w, _v in typos), only_b.difference(v for _w, v in typos)
    return (min(lone_a), min(lone_b)) if lone_a and lone_b else None
