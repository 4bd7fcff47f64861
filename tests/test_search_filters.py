"""Filters (kind, type, document, as-of) hold on every channel path: keyword, dense, graph, and fused."""

from __future__ import annotations

import pytest
from test_search_fusion import graph_items

from kgkit.stages.embed import HashingEmbedder
from kgkit.stages.search import SearchIndex

PATHS = [("keyword",), ("dense",), ("keyword", "graph"), ("keyword", "dense", "graph")]
QUERY = "Ada Lovelace Charles Babbage machine engine notes designed worked"


@pytest.fixture(scope="module")
def index():
    ix = SearchIndex(embedder=HashingEmbedder(dim=128))
    ix.add(graph_items())
    return ix


def ids(index, channels, **filters):
    return index.search(QUERY, channels=channels, limit=50, **filters)["id"].tolist()


@pytest.mark.parametrize("channels", PATHS)
def test_unfiltered_paths_find_something(index, channels):
    assert ids(index, channels)


@pytest.mark.parametrize("channels", PATHS)
def test_kind_filter(index, channels):
    for kind in ("entity", "relation", "chunk"):
        found = ids(index, channels, kind=kind)
        assert found and all(index.items[index.row_of[i]].kind == kind for i in found)
    both = ids(index, channels, kind=["entity", "chunk"])
    assert {index.items[index.row_of[i]].kind for i in both} <= {"entity", "chunk"}


@pytest.mark.parametrize("channels", PATHS)
def test_type_filter(index, channels):
    found = ids(index, channels, type="Person")
    assert found and set(found) <= {"E:ada", "E:babbage"}
    assert set(ids(index, channels, type="DESIGNED")) <= {"R:2"}
    assert ids(index, channels, type="NoSuchType") == []


@pytest.mark.parametrize("channels", PATHS)
def test_document_filter(index, channels):
    found = ids(index, channels, document="d2")
    assert found and all("d2" in index.items[index.row_of[i]].documents for i in found)
    assert ids(index, channels, document="nope") == []


@pytest.mark.parametrize("channels", PATHS)
def test_as_of_filter_uses_relation_graph_time(index, channels):
    before = set(ids(index, channels, kind="relation", as_of="2023-12-31"))
    during = set(ids(index, channels, kind="relation", as_of="2024-04-01"))
    after = set(ids(index, channels, kind="relation", as_of="2024-07-01"))
    assert before == set()
    assert during <= {"R:1", "R:2"} and during
    assert "R:1" not in after  # expired 2024-06-01
    assert "E:ada" in ids(index, channels, as_of="2023-12-31") or channels == ("dense",)  # entities carry no graph time


def test_as_of_also_prunes_graph_channel_edges(index):
    # R:1 (Ada-Babbage) is not yet believed in 2023: the graph channel must not walk over it
    hits = index.search("Ada Lovelace", channels=("keyword", "graph"), as_of="2023-12-31", limit=50)
    graph_hits = set(hits[hits["graph_rank"].notna()]["id"])
    assert "E:babbage" not in graph_hits
    later = index.search("Ada Lovelace", channels=("keyword", "graph"), as_of="2024-02-01", limit=50)
    assert "E:babbage" in set(later[later["graph_rank"].notna()]["id"])


def test_unknown_kind_is_a_clear_error(index):
    with pytest.raises(ValueError, match="unknown item kind"):
        index.search("ada", kind="document")
    with pytest.raises(ValueError, match="unknown channel"):
        index.search("ada", channels=("bm25",))


def test_filters_page_consistently(index):
    full = index.search(QUERY, limit=50)
    pages = [index.search(QUERY, limit=3, offset=o) for o in range(0, len(full), 3)]
    assert [i for p in pages for i in p["id"].tolist()] == full["id"].tolist()
    assert pages[0].attrs["total"] == len(full)
