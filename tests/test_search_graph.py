"""The graph channel: the entities a query names seed a personalised PageRank over entities and the chunks that
mention them, which ranks chunks one or two hops away; it runs only when the query names an entity."""

from __future__ import annotations

import numpy as np
import pytest

from kgkit.stages.search import SearchIndex, SearchItem
from kgkit.stages.search.graph_channel import EntityGraph


def entity(eid, name):
    return SearchItem(id=eid, kind="entity", title=name, body="Other", type="Other", entities=(eid,))


def chunk(cid, text, *entities, doc="d1"):
    return SearchItem(id=cid, kind="chunk", title=f"{cid}.txt", body=text, document_id=doc, documents=(doc,),
                      entities=tuple(entities))


def two_hop():
    """Q names the Journal; c-journal says who publishes it (the Society); c-society, which never mentions the
    Journal, says who founded the Society: the second hop. c-noise shares only words with the question."""
    return [
        entity("E:journal", "Journal of Psychotherapy Integration"),
        entity("E:society", "Society for the Exploration of Psychotherapy Integration"),
        entity("E:founder", "Paul Wachtel"),
        entity("E:other", "Journal of Other Things"),
        chunk("c-journal", "The Journal of Psychotherapy Integration is published by the Society for the "
              "Exploration of Psychotherapy Integration.", "E:journal", "E:society"),
        chunk("c-society", "The Society for the Exploration of Psychotherapy Integration was founded in 1983; its "
              "first president was Paul Wachtel.", "E:society", "E:founder"),
        chunk("c-noise", "Who was the first president of the association? An association publishes a journal.",
              "E:other"),
        *[chunk(f"c-filler{i}", f"An unrelated note number {i} about a journal and a president.", "E:other")
          for i in range(5)],
    ]


QUESTION = "Who was the first president of the association which published Journal of Psychotherapy Integration?"


def test_the_second_hop_is_found_through_the_entity_both_chunks_mention():
    index = SearchIndex()
    index.add(two_hop())
    words = index.search(QUESTION, kind="chunk", limit=3, channels=("keyword",))["id"].tolist()
    assert "c-society" not in words[:2]  # its words barely overlap the question
    hits = index.search(QUESTION, kind="chunk", limit=3)
    assert hits.attrs["named"] == ["E:journal"] and "graph" in hits.attrs["channels"]
    assert hits["id"].tolist()[:2] == ["c-journal", "c-society"]
    assert hits.iloc[1]["graph_rank"] is not None and hits.iloc[1]["graph_score"] > 0


def test_the_graph_runs_only_when_the_query_names_an_entity():
    index = SearchIndex()
    index.add(two_hop())
    hits = index.search("who was the first president of the association", limit=3)
    assert hits.attrs["named"] == [] and "graph" not in hits.attrs["channels"]
    assert index.search(QUESTION, limit=3, channels=("keyword", "dense")).attrs["named"] == []


def test_linking_takes_whole_capitalised_names_longest_first():
    graph = EntityGraph([entity("E:a", "West Virginia"), entity("E:b", "Virginia"), entity("E:c", "State"),
                         entity("E:d", "Will County")])
    named = lambda q: sorted(graph.entity_ids(graph.link(q)))  # noqa: E731
    assert named("What county shares a border with Johnnycake, West Virginia?") == ["E:a"]  # not Virginia too
    assert named("What is the state sport of Virginia?") == ["E:b"]  # 'state' is not capitalised there
    assert named("what is the state sport of virginia") == ["E:b", "E:c"]  # no capitals: any case
    assert named("Who will county the votes?") == []


def test_a_rare_entity_seeds_more_than_a_common_one():
    items = [entity("E:rare", "Bubye River"), entity("E:common", "Africa"),
             *[chunk(f"c{i}", "text", "E:common") for i in range(4)], chunk("c-rare", "text", "E:rare", "E:common")]
    seeds = EntityGraph(items).link("Is the Bubye River in Africa?")
    graph = EntityGraph(items)
    by_id = dict(zip(graph.entity_ids(seeds), seeds.values()))
    assert by_id["E:rare"] == pytest.approx(1.0) and by_id["E:common"] == pytest.approx(0.2)


def test_filters_and_as_of_hold_in_the_walk():
    items = [*two_hop(), SearchItem(id="r1", kind="relation", title="Journal of Other Things ; Paul Wachtel",
                                    body="x RELATED_TO y", type="RELATED_TO", entities=("E:other", "E:founder"),
                                    created_at="2030-01-01")]
    index = SearchIndex()
    index.add(items)
    hits = index.search(QUESTION, kind="chunk", limit=20)
    assert set(hits["kind"]) == {"chunk"}
    graph = index.graph()
    _, indices = graph.without_relations(np.zeros(len(index.items), dtype=bool))
    assert len(indices) == len(graph.indices) - 2  # the relation's two directed edges
    before = index.search("Journal of Other Things", as_of="2020-01-01", limit=20, channels=("graph", "keyword"))
    assert "r1" not in before["id"].tolist()


def test_pagerank_mass_sums_to_at_most_one_and_touches_only_the_neighbourhood():
    items = [*two_hop(), *(chunk(f"far{i}", "far away", f"E:far{i}") for i in range(50))]
    graph = EntityGraph(items)
    mass = graph.pagerank(graph.link(QUESTION), restart=0.3)
    assert 0.9 < mass.sum() <= 1.0 + 1e-9
    far = [graph.row_node[i] for i, item in enumerate(items) if item.id.startswith("far")]
    assert not np.any(mass[far])


def test_the_graph_is_rebuilt_after_a_write():
    index = SearchIndex()
    index.add(two_hop())
    first = index.graph()
    assert index.graph() is first  # kept between searches
    index.add([chunk("c-new", "Paul Wachtel wrote a book.", "E:founder")])
    assert index.graph() is not first
    index.remove(["c-society"])
    hits = index.search(QUESTION, kind="chunk", limit=10)
    assert "c-society" not in hits["id"].tolist()
