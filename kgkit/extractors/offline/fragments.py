"""Fragments: a mention whose name runs on into a capitalised word beside it is a piece of a longer name.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.fragments."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import DEMONYMS, DETERMINERS, HONORIFICS, MONTHS, QUOTE_MARKS, TITLES
from kgkit.extractors.offline.parsed import sentence_of
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["cut_before_of", "date_like", "in_quoted_phrase", "kept_whole", "runs_on"]

# tags of words that are no part of a name even when capitalised: verbs, adverbs, function words, pronouns
_NOT_NAME_TAGS = words("fragments", "not_name_tags")
_KEEP_LABELS = words("fragments", "keep_labels")  # a quoted title's words
_OF_LABELS = words("fragments", "of_labels")
_TIME_WORDS = words("fragments", "time_words")
_SPANS = words("fragments", "spans")
_ROMAN = re.compile(r"[IVX]+\.")
_ORDINALS = words("fragments", "ordinals")  # "Sixty-first"
_ROLE_WORDS = words("fragments", "role_words")


def _role(token: Token) -> bool:
    """A title, honorific or role word ("Acting", "Champion"), or the last word of a role "of" something
    ("Secretaries of State Clinton", "Minister of Defence X")."""
    def role_word(t: Token) -> bool:
        word = t.lower_.rstrip(".")
        return word in TITLES or word in HONORIFICS or word in _ROLE_WORDS or (word.endswith("s") and word[:-1] in TITLES)
    if role_word(token):
        return True
    doc, i = token.doc, token.i
    return any(doc[j].lower_ == "of" and j > 0 and role_word(doc[j - 1]) for j in range(max(i - 3, 0), i))


def _name_word(token: Token) -> bool:
    """A capitalised word that could belong to a name: not a sentence's first word, a function word or a title."""
    text = token.text
    return (any(c.isalpha() for c in text) and text[0].isupper() and not any(c.isdigit() for c in text)
            and not token.is_sent_start and token.tag_ not in _NOT_NAME_TAGS and token.lower_ not in DETERMINERS
            and not _role(token))


def _word_part(token: Token) -> bool:
    """A lower-case word that completes a hyphenated name ("earth" of "Middle-earth"), not an adjective made
    from one ("Oscar-nominated", "Houston-based", "Soviet-backed") nor a word after a dash ("Europe-particularly
    the lesson of Norway")."""
    return token.lower_ in _ORDINALS or (token.is_alpha and token.is_lower and not token.is_stop
                                         and token.tag_ not in _NOT_NAME_TAGS
                                         and not token.lower_.endswith(("ed", "ing", "ian", "ese")))


def _caseless(token: Token) -> bool:
    """A word in a script without capitals (Arabic, Thai, Hebrew, Devanagari ...), where no capital marks a name's
    edge: a name the English parser cut there ("على | قلى خان", "ชูพงษ์ | ช่างปรุง") is a piece. Chinese and
    Japanese names are written without spaces, so their pieces do not stand side by side."""
    letters = [c for c in token.text if c.isalpha()]
    return bool(letters) and not any(c.isupper() or c.islower() for c in letters)


def _sentence_end(word: str) -> bool:
    """A word with a full stop that may end a sentence the parser ran on: "World War I. Angell was" (not an
    initial: "N. C. Wyeth")."""
    return word.endswith(".") and (len(word) > 2 or _ROMAN.fullmatch(word) is not None)


def runs_on(doc: Doc, first: int, last: int, person: bool = False, nationality: bool = False) -> bool:
    """Whether the name on tokens [first, last) runs on into a capitalised word just before or after it (a
    nationality word before a `person`'s name does not count, "Jamaican Roger Mais", nor a word after a
    `nationality`, "Soviet Armenian grandmaster").

    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> doc = nlp("He was the son of Johan Anderson Lysholm Angell in Bergen .")
    >>> for t in doc:
    ...     t.tag_ = "NNP" if t.text[0].isupper() else "IN"
    >>> runs_on(doc, 5, 7)  # "Johan Anderson" before "Lysholm"
    True
    >>> runs_on(doc, 10, 11)  # "Bergen": "in" before, "." after
    False
    """
    before = doc[first - 1] if first > 0 else None
    after = doc[last] if last < len(doc) else None
    ends = doc[last - 1].text
    if before is not None and before.text in ("A", "An") and not before.is_sent_start:
        return True  # "A Thousand Plateaus", "An Bord Pleanála": a capital article inside a sentence opens a title
    if _caseless(doc[first]) and any(t is not None and _caseless(t) for t in (before, after)):
        return True  # "على [قلى خان]": a script without capitals, cut inside a name
    if last + 1 < len(doc) and doc[last].text == "-" and _word_part(doc[last + 1]):
        return True  # "Middle-earth", "Heian-kyō", "Sixty-first": the name is the hyphenated word
    return bool((after is not None and not nationality and _name_word(after) and not _sentence_end(ends))
                or (before is not None and _name_word(before) and not doc[first].is_sent_start
                    and not (person and before.lower_ in DEMONYMS)))


def cut_before_of(doc: Doc, first: int, last: int, label: str) -> bool:
    """A body's or event's name of several words cut before "of" and the capitalised name after it ("the Roman
    Catholic Diocese [of Pittsburgh]", "the Federal Reserve Bank [of New York]", "two Africa Cup [of Nations]"; not
    before a date: "the Declaration by United Nations of January 1, 1942")."""
    return (label in _OF_LABELS and last - first >= 2 and last + 1 < len(doc) and doc[last].lower_ == "of"
            and _name_word(doc[last + 1]) and doc[last + 1].ent_type_ not in ("DATE", "TIME"))


def in_quoted_phrase(doc: Doc, first: int, last: int) -> bool:
    """A name at the head of a quoted phrase that goes on past it is a word of a title or term, not a name of its
    own: '" Dr. [Beat] "', '" This [Little Girl of Mine] "', '" [Tonankai] earthquake "', '" [Amours] mortes "'. Not
    a name inside quoted speech after lower-case words ('" the newest school in America 's first research
    university "')."""
    start, end = sentence_of(doc, first)
    quotes = [t.i for t in doc[start:end] if t.text in QUOTE_MARKS]
    opening = [q for n, q in enumerate(quotes) if q < first and n % 2 == 0 and n + 1 < len(quotes) and quotes[n + 1] >= last]
    if not opening:
        return False
    close = quotes[quotes.index(opening[-1]) + 1]
    before, after = doc[opening[-1] + 1 : first], doc[last : close]
    return (close - opening[-1] <= 16 and any(c.isalpha() for t in list(before) + list(after) for c in t.text)
            and not any(t.is_alpha and t.text[:1].islower() for t in before))


def date_like(words: list[str]) -> bool:
    """A date or span of time written in capitals ("Calendar Year 1944", "Fiscal Year", "Spring 1945"): time
    words with a number or a word for a span of time. A date is an attribute of a fact, not a thing in the graph.

    >>> date_like("Calendar Year 1944".split()), date_like("Fiscal Year".split()), date_like("War of 1812".split())
    (True, True, False)
    >>> date_like("Public Law 132".split()), date_like(["Day"]), date_like("Summer Palace".split())
    (False, False, False)
    """
    return (len(words) >= 2 and any(w.isdigit() or w.lower() in _SPANS for w in words)
            and all(w.isdigit() or w.lower() in _TIME_WORDS or w.lower() in MONTHS for w in words))


def kept_whole(label: str) -> bool:
    """A quoted title's label: its words are kept whole, whatever is beside them."""
    return label.strip() in _KEEP_LABELS
