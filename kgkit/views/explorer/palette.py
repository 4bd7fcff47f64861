"""Colour-blind-safe colours for the graph views.

The palette is Okabe-Ito (7 colours, black left out) extended with Paul Tol's "muted" and the
Tableau colour-blind-10 colours, so a dozen types stay distinguishable for the common forms of colour
blindness. Common types are pinned (the same colour in every graph); within one graph `type_colours` gives
every other value a colour no other value of that graph has while the palette lasts.

>>> type_colour("Person"), type_colour("Product") != type_colour("Person")
('#0072B2', True)
>>> colours = type_colours(["Person", "Spaceship", "Planet"])
>>> len(set(colours.values())) == 3 and colours["Person"] == "#0072B2"
True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any

__all__ = ["EDGE_COLOUR", "FAINT_COLOUR", "FLAGGED_COLOUR", "OTHER_COLOUR", "PALETTE", "PINNED", "type_colour",
           "type_colours", "value_text"]

PALETTE: tuple[str, ...] = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442",  # Okabe-Ito
    "#882255", "#44AA99", "#AA4499", "#DDCC77", "#332288", "#117733", "#999933", "#CC6677", "#88CCEE",  # Tol muted
    "#5F9ED1", "#C85200", "#FFBC79", "#A2C8EC", "#595959",  # Tableau colour-blind 10
)  # fmt: skip
OTHER_COLOUR = "#BBBBBB"
PINNED: dict[str, str] = {
    "Person": "#0072B2", "Organization": "#E69F00", "Location": "#009E73", "Event": "#D55E00",
    "Group": "#56B4E9", "Concept": "#CC79A7", "Date": "#F0E442", "Law": "#882255", "Product": "#44AA99",
    "Work": "#AA4499", "Other": OTHER_COLOUR,
}  # fmt: skip
EDGE_COLOUR, FLAGGED_COLOUR = "#8a9097", "#C8102E"
FAINT_COLOUR = "#d3d7db"  # co-occurrence edges: context, not claims


def value_text(value: Any) -> str:
    """A table cell as text: "" for None / NaN / NA."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    try:
        import pandas as pd

        if value is pd.NA:
            return ""
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def type_colour(value: Any) -> str:
    """The colour of one value, the same in every graph: pinned for common types, else hashed (sha256) into
    PALETTE (two rare values may share a colour; `type_colours` avoids that within one graph).

    >>> type_colour("Spaceship") == type_colour("Spaceship"), type_colour(None)
    (True, '#BBBBBB')
    """
    key = value_text(value) or "Other"
    if key in PINNED:
        return PINNED[key]
    return PALETTE[int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % len(PALETTE)]


def type_colours(values: Iterable[Any]) -> dict[str, str]:
    """{value: colour} for the distinct values of one graph: pinned colours first, then each other value (in
    sorted order) its hashed colour if still free, else the first free palette colour; values beyond the
    palette's length share colours.

    >>> type_colours(["b", "a", "Person"])["Person"]
    '#0072B2'
    """
    keys = sorted({value_text(v) or "Other" for v in values})
    out = {k: PINNED[k] for k in keys if k in PINNED}
    used = set(out.values())
    for k in keys:
        if k in out:
            continue
        colour = type_colour(k)
        if colour in used:
            colour = next((c for c in PALETTE if c not in used), colour)
        out[k] = colour
        used.add(colour)
    return out
