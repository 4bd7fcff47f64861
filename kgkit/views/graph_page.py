"""Graph views: a Graph as one standalone, offline HTML page — the graph explorer (kgkit.views.explorer).

The page needs no network: the renderer (sigma.js + graphology, WebGL, vendored) and the explorer's ES module
are inlined and a Content-Security-Policy forbids any fetch. Every string that comes from a document is escaped: the data is
HTML-safe JSON (``<``, ``>``, ``&``, ``'`` become ``\\u003c``...) and the explorer inserts text with
textContent, never as HTML. Same graph -> same bytes.

>>> import pandas as pd
>>> from kgkit.core.graph import RELATION_COLUMNS, Graph, empty_table
>>> ents = pd.DataFrame({"id": ["person:ada", "person:charles"], "name": ["Ada", "Charles <b>"],
...     "type": ["Person", "Person"], "aliases": [[], []], "mentions": [2, 1], "documents": [1, 1],
...     "confidence": [1.0, 1.0], "identity": ["derived", "derived"], "degree": [1, 1]})
>>> g = Graph.empty()
>>> g = Graph(ents, empty_table(RELATION_COLUMNS), g.provenance, g.documents)
>>> page = graph_html(g, title="Demo")
>>> page.startswith("<!DOCTYPE html>"), "Charles <b>" in page, "Charles \\\\u003cb\\\\u003e" in page
(True, False, True)
>>> page == graph_html(g, title="Demo")
True
>>> "The graph is empty" in graph_html(Graph.empty())
True
"""

from __future__ import annotations

from collections.abc import Sequence

from kgkit.core.constants import VIEW_NODES, WEAK_TYPES
from kgkit.core.graph import Graph
from kgkit.views.explorer.page import explorer_html
from kgkit.views.explorer.palette import EDGE_COLOUR, FAINT_COLOUR, FLAGGED_COLOUR, PALETTE, PINNED, type_colour

__all__ = ["EDGE_COLOUR", "FAINT_COLOUR", "FLAGGED_COLOUR", "PALETTE", "PINNED", "graph_html", "type_colour"]


def graph_html(
    graph: Graph,
    *,
    max_nodes: int | None = VIEW_NODES,
    color_by: str = "type",
    height: str = "800px",
    title: str | None = None,
    physics: bool = False,
    seed: int = 0,
    faint_types: Sequence[str] = WEAK_TYPES,
) -> str:
    """A complete, standalone HTML page exploring ``graph`` (pure: no files, no network, no randomness).

    The explorer: search over names and aliases, filters (entity and relation types, co-occurrence,
    flags, degree, confidence, support, document, community, and a valid-time slider when relations carry
    times), a details panel with evidence, focus on a neighbourhood, paths. Nodes are coloured by
    ``color_by`` (an entity column), sized by degree; the ``max_nodes`` most connected entities are kept
    (None: all) and the header says "showing N of M entities". ``seed`` fixes the layout, which is
    computed here (communities apart); ``physics`` is accepted for compatibility and ignored.
    """
    del physics  # the layout is precomputed: the page runs no physics simulation
    return explorer_html(graph, max_nodes=max_nodes, color_by=color_by, height=height, title=title, seed=seed,
                         faint_types=tuple(faint_types))
