"""Topology and neighbourhood: bounded and paginated, filters on every path (also an exact id lookup), and
documents never come back as entities."""

from __future__ import annotations

import pandas as pd
import pytest

from kgkit.core.domain import parse_domain
from kgkit.core.graph import Graph
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction
from kgkit.stages.build import build_graph
from kgkit.stages.communities import assign_communities, detect_communities
from kgkit.stages.topology import find_entities, neighbourhood, topology
from kgkit.testing.builders import relation_row

DOMAIN = parse_domain("""
name: t
entity_types: {Person: p, Organization: o, Location: l, Other: x}
relation_types:
  WORKS_FOR: {description: w, signatures: [[Person, Organization]]}
  LOCATED_IN: {description: l, signatures: [[Organization, Location]]}
  KNOWS: {description: k, symmetric: true}
""")


def R(s, st, t, tt, typ):
    return ExtractedRelation(source=s, source_type=st, target=t, target_type=tt, type=typ)


def make_graph() -> Graph:
    """Ada and Bob work for Acme (in Paris); Ada knows Cy; Cy works for Globex; Globex in Paris; a cluster of
    friends far away; Zed is isolated."""
    rels = [R("Ada Lovelace", "Person", "Acme", "Organization", "WORKS_FOR"),
            R("Bob", "Person", "Acme", "Organization", "WORKS_FOR"),
            R("Acme", "Organization", "Paris", "Location", "LOCATED_IN"),
            R("Ada Lovelace", "Person", "Cy", "Person", "KNOWS"),
            R("Cy", "Person", "Globex", "Organization", "WORKS_FOR"),
            R("Globex", "Organization", "Paris", "Location", "LOCATED_IN")]
    friends = [f"Friend {i}" for i in range(6)]
    rels += [R(a, "Person", b, "Person", "KNOWS") for i, a in enumerate(friends) for b in friends[i + 1:]]
    rels += [R("Bob", "Person", "Friend 0", "Person", "KNOWS")]
    te = TextExtraction(extractor_id="test:1", relations=tuple(rels),
                        entities=(ExtractedEntity(name="Zed", type="Person"), ExtractedEntity(name="Acme", type="Other")))
    d = DocumentExtraction(document_id="doc:1", path="a.txt",
                           chunks=(ChunkExtraction(chunk_id="doc:1#0", document_id="doc:1", extraction=te),))
    g = build_graph([d], domain=DOMAIN)
    return assign_communities(g, detect_communities(g, seed=0))


GRAPH = make_graph()


def test_topology_counts_communities_bridges_and_isolated():
    t = topology(GRAPH, limit=50)
    assert t["format"] == "kgkit.topology/1"
    c = t["counts"]
    assert c["entities"] == len(GRAPH.entities) and c["relations"] == len(GRAPH.relations)
    assert c["entity_types"]["Person"] == 10 and c["relation_types"]["KNOWS"] == 17
    assert {r["id"] for r in t["isolated"]["items"]} == {"Person:zed", "Other:acme"}
    assert t["communities"]["total"] == c["communities"] == len(set(GRAPH.entities["community"]))
    bridges = {r["id"] for r in t["bridges"]["items"]}
    assert bridges and bridges <= set(GRAPH.entities["id"])
    assert sum(r["relations"] for r in t["connections"]["items"]) == sum(
        1 for r in GRAPH.relations.to_dict("records")
        if dict(zip(GRAPH.entities["id"], GRAPH.entities["community"]))[r["source"]]
        != dict(zip(GRAPH.entities["id"], GRAPH.entities["community"]))[r["target"]])


def test_topology_is_paginated_with_totals():
    full = topology(GRAPH, limit=100)
    for offset in (0, 1, 2):
        page = topology(GRAPH, limit=1, offset=offset)
        for key in ("communities", "connections", "bridges", "isolated"):
            assert page[key]["total"] == full[key]["total"]
            assert page[key]["items"] == full[key]["items"][offset: offset + 1]
    assert topology(GRAPH, limit=5, offset=10_000)["bridges"]["items"] == []
    with pytest.raises(ValueError):
        topology(GRAPH, limit=10**9)


def test_topology_without_stored_communities_detects_them():
    bare = GRAPH.replace(entities=GRAPH.entities.assign(community=None))
    assert topology(bare, limit=5)["counts"]["communities"] == topology(GRAPH, limit=5)["counts"]["communities"]


def test_lookup_by_id_or_normalised_name_respects_the_type_filter():
    assert find_entities(GRAPH, "Person:ada lovelace") == ["Person:ada lovelace"]
    assert find_entities(GRAPH, "ADA  Lovelace") == ["Person:ada lovelace"]
    assert find_entities(GRAPH, "Person:ada lovelace", types=["Organization"]) == []
    assert find_entities(GRAPH, "acme") == ["Organization:acme", "Other:acme"]
    assert find_entities(GRAPH, "acme", types=["Organization"]) == ["Organization:acme"]


def test_exact_id_lookup_respects_the_type_filter():
    hood = neighbourhood(GRAPH, "Person:ada lovelace", types=["Organization"])
    assert hood.status == "not_found" and hood.total_entities == 0 and hood.entities.empty


