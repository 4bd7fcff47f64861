"""Match keys and name rules for entity resolution (pure string functions).

`match_key` is looser than `kgkit.core.names.normalise_name` (which defines entity ids and must not change):
on top of Unicode and case folding it expands common abbreviations, joins spelled-out initialisms, reorders
"Last, First", drops a leading "The", person titles ("Dr.", "Mr.", "Senator") and legal-form suffixes
("Inc.", "Ltd", "Corp", "N.V."). Two names with one match key (and one type) are the same entity by the
exact step of the cascade.

>>> match_key("Dr. Jane Smith", "Person"), match_key("Smith, Jane", "Person")
('jane smith', 'jane smith')
>>> match_key("The Acme Corporation", "Organization"), match_key("ACME Corp.", "Organization")
('acme corp', 'acme corp')
>>> match_key("Dr. Smith", "Person"), match_key("Acme, Inc.", "Organization")
('dr smith', 'acme inc')
>>> match_key("ADIDAS INTERNATL MARKETING B.V", "Organization")
'adidas international marketing bv'
>>> acronym("International Business Machines")
'ibm'

The rules that compare two names (person parts, initials, typos, conflicting words) are in
`kgkit.stages.resolve.name_rules`.
>>> information_bits("john") < information_bits("jane smith")
True
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from kgkit.core.names import normalise_name

PERSON_TYPES = frozenset({"Person", "PERSON", "person"})
PLACE_TYPES = frozenset({"Location", "LOCATION", "location", "Place", "PLACE", "GPE", "City", "CITY"})
PLACE_QUALIFIERS = frozenset({"area", "region", "metro", "vicinity"})
"""A trailing "area" or "region" after a place name is dropped from a place's key ("Springfield area")."""

