"""Name normalisation shared by graph building and entity resolution.

>>> normalise_name("  The U.S.  Senate ")
'the us senate'
>>> normalise_name("Café-Société") == normalise_name("cafe societe")
True
>>> entity_id("Person", "Franklin D. Roosevelt")
'Person:franklin d roosevelt'
"""

from __future__ import annotations

import re
import unicodedata

_DROP = re.compile(r"[.'\u2019`]")  # dots and apostrophes vanish: "U.S." == "US", "O'Neil" == "ONeil"
_SPACE = re.compile(r"[^\w&]+")  # other punctuation separates words


def normalise_name(name: str) -> str:
    """Unicode-folded, accent-free, case-folded name with punctuation removed and spaces collapsed."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = _DROP.sub("", text)
    return " ".join(_SPACE.sub(" ", text).replace("_", " ").split())


def entity_id(entity_type: str, name: str) -> str:
    """Stable entity id: type + normalised name (the exact-name merge within a type)."""
    return f"{entity_type}:{normalise_name(name)}"
