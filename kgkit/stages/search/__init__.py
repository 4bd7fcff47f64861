"""Hybrid search over a knowledge graph and its chunks: keyword (BM25F) and dense channels fused by a convex
combination of their normalised scores, a graph channel (personalised PageRank from the entities a query names),
items the query names first. See docs/search.md.

>>> from kgkit.stages.search import SearchIndex, SearchItem
>>> index = SearchIndex()
>>> _ = index.add([SearchItem(id="c1", kind="chunk", title="", body="Ada met Bob.")])
>>> index.search("bob")["id"].tolist()
['c1']
"""

from kgkit.stages.search.fusion import convex, mmr, rollup, rrf
from kgkit.stages.search.items import SearchItem, entities_by_chunk, items_from_chunks, items_from_graph
from kgkit.stages.search.search_index import (
    CHANNELS,
    HIT_COLUMNS,
    Filters,
    IndexChanges,
    SearchConfig,
    SearchIndex,
    SearchStore,
)

__all__ = ["CHANNELS", "HIT_COLUMNS", "Filters", "IndexChanges", "SearchConfig", "SearchIndex", "SearchItem", "SearchStore",
           "convex", "entities_by_chunk", "items_from_chunks", "items_from_graph", "mmr", "rollup", "rrf"]
