"""Malformed and awkward queries return results or a clear error, never a crash."""

from __future__ import annotations

import pytest
from test_search_fusion import graph_items

from kgkit.io.search_store import open_index
from kgkit.stages.embed import HashingEmbedder
from kgkit.stages.search import SearchIndex

AWKWARD = [
    "", "   ", "\n\t", "the of and", "a", "*", "**", '"', '"unbalanced', "'", "NEAR(", 'NEAR("ada" "babbage", 2)',
    "ada AND OR NOT", "ada*", "^ada", "col:ada", "(((", ")", "-ada", "+ada", "ada OR", "{}[]<>", "\x00ada", "é", "👩‍🔬",
    "ada\u200bbabbage", "SELECT * FROM items; DROP TABLE items;--", "%", "_", "\\", "ada " * 5000, "x" * 100_000,
]


@pytest.fixture(scope="module")
def index():
    ix = SearchIndex(embedder=HashingEmbedder(dim=64))
    ix.add(graph_items())
    return ix


@pytest.mark.parametrize("query", AWKWARD, ids=lambda q: repr(q[:20]))
@pytest.mark.parametrize("channels", [("keyword",), ("keyword", "dense", "graph")])
def test_awkward_queries_never_crash(index, query, channels):
    hits = index.search(query, channels=channels, limit=5)
    assert len(hits) <= 5
    assert hits.attrs["timings_ms"]["total"] >= 0


def test_stopword_only_query_still_matches(index):
    assert index.search("the of and", channels=("keyword",)).attrs["terms"] == ["the", "of", "and"]


def test_fts_syntax_is_plain_text(index):
    assert index.search('NEAR("ada" babbage', channels=("keyword",))["id"].tolist()[0] in {"E:ada", "R:1", "E:babbage"}
    assert index.search("ada*", channels=("keyword",))["id"].tolist()[0] == "E:ada"


def test_empty_query_returns_no_hits(index):
    assert index.search("", limit=5).empty and index.search("   ").attrs["total"] == 0


def test_bad_paging_is_a_clear_error(index):
    with pytest.raises(ValueError, match="limit and offset"):
        index.search("ada", limit=-1)
    assert index.search("ada", offset=10_000).empty


def test_very_long_query_is_bounded(index):
    hits = index.search("lovelace " + "zzz " * 50_000)
    assert hits["id"].tolist()[0] == "E:ada" and len(hits.attrs["terms"]) <= 32


def test_empty_index_answers(tmp_path):
    ix = open_index(tmp_path / "i", embedder=HashingEmbedder(dim=16))
    assert ix.search("anything").empty


@pytest.mark.parametrize(("kind", "offset"), [(None, 0), ("chunk", 0), (None, 10_000)])
def test_hits_frame_is_the_frame_pandas_builds_from_the_same_columns(index, kind, offset, monkeypatch):
    # the page's columns are built as pandas stores them and handed over without re-checking
    # (kgkit.stages.search.hits): the same values, dtypes and labels as pd.array and the public constructor
    # give, for pages with None cells (chunks: a column all None) and an empty one
    import pandas as pd

    from kgkit.stages.search import hits

    fast = index.search("ada babbage", kind=kind, offset=offset, limit=7)
    assert (len(fast) == 0) == (offset > 0)
    monkeypatch.delattr(pd.DataFrame, "_from_arrays")
    monkeypatch.setattr(hits, "_strings_builder", lambda: None)
    public = index.search("ada babbage", kind=kind, offset=offset, limit=7)
    pd.testing.assert_frame_equal(fast, public)
    assert (fast.dtypes == public.dtypes).all() and fast.to_dict("list") == public.to_dict("list")