def test_depth_and_hops():
    one = neighbourhood(GRAPH, "Person:ada lovelace", depth=1)
    assert dict(zip(one.entities["id"], one.entities["hop"])) == {
        "Person:ada lovelace": 0, "Organization:acme": 1, "Person:cy": 1}
    assert one.total_relations == 2 and set(one.relations["hop"]) == {0}
    two = neighbourhood(GRAPH, "Person:ada lovelace", depth=2)
    hops = dict(zip(two.entities["id"], two.entities["hop"]))
    assert hops["Person:bob"] == 2 and hops["Location:paris"] == 2 and hops["Organization:globex"] == 2
    assert "Person:friend 0" not in hops
    assert neighbourhood(GRAPH, "Person:ada lovelace", depth=0).total_entities == 1


def test_type_filters_apply_to_every_path():
    # only people: Ada reaches Cy directly, but Bob only through Acme (an organisation), so never
    people = neighbourhood(GRAPH, "Person:ada lovelace", depth=3, types=["Person"])
    assert set(people.entities["id"]) == {"Person:ada lovelace", "Person:cy"}
    assert set(people.relations["type"]) == {"KNOWS"}
    only_work = neighbourhood(GRAPH, "Person:ada lovelace", depth=3, relation_types=["WORKS_FOR"])
    assert set(only_work.entities["id"]) == {"Person:ada lovelace", "Organization:acme", "Person:bob"}
    assert set(only_work.relations["type"]) == {"WORKS_FOR"}


def test_pagination_keeps_totals_and_order():
    full = neighbourhood(GRAPH, "Person:bob", depth=2, limit=100)
    pages = [neighbourhood(GRAPH, "Person:bob", depth=2, limit=3, offset=o) for o in range(0, full.total_entities, 3)]
    assert all(p.total_entities == full.total_entities and p.total_relations == full.total_relations for p in pages)
    assert [e for p in pages for e in p.entities["id"]] == list(full.entities["id"])
    assert list(full.entities["hop"]) == sorted(full.entities["hop"])
    with pytest.raises(ValueError):
        neighbourhood(GRAPH, "Person:bob", depth=99)


def test_ambiguous_names_are_listed_not_walked():
    hood = neighbourhood(GRAPH, "Acme", depth=2)
    assert hood.status == "ambiguous" and hood.matches == ["Organization:acme", "Other:acme"]
    assert hood.total_relations == 0 and set(hood.entities["hop"]) == {0}
    assert neighbourhood(GRAPH, "Acme", types=["Organization"]).status == "found"


def test_documents_never_come_back_as_entities():
    # a relation pointing at a document (as sift-kg's MENTIONED_IN does) is not walked
    extra = pd.DataFrame([{**relation_row("rel:doc"), "source": "Person:zed", "target": "doc:1"}])
    g = GRAPH.replace(relations=pd.concat([GRAPH.relations, extra], ignore_index=True))
    assert neighbourhood(g, "doc:1").status == "not_found"
    hood = neighbourhood(g, "Person:zed", depth=2)
    assert list(hood.entities["id"]) == ["Person:zed"] and hood.total_relations == 0
    document_ids = set(g.documents["id"]) | set(g.provenance["chunk_id"])
    for start in ("Person:bob", "Person:ada lovelace"):
        assert not set(neighbourhood(g, start, depth=6, limit=1000).entities["id"]) & document_ids


def test_json_form_is_stable():
    data = neighbourhood(GRAPH, "cy", depth=1, limit=2).to_json_dict()
    assert data["format"] == "kgkit.neighbourhood/1" and data["status"] == "found"
    assert set(data["entities"]) == {"total", "offset", "limit", "items"} and len(data["entities"]["items"]) == 2
    assert {"id", "name", "type", "hop", "community"} <= set(data["entities"]["items"][0])
    assert {"id", "source", "target", "type", "hop", "flags"} <= set(data["relations"]["items"][0])


def test_neighbourhood_of_a_built_graph_filters_and_pages():
    # what `kgkit query` shows for the graph test_cli_graph.py builds: Ada, Bob -> Acme; Ada, Cy -> Globex; Zed
    from test_build_workflow import two_documents

    from kgkit.io import load_domain

    g = build_graph(two_documents(), domain=load_domain("general"))
    hood = neighbourhood(g, "ada", depth=2)
    assert hood.status == "found" and hood.matches == ["Person:ada"] and hood.total_entities == 5
    assert dict(zip(hood.entities["id"], hood.entities["hop"]))["Person:bob"] == 2
    assert list(neighbourhood(g, "ada", depth=2, types=["Person"]).entities["id"]) == ["Person:ada"]
    paged = neighbourhood(g, "ada", depth=2, limit=2, offset=1)
    assert paged.total_entities == 5 and len(paged.entities) == 2
    assert list(paged.entities["id"]) == list(hood.entities["id"])[1:3]
    assert neighbourhood(g, "Person:ada", types=["Organization"]).status == "not_found"
    assert neighbourhood(g, "nobody").status == "not_found"
