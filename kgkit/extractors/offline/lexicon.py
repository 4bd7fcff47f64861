"""Word lists of the offline extractor: titles, generic capitalised words, words that tell an entity's type.

All lower case. They describe English, not any corpus: a title before a name ("Prime Minister Churchill"), a
capitalised word that names nothing by itself ("Government", "Board"), the head word of a name ("... County",
"... University", "... Act") and the common noun that classifies a name in context ("the town of X", "X is a
German film", "the cruiser X").
"""

from __future__ import annotations

from kgkit.extractors.offline.wordlists import table, words

__all__ = ["ADJECTIVAL", "BY_PERSON", "CLASSIFIERS", "COMPASS", "DEMONYMS", "DETERMINERS", "DIRECTIONAL", "GENERIC", "HEADS",
           "HONORIFICS", "HYPOTHETICAL", "KIN", "LOCATIVE", "MODAL", "MONTHS", "MOTION", "NAME_PARTICLES", "NEGATING",
           "PERSON_SUBJECT", "PREFIXES", "QUOTE_MARKS", "RANKS", "SEIZED", "SENTENCE_ADVERBS", "SUFFIXES", "TITLES", "WORK_OBJECT",
           "names_nothing", "split_title"]

HONORIFICS = words("lexicon", "honorifics")

TITLES = HONORIFICS | words("lexicon", "titles")  # Irish offices: Taoiseach, Tánaiste, Teachta Dála (a member of the Dáil)

NAME_PARTICLES = words("lexicon", "name_particles")

SUFFIXES = words("lexicon", "suffixes")

# capitalised words that name nothing by themselves ("the Government", "the Board"): a name made only of these
# (and titles and function words) is not an entity
GENERIC = words("lexicon", "generic")

# head word (the name's last word) -> the label it implies
HEADS: dict[str, str] = {}
for _label, _words in table("lexicon", "heads").items():
    HEADS.update((_w, _label) for _w in _words.split())

# a common noun classifying a name beside it -> the label it implies ("the town of X", "X is a German film")
CLASSIFIERS: dict[str, str] = {}
for _label, _words in table("lexicon", "classifiers").items():
    CLASSIFIERS.update((_w, _label) for _w in _words.split())

# prepositions whose object is a place when it is a named thing ("in Kwajalein", "at Stalingrad"), and those
# that say so after a verb of motion ("taken to Kwajalein", "fled from Burma")
DETERMINERS = words("lexicon", "determiners")
"""Determiners no name starts with (spaCy may tag a capitalised one NNP: "Rodin's The Thinker")."""
MONTHS = words("lexicon", "months")
QUOTE_MARKS = words("lexicon", "quote_marks")
"""Quotation marks as spaCy's tokens hold them (straight, curly, and the `` '' of pre-tokenised text)."""
LOCATIVE = words("lexicon", "locative")
DIRECTIONAL = words("lexicon", "directional")
MOTION = words("lexicon", "motion")
# nouns whose "of" names a place ("our invasion of Kwajalein", "the fall of Stalingrad")
SEIZED = words("lexicon", "seized")

# what the context says of a name (kgkit.extractors.offline.votes): the agent of these verbs is a person ("directed
# by X", "voiced by X"); their subject is a person ("X died", "X was born"); their object or passive subject is a
# work ("released X", "X was published"); a kinship noun before "of" or after a possessive names a person ("the
# son of X", "X's wife"); a compass word before "of" names a place ("southwest of Flagstaff")
BY_PERSON = words("lexicon", "by_person")
PERSON_SUBJECT = words("lexicon", "person_subject")
WORK_OBJECT = words("lexicon", "work_object")
KIN = words("lexicon", "kin")
COMPASS = words("lexicon", "compass")

# nationality words: a nationality before a person's name is no part of it ("Irishman Tadhg Kennelly"), and one
# alone is a group, not a person ("Americans")
_NATIONALITIES = table("lexicon", "nationalities")
DEMONYMS = frozenset(w for stem in _NATIONALITIES.split()
    for w in ((stem,) if stem.endswith(("sh", "ch", "ese", "ss")) else (stem, stem + "s"))) | frozenset(
    f"{stem}{end}" for stem in ("english", "irish", "french", "scots", "dutch", "welsh")
    for end in ("man", "men", "woman", "women"))

# a name's first word -> the label it implies ("Lake Tana", "Battle of Midway", "University of Toronto")
PREFIXES = {w: label for label, words in table("lexicon", "prefixes").items() for w in words.split()}

MODAL = words("lexicon", "modal")
HYPOTHETICAL = words("lexicon", "hypothetical")
NEGATING = words("lexicon", "negating")

_FUNCTION_WORDS = words("lexicon", "function_words")

# titles that open no organisation's name: "Admiral Dufek" is a person whatever spaCy said
RANKS = words("lexicon", "ranks")
# generic words that qualify rather than name ("Federal Government", "National Committee")
ADJECTIVAL = words("lexicon", "adjectival")
SENTENCE_ADVERBS = words("lexicon", "sentence_adverbs")


def names_nothing(name: str) -> bool:
    """A name made only of generic capitalised words, titles and function words: "the Government", "Federal
    Government", "President", "the Secretary of State" (also applied to LLM output).

    >>> names_nothing("the Federal Government"), names_nothing("Prime Minister"), names_nothing("Bank of England")
    (True, True, False)
    """
    words = [w.strip(".,;:'’\"").lower() for w in name.split()]
    words = [w[:-2] if w.endswith(("'s", "’s")) else w for w in words if w]
    return bool(words) and all(w in GENERIC or w in TITLES or w in _FUNCTION_WORDS or (w.endswith("s") and w[:-1] in GENERIC)
                               for w in words)


def split_title(name: str) -> tuple[str, str]:
    """(title, name) for a person's name that starts with titles: "Prime Minister Churchill" -> ("Prime Minister",
    "Churchill"); ("", name) when it does not, or when nothing but titles would be left.

    >>> split_title("Prime Minister Winston Churchill"), split_title("Churchill"), split_title("General")
    (('Prime Minister', 'Winston Churchill'), ('', 'Churchill'), ('', 'General'))
    """
    words = name.split()
    n = 0
    while n < len(words) - 1 and words[n].lower() in TITLES:
        n += 1
    if n == 0 or words[n].lower() in ("of", "for", "to"):
        return "", name
    return " ".join(words[:n]), " ".join(words[n:])

