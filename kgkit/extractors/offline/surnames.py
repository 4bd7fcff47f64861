"""Surnames that are also place names: the one-word cities and regions of the gazetteer
(kgkit.extractors.offline.gazetteer) that are among the 40,000 most frequent surnames of the 1990 U.S. Census (a
work of the U.S. government, public domain; the `dist.all.last` frequency file as shipped by the MIT-licensed
`names` 0.3.0 package): "Lincoln", "Preston", "Houston", "Mendoza".
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.surnames.

>>> "lincoln" in PLACE_SURNAMES, "pirna" in PLACE_SURNAMES
(True, False)
>>> select_place_surnames(["SMITH 1.006 1.006 1", "LINCOLN 0.010 50.0 900"], 40_000, {"lincoln", "pirna"}.__contains__)
['lincoln']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib import resources

from kgkit.core.given_names import census_names

__all__ = ["PLACE_SURNAMES", "TOP", "select_place_surnames"]

TOP = 40_000  # surnames ranked this or better


def select_place_surnames(lines: Iterable[str], top: int, is_place: Callable[[str], bool]) -> list[str]:
    """The one-word surnames of a census frequency file ranked `top` or better that `is_place` (asked in lower
    case) accepts, sorted."""
    return sorted(n for n in set(census_names(lines, top)) if " " not in n and is_place(n))


PLACE_SURNAMES = frozenset(resources.files("kgkit.extractors.offline").joinpath("data", "place_surnames.txt")
                           .read_text(encoding="utf-8").split())
