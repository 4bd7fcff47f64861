"""Text helpers for search: tokenising, stopwords, and the text each kind of item is indexed under.

Pure functions, no state. Tokens are accent-free, case-folded runs of letters and digits; underscores and dots
split words, so `posix.pidfd_open` gives `posix`, `pidfd`, `open`.

>>> tokens("Thé  pidfd_open() call!")
['the', 'pidfd', 'open', 'call']
>>> query_terms("the pidfd open of the call")
['pidfd', 'open', 'call']
>>> query_terms("the of and")  # only stopwords: keep them rather than return nothing
['the', 'of', 'and']
>>> fact_sentence("Ada Lovelace", "WORKS_WITH", "Charles Babbage", "Ada worked with Babbage.")
'Ada Lovelace WORKS_WITH Charles Babbage: Ada worked with Babbage.'
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")
MAX_QUERY_CHARS = 2000
MAX_QUERY_TERMS = 32

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other
    our ours out over own same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours""".split()  # noqa: SIM905 (a word list reads better as text)
)


def fold(text: str) -> str:
    """Accent-free, case-folded text."""
    if text.isascii():
        return text.lower()  # the common case, ~50x faster than the per-character path
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def tokens(text: str) -> list[str]:
    """Every token of `text`, in order (duplicates kept)."""
    return _WORD.findall(fold(text))


def cased_tokens(text: str) -> list[str]:
    """Every token of `text` as written (case and accents kept), in order: `tokens` folds each of them.

    >>> cased_tokens("the Bubye River's mouth")
    ['the', 'Bubye', 'River', 's', 'mouth']
    """
    return _WORD.findall(text)


def query_terms(query: str, *, max_terms: int = MAX_QUERY_TERMS) -> list[str]:
    """Distinct non-stopword tokens of a query, in order, at most `max_terms` (a query of stopwords only keeps
    them). Any text is a valid query: FTS syntax (`*`, quotes, `NEAR(`) is just punctuation here."""
    words = list(dict.fromkeys(tokens(query[:MAX_QUERY_CHARS])))
    kept = [w for w in words if w not in STOPWORDS]
    return (kept or words)[:max_terms]


def fact_sentence(source: str, relation_type: str, target: str, evidence: str | None = None) -> str:
    """A relation as one sentence: "Source TYPE Target: evidence"."""
    head = f"{source} {relation_type} {target}"
    return f"{head}: {evidence}" if evidence else head


DOCUMENT_SUFFIXES = frozenset({"txt", "md", "markdown", "rst", "html", "htm", "xhtml", "pdf", "docx", "doc", "odt",
                               "rtf", "epub", "json", "jsonl", "csv", "tsv", "xml", "tex"})


def document_name(path: str) -> str:
    """A document's name from its path: no folders, no document file extension.

    >>> document_name("speeches/1941-Roosevelt-1.txt"), document_name("posix.pidfd_open")
    ('1941-Roosevelt-1', 'posix.pidfd_open')
    """
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, suffix = name.rpartition(".")
    return stem if dot and stem and suffix.lower() in DOCUMENT_SUFFIXES else name


def snippet(text: str, limit: int = 300) -> str:
    """`text` cut at a word boundary to at most `limit` characters (an ellipsis marks the cut).

    >>> snippet("one two three four", limit=9)
    'one two…'
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit] + "…"
