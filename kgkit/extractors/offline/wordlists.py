"""The offline extractor's word lists, read once from the YAML files of kgkit/extractors/offline/data (one per
module that uses them); their bytes are part of the extractor's id (kgkit.extractors.offline.identity)."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml

__all__ = ["table", "theme", "words"]


@functools.cache
def theme(name: str) -> dict[str, Any]:
    """Every list of data/`name`.yaml, by key (as written: a string of words or a list).

    >>> "honorifics" in theme("lexicon")
    True
    """
    text = resources.files("kgkit.extractors.offline").joinpath("data", f"{name}.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def words(name: str, key: str) -> frozenset[str]:
    """The words of list `key` of data/`name`.yaml: a string split at whitespace, or a list as it is.

    >>> sorted(words("lexicon", "determiners"))
    ['a', 'an', 'that', 'the', 'these', 'this', 'those']
    """
    value = theme(name)[key]
    return frozenset(value.split() if isinstance(value, str) else value)


def table(name: str, key: str) -> Any:
    """List `key` of data/`name`.yaml as written: a label -> words mapping (in file order) or a string.

    >>> table("lexicon", "prefixes")["GPE"]
    'fort port'
    """
    return theme(name)[key]
