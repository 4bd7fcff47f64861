"""Bi-temporal relations: a newer single-valued fact invalidates the older one, scoped to one subject and type;
nothing is deleted; as_of shows what the graph believed then, valid_at what held in the world."""

from __future__ import annotations

import random

from kgkit.core.domain import parse_domain
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedRelation, TextExtraction
from kgkit.io import dumps_json
from kgkit.stages.build import build_graph
from kgkit.stages.temporal import resolve_conflicts

DOMAIN = parse_domain(
    """
name: t
entity_types: {Person: p, Organization: o, Other: x}
relation_types:
  EMPLOYED_BY: {description: current employer, signatures: [[Person, Organization]], single_valued: true}
  MEMBER_OF: {description: member, signatures: [[Person, Organization]]}
"""
)


def rel(s, t, typ="EMPLOYED_BY", *, valid=None, invalid=None, neg=False):
    return ExtractedRelation(source=s, source_type="Person", target=t, target_type="Organization", type=typ,
                             valid_at=valid, invalid_at=invalid, negated=neg, confidence=0.9, evidence=f"{s} {typ} {t}")


def doc(doc_id, *rels):
    te = TextExtraction(extractor_id="test:1", relations=tuple(rels))
    return DocumentExtraction(document_id=doc_id, path=f"{doc_id}.txt",
                              chunks=(ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=te),))


def by_target(graph, source="Person:ada", typ="EMPLOYED_BY"):
    rows = graph.relations[(graph.relations["source"] == source) & (graph.relations["type"] == typ)]
    return {r["target"]: r for r in rows.to_dict("records")}


DOCS = [
    doc("d1", rel("Ada", "Acme", valid="2019-03-01"), rel("Bob", "Acme", valid="2019-03-01"),
        rel("Ada", "Chess Club", "MEMBER_OF", valid="2018-01-01")),
    doc("d2", rel("Ada", "Globex", valid="2022-05-01"), rel("Ada", "Go Club", "MEMBER_OF", valid="2023-01-01")),
]
LEARNED = {"d1": "2024-01-01", "d2": "2024-06-01"}


def test_newer_fact_invalidates_the_older_and_nothing_is_deleted():
    g = build_graph(DOCS, domain=DOMAIN, learned_at=LEARNED)
    assert len(g.relations) == 5  # every fact is still there
    ada = by_target(g)
    old, new = ada["Organization:acme"], ada["Organization:globex"]
    assert (old["invalid_at"], old["expired_at"]) == ("2022-05-01", "2024-06-01")
    assert (new["invalid_at"], new["expired_at"]) == (None, None)
    assert old["created_at"] == "2024-01-01" and new["created_at"] == "2024-06-01"


def test_other_subjects_and_other_types_are_untouched():
    g = build_graph(DOCS, domain=DOMAIN, learned_at=LEARNED)
    bob = by_target(g, "Person:bob")["Organization:acme"]
    assert (bob["invalid_at"], bob["expired_at"]) == (None, None)
    clubs = by_target(g, typ="MEMBER_OF")  # not single-valued: both memberships hold
    assert all((r["invalid_at"], r["expired_at"]) == (None, None) for r in clubs.values()) and len(clubs) == 2


def test_as_of_gives_the_earlier_belief_and_valid_at_the_world_then():
    g = build_graph(DOCS, domain=DOMAIN, learned_at=LEARNED)
    before = by_target(g.as_of("2024-03-01"))
    assert set(before) == {"Organization:acme"}
    after = by_target(g.as_of("2024-07-01"))
    assert set(after) == {"Organization:globex"}
    assert len(g.as_of("2023-12-31").relations) == 0  # nothing was known yet
    assert set(by_target(g.valid_at("2020-01-01"))) == {"Organization:acme"}
    assert set(by_target(g.valid_at("2023-01-01"))) == {"Organization:globex"}
    # as_of keeps the provenance of what it keeps only
    kept = set(g.as_of("2024-03-01").relations["id"])
    prov = g.as_of("2024-03-01").provenance
    assert set(prov[prov["kind"] == "relation"]["item_id"]) == kept


def test_graph_time_orders_facts_without_world_time():
    docs = [doc("d1", rel("Ada", "Acme")), doc("d2", rel("Ada", "Globex"))]
    g = build_graph(docs, domain=DOMAIN, learned_at=LEARNED)
    ada = by_target(g)
    assert ada["Organization:acme"]["expired_at"] == "2024-06-01"
    assert ada["Organization:acme"]["invalid_at"] is None  # the world time of the change is unknown
    assert ada["Organization:globex"]["expired_at"] is None


def test_facts_without_any_time_and_ties_are_left_alone():
    untimed = build_graph([doc("d1", rel("Ada", "Acme")), doc("d2", rel("Ada", "Globex"))], domain=DOMAIN)
    assert untimed.relations["invalid_at"].isna().all() and untimed.relations["expired_at"].isna().all()
    tie = build_graph([doc("d1", rel("Ada", "Acme", valid="2020"), rel("Ada", "Globex", valid="2020"))], domain=DOMAIN)
    assert tie.relations["invalid_at"].isna().all()


def test_a_newer_negation_invalidates_the_same_endpoints_only():
    docs = [doc("d1", rel("Ada", "Chess Club", "MEMBER_OF", valid="2018"), rel("Ada", "Go Club", "MEMBER_OF", valid="2018")),
            doc("d2", rel("Ada", "Chess Club", "MEMBER_OF", valid="2021", neg=True))]
    g = build_graph(docs, domain=DOMAIN, learned_at=LEARNED)
    rows = {(r["target"], r["negated"]): r for r in g.relations.to_dict("records")}
    assert rows[("Organization:chess club", False)]["invalid_at"] == "2021"
    assert rows[("Organization:chess club", True)]["invalid_at"] is None
    assert rows[("Organization:go club", False)]["invalid_at"] is None


def test_resolution_is_idempotent_and_resolve_false_leaves_facts_open():
    g = build_graph(DOCS, domain=DOMAIN, learned_at=LEARNED)
    assert dumps_json(resolve_conflicts(g, domain=DOMAIN).to_json_dict()) == dumps_json(g.to_json_dict())
    raw = build_graph(DOCS, domain=DOMAIN, learned_at=LEARNED, resolve=False)
    assert raw.relations["invalid_at"].isna().all() and raw.relations["expired_at"].isna().all()


def test_an_older_invalid_at_from_the_text_is_kept():
    docs = [doc("d1", rel("Ada", "Acme", valid="2019", invalid="2020")), doc("d2", rel("Ada", "Globex", valid="2022"))]
    g = build_graph(docs, domain=DOMAIN, learned_at=LEARNED)
    assert by_target(g)["Organization:acme"]["invalid_at"] == "2020"


def test_per_document_learned_times_in_any_order_give_identical_bytes():
    first = dumps_json(build_graph(DOCS, domain=DOMAIN, learned_at=LEARNED).to_json_dict())
    shuffled = DOCS[:]
    random.Random(3).shuffle(shuffled)
    assert dumps_json(build_graph(shuffled[::-1], domain=DOMAIN, learned_at=LEARNED).to_json_dict()) == first