TITLES = frozenset(["dr", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame", "lord", "lady", "judge", "justice", "senator", "sen", "rep", "representative", "gov", "governor", "president", "pres", "detective", "det", "officer", "capt", "captain", "sgt", "lt", "col", "rev", "reverend", "fr", "father", "sister", "brother", "mayor", "chancellor", "minister", "secretary"])
PERSON_SUFFIXES = frozenset(["phd", "md", "esq", "dds", "mba"])
"""Degrees after a person name: dropped from the key ("Jane Smith, PhD" = "Jane Smith")."""
GENERATIONAL = {"jr": "jr", "jnr": "jr", "junior": "jr", "sr": "sr", "snr": "sr", "senior": "sr"}
"""Generational suffixes (their canonical form): a name part of their own, kept at the end of a person's key,
never read as the surname ("James D. Anderson, Jr." has the surname Anderson and the suffix Jr)."""
ROMAN_NUMERAL = re.compile(r"^(x{0,3})(ix|iv|v?i{0,3})$")
LEGAL_FORMS = {"incorporated": "inc", "corporation": "corp", "company": "co",
               "companies": "co", "limited": "ltd", "naamloze vennootschap": "nv", "besloten vennootschap": "bv",
               "aktiengesellschaft": "ag", "societe anonyme": "sa", "gesellschaft mit beschrankter haftung": "gmbh"}
"""Spelled-out legal forms -> their canonical short form (kept in the key: "Acme Inc" and "Acme Corp" may
be two companies; names that differ only in legal form are paired by the `legal_form` rule instead)."""
LEGAL_SUFFIXES = frozenset(["inc", "corp", "co", "ltd", "llc", "llp", "plc", "gmbh", "ag", "sa", "nv", "bv", "srl", "spa", "pty", "lp", "sarl", "se", "kk", "oy", "ab", "cie"])
ROYAL_PREDICATES = frozenset(["koninklijke", "koninkl", "kgl", "kongelige"])
"""A royal predicate granted to a company ("Koninklijke Philips" is Philips): a qualifier, not a name word."""
GLUED_LEGAL_FORMS = ("gmbh", "nv", "bv", "ltd", "llc", "plc")
"""Legal forms that may be glued to the name ("UNILEVERNV", "...INDUSTRIESB.V."): comparing names without
spaces (`squash`) drops one of these from the end when at least four letters remain."""
KIND_WORDS = frozenset(["group", "bank", "foundation", "institute", "capital", "holding", "partner", "association", "university", "laboratory", "system", "service", "industry", "technology", "fund", "trust", "agency", "council", "center", "society", "hospital", "school", "college"])
COUNTRIES = frozenset({"usa", "us", "uk", "united states", "united kingdom", "england", "canada", "germany",
                       "france", "netherlands", "the netherlands", "nl", "japan", "china", "australia"})
ABBREVIATIONS = {
    "intl": "international", "internatl": "international", "int": "international", "bk": "bank",
    "fdn": "foundation", "grp": "group", "hldgs": "holdings", "hldg": "holding", "inst": "institute",
    "univ": "university", "assn": "association", "assoc": "association", "dept": "department",
    "natl": "national", "nat": "national", "mfg": "manufacturing", "tech": "technology", "labs": "laboratories",
    "lab": "laboratory", "ctr": "center", "centre": "center", "svcs": "services", "sys": "systems",
    "mgmt": "management", "cap": "capital", "&": "and",
}
STOPWORDS = frozenset({"of", "the", "and", "for", "&", "de", "der", "van", "la", "le", "du"})


def _join_initials(tokens: list[str]) -> list[str]:
    """Runs of two or more single letters become one token: "n v" -> "nv", "i b m" -> "ibm"."""
    out: list[str] = []
    run: list[str] = []
    for tok in [*tokens, ""]:
        if len(tok) == 1 and tok.isalpha():
            run.append(tok)
            continue
        if len(run) >= 4 and "".join(run[-2:]) in ("nv", "bv"):
            out += ["".join(run[:-2]), "".join(run[-2:])]  # "D S M N V" -> "dsm nv"
        elif len(run) >= 2:
            out.append("".join(run))
        else:
            out.extend(run)
        run = []
        if tok:
            out.append(tok)
    return out


def _reorder(name: str, person: bool) -> str:
    """'Smith, Jane' -> 'Jane Smith' (people); a trailing ', Inc.' or ', USA' is dropped; a person's
    generational suffix written after a comma goes to the end ("Anderson, James D., Jr." -> "James D.
    Anderson Jr.")."""
    parts = [p.strip() for p in name.split(",")]
    if person and len(parts) > 2 and normalise_name(parts[-1]) in GENERATIONAL:
        return f"{_reorder(', '.join(parts[:-1]), person)} {parts[-1]}"
    if len(parts) < 2:
        return name
    tail = normalise_name(parts[-1])
    if tail in COUNTRIES and normalise_name(", ".join(parts[:-1])):
        return ", ".join(parts[:-1])
    if tail in LEGAL_FORMS or tail in LEGAL_SUFFIXES or tail.replace(" ", "") in LEGAL_SUFFIXES:
        return " ".join(parts)
    if person and len(parts) == 2 and len(parts[0].split()) == 1 and 1 <= len(parts[1].split()) <= 3:
        return f"{parts[1]} {parts[0]}"
    if not person and len(parts) == 2 and len(tail.split()) <= 2 and not any(c.isdigit() for c in tail) and any(
            LEGAL_FORMS.get(t, t) in LEGAL_SUFFIXES for t in _join_initials(normalise_name(parts[0]).split())):
        return parts[0]  # "N.V. Nutricia, Zoetermeer": after a legal form, a comma and a word or two is a place
    return name


def match_key(name: str, entity_type: str | None = None) -> str:
    """The loose key of a name for the exact step (see module doc). Never empty for a name with a character
    other than white space: if stripping would remove every word, the normalised name is kept, and a name of
    punctuation alone is its own key.

    >>> match_key("United Kingdom", "Location"), match_key("Government of the United Kingdom", "Organization")
    ('united kingdom', 'government of the united kingdom')
    >>> match_key("Anderson, James D., Jr.", "Person"), match_key("Smith, John Junior", "Person"), match_key("!!", "Other")
    ('james d anderson jr', 'john smith jr', '!!')
    """
    return _match_key(name, entity_type) or normalise_name(name) or name.strip().casefold()


def _match_key(name: str, entity_type: str | None) -> str:
    person = entity_type in PERSON_TYPES
    text = name.strip().lstrip("*").strip()
    if not person:
        # text in parentheses is words of the name ("Sofia (stolitsa)" is not Sofia province, "Treaty of Paris
        # (1783)" not that of 1763); after a legal form it goes with the address ("Philips N.V. (KPENV)")
        text = _PARENS.sub(lambda m: f" {m.group(1)} ", text).strip() or text
        text = _GLUED_INITIALS.sub(r"\1\2 ", text)  # "N.V.PHILIPS" -> "NV PHILIPS"
        text = _LEGAL_PHRASES.sub(lambda m: _LEGAL_PHRASE_FORM[normalise_name(m.group(0))], text)
    text = _reorder(text, person)
    base = _normalise(text)
    tokens = _join_initials([ABBREVIATIONS.get(t, t) for t in base.split()])
    if not tokens:
        return base
    kept = list(tokens)
    while len(kept) > 1 and kept[0] == "the":
        kept = kept[1:]
    if person:
        while len(kept) > 1 and kept[-1] in PERSON_SUFFIXES:
            kept = kept[:-1]
        kept, suffix = split_suffix(kept)
        # titles go only when a given name and a surname remain: "Dr. Smith" and "Mr. Smith" stay apart
        while len(kept) > 2 and kept[0] in TITLES:
            kept = kept[1:]
        kept = [*kept, *suffix]
    else:
        kept = _legal_form_last(kept)
        last = kept[-1]
        if len(kept) > 1 and last.endswith("s") and (last[:-1] in KIND_WORDS or last[:-1] in LEGAL_FORMS):
            kept[-1] = last[:-1]  # a plural slip on the kind word: "Acme Corporations", "Alpine Groups"
        kept = [LEGAL_FORMS.get(t, t) for t in kept]
        # a trailing country after a name ("Philips Research The Netherlands"), not the object of one
        # ("Government of the United Kingdom") nor the whole name ("United States")
        while len(kept) > 2 and " ".join(kept[-2:]) in COUNTRIES and kept[-3] not in STOPWORDS:
            kept = kept[:-2]
        if entity_type in PLACE_TYPES:
            while len(kept) > 1 and kept[-1] in PLACE_QUALIFIERS:
                kept = kept[:-1]
        kept = _year_first(kept)
    return " ".join(kept)


def _year_first(tokens: list[str]) -> list[str]:
    """A trailing "of 2001" or "2001" becomes a leading year: "Piper Summit of 2001" = "2001 Piper Summit"
    (the same words; only the date moved). Other words keep their order."""
    if len(tokens) > 1 and is_year(tokens[-1]):
        rest = tokens[:-2] if len(tokens) > 2 and tokens[-2] in ("of", "in") else tokens[:-1]
        return [tokens[-1], *rest]
    return tokens


_normalise = lru_cache(maxsize=1 << 18)(normalise_name)
"""normalise_name, once per text: a name's key, acronym and titles normalise the same text."""


def qualifier_words(key_a: str, key_b: str) -> tuple[str, ...]:
    """The words one key adds to the other, in order, when every one of them is a qualifier — a year, a
    kind word ("Bank", "Group", "Holdings") or a legal form — and the other words agree in order; else ().

    >>> qualifier_words("piper summit", "2001 piper summit"), qualifier_words("wingtip vandelay", "wingtip vandelay bank")
    (('2001',), ('bank',))
    >>> qualifier_words("acme bank", "acme group"), qualifier_words("mifflin holdings", "mifflin acme holdings")
    ((), ())
    """
    words_a, words_b = key_a.split(), key_b.split()
    if len(words_a) == len(words_b) or not words_a or not words_b:
        return ()
    short, long_ = (words_a, words_b) if len(words_a) < len(words_b) else (words_b, words_a)
    extra: list[str] = []
    pos = 0
    for tok in long_:
        if pos < len(short) and tok == short[pos]:
            pos += 1
        elif is_qualifier(tok):
            extra.append(tok)
        else:
            return ()
    return tuple(extra) if pos == len(short) else ()


def is_qualifier(token: str) -> bool:
    """A year, a kind word (or its plural), a legal form or a royal predicate: words that qualify a name
    without naming it."""
    return (is_year(token) or token in KIND_WORDS or token.rstrip("s") in KIND_WORDS or token in LEGAL_SUFFIXES
            or token in ROYAL_PREDICATES)


@lru_cache(maxsize=1 << 18)
def core_key(key: str) -> str:
    """A key without its qualifier words (keys.is_qualifier): equal core keys are what qualifier_words
    can pair.

    >>> core_key("2001 piper summit"), core_key("wingtip vandelay bank")
    ('piper summit', 'wingtip vandelay')
    """
    return " ".join(t for t in key.split() if not is_qualifier(t)) or key


def is_year(token: str) -> bool:
    """A four-digit year 1000-2999.

    >>> is_year("2001"), is_year("20011"), is_year("3m")
    (True, False, False)
    """
    return len(token) == 4 and token.isdigit() and token[0] in "12"


_PARENS = re.compile(r"\(([^)]*)\)")
_LEGAL_PHRASE_FORM = {k: v for k, v in LEGAL_FORMS.items() if " " in k}
_LEGAL_PHRASES = re.compile("|".join(r"\b" + k.replace("e", "[eé]").replace(" ", r"\s+") + r"\b" for k in _LEGAL_PHRASE_FORM),
                            re.IGNORECASE)
_GLUED_INITIALS = re.compile(r"\b([A-Za-z])\.\s?([A-Za-z])\.(?=\w\w)")


def _legal_form_last(tokens: list[str]) -> list[str]:
    """A leading legal form moves to the end ("N.V. Philips" = "Philips N.V."); what follows a legal form
    written short is an address or a place ("Philips N.V., Eindhoven", "... N.V. Groenewoudseweg 1") and is
    dropped. After one written out it is part of the name ("Government Corporation Control Act").

    >>> _legal_form_last("philips nv groenewoudseweg 1".split()), _legal_form_last("government corporation control act".split())
    (['philips', 'nv'], ['government', 'corp', 'control', 'act'])
    """
    canon = [LEGAL_FORMS.get(t, t) for t in tokens]
    short = [t in LEGAL_SUFFIXES for t in tokens]
    if len(canon) > 1 and canon[0] in LEGAL_SUFFIXES:
        canon, short = [*canon[1:], canon[0]], [*short[1:], short[0]]
    for i in range(1, len(canon)):
        if short[i] and i < len(canon) - 1 and canon[i + 1] not in LEGAL_SUFFIXES:
            return canon[: i + 1]
    return canon


def base_key(key: str) -> str:
    """A match key without its trailing legal forms ("acme corp" -> "acme").

    >>> base_key("akzo nobel nv"), base_key("akzo nobel co")
    ('akzo nobel', 'akzo nobel')
    """
    tokens = key.split()
    while len(tokens) > 1 and tokens[-1] in LEGAL_SUFFIXES:
        tokens = tokens[:-1]
    return " ".join(tokens)


@lru_cache(maxsize=1 << 18)
def squash_key(key: str) -> str:
    """A key without legal forms and spaces, a legal form glued to its end dropped too: names equal up to
    spacing and legal form ("gist brocades bv" / "gistbrocades", "unilevernv" / "unilever nv").

    >>> squash_key("gist brocades bv"), squash_key("unilevernv")
    ('gistbrocades', 'unilever')
    """
    out = base_key(key).replace(" ", "")
    for form in GLUED_LEGAL_FORMS:
        if out.endswith(form) and len(out) - len(form) >= 4:
            return out[: -len(form)]
    return out


@lru_cache(maxsize=1 << 18)
def acronym(name: str) -> str:
    """Initials of the significant words of a name ('' for a one-word name).

    >>> acronym("Acme Research Institute"), acronym("IBM")
    ('ari', '')
    """
    words = [w for w in _normalise(name).split() if w not in STOPWORDS]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


@lru_cache(maxsize=1 << 18)
def looks_like_acronym(name: str) -> bool:
    """A single short word of letters, as written ('IBM', 'I.B.M.', 'Ibm').

    >>> looks_like_acronym("I.B.M."), looks_like_acronym("Acme Corp")
    (True, False)
    """
    tokens = normalise_name(name).split()
    joined = "".join(tokens)
    return 2 <= len(joined) <= 6 and joined.isalpha() and (len(tokens) == 1 or all(len(t) == 1 for t in tokens))


def information_bits(key: str) -> float:
    """Characters x Shannon entropy per character of a key (spaces ignored): how much a name says.

    >>> round(information_bits("aaaa"), 1), round(information_bits("inc"), 1)
    (0.0, 4.8)
    """
    chars = key.replace(" ", "")
    if not chars:
        return 0.0
    counts = Counter(chars)
    n = len(chars)
    entropy = -sum(c / n * math.log2(c / n) for c in counts.values())
    return n * entropy + 0.0  # never -0.0


def leading_titles(name: str) -> frozenset[str]:
    """The titles a person name is written with ("Dr. Jane Smith" -> {"dr"}; "Smith, Dr. Jane" too).

    >>> sorted(leading_titles("Senator Elizabeth Warren")), sorted(leading_titles("Jane Smith"))
    (['senator'], [])
    """
    out = set()
    for tok in _normalise(_reorder(name.strip().lstrip("*").strip(), True)).split()[:-1]:
        if tok not in TITLES:
            break
        out.add(tok)
    return frozenset(out)


def _is_suffix(token: str, last: bool) -> bool:
    """A generational suffix: Jr / Sr (any spelling), a Roman numeral of two or more letters ("II", "IV"),
    or at the end of the name a one-letter numeral ("Elizabeth I"; elsewhere "V" is an initial)."""
    return token in GENERATIONAL or (bool(ROMAN_NUMERAL.match(token)) and (len(token) > 1 or last) and token != "")


def split_suffix(tokens: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the name without its generational suffixes, the suffixes in canonical form); at least one word
    stays a name word ("Jr." alone is a name, not a suffix)."""
    name: list[str] = []
    suffix: list[str] = []
    for i, tok in enumerate(tokens):
        if i > 0 and _is_suffix(tok, i == len(tokens) - 1):
            suffix.append(GENERATIONAL.get(tok, tok))
        else:
            name.append(tok)
    return name, suffix


def shingles(key: str, k: int = 3) -> list[str]:
    """Character k-shingles of a key padded with one space each side.

    >>> shingles("ab", 3)
    [' ab', 'ab ']
    """
    padded = f" {key} "
    return [padded[i : i + k] for i in range(max(len(padded) - k + 1, 1))]
