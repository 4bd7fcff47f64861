"""Names and ids: name normalisation and the entity ids, shared by graph building, importers, postprocessing
and entity resolution (relation ids, hashes of their fields, are computed in kgkit.core.records).

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

from kgkit.core.records import relation_id, relation_ids  # noqa: F401 (the ids are hashes: kept with them)

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
