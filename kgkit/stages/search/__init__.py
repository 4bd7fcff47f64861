"""Hybrid search over a knowledge graph and its chunks: keyword (BM25F), dense and graph channels fused by
weighted reciprocal rank fusion. See docs/search.md.

>>> from kgkit.stages.search import SearchIndex, SearchItem
>>> index = SearchIndex()
>>> _ = index.add([SearchItem(id="c1", kind="chunk", title="", body="Ada met Bob.")])
>>> index.search("bob")["id"].tolist()
['c1']
"""

from kgkit.stages.search.fusion import mmr, rollup, rrf
from kgkit.stages.search.index import (
    CHANNELS,
    HIT_COLUMNS,
    Filters,
    IndexChanges,
    SearchConfig,
    SearchIndex,
    SearchStore,
)
from kgkit.stages.search.items import SearchItem, entities_by_chunk, items_from_chunks, items_from_graph

__all__ = ["CHANNELS", "HIT_COLUMNS", "Filters", "IndexChanges", "SearchConfig", "SearchIndex", "SearchItem", "SearchStore",
           "entities_by_chunk", "items_from_chunks", "items_from_graph", "mmr", "rollup", "rrf"]
