"""Splits: a candidate span cut at its breaks and into the names it holds (the "splits" span pass, `split_spans`).
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.fused."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.lexicon import (
    CLASSIFIERS,
    DEMONYMS,
    DETERMINERS,
    GENERIC,
    HEADS,
    QUOTE_MARKS,
    SENTENCE_ADVERBS,
    SUFFIXES,
)
from kgkit.extractors.offline.parsed import NICKNAMED, QUOTED, ROMAN, nicknamed, sentence_of
from kgkit.extractors.offline.passes import PassContext, Span
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from kgkit.extractors.offline.gazetteer import Places

__all__ = ["split_fused", "split_joined", "split_pair", "split_spans"]

_LEGAL = words("fused", "legal")
_PAIR_CUES = words("fused", "pair_cues")
_MEETING = words("fused", "meeting")
_TYPED_ALONE = words("fused", "typed_alone")  # labels that hold for each of two one-word names
_DASHES = words("fragments", "dashes")
_TOWNS = words("fragments", "towns")  # not countries: "Austria-Hungary" is one state
_LEAGUES = words("fragments", "leagues")
_BREAKS = words("fused", "breaks")

Part = tuple[int, int] | tuple[int, int, str]


def split_spans(doc: Doc, spans: list[Span], context: PassContext) -> list[Span]:
    """Each span cut at its breaks (`_split`), then into the names it holds (`split_pair`, `split_fused`); a part
    keeps its span's label unless `split_fused` gives it another."""
    out = []
    for s in spans:
        quoted, nick = s.label in (QUOTED, NICKNAMED), nicknamed(doc, s.start, s.end, s.label)
        for whole in _split(doc, s.start, s.end, quoted, nick):
            for pair in split_pair(doc, *whole, context.places):
                out += [Span(p[0], p[1], p[2] if len(p) > 2 else s.label) for p in split_fused(doc, *pair, s.label, context.places)]
    return out

def _split(doc: Doc, first: int, last: int, quoted: bool = False, nicknamed: bool = False) -> list[tuple[int, int]]:
    """A token range cut at a sentence break, at brackets and quotes (the part before them), and split at commas
    (unless what follows is a suffix: "Inc.", "Jr.", "D.C.") and at a slash standing alone ("VFL / AFL"); a quoted
    title keeps its brackets, commas and slashes ("I Wonder (Departure)", "It's All Wrong, but It's All Right"), a
    nicknamed person's name its quotes ('William "Bill" Clinton')."""
    sent_end = sentence_of(doc, first)[1]
    last = min(last, sent_end)
    for t in doc[first:last]:
        if t.text in _BREAKS and t.i > first and not (quoted and t.text in "()[]") and not nicknamed:  # "I Wonder (Departure)"
            last = t.i
            break
    for t in doc[first + 1 : last - 1]:  # "World War I. Angell was ...": a sentence the parser did not see end
        if ROMAN.fullmatch(t.text) and t.text.endswith(".") and doc[t.i + 1].is_title \
                and not (len(t.text) == 2 and doc[t.i - 1].lower_ in GIVEN_NAMES):  # "Robert L. Ghormley" goes on
            last = t.i + 1
            break
    for t in doc[first + 1 : last]:  # "A, C, and E. However, Admiral Halsey": an adverb opening a sentence
        if t.lower_ in SENTENCE_ADVERBS and doc[t.i - 1].text.endswith("."):
            last = t.i
            break
    parts, start = [], first
    for t in doc[first:last]:
        if not quoted and ((t.text == "," and t.i + 1 < last and doc[t.i + 1].lower_ not in SUFFIXES) or t.text == "/"):
            parts.append((start, t.i))
            start = t.i + 1
    parts.append((start, last))
    return [(a, b) for a, b in parts if b > a]


