"""Name matches: an item whose name is the query (`exact`) or holds the query's words side by side (`phrase`)
ranks above everything else, across kinds (docs/search.md, "How it ranks").

An item's names: an entity's name and aliases; a relation's two entity names read together in either order
("Fifth Army Rome", "Rome Fifth Army") and its fact ("Fifth Army ATTACKS Rome"); a chunk's document name (its
path without folders and file extension). Names and queries compare by their words: accent-free, case-folded
runs of letters and digits, stopwords left out ("Cairo and Teheran" names the relation Cairo ; Teheran, "department
of interior" the Department of the Interior; a name of stopwords only keeps them). Pure functions.

>>> from kgkit.stages.search.items import SearchItem
>>> e = SearchItem(id="e", kind="entity", title="Second War Powers Act", body="Law", type="Law")
>>> name_match(query_tokens("war powers act"), e), name_match(query_tokens("The Second War Powers Act"), e)
('phrase', 'exact')
>>> r = SearchItem(id="r", kind="relation", title="Fifth Army ; Rome", body="Fifth Army ATTACKS Rome: They took it.",
...                type="ATTACKS", evidence="They took it.")
>>> name_match(query_tokens("Rome Fifth Army"), r), name_match(query_tokens("army attacks rome"), r)
('exact', 'phrase')
>>> name_match(query_tokens("Rome and the Fifth Army"), r), name_match(query_tokens("the of"), r)
('exact', None)
>>> c = SearchItem(id="c", kind="chunk", title="speeches/1941-Roosevelt-1.txt", body="...")
>>> item_names(c), name_match(query_tokens("roosevelt"), c), name_match(query_tokens("txt"), c)
([('1941', 'roosevelt', '1')], 'phrase', None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.stages.search.text import STOPWORDS, document_name, tokens

if TYPE_CHECKING:
    from kgkit.stages.search.items import SearchItem

__all__ = ["MATCHES", "item_names", "name_coverage", "name_match", "query_tokens"]

MATCHES = ("exact", "phrase")  # best first
MAX_NAME_TOKENS = 64  # a longer query is a question or a passage, not a name


def _key(words: list[str]) -> tuple[str, ...]:
    content = tuple(w for w in words if w not in STOPWORDS)
    return content or tuple(words)


def query_tokens(query: str) -> tuple[str, ...]:
    """The query as a name: its words that are not stopwords; () when it has none (nothing to match) or is
    too long to be a name."""
    words = tokens(query[: MAX_NAME_TOKENS * 20])
    if len(words) > MAX_NAME_TOKENS:
        return ()
    return tuple(w for w in words if w not in STOPWORDS)


def item_names(item: SearchItem) -> list[tuple[str, ...]]:
    """The names an item can be looked up by, as token tuples."""
    if item.kind == "entity":
        texts = item.title.split(" ; ")
    elif item.kind == "relation":
        ends = item.title.split(" ; ")
        texts = [" ".join(ends), " ".join(reversed(ends))] if len(ends) == 2 else [item.title]
        evidence = item.evidence
        head = item.body[: -len(evidence) - 2] if evidence and item.body.endswith(f": {evidence}") else item.body
        texts.append(head.replace("_", " "))
    else:
        texts = [document_name(item.title)] if item.title else []
    return [k for k in (_key(tokens(t)) for t in texts) if k]


def _contains(name: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(name[i : i + n] == phrase for i in range(len(name) - n + 1))


def name_match(query: tuple[str, ...], item: SearchItem) -> str | None:
    """'exact' when one of the item's names is the query, 'phrase' when one holds it word for word, else None."""
    found = name_coverage(query, item)
    return None if found is None else "exact" if found == 1.0 else "phrase"


def name_coverage(query: tuple[str, ...], item: SearchItem) -> float | None:
    """The largest share of a name's words the query is, over the item's names that hold the query word for
    word (1.0: a name is the query); None when no name holds it.

    >>> from kgkit.stages.search.items import SearchItem
    >>> name_coverage(("stalin",), SearchItem(id="e", kind="entity", title="Marshal Stalin", body=""))
    0.5
    """
    if not query:
        return None
    shares = [len(query) / len(name) for name in item_names(item) if _contains(name, query)]
    return max(shares) if shares else None
