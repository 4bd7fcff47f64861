"""Fused names: a candidate span that holds two names is cut into them (applied after `split_pair`).

- A club's or company's legal suffix ends its name: a name running on past it is a second name ("Puskás Akadémia
  FC | Puskás Ferenc Stadion"; not a second suffix: "Beijing Jinyu Group Co., Ltd.").
- Two nationality or group words side by side are two ("a Moldavian | Romanian writer", "Japanese | Americans"), as
  with a dash ("Kurdish-Turkish"); not a person's name ("Vivian French") nor a nationality before a head word
  ("Indian Ocean").
- Two one-word names joined by "and" are two ("the story of Yusuf | Zulaikha"); not at a sentence's start (a title:
  "Cranks and Shadows is a crime novel"), not in quotes ('" Stop and Frisk "'), not a generic word ("Painting,
  Sculpture and Architecture"), not a title; a part keeps the whole's label only when that label holds for each
  (a person, a place, a nationality), else what else the text says types it.
- Two names joined by "and" are two where the words before them say there are two: after "between", after "the
  crossroads (intersection, junction, corner, confluence) of" and after a plural noun ("the albums ( Eyes of
  Innocence | Primitive Love )", "the crossroads of Courtright Line | Brigden Road"); after "both" only when each
  side has two words or more ("both the French and Indian War and ..." stays).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.lexicon import CLASSIFIERS, DEMONYMS, DETERMINERS, GENERIC, HEADS, QUOTE_MARKS
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from kgkit.extractors.offline.gazetteer import Places

__all__ = ["split_fused"]

_LEGAL = words("fused", "legal")
_PAIR_CUES = words("fused", "pair_cues")
_MEETING = words("fused", "meeting")
_TYPED_ALONE = words("fused", "typed_alone")  # labels that hold for each of two one-word names

Part = tuple[int, int] | tuple[int, int, str]


def split_fused(doc: Doc, first: int, last: int, label: str, places: Places | None = None) -> list[Part]:
    """The token ranges of the names in [first, last) of a span spaCy (or the spans) labelled `label`; a range may
    carry a third item, the label its part is cleaned with instead (see the module's docstring).

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
