"""Joins: candidate name spans (`Span`) that are pieces of one longer name, joined again (span passes of
kgkit.extractors.offline.spans.SPAN_PASSES; a wrong piece in the graph is worse than the whole name).
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.joins."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.cues import head_label
from kgkit.extractors.offline.lexicon import (
    ADJECTIVAL,
    COMPASS,
    DEMONYMS,
    GENERIC,
    HEADS,
    HONORIFICS,
    NAME_PARTICLES,
    TITLES,
)
from kgkit.extractors.offline.parsed import HYPHENS, NAME, NICKNAMED, NUMERIC_LABELS, QUOTED, sentence_of
from kgkit.extractors.offline.passes import Span
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = [
    "JOINING",
    "before_particle",
    "join_compounds",
    "join_coordinated",
    "join_hyphens",
    "join_nationality",
    "join_particles",
    "join_pieces",
    "owns_nothing",
    "verbal_name_word",
]

_ROYAL = words("joins", "royal")
_REGNAL = words("joins", "regnal")
_VERBAL = words("joins", "verbal")
_FOR_HEADS = words("joins", "for_heads")
_PLACE_HEADS = frozenset(w for w, label in HEADS.items() if label in ("LOC", "FAC"))
JOINING = NAME_PARTICLES | words("joins", "joining")  # "João Paulo de Leiria e Silva", "García y Pérez"
# lower-case words that join two capitalised parts of one foreign name: "Sogn og Fjordane", "Zell am See", "San
# Pietro ad Aram", "Bruck an der Leitha" ("an" only before "der"/"dem": it is an English article too)
_CONNECTORS = (NAME_PARTICLES - words("joins", "not_connectors")) | words("joins", "connectors")
_SECOND_CONNECTORS = words("joins", "second_connectors")  # "an der", "de la", "de los"
_CUT_AT = {"of"} | NAME_PARTICLES  # an entity ending in one of these was cut before the rest of its name


def join_pieces(doc: Doc, spans: list[Span]) -> list[Span]:
    """The spans (sorted) with pieces of one name joined (docs/extraction.md, "Module notes").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> doc = load_model(DEFAULT_MODEL)("A ramada can be seen at the Casa Grande Ruins National Monument in Arizona.")
    >>> [doc[s.start:s.end].text for s in join_pieces(doc, [Span(7, 9, "NAME"), Span(10, 12, "FAC"), Span(13, 14, "GPE")])]
    ['Casa Grande Ruins National Monument', 'Arizona']
    """
    spans = _regnal(doc, spans)
    spans = [replace(s, end=s.end + 1) if s.end < len(doc) and s.label not in ("PERSON", "NORP") and owns_nothing(doc[s.end])
             else s for s in spans]  # "Plain White T's", a band
    spans = [replace(s, label="PERSON") if before_particle([t for t in doc[s.start : s.end] if t.lower_ != "the"]) else s
             for s in spans]  # "the Madame de Graffigny correspondence"
    spans = [_verbal_modifier(doc, span) for span in spans]
    return _join_next(doc, spans, lambda a, b: sentence_of(doc, a.start) == sentence_of(doc, b.start) and _joined(doc, a, b))


def _join_next(doc: Doc, spans: list[Span], joined: Callable[[Span, Span], Span | None]) -> list[Span]:
    """Each span joined to the one before it when `joined(before, span)` gives the one name they make."""
    out: list[Span] = []
    for span in spans:
        if out and (one := joined(out[-1], span)):
            out[-1] = one
            continue
        out.append(span)
    return out


def _joined(doc: Doc, a: Span, b: Span) -> Span | None:
    """The one name `a` and `b` make, or None."""
    gap = list(doc[a.end : b.start])
    words = [t.text for t in gap]
    possessive = [t for t in doc[a.start : b.start] if t.tag_ == "POS"]
    if (possessive and possessive[-1].i == b.start - 1 and b.end - b.start == 1 and doc[b.start].lower_ in _PLACE_HEADS
            and doc[b.start].is_title and (b.end == len(doc) or not doc[b.end].text[:1].isupper())
            and b.start - a.start <= 4 and doc[b.start - 2].text[:1].isupper()):
        return Span(a.start, b.end, b.label)  # "Martha's River", "St. Joseph's Cemetery"
    if (len(gap) == 1 and verbal_name_word(gap[0]) and doc[b.start].text[:1].isupper()
            and doc[a.end - 1].text[:1].isupper()):
        return Span(a.start, b.end, b.label)  # "Casa Grande Ruins National Monument"
    if (words in (["for"], ["for", "the"]) and a.label == "ORG" and _for_head(doc, a) and doc[a.end - 1].is_title
            and doc[b.start + (doc[b.start].lower_ == "the")].is_title and b.label not in ("PERSON", "NORP", *NUMERIC_LABELS)):
        return Span(a.start, b.end, a.label)  # "the United States Court of Appeals for the Second Circuit"
    return None


def _for_head(doc: Doc, a: Span) -> bool:
    """Whether a body's name ends in a head word that names what it is for ("Court", "Commission"), alone or with
    its "of" phrase ("Court of Appeals")."""
    words = [t.lower_ for t in doc[a.start : a.end]]
    return words[-1] in _FOR_HEADS or (len(words) >= 3 and words[-3] in _FOR_HEADS and words[-2] == "of")


def _verbal_modifier(doc: Doc, span: Span) -> Span:
    """The span with a verbal-tagged capitalised word just before it that modifies a word of it ("[Creve] Coeur
    Park"), when the word before that is no capitalised word."""
    first = span.start
    if first == 0 or not verbal_name_word(doc[first - 1]) or doc[first - 1].dep_ != "compound":
        return span
    word = doc[first - 1]
    before = doc[first - 2] if first >= 2 else None
    if not (first <= word.head.i < span.end) or (before is not None and (before.text[:1].isupper() or before.lower_ == "to")):
        return span
    return replace(span, start=first - 1)


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


def _regnal(doc: Doc, spans: list[Span]) -> list[Span]:
    """A regnal number joins a monarch's name that opens with a royal title whatever the NER's label ("King
    Constantine I of Greece"), and a person's name whatever word follows when it is no "I", "V" or "X" ("Louis XIV
    was"); an "I" joins only before a sentence's end, punctuation, "of", "in", "and" or "'s" (before a verb it may
    be the pronoun)."""
    out = []
    for s in spans:
        first, end = s.start, s.end
        opening = doc[first + (doc[first].lower_ == "the")]
        if end >= len(doc) or doc[end].text not in _REGNAL or any(o.start <= end < o.end for o in spans):
            out.append(s)
            continue
        sure = doc[end].text not in ("I", "V", "X") and doc[end - 1].text[:1].isupper()  # no pronoun, letter or "versus"
        followed = end + 1 >= len(doc) or doc[end + 1].is_punct or doc[end + 1].lower_ in ("of", "in", "and", "'s", "’s")
        joins = (s.label != "PERSON" and opening.lower_ in _ROYAL and end - first >= 2 and (followed or sure)) or (s.label == "PERSON" and sure)
        out.append(replace(s, end=end + 1) if joins else s)
    return out


def join_nationality(doc: Doc, spans: list[Span]) -> list[Span]:
    """A nationality word just before a name is part of it ("the Swedish Riksdag", "the Russian Far East", "the
    Norwegian Premier League"; not before a person's name, "Irishman Tadhg Kennelly", nor a title, "Malaysian Prime
    Minister Mahathir", nor a given name spaCy did not call a person, "Democrat Sidney Yates"). The name's label
    stays."""
    def joined(a: Span, b: Span) -> Span | None:
        if a.end != b.start or a.end - a.start != 1 or b.label in ("PERSON", "NORP", NICKNAMED, *NUMERIC_LABELS):
            return None
        word, after = doc[a.start], doc[b.start]
        headed = head_label(list(doc[b.start : b.end])) is not None  # "Premier League", "Senate"
        if ((word.lower_ in DEMONYMS or a.label == "NORP") and word.text[:1].isupper()
                and after.tag_ in ("NNP", "NNPS") and after.text[:1].isupper()
                and ((after.lower_ not in TITLES and after.lower_ not in GIVEN_NAMES) or headed)
                and sentence_of(doc, word.i) == sentence_of(doc, after.i)):
            return Span(a.start, b.end, b.label)
        return None
    return _join_next(doc, spans, joined)


def join_compounds(doc: Doc, spans: list[Span]) -> list[Span]:
    """Two names side by side that the parse makes one noun phrase (the first's last word a compound modifier of a
    word of the second) are one name: "Tokyo Imperial Palace", "Daniel K. Inouye International Airport", "AFC
    Bournemouth", "Mladá Boleslav"; a person's name only before a head word). Not a title before a name
    ("General [Lucius D. Clay]", "U.S. Representative"), nor a place before a person's full name ("Republic of
    Kazakhstan Nursultan Nazarbayev"). The label is the second's (the head's; none when it had none: "Hollywood
    Reporter"), or the first's when the second is a one-word person ("Mladá Boleslav"), a compass word ("Dublin
    West") or the city of a club or firm ("DVA Miami")."""
    def joined(a: Span, b: Span) -> Span | None:
        if a.end != b.start or not _one_phrase(doc, a, b):
            return None
        if b.label in ("PERSON", NICKNAMED) or (b.label == NAME and b.end - b.start == 1 and doc[b.start].lower_ in COMPASS) \
                or (a.label == "ORG" and b.label in ("GPE", "LOC")):
            return Span(a.start, b.end, a.label)  # "Mladá Boleslav", "Dublin West", "DVA Miami" (a club or firm and its city)
        return Span(a.start, b.end, b.label)
    return _join_next(doc, spans, joined)


def _one_phrase(doc: Doc, a: Span, b: Span) -> bool:
    labels = (a.label.strip(), b.label.strip())
    last, first = doc[a.end - 1], doc[b.start]
    return (last.dep_ == "compound" and b.start <= last.head.i < b.end and last.text[:1].isupper() and first.text[:1].isupper()
            and not any(x in NUMERIC_LABELS or x in ("NORP", QUOTED.strip()) for x in labels)
            and not any(t.lower_ in TITLES for t in doc[a.start : a.end])
            and first.lower_ not in TITLES and doc[b.end - 1].lower_ not in TITLES
            and not (labels[1] == "PERSON" and b.end - b.start >= 2)
            and (labels[0] != "PERSON" or (labels[1] != "PERSON" and head_label(list(doc[b.start : b.end])) is not None))
            and sentence_of(doc, a.start) == sentence_of(doc, b.start))


def join_particles(doc: Doc, spans: list[Span]) -> list[Span]:
    """Two capitalised parts of one name joined again across what spaCy cut them at: lower-case particles of a
    foreign name ("Sogn og Fjordane", "San Pietro ad Aram", "Jeanne Thérèse du Han de Martigny"; the second part
    a name or one capitalised word outside any, "Zell am See"), or an entity (not a person's, nor a role) that
    ends in "of" or a particle, followed at once by the rest of its name ("the Bay of" + "Biscay", "the Circuit
    Court of" + "Cook County"; a bare run only when it is one kind word before no person: "Library of" + "Congress",
    not "the Ghost of" + "Jacob Marley"). The first part's label stays (unless it had none)."""
    starts = {s.start: s for s in spans}
    taken = {i for s in spans for i in range(s.start, s.end)}
    out: list[Span] = []
    skip = -1
    for span in spans:
        if span.start < skip:
            continue
        end, label = span.end, span.label
        while (nxt := _joined_part(doc, span.start, end, label, starts, taken)) is not None:
            end, label = nxt.end, label if label != NAME else nxt.label
        skip = end
        out.append(Span(span.start, end, label))
    return out


def _joined_part(doc: Doc, first: int, end: int, label: str, starts: dict[int, Span], taken: set[int]) -> Span | None:
    """The part of a name after the span [first, end) across particles or a cut, or None."""
    if end >= len(doc) or sentence_of(doc, first) != sentence_of(doc, end):
        return None
    last = doc[end - 1]
    if (last.lower_ in _CUT_AT and last.is_lower and end - first >= 2 and doc[end - 2].text[:1].isupper()
            and label != "PERSON" and (label != NAME or (end - first == 2 and (doc[first].lower_ in GENERIC or doc[first].lower_ in HEADS)
                                                         and (end in starts and starts[end].label != "PERSON")))
            and not any(t.lower_ in TITLES for t in doc[first:end])):
        gap = end  # spaCy's entity took the "of" and stopped: "the Bay of" + "Biscay"; a kind word's "Library of" + "Congress"
    elif last.text[:1].isupper() and last.is_alpha:
        gap = end
        if doc[gap].lower_ in _CONNECTORS and doc[gap].is_lower:
            gap += 1
            if gap < len(doc) and doc[gap].lower_ in _SECOND_CONNECTORS and doc[gap].is_lower:
                gap += 1
        elif doc[gap].lower_ == "an" and gap + 1 < len(doc) and doc[gap + 1].lower_ in ("der", "dem"):
            gap += 2
        if gap == end or gap - end > 2:
            return None
    else:
        return None
    if gap >= len(doc) or sentence_of(doc, gap) != sentence_of(doc, first) or not doc[gap].text[:1].isupper() \
            or not doc[gap].is_alpha:
        return None
    if gap in starts:
        return starts[gap]
    if gap not in taken and gap > end and doc[gap].is_title and (gap + 1 >= len(doc) or not doc[gap + 1].text[:1].isupper()):
        return Span(gap, gap + 1, NAME)  # "Zell am See": one capitalised word outside any name
    return None


def join_hyphens(doc: Doc, spans: list[Span]) -> list[Span]:
    """Names cut at a hyphen joined again: "Moravian - Silesian Region", "Cambodia – Vietnam Friendship Monument"
    (the part after the hyphen has two words or more, so "Japan - China relations" stays two names), and a
    person's name going on in lower case ("Kang Won - yong")."""
    out = _join_next(doc, spans, lambda a, b: Span(a.start, b.end, b.label) if (
        b.start == a.end + 1 and doc[a.end].text in HYPHENS and b.end - b.start >= 2 and doc[b.start].text[:1].isupper()) else None)
    joined = []
    for s in out:
        last = s.end
        while (s.label == "PERSON" and last + 1 < len(doc) and doc[last].text in HYPHENS and doc[last + 1].is_lower
               and doc[last + 1].is_alpha and not doc[last + 1].is_stop and len(doc[last + 1].text) <= 5):
            last += 2
        joined.append(replace(s, end=last) if last != s.end else s)
    return joined


def join_coordinated(doc: Doc, spans: list[Span]) -> list[Span]:
    """Two names joined by "and" that share the second one's head word are one name: "the Delaware and Hudson
    Railroad", "the Lewis and Clark Expedition", "the French and Indian War" (the first name, with no head word
    of its own, modifies a word of the second; not "Japan and the Soviet Union", "Holme Abbey and Holme St.
    Cuthbert", nor a plural head shared by two names: "the Arctic and Pacific Oceans", nor titles: "the
    Generalissimo and Marshal Stalin")."""
    def joined(a: Span, b: Span) -> Span | None:
        if not (b.start == a.end + 1 and doc[a.end].lower_ in ("and", "&") and b.end - b.start >= 2):
            return None
        modifier, head = doc[a.end - 1], doc[b.end - 1]
        if (modifier.dep_ in ("nmod", "compound", "amod") and b.start < modifier.head.i < b.end
                and head.tag_ not in ("NNS", "NNPS") and modifier.lower_ not in ADJECTIVAL
                and head_label(list(doc[a.start : a.end])) is None
                and not any(t.lower_ in TITLES for t in doc[a.start : b.start + 1])
                and all(t.text[:1].isupper() for t in doc[b.start : b.end] if t.is_alpha)
                and sentence_of(doc, a.start) == sentence_of(doc, b.start)):
            return Span(a.start, b.end, b.label)
        return None
    return _join_next(doc, spans, joined)
