"""Fusion order on small hand-made cases: RRF arithmetic, channel weights, the graph channel, MMR, roll-up."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kgkit.stages.search import SearchConfig, SearchIndex, SearchItem, rollup, rrf


class TableEmbedder:
    """A fake embedder: fixed vectors for known texts (the first word picks the axis), for exact control."""

    id = "table:3"
    dim = 3

    def __call__(self, texts):
        axes = {"alpha": 0, "alef": 0, "beta": 1, "gamma": 2}  # alef: a synonym only the dense channel knows
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for i, t in enumerate(texts):
            word = t.split()[0].lower() if t.split() else ""
            out[i, axes.get(word, 2)] = 1.0
        return out


def chunk(cid, title, body, **kw):
    return SearchItem(id=cid, kind="chunk", title=title, body=body, document_id=kw.pop("doc", "d1"), **kw)


def test_rrf_sums_weighted_reciprocal_ranks_and_breaks_ties_by_first_seen():
    fused = rrf({"keyword": ["a", "b"], "dense": ["c", "a"]}, weights={"keyword": 1.0, "dense": 1.0}, k=60)
    assert [k for k, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1][1] == pytest.approx(1 / 61) and fused[2][1] == pytest.approx(1 / 62)
    assert [k for k, _ in rrf({"x": ["p", "q"], "y": ["q", "p"]}, weights={})] == ["p", "q"]
    assert [k for k, _ in rrf({"x": ["p"], "y": ["q"]}, weights={"x": 1.0, "y": 2.0})] == ["q", "p"]
    assert rrf({"x": ["p"]}, weights={"x": 0.0}) == []


RRF = SearchConfig(fusion="rrf", weights={"keyword": 1.0, "dense": 1.0, "graph": 1.0}, coverage_power=0)


def test_keyword_and_dense_channels_fuse_by_rank():
    index = SearchIndex(embedder=TableEmbedder(), config=RRF)
    index.add([chunk("k-only", "", "beta zebra zebra"),          # best keyword hit, dense axis beta
               chunk("both", "", "alpha zebra"),                 # keyword 2nd, dense 1st (alpha axis)
               chunk("d-only", "", "alef nothing in common")])  # dense tie with "both", no keyword
    hits = index.search("alpha zebra yak", limit=3, channels=("keyword", "dense"))  # no item has every term
    assert not hits.attrs["lookup"] and hits.attrs["weights"] == {"keyword": 1.0, "dense": 1.0}
    # both: keyword 1 + dense 1; k-only: keyword 2 + dense 3 (score 0); d-only: dense 2 only
    assert hits["id"].tolist() == ["both", "k-only", "d-only"]
    ranks = hits.set_index("id")[["keyword_rank", "dense_rank"]].to_dict("index")
    assert ranks["both"] == {"keyword_rank": 1, "dense_rank": 1}
    assert ranks["d-only"] == {"keyword_rank": None, "dense_rank": 2}
    assert hits["score"].tolist()[2] == pytest.approx(1 / 62, abs=1e-6)
    weighted = SearchIndex(embedder=TableEmbedder(), config=replace(RRF, weights={"keyword": 0.0, "dense": 1.0}))
    weighted.add([chunk("k-only", "", "beta zebra zebra"), chunk("d-only", "", "alpha nothing")])
    assert weighted.search("alpha zebra", channels=("keyword", "dense"))["id"].tolist()[0] == "d-only"


def test_lookup_query_is_ranked_by_the_keyword_channel():
    """A query whose every term some keyword hit has is a lookup: the dense weight is scaled by lookup_dense
    (0 by default), so a dense-only hit cannot push the exact-word match down."""
    items = [chunk("x", "", "beta alpha zebra"),  # every query term; dense axis beta
             chunk("y", "", "alef zebra"),        # one term; dense axis alpha (the query's)
             chunk("z", "", "alef again")]        # no term; dense axis alpha
    for config in (SearchConfig(), RRF):  # the default and plain RRF: dense weight 0 for a lookup, not run
        index = SearchIndex(embedder=TableEmbedder(), config=config)
        index.add(items)
        hits = index.search("alpha zebra", limit=3, channels=("keyword", "dense"))
        assert hits.attrs["lookup"] and hits.attrs["channels"] == ["keyword"]
        assert hits["id"].tolist() == ["x", "y"] and hits["dense_rank"].isna().all()
    half = SearchIndex(embedder=TableEmbedder(), config=replace(RRF, lookup_dense=0.5))
    half.add(items)
    hits = half.search("alpha zebra", limit=3, channels=("keyword", "dense"))
    assert hits.attrs["weights"] == {"keyword": 1.0, "dense": 0.5}
    assert hits["id"].tolist() == ["x", "y", "z"] and hits["dense_rank"].tolist() == [3, 1, 2]
    plain = SearchIndex(embedder=TableEmbedder(), config=replace(RRF, lookup_dense=1.0))
    plain.add(items)  # y: keyword 2 + dense 1 beats x: keyword 1 + dense 3
    assert plain.search("alpha zebra", limit=3, channels=("keyword", "dense"))["id"].tolist() == ["y", "x", "z"]


def test_default_fusion_weighs_the_words_by_how_much_of_the_query_one_item_has():
    """Convex combination of the keyword score over the best one and the cosine; keyword weight 0.2 + 0.8 *
    coverage^4, where coverage is the largest share of the query's terms one keyword hit has."""
    index = SearchIndex(embedder=TableEmbedder())
    index.add([chunk("three", "", "beta zebra yak gnu"),  # 3 of the 4 terms; dense axis beta
               chunk("one", "", "alpha zebra"),           # 1 term; dense axis alpha (the query's)
               chunk("none", "", "alef")])                # no term; dense axis alpha
    hits = index.search("alpha zebra yak gnu", limit=3, channels=("keyword", "dense"))
    weights = hits.attrs["weights"]
    assert weights["keyword"] == pytest.approx(0.2 + 0.8 * 0.75**4) and weights["dense"] == pytest.approx(1 - weights["keyword"])
    # three: 0.453 * 1 + 0.547 * 0 ; one: 0.453 * (its share of the best keyword score) + 0.547 * 1
    scores = dict(zip(hits["id"], hits["score"]))
    assert scores["none"] == pytest.approx(weights["dense"], abs=1e-6)
    assert hits["id"].tolist()[0] == "one" and scores["three"] == pytest.approx(weights["keyword"], abs=1e-6)