def split_pair(doc: Doc, first: int, last: int, places: Places) -> list[tuple[int, int]]:
    """Two names fused at "and" are two: both known places ("Wake and Bataan", unless the whole is one: "Trinidad and
    Tobago"), or the second repeating the first's opening word ("World War I and World War II"); so are two joined
    by a dash or a team and its league (`split_joined`: "Dallas–Fort Worth", "the Kansas City Chiefs of the NFL").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> from kgkit.extractors.offline.gazetteer import load_places
    >>> doc = load_model(DEFAULT_MODEL)("They spoke of World War I and World War II.")
    >>> [doc[a:b].text for a, b in split_pair(doc, 3, 10, load_places())]
    ['World War I', 'World War II']
    """
    words = [t for t in doc[first:last] if t.lower_ not in DETERMINERS]
    ands = [t.i for t in words if t.lower_ == "and"]
    if len(ands) != 1 or not all(t.text[:1].isupper() for t in words if t.i != ands[0]):
        return split_joined(doc, first, last, places)
    left = [t for t in words if t.i < ands[0]]
    right = [t for t in words if t.i > ands[0]]
    text = lambda ts: " ".join(t.text for t in ts)  # noqa: E731
    if not left or not right or places.kind(text(words)) is not None:
        return split_joined(doc, first, last, places)
    if (places.kind(text(left)) and places.kind(text(right))) or (len(left) >= 2 and len(right) >= 2 and left[0].text == right[0].text):
        return [(first, ands[0]), (ands[0] + 1, last)]
    return split_joined(doc, first, last, places)


def split_joined(doc: Doc, first: int, last: int, places: Places) -> list[tuple[int, int]]:
    """Two names joined by a dash are two when both are known towns or regions ("Dallas–Fort Worth",
    "Berlin-Moabit"; not a place known whole, "Guinea-Bissau", nor two countries, "Austria-Hungary") or both
    nationality words ("Kurdish-Turkish origin"); anything else stays one name ("Hamburg-Eppendorf Hospital").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> from kgkit.extractors.offline.gazetteer import load_places
    >>> doc = load_model(DEFAULT_MODEL)("He was born in Berlin-Moabit in 1890.")
    >>> [doc[a:b].text for a, b in split_joined(doc, 4, 7, load_places())]
    ['Berlin', 'Moabit']
    >>> doc = load_model(DEFAULT_MODEL)("Austria-Hungary fell.")
    >>> [doc[a:b].text for a, b in split_joined(doc, 0, 3, load_places())]
    ['Austria-Hungary']
    """
    dashes = [t.i for t in doc[first:last] if t.text in _DASHES]
    if len(dashes) != 1 or dashes[0] in (first, last - 1):
        return _team_of_league(doc, first, last)
    cut = dashes[0]
    left, right = doc[first:cut].text, doc[cut + 1 : last].text
    if doc[first:last].text.lower() in DEMONYMS or places.kind(left + "-" + right) is not None \
            or places.kind(doc[first:last].text) is not None:
        return [(first, last)]
    if (places.kind(left) in _TOWNS and places.kind(right) in _TOWNS) or (left.lower() in DEMONYMS and right.lower() in DEMONYMS):
        return [(first, cut), (cut + 1, last)]
    return _team_of_league(doc, first, last)


def _team_of_league(doc: Doc, first: int, last: int) -> list[tuple[int, int]]:
    """A team's name (a plural of two words or more) and the league it plays in, joined by "of the", are two
    names: "the Kansas City Chiefs of the National Football League", "the Indianapolis Kautskys of the NBL" (not
    "the Sons of the American Revolution": one word before "of")."""
    start = first + (doc[first].lower_ in DETERMINERS)
    for t in doc[start + 2 : last - 2]:
        if t.lower_ == "of" and doc[t.i + 1].lower_ == "the":
            team, league = doc[t.i - 1], doc[last - 1]
            if (team.tag_ == "NNPS" or (team.text[:1].isupper() and team.lower_.endswith("s") and not team.lower_.endswith("ss"))) \
                    and (league.lower_ in _LEAGUES or (league.is_upper and league.is_alpha and t.i + 2 == last - 1)):
                return [(first, t.i), (t.i + 2, last)]
            break
    return [(first, last)]


