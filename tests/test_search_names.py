"""Items the query names rank first, across kinds: an exact name (or alias), then names holding the query as
a phrase (those the query is more of first), then the fused ranking. The demo known-item set is in
test_search_known_items.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kgkit.stages.search import SearchConfig, SearchIndex, SearchItem
from kgkit.stages.search.names import item_names, name_match, query_tokens
from kgkit.stages.search.schema import search_json


def entity(eid, name, *aliases, type="Location"):
    return SearchItem(id=eid, kind="entity", title=" ; ".join([name, *aliases]), body=type, type=type, entities=(eid,))


def relation(rid, a, b, rtype, evidence, ends):
    return SearchItem(id=rid, kind="relation", title=f"{a} ; {b}", body=f"{a} {rtype} {b}: {evidence}", type=rtype,
                      evidence=evidence, entities=ends)


def chunk(cid, text, title="speeches/1941-Roosevelt-1.txt"):
    return SearchItem(id=cid, kind="chunk", title=title, body=text, document_id="d1")


def items():
    return [
        # chunks that say "Mexico" often outscore the entity on words alone (BM25F sums the fields)
        chunk("c1", "Mexico and Mexico: our neighbour Mexico, the republic of Mexico, trade with Mexico."),
        chunk("c2", "The war powers act gave the war powers the act needed; war powers act war powers act."),
        relation("r1", "Mexico", "Hemisphere", "MENTIONED_WITH", "Mexico stands with the Hemisphere; Mexico agrees.",
                 ("E:mexico", "E:hemisphere")),
        relation("r2", "Congress", "Second War Powers Act", "SIGNS", "Congress passed the Second War Powers Act.",
                 ("E:congress", "E:swpa")),
        entity("E:mexico", "Mexico"),
        entity("E:mexico city", "Mexico City"),
        entity("E:swpa", "Second War Powers Act", type="Law"),
        entity("E:stalin", "Marshal Stalin", "Joseph Stalin", type="Person"),
        relation("r3", "Attlee", "Marshal Stalin", "MEETS", "Attlee met Marshal Stalin at Potsdam; Stalin agreed.",
                 ("E:attlee", "E:stalin")),
    ]


@pytest.fixture(scope="module")
def index():
    ix = SearchIndex()
    ix.add(items())
    return ix


def test_an_exact_name_ranks_first_across_kinds(index):
    hits = index.search("Mexico")
    assert hits["id"].tolist()[:2] == ["E:mexico", "r1"] or hits["id"].tolist()[0] == "E:mexico"
    assert hits.iloc[0]["match"] == "exact"
    off = SearchIndex(config=replace(SearchConfig(), names=False))
    off.add(items())
    assert off.search("Mexico", channels=("keyword",))["id"].tolist()[0] != "E:mexico"  # what words alone do


def test_names_holding_the_query_come_next_the_closest_first(index):
    hits = index.search("war powers act", limit=5)
    top = hits["id"].tolist()[:2]
    assert set(top) == {"E:swpa", "r2"} and list(hits["match"][:2]) == ["phrase", "phrase"]
    assert top[0] == "E:swpa"  # the query is 3 of its 4 words, 3 of the relation's 6
    stalin = index.search("stalin", limit=5)
    assert stalin["id"].tolist()[:2] == ["E:stalin", "r3"]


def test_relation_names_read_both_ways_and_as_a_fact(index):
    assert index.search("Hemisphere and Mexico").iloc[0]["id"] == "r1"
    assert index.search("congress signs second war powers act").iloc[0]["id"] == "r2"
    r2 = items()[3]
    assert ("congress", "second", "war", "powers", "act") in item_names(r2)
    assert ("congress", "signs", "second", "war", "powers", "act") in item_names(r2)


def test_filters_hold_for_named_items(index):
    hits = index.search("Mexico", kind="chunk")
    assert set(hits["kind"]) == {"chunk"} and hits["match"].isna().all()


def test_stopwords_are_not_part_of_a_name_but_other_words_are(index):
    assert query_tokens("the of") == () and name_match(query_tokens("where is Mexico?"), items()[4]) == "exact"
    assert name_match(query_tokens("trade with mexico"), items()[4]) is None
    assert index.search("trade with the republic of mexico").iloc[0]["match"] is None


def test_json_hits_say_how_the_query_names_them(index):
    frame = index.search("Mexico", limit=3)
    out = search_json(frame, query="Mexico", filters={}, limit=3, offset=0)
    assert out["hits"][0]["match"] == "exact" and all("match" in h for h in out["hits"])