class GradedEmbedder:
    """Cosines as MiniLM spreads them: the query 1 apart from itself, 'filler' items 0.6, the rest 0.45."""

    id = "graded:3"
    dim = 3

    def __call__(self, texts):
        rows = [[1.0, 0.0, 0.0] if "unheardof" in t else [0.6, 0.8, 0.0] if "filler" in t else [0.45, 0.0, 0.893]
                for t in texts]
        return np.array(rows, dtype=np.float32) / np.linalg.norm(rows, axis=1, keepdims=True).astype(np.float32)


def test_a_clear_keyword_winner_survives_a_dense_channel_that_disagrees():
    """Four of the query's five words in one item (the fifth is in none), and five items with one of its words
    that the dense channel puts first: RRF lets their two moderate ranks outvote the clear keyword winner, the
    default keeps it first (bench/RESULTS.md, "Search (issue 16)")."""
    items = [chunk("target", "", "socket timeout retry backoff")] + [
        chunk(f"d{i}", "", f"socket filler{i} " + "words " * i) for i in range(5)]
    query = "socket timeout retry backoff unheardof"
    default = SearchIndex(embedder=GradedEmbedder())
    default.add(items)
    hits = default.search(query, limit=3, channels=("keyword", "dense"))
    assert not hits.attrs["lookup"] and hits["id"].tolist()[0] == "target"
    rrf_index = SearchIndex(embedder=GradedEmbedder(), config=RRF)
    rrf_index.add(items)
    assert rrf_index.search(query, limit=3, channels=("keyword", "dense"))["id"].tolist()[0] != "target"