def split_fused(doc: Doc, first: int, last: int, label: str, places: Places | None = None) -> list[Part]:
    """The token ranges of the names in [first, last) of a span spaCy (or the spans) labelled `label`; a range may
    carry a third item, the label its part is cleaned with instead (docs/extraction.md, "Module notes").

    >>> import spacy
    >>> doc = spacy.blank("en")("It was founded by the Puskás Akadémia FC Puskás Ferenc Stadion in 2007 .")
    >>> [doc[p[0]:p[1]].text for p in split_fused(doc, 5, 11, "ORG")]
    ['Puskás Akadémia FC', 'Puskás Ferenc Stadion']
    >>> doc = spacy.blank("en")("Zamfir was a Moldavian Romanian writer .")
    >>> [(doc[a:b].text, kind) for a, b, kind in split_fused(doc, 3, 5, "NORP")]
    [('Moldavian', 'NORP'), ('Romanian', 'NORP')]
    >>> doc = spacy.blank("en")("It is the story of Yusuf and Zulaikha .")
    >>> [doc[p[0]:p[1]].text for p in split_fused(doc, 5, 8, "FAC")]
    ['Yusuf', 'Zulaikha']
    """
    label = label.strip()
    words = doc[first:last]
    for t in words[1:-1]:  # a legal suffix inside the name
        if t.lower_ in _LEGAL and doc[t.i + 1].text[:1].isupper() and doc[t.i + 1].lower_ not in _LEGAL:
            return [(first, t.i + 1), *split_fused(doc, t.i + 1, last, label, places)]
    if label == "WORK_OF_ART":
        return [(first, last)]  # a title keeps its words ("Pride and Prejudice")
    if (last - first == 2 and label != "PERSON" and _nationality(words[0].lower_) and _nationality(words[1].lower_)
            and words[1].lower_ not in HEADS and words[0].lower_ not in GIVEN_NAMES):
        return [(first, first + 1, "NORP"), (first + 1, last, "NORP")]  # "a Moldavian Romanian writer"
    return _pair(doc, first, last, label)


def _nationality(word: str) -> bool:
    """A nationality or group word: a known one ("romanian") or one made from a name ("moldavian").

    >>> _nationality("romanian"), _nationality("moldavian"), _nationality("shakespearean"), _nationality("oceans")
    (True, True, True, False)
    """
    noun = word.removesuffix("s")  # not a head word or a person's noun: "the Indian Oceans", "Estonian musicians"
    return word in DEMONYMS or (word.endswith(("ian", "ians", "ean", "eans", "ish", "ese")) and len(word) > 5
                                and noun not in HEADS and noun not in CLASSIFIERS)


def _pair(doc: Doc, first: int, last: int, label: str) -> list[Part]:
    """Two names joined by "and": two one-word names, or two names after words that announce two things."""
    ands = [t.i for t in doc[first:last] if t.lower_ == "and"]
    if len(ands) != 1 or ands[0] in (first, last - 1):
        return [(first, last)]
    left, right = doc[first], doc[last - 1]
    if (last - first == 3 and left.text[:1].isupper() and right.text[:1].isupper() and not left.is_sent_start
            and not (first > 0 and doc[first - 1].text in QUOTE_MARKS)
            and not (last < len(doc) and doc[last].text in QUOTE_MARKS)
            and left.lower_ not in GENERIC and right.lower_ not in GENERIC):
        alone = label if label in _TYPED_ALONE else "NAME"  # a body's or a building's label was the whole's
        return [(first, first + 1, alone), (last - 1, last, alone)]  # "the story of Yusuf and Zulaikha"
    j = first - 1
    while j >= 0 and (doc[j].lower_ in DETERMINERS or doc[j].text in ("(", ":")):
        j -= 1
    if j < 0:
        return [(first, last)]
    cue = doc[j - 1] if doc[j].lower_ == "of" and j > 0 and doc[j - 1].lower_ in _MEETING else doc[j]
    if cue.lower_ == "both" and (ands[0] - first < 2 or last - ands[0] - 1 < 2):
        return [(first, last)]  # "both the French and Indian War and the American Revolutionary War"
    if cue.lower_ in _PAIR_CUES or cue.lower_ in _MEETING or (cue.tag_ == "NNS" and cue.is_lower):
        return [(first, ands[0]), (ands[0] + 1, last)]
    return [(first, last)]
