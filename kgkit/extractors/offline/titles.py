"""Names that are titles of works, found whole whatever spaCy's entities cut them into: a quoted title-case phrase,
one a sentence defines ("Cranks and Shadows is a crime novel"), one a work's noun introduces ("the 1990 film The
Hunt for Red October"). kgkit.extractors.offline.spans puts them in place of the entities inside them.

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> doc = load_model(DEFAULT_MODEL)('She sang "Two Doors Down" twice.')
>>> [doc[s.start:s.end].text for s in quoted_titles(doc)]
['Two Doors Down']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import CLASSIFIERS, QUOTE_MARKS, TITLES
from kgkit.extractors.offline.parsed import NAME, QUOTED, closes, sentence_of
from kgkit.extractors.offline.passes import Span
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["classified_titles", "defined_subjects", "quoted_titles"]

_TITLE_WORDS = words("titles", "title_words")


def defined_subjects(doc: Doc) -> list[Span]:
    """A title-case phrase opening a sentence that defines it ("Cranks and Shadows is a crime novel", "Rage Against
    the Machine is an American band", "Clear and Present Danger was a 1994 film"): one name, whatever spaCy's
    entities cut it into; its label is the longest entity inside it (NAME if none)."""
    out = []
    for sent in doc.sents:
        root = sent.root
        if root.lemma_ != "be" or root.lower_ not in ("is", "was") or root.i - sent.start < 2 or root.i + 1 >= sent.end \
                or doc[root.i + 1].lower_ not in ("a", "an", "the"):
            continue
        first = sent.start + (doc[sent.start].lower_ == "the")
        words = list(doc[first : root.i])
        if len(words) < 2 or not words[0].text[:1].isupper() or not words[-1].text[:1].isupper() or not any(
                t.lower_ in _TITLE_WORDS for t in words) or sentence_of(doc, first) != sentence_of(doc, root.i - 1):
            continue
        capitals = sum(t.is_alpha and t.text[:1].isupper() for t in words)
        if all(t.text[:1].isupper() or t.like_num or t.lower_ in _TITLE_WORDS for t in words) and capitals >= 2 \
                and words[0].tag_ != "IN" and not any(t.lower_ in TITLES for t in words):
            inside = max((e for e in doc.ents if first <= e.start and e.end <= root.i), key=len, default=None)
            big = inside is not None and 2 * sum(t.is_alpha and t.text[:1].isupper() for t in inside) > capitals
            out.append(Span(first, root.i, inside.label_ if big else NAME))  # "Trane 's" (ORG) of "Trane 's Blues": no
    return out


_DETERMINERS = words("titles", "determiners")
_JOINS_TITLE = words("titles", "joins_title")
_APART = ("GPE", "LOC", "PERSON", "ORG", "NORP", "DATE")  # after "in", "and" ...: another thing, not the title's


def classified_titles(doc: Doc) -> list[Span]:
    """The title-case phrase a work's noun introduces is one title: "the 1990 film The Hunt for Red October", "his
    third studio album, Summer At Eureka", "titles such as Princess Alice and the Glass Slipper" (capitalised words
    and the small words of titles between them; not across "by", nor into a place, person or body after "in" or
    "and": "the film Titanic in Cannes")."""
    out = []
    n = len(doc)
    for t in doc:
        if CLASSIFIERS.get(t.lower_) != "WORK_OF_ART" or t.tag_ != "NN" or not t.is_lower:
            continue
        i = t.i + 1
        if i < n and doc[i].text == ",":
            i += 1
        if i + 1 < n and doc[i].lower_ == "such" and doc[i + 1].lower_ == "as":
            i += 2
        if i >= n or not doc[i].text[:1].isupper() or not doc[i].is_alpha or sentence_of(doc, i) != sentence_of(doc, t.i):
            continue
        if doc[i].lower_ in _DETERMINERS and i + 1 < n and doc[i + 1].text[:1].isupper():
            i += 1  # "The Hunt for Red October" is named "Hunt for Red October", as "the Red Cross" is
        end, sent_end = i, sentence_of(doc, i)[1]
        while end < sent_end:
            w = doc[end]
            if w.text[:1].isupper() or (w.like_num and end > i) or (w.tag_ == "POS" and end > i) or (
                    w.lower_ in _JOINS_TITLE and w.is_lower and end + 1 < sent_end and doc[end + 1].text[:1].isupper()
                    and not (w.lower_ != "the" and doc[end + 1].ent_type_ in _APART and doc[end + 1].ent_iob_ == "B")):
                end += 1
            else:
                break
        capitals = [w for w in doc[i:end] if w.is_alpha and w.text[:1].isupper()]
        if len(capitals) >= 2 and any(w.is_lower for w in doc[i:end]):
            out.append(Span(i, end, QUOTED))
    return out


def quoted_titles(doc: Doc) -> list[Span]:
    """' " Two Doors Down " ': a quoted phrase of 2-12 words in title case (every word of 4 letters or more
    capitalised, no ! or ? inside) in one sentence."""
    out = []
    for sent in doc.sents:
        marks = [t.i for t in sent if t.text in QUOTE_MARKS]
        for a, b in zip(marks[::2], marks[1::2]):
            inner = [t for t in doc[a + 1 : b]]
            if any(t.text in ("!", "?") for t in inner):
                continue  # an exclamation or a question is speech, not a title
            while inner and inner[-1].is_punct and not closes(inner):
                inner.pop()
            words = [t for t in inner if t.is_alpha]
            if not 2 <= len(words) <= 12 or not inner[0].text[:1].isupper():
                continue
            if all(t.text[:1].isupper() for t in words if len(t.text) >= 4):
                out.append(Span(inner[0].i, inner[-1].i + 1, QUOTED))
    return out