def test_keyword_coordination_prefers_rows_matching_more_terms():
    index = SearchIndex()
    index.add([chunk("one-term", "", "socket socket socket socket"), chunk("all-terms", "", "socket timeout retry")])
    assert index.search("socket timeout retry")["id"].tolist() == ["all-terms", "one-term"]


def test_title_field_weighs_more_than_body():
    index = SearchIndex()
    index.add([chunk("body", "", "pidfd is mentioned here among many other words"),
               chunk("title", "posix.pidfd_open", "among many other words mentioned here")])
    assert index.search("pidfd")["id"].tolist()[0] == "title"


def graph_items():
    return [
        SearchItem(id="E:ada", kind="entity", title="Ada Lovelace", body="Person", type="Person", entities=("E:ada",),
                   document_id="d1", documents=("d1",)),
        SearchItem(id="E:babbage", kind="entity", title="Charles Babbage", body="Person", type="Person",
                   entities=("E:babbage",), document_id="d2", documents=("d2",)),
        SearchItem(id="E:engine", kind="entity", title="Analytical Engine", body="Other", type="Other",
                   entities=("E:engine",), document_id="d2", documents=("d2",)),
        SearchItem(id="R:1", kind="relation", title="Ada Lovelace ; Charles Babbage",
                   body="Ada Lovelace WORKED_WITH Charles Babbage", type="WORKED_WITH", entities=("E:ada", "E:babbage"),
                   document_id="d1", documents=("d1",), created_at="2024-01-01", expired_at="2024-06-01"),
        SearchItem(id="R:2", kind="relation", title="Charles Babbage ; Analytical Engine",
                   body="Charles Babbage DESIGNED Analytical Engine", type="DESIGNED",
                   entities=("E:babbage", "E:engine"), document_id="d2", documents=("d2",), created_at="2024-03-01"),
        chunk("C:1", "notes.txt", "Lovelace wrote notes on a machine.", entities=("E:ada",), doc="d1", documents=("d1",)),
        chunk("C:2", "engine.txt", "The machine was never finished.", entities=("E:engine",), doc="d2", documents=("d2",)),
    ]


def test_graph_channel_reaches_neighbours_the_text_channels_miss():
    index = SearchIndex()
    index.add(graph_items())
    keyword_only = index.search("Ada Lovelace", channels=("keyword",), limit=20)["id"].tolist()
    assert "E:babbage" not in keyword_only  # no word in common
    hits = index.search("Ada Lovelace", channels=("keyword", "graph"), limit=20)
    ids = hits["id"].tolist()
    assert ids[0] == "E:ada" and "E:babbage" in ids  # one hop over R:1
    assert hits.set_index("id").loc["E:babbage", "graph_rank"] is not None
    assert "E:engine" not in set(hits[hits["graph_rank"].notna()]["id"]) or \
        hits.set_index("id").loc["E:engine", "graph_rank"] > hits.set_index("id").loc["E:babbage", "graph_rank"]


def test_mmr_diversifies_near_duplicates():
    index = SearchIndex(embedder=TableEmbedder())
    index.add([chunk("a1", "", "alpha zebra one"), chunk("a2", "", "alpha zebra two"), chunk("b", "", "beta zebra")])
    plain = index.search("zebra", limit=2, channels=("keyword",))["id"].tolist()
    diverse = index.search("zebra", limit=2, channels=("keyword",), mmr_lambda=0.3)["id"].tolist()
    assert len(plain) == 2 and "b" in diverse and len({d[0] for d in diverse}) == 2


def test_chunk_hits_roll_up_to_documents_and_entities():
    index = SearchIndex()
    index.add(graph_items())
    hits = index.search("machine", kind="chunk")
    docs = rollup(hits, by="document")
    assert set(docs["key"]) == {"d1", "d2"} and docs["hits"].sum() == 2
    ents = rollup(hits, by="entity")
    assert set(ents["key"]) == {"E:ada", "E:engine"}
