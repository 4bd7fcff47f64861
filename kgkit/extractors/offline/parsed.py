"""Small helpers on one parsed text shared by the candidate spans, the titles and the mentions: sentence bounds and
the text joined once (cached in the Doc's user_data), the marks that label a quoted title or a nicknamed person, and
the lower-case words a name took in.

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> doc = load_model(DEFAULT_MODEL)("He went home. She stayed.")
>>> sentence_of(doc, 5), text_of(doc)
((4, 7), 'He went home. She stayed.')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["NICKNAMED", "QUOTED", "closes", "lowered", "sentence_of", "text_of"]

QUOTED = "WORK_OF_ART "  # a quoted title: typed as spaCy's WORK_OF_ART, with the quote's vote
NICKNAMED = "PERSON "  # a person's name with a nickname in brackets or quotes: not cut there


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
