"""Joins: candidate name spans that are pieces of one longer name, joined again (applied by
kgkit.extractors.offline.spans after its own joins; a wrong piece in the graph is worse than the whole name).

- A regnal number after a monarch's name the NER did not call a person: "King Constantine I of Greece" (the name
  opens with a royal or papal title; an "I" is followed by punctuation, "of", "in", "and" or "'s"), and a number
  from II after a person's name whatever follows ("Louis XIV was"; not "V" or "X").
- A name, its possessive "'s" and one capitalised place or facility word after it are one name: "Martha's River",
  "St. Joseph's Cemetery" (that word ends the name and names nothing alone; "Tehran's Central Railway Station"
  stays two).
- A name's "'s" that owns no noun (punctuation follows) is part of the name of a band, firm or shop: "Plain White
  T's", "Sotheby's" (not a person's name: "to Bob Cratchit's" is his house; not after "of" or "and": "a nephew of
  Scrooge's", "Scrooge and Marley's"; not a plural: "B-29's").
- A capitalised word inside a sentence that the tagger read as a verb or adverb is a word of the name it stands
  in or modifies: "Casa Grande [Ruins] National Monument", "[Creve] Coeur Park", "[Philly] Joe Jones" (not after
  "to": "the Campaign to Suppress ...").
- A court's, commission's or council's name and the name of what it is for are one: "the United States Court of
  Appeals for the Second Circuit" (not a league and a team: "Major League Baseball for the Chicago White Sox").
- An honorific before a surname opening with a lower-case particle stays in the person's name: "Madame de
  Graffigny" ("de Graffigny" alone is no way to name her).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import HEADS, HONORIFICS, NAME_PARTICLES, TITLES
from kgkit.extractors.offline.parsed import sentence_of
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["join_pieces", "verbal_name_word"]

Span3 = tuple[int, int, str]
_ROYAL = words("joins", "royal")
_REGNAL = words("joins", "regnal")
_VERBAL = words("joins", "verbal")
_PLACE_HEADS = frozenset(w for w, label in HEADS.items() if label in ("LOC", "FAC"))


def join_pieces(doc: Doc, spans: list[Span3]) -> list[Span3]:
    """The spans (sorted) with pieces of one name joined (see the module's docstring).

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> doc = load_model(DEFAULT_MODEL)("A ramada can be seen at the Casa Grande Ruins National Monument in Arizona.")
    >>> [doc[a:b].text for a, b, _ in join_pieces(doc, [(7, 9, "NAME"), (10, 12, "FAC"), (13, 14, "GPE")])]
    ['Casa Grande Ruins National Monument', 'Arizona']
    """
    spans = _regnal(doc, spans)
    spans = [(a, b + 1, label) if b < len(doc) and label not in ("PERSON", "NORP") and owns_nothing(doc[b]) else (a, b, label)
             for a, b, label in spans]  # "Plain White T's", a band
    spans = [(a, b, "PERSON" if before_particle([t for t in doc[a:b] if t.lower_ != "the"]) else label)
             for a, b, label in spans]  # "the Madame de Graffigny correspondence"
    spans = [_verbal_modifier(doc, span) for span in spans]
    out: list[Span3] = []
    for span in spans:
        if out and sentence_of(doc, out[-1][0]) == sentence_of(doc, span[0]):
            joined = _joined(doc, out[-1], span)
            if joined is not None:
                out[-1] = joined
                continue
        out.append(span)
    return out


def _joined(doc: Doc, a: Span3, b: Span3) -> Span3 | None:
    """The one name `a` and `b` make, or None."""
    gap = list(doc[a[1] : b[0]])
    words = [t.text for t in gap]
    possessive = [t for t in doc[a[0] : b[0]] if t.tag_ == "POS"]
    if (possessive and possessive[-1].i == b[0] - 1 and b[1] - b[0] == 1 and doc[b[0]].lower_ in _PLACE_HEADS
            and doc[b[0]].is_title and (b[1] == len(doc) or not doc[b[1]].text[:1].isupper())
            and b[0] - a[0] <= 4 and doc[b[0] - 2].text[:1].isupper()):
        return a[0], b[1], b[2]  # "Martha's River", "St. Joseph's Cemetery"
    if (len(gap) == 1 and verbal_name_word(gap[0]) and doc[b[0]].text[:1].isupper()
            and doc[a[1] - 1].text[:1].isupper()):
        return a[0], b[1], b[2]  # "Casa Grande Ruins National Monument"
    if (words in (["for"], ["for", "the"]) and a[2] == "ORG" and _for_head(doc, a) and doc[a[1] - 1].is_title
            and doc[b[0] + (doc[b[0]].lower_ == "the")].is_title and b[2] not in ("PERSON", "NORP", "DATE", "CARDINAL", "ORDINAL")):
        return a[0], b[1], a[2]  # "the United States Court of Appeals for the Second Circuit"
    return None


_FOR_HEADS = words("joins", "for_heads")


def _for_head(doc: Doc, a: Span3) -> bool:
    """Whether a body's name ends in a head word that names what it is for ("Court", "Commission"), alone or with
    its "of" phrase ("Court of Appeals")."""
    words = [t.lower_ for t in doc[a[0] : a[1]]]
    return words[-1] in _FOR_HEADS or (len(words) >= 3 and words[-3] in _FOR_HEADS and words[-2] == "of")


def _verbal_modifier(doc: Doc, span: Span3) -> Span3:
    """The span with a verbal-tagged capitalised word just before it that modifies a word of it ("[Creve] Coeur
    Park"), when the word before that is no capitalised word."""
    first = span[0]
    if first == 0 or not verbal_name_word(doc[first - 1]) or doc[first - 1].dep_ != "compound":
        return span
    word = doc[first - 1]
    before = doc[first - 2] if first >= 2 else None
    if not (first <= word.head.i < span[1]) or (before is not None and (before.text[:1].isupper() or before.lower_ == "to")):
        return span
    return first - 1, span[1], span[2]


def before_particle(tokens: list[Token]) -> bool:
    """Whether the first of `tokens` is an honorific before a surname opening with a lower-case particle: it stays
    in the name ("Madame de Graffigny", "Monsieur de Tréville"), as "de Graffigny" alone is no way to name her.

    >>> import spacy
    >>> before_particle(list(spacy.blank("en")("Madame de Graffigny"))), before_particle(list(spacy.blank("en")("Madame Curie")))
    (True, False)
    """
    return len(tokens) > 2 and tokens[0].lower_ in HONORIFICS and tokens[1].is_lower and tokens[1].lower_ in NAME_PARTICLES


def owns_nothing(token: Token) -> bool:
    """Whether `token` is a possessive "'s" after a capitalised name that owns no noun (punctuation follows): the
    "'s" ends the name of a band, firm or shop ("Plain White T's", "Sotheby's"). Not after "of" or "and" a few
    words before ("a nephew of Scrooge's", "Scrooge and Marley's"), not a plural written with "'s" ("B-29's",
    "GI's"), nor a name the text also ends a name with elsewhere ("the face was Marley's.": elliptical). The
    caller leaves persons' names out ("to Bob Cratchit's": his house).

    >>> import spacy
    >>> doc = spacy.blank("en")("books for Scribner 's , and Scribner 's sons")
    >>> for t in doc:
    ...     t.tag_ = "POS" if t.text == "'s" else "NN"
    >>> owns_nothing(doc[3]), owns_nothing(doc[7])
    (True, False)
    """
    doc, i = token.doc, token.i
    word = doc[i - 1] if i > 0 else None  # not a plural written with "'s": "B-29's", "GI's", "1990's"
    return (token.tag_ == "POS" and token.text in ("'s", "’s") and word is not None and word.text[:1].isupper()
            and not any(t.lower_ in ("of", "and", "&") for t in doc[max(i - 5, 0) : i])  # "a nephew of Scrooge's"
            and not any(c.isdigit() for c in word.text) and not (word.is_upper and len(word.text) > 1)
            and (i + 1 == len(doc) or doc[i + 1].text in (",", ".", ";", ":", ")"))
            and not any(t.text == word.text and t.i + 1 < len(doc) and doc[t.i + 1].tag_ != "POS"
                        and not doc[t.i + 1].text[:1].isupper() for t in doc if t.i != word.i))


def verbal_name_word(token: Token) -> bool:
    """A capitalised word inside a sentence the tagger read as a verb or adverb ("Ruins", "Creve", "Philly"): a
    name's word ("Hitherto Congress" opens a sentence: no name's).

    >>> import spacy
    >>> doc = spacy.blank("en")("the drummer Philly Joe Jones")
    >>> doc[2].tag_, doc[0].is_sent_start = "RB", True
    >>> verbal_name_word(doc[2]), verbal_name_word(doc[0])
    (True, False)
    """
    return (token.tag_ in _VERBAL and token.is_alpha and token.is_title and not token.is_sent_start
            and token.lower_ not in TITLES)


def _regnal(doc: Doc, spans: list[Span3]) -> list[Span3]:
    """A regnal number joins a monarch's name that opens with a royal title whatever the NER's label ("King
    Constantine I of Greece"), and a person's name whatever word follows when it is no "I", "V" or "X" ("Louis XIV
    was"); an "I" joins only before a sentence's end, punctuation, "of", "in", "and" or "'s" (before a verb it may
    be the pronoun)."""
    out = []
    for first, end, label in spans:
        opening = doc[first + (doc[first].lower_ == "the")]
        if end >= len(doc) or doc[end].text not in _REGNAL or any(s[0] <= end < s[1] for s in spans):
            out.append((first, end, label))
            continue
        sure = doc[end].text not in ("I", "V", "X") and doc[end - 1].text[:1].isupper()  # no pronoun, letter or "versus"
        followed = end + 1 >= len(doc) or doc[end + 1].is_punct or doc[end + 1].lower_ in ("of", "in", "and", "'s", "’s")
        if (label != "PERSON" and opening.lower_ in _ROYAL and end - first >= 2 and (followed or sure)) or (label == "PERSON" and sure):
            end += 1
        out.append((first, end, label))
    return out
