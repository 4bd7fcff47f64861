"""Small helpers on one parsed text shared by the candidate spans, the titles and the mentions: sentence bounds and
the text joined once (cached in the Doc's user_data), the marks that label a quoted title or a nicknamed person, and
the lower-case words a name took in.

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> doc = load_model(DEFAULT_MODEL)("He went home. She stayed.")
>>> sentence_of(doc, 5), text_of(doc)
((4, 7), 'He went home. She stayed.')
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import QUOTE_MARKS

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["HYPHENS", "NAME", "NICKNAMED", "NUMERIC_LABELS", "QUOTED", "ROMAN", "closes", "join_clitics", "lowered",
           "nicknamed", "sentence_of", "text_of"]

NAME = "NAME"  # a run of proper nouns spaCy's NER left out, with nothing in it to type it: kept only if the
# corpus-level stage (kgkit.extractors.offline.coref) finds a type for it or a full name it stands for
NUMERIC_LABELS = ("DATE", "CARDINAL", "ORDINAL")
HYPHENS = frozenset({"-", "–"})
ROMAN = re.compile(r"[IVXLC]+\.?")
QUOTED = "WORK_OF_ART "  # a quoted title: typed as spaCy's WORK_OF_ART, with the quote's vote
NICKNAMED = "PERSON "  # a person's name with a nickname in brackets or quotes: not cut there
_SPACED_QUOTES = re.compile(r'"\s+([^"\s][^"]*?)\s+"')
_CLITIC = re.compile(r"(?<=\w) (n['’]t|['’](?:s|re|ll|ve|m|d))(?!\w)|(?<=\b[Gg]on) (na)\b|(?<=\b[Ww]an) (na)\b|(?<=\b[Gg]ot) (ta)\b")


def sentence_of(doc: Doc, i: int) -> tuple[int, int]:
    """(start, end) token bounds of the sentence holding token i, from a table built once per parsed text (spaCy's
    `Token.sent` walks the document on every call)."""
    table = doc.user_data.get("kgkit.sentences")
    if table is None:
        table = [(0, 0)] * len(doc)
        for sent in doc.sents:
            table[sent.start : sent.end] = [(sent.start, sent.end)] * (sent.end - sent.start)
        doc.user_data["kgkit.sentences"] = table
    return table[i]


def text_of(doc: Doc) -> str:
    """The parsed text, joined once (spaCy's `Doc.text` joins every token on every call)."""
    text = doc.user_data.get("kgkit.text")
    if text is None:
        text = doc.user_data["kgkit.text"] = doc.text
    return text


def lowered(doc: Doc) -> set[int]:
    """Indices of lower-case words taken into a name (capitalised in it: "the farm Security Administration" ->
    Farm Security Administration)."""
    return doc.user_data.setdefault("kgkit.lowered", set())


def closes(tokens: list[Token]) -> bool:
    """The last token closes a bracket opened inside the name ("I Wonder (Departure)")."""
    return tokens[-1].text == ")" and any(t.text == "(" for t in tokens)


def join_clitics(name: str) -> str:
    """A name written from pre-tokenised text ("tokens joined by spaces", as in many corpora) with its clitics
    joined back to their words, as the name is spelt: "Ca n't Take My Eyes Off You" -> "Can't Take My Eyes Off
    You", "Life 's Little Comedies" -> "Life's Little Comedies", "Never Gon na Give You Up" -> "Never Gonna Give
    You Up". Text written normally has no such spaces and is returned as it is.

    >>> join_clitics("Ca n't Take My Eyes Off You"), join_clitics("Ai n't No Mountain High Enough")
    ("Can't Take My Eyes Off You", "Ain't No Mountain High Enough")
    >>> join_clitics("People 's Choice Awards"), join_clitics("Never Gon na Give You Up"), join_clitics("Ong Bak 2")
    ("People's Choice Awards", 'Never Gonna Give You Up', 'Ong Bak 2')
    >>> join_clitics('Michael John " Mike " Padden')
    'Michael John "Mike" Padden'

    """
    name = _SPACED_QUOTES.sub(r'"\1"', name)  # 'James Llewellyn " Jimmy " Frise' -> 'James Llewellyn "Jimmy" Frise'
    return _CLITIC.sub(lambda m: next(g for g in m.groups() if g is not None), name)




def nicknamed(doc: Doc, first: int, last: int, label: str) -> bool:
    """A person's name with a nickname in quotes inside it (William "Bill" Clinton), so that it is not cut at the
    quotes: the NICKNAMED label, or a PERSON entity whose quotes hold one capitalised word between names.

    >>> import spacy
    >>> doc = spacy.blank("en")('William "Bill" Clinton won.')
    >>> nicknamed(doc, 0, 5, "PERSON"), nicknamed(doc, 0, 5, "ORG")
    (True, False)
    """
    if label == NICKNAMED:
        return True
    if label != "PERSON":
        return False
    marks = [i for i in range(first + 1, last - 1) if doc[i].text in QUOTE_MARKS]
    return len(marks) == 2 and marks[1] == marks[0] + 2 and doc[marks[0] + 1].text[:1].isupper()
