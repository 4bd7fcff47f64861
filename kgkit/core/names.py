"""Names and ids: name normalisation and the entity and relation ids, shared by graph building, importers,
postprocessing and entity resolution (the one place an id is computed).

>>> normalise_name("  The U.S.  Senate ")
'the us senate'
>>> normalise_name("Café-Société") == normalise_name("cafe societe")
True
>>> entity_id("Person", "Franklin D. Roosevelt")
'Person:franklin d roosevelt'
>>> relation_id("Person:ada", "WORKS_FOR", "Organization:acme")
'rel:2c94b9f94d9a9da4'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from hashlib import sha256

_DROP = re.compile(r"[.'\u2019`]")  # dots and apostrophes vanish: "U.S." == "US", "O'Neil" == "ONeil"
_SPACE = re.compile(r"[^\w&]+")  # other punctuation separates words


def normalise_name(name: str) -> str:
    """Unicode-folded, accent-free, case-folded name with punctuation removed and spaces collapsed."""
    text = unicodedata.normalize("NFKD", name)
    if not text.isascii():  # no combining mark in ASCII: the character loop only for the rest
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.casefold()
    text = _DROP.sub("", text)
    return " ".join(_SPACE.sub(" ", text).replace("_", " ").split())


def entity_id(entity_type: str, name: str) -> str:
    """Stable entity id: type + normalised name (the exact-name merge within a type)."""
    return f"{entity_type}:{normalise_name(name)}"


def relation_ids(sources: Iterable[str], types: Iterable[str], targets: Iterable[str],
                 negated: Iterable[bool]) -> list[str]:
    """Stable relation ids from endpoints, type and polarity, many at once (no function call per relation):
    `rel:` + 16 hex of sha256 of source, type, target and pos|neg joined by U+001F (as `short_hash`)."""
    return ["rel:" + sha256(f"{s}\x1f{t}\x1f{d}\x1f{'neg' if n else 'pos'}".encode()).hexdigest()[:16]
            for s, t, d, n in zip(sources, types, targets, negated)]


def relation_id(source: str, relation_type: str, target: str, negated: bool = False) -> str:
    """Stable relation id from endpoints, type and polarity (one of `relation_ids`)."""
    return relation_ids((source,), (relation_type,), (target,), (negated,))[0]
