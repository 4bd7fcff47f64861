"""Graph building: exact-name merge within a type, support counts, provenance everywhere, determinism."""

from __future__ import annotations

import random

import pytest

from kgkit.core.domain import parse_domain
from kgkit.core.graph import Graph
from kgkit.core.records import (
    ChunkExtraction,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Span,
    TextExtraction,
)
from kgkit.io import dumps_json
from kgkit.stages.build import build_graph

DOMAIN = parse_domain(
    """
name: t
entity_types: {Person: p, Organization: o, Location: l, Other: x}
relation_types:
  WORKS_FOR: {description: w, signatures: [[Person, Organization]]}
  MEETS: {description: m, signatures: [[Person, Person]], symmetric: true}
  AUDITED: {description: a, review_required: true}
canonical_names: {"U.S.A.": United States}
"""
)


def ent(name, typ, start=None):
    return ExtractedEntity(name=name, type=typ, span=None if start is None else Span(start=start, end=start + len(name)))


def rel(s, st, t, tt, typ, *, conf=0.6, neg=False, ev="e", ev_start=None):
    span = None if ev_start is None else Span(start=ev_start, end=ev_start + len(ev))
    return ExtractedRelation(source=s, source_type=st, target=t, target_type=tt, type=typ, confidence=conf,
                             negated=neg, evidence=ev, evidence_span=span)


def doc(doc_id, *chunks):
    return DocumentExtraction(document_id=doc_id, path=f"{doc_id}.txt", sha256="0" * 64, media_type="text/plain",
                              chunks=tuple(chunks))


def chunk(doc_id, idx, ents=(), rels=(), start=0, error=None):
    te = TextExtraction(extractor_id="test:1", entities=tuple(ents), relations=tuple(rels), error=error)
    return ChunkExtraction(chunk_id=f"{doc_id}#{idx}", document_id=doc_id, chunk_start=start, extraction=te)


def test_names_merge_within_a_type_only():
    g = build_graph([doc("d1", chunk("d1", 0, [ent("U.S.", "Location"), ent("US", "Location"), ent("US", "Organization")]))], domain=DOMAIN)
    loc = g.entity("Location:us")
    assert loc["mentions"] == 2 and loc["aliases"] in (["U.S."], ["US"])
    assert "Organization:us" in set(g.entities["id"])


def test_canonical_names_from_the_domain():
    g = build_graph([doc("d1", chunk("d1", 0, [ent("U.S.A.", "Location")]))], domain=DOMAIN)
    assert list(g.entities["name"]) == ["United States"]


def test_support_counts_and_overlap_counted_once():
    r = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR", ev="Ada works for Acme.", ev_start=0)
    # chunk 1 overlaps chunk 0: the same sentence at the same document offset is one mention
    d1 = doc("d1", chunk("d1", 0, [ent("Ada", "Person", 0)], [r]), chunk("d1", 1, [ent("Ada", "Person", 0)], [r], start=0))
    d2 = doc("d2", chunk("d2", 0, [ent("Ada", "Person", 0)], [r]))
    g = build_graph([d1, d2], domain=DOMAIN)
    [row] = g.relations.to_dict("records")
    assert row["support"] == 2
    assert row["confidence"] == pytest.approx(1 - 0.4 * 0.4)
    assert g.entity("Person:ada")["mentions"] == 2 and g.entity("Person:ada")["documents"] == 2


def test_every_entity_and_relation_has_provenance():
    r = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR", ev="Ada works for Acme.", ev_start=3)
    g = build_graph([doc("d1", chunk("d1", 0, [ent("Ada", "Person", 3)], [r], start=100))], domain=DOMAIN)
    prov_ids = set(g.provenance["item_id"])
    # Acme is only named by the relation, but still an entity (with the relation's provenance through it)
    assert set(g.relations["id"]) <= prov_ids
    assert set(g.entities["id"]) - prov_ids == {"Organization:acme"}
    rel_prov = g.provenance[g.provenance["kind"] == "relation"].iloc[0]
    assert (rel_prov["document_id"], rel_prov["chunk_id"], rel_prov["start"]) == ("d1", "d1#0", 103)
    assert rel_prov["evidence"] == "Ada works for Acme." and rel_prov["extractor_id"] == "test:1"


def test_isolated_entities_are_kept_and_degree_counted():
    r = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR")
    g = build_graph([doc("d1", chunk("d1", 0, [ent("Ada", "Person"), ent("Bob", "Person"), ent("Acme", "Organization")], [r]))], domain=DOMAIN)
    degrees = dict(zip(g.entities["id"], g.entities["degree"]))
    assert degrees == {"Organization:acme": 1, "Person:ada": 1, "Person:bob": 0}


def test_flags_symmetry_and_polarity():
    rels = [
        rel("Ada", "Person", "Bob", "Person", "WORKS_FOR", conf=0.9),  # signature violation
        rel("Zed", "Person", "Ada", "Person", "MEETS", conf=0.2),  # symmetric: stored Ada -> Zed, low confidence
        rel("Ada", "Person", "Zed", "Person", "MEETS", conf=0.2),
        rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR", neg=True, conf=0.9),
        rel("Ada", "Person", "Acme", "Organization", "AUDITED", conf=0.9),
    ]
    g = build_graph([doc("d1", chunk("d1", 0, [], rels))], domain=DOMAIN)
    by = {(r["source"], r["type"], r["target"], r["negated"]): r for r in g.relations.to_dict("records")}
    assert "signature_violation" in by[("Person:ada", "WORKS_FOR", "Person:bob", False)]["flags"]
    meets = by[("Person:ada", "MEETS", "Person:zed", False)]
    assert meets["support"] == 2 and "low_confidence" in meets["flags"]
    assert "negated" in by[("Person:ada", "WORKS_FOR", "Organization:acme", True)]["flags"]
    assert "review_required" in by[("Person:ada", "AUDITED", "Organization:acme", False)]["flags"]


def test_failed_chunks_add_nothing_but_are_counted():
    g = build_graph([doc("d1", chunk("d1", 0, [ent("Ada", "Person")]), chunk("d1", 1, error="timeout"))], domain=DOMAIN)
    assert list(g.entities["id"]) == ["Person:ada"]
    assert g.documents.iloc[0]["errors"] == 1


def test_same_input_in_any_order_gives_identical_bytes():
    docs = []
    for i in range(8):
        ents = [ent(f"Person {j}", "Person", j * 10) for j in range(i, i + 4)]
        rels = [rel(f"Person {i}", "Person", f"Person {i + 1}", "Person", "MEETS", ev=f"s{i}", ev_start=i)]
        docs.append(doc(f"d{i}", chunk(f"d{i}", 0, ents, rels)))
    first = dumps_json(build_graph(docs, domain=DOMAIN).to_json_dict())
    shuffled = docs[:]
    random.Random(1).shuffle(shuffled)
    assert dumps_json(build_graph(shuffled, domain=DOMAIN).to_json_dict()) == first


def test_json_round_trip_and_empty_graph():
    r = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR")
    g = build_graph([doc("d1", chunk("d1", 0, [ent("Ada", "Person")], [r]))], domain=DOMAIN)
    again = Graph.from_json_dict(g.to_json_dict())
    assert dumps_json(again.to_json_dict()) == dumps_json(g.to_json_dict())
    empty = build_graph([], domain=DOMAIN)
    assert empty.summary()["entities"] == 0
    assert dumps_json(Graph.from_json_dict(empty.to_json_dict()).to_json_dict()) == dumps_json(empty.to_json_dict())
    assert len(g.to_networkx().edges) == 1


# --------------------------------------------------------------------------- added with issue 4 (vectorised build)


def test_degree_counts_distinct_relations_not_mentions():
    r = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR")
    g = build_graph([doc(f"d{i}", chunk(f"d{i}", 0, [], [r])) for i in range(3)], domain=DOMAIN)
    assert g.relations.iloc[0]["support"] == 3
    assert dict(zip(g.entities["id"], g.entities["degree"])) == {"Organization:acme": 1, "Person:ada": 1}


def test_entities_named_only_by_relations_get_the_same_name_in_any_order():
    docs = [doc("d1", chunk("d1", 0, [], [rel("Ada", "Person", "ACME", "Organization", "WORKS_FOR")])),
            doc("d2", chunk("d2", 0, [], [rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR")])),
            doc("d3", chunk("d3", 0, [], [rel("Bob", "Person", "Acme", "Organization", "WORKS_FOR")]))]
    names = {dumps_json(build_graph(order, domain=DOMAIN).to_json_dict()) for order in (docs, docs[::-1], docs[1:] + docs[:1])}
    assert len(names) == 1
    g = build_graph(docs, domain=DOMAIN)
    acme = g.entity("Organization:acme")
    assert acme["name"] == "Acme" and acme["mentions"] == 0  # the most common surface form


def test_learned_at_per_document_gives_each_relation_its_earliest_time():
    r = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR")
    docs = [doc("d1", chunk("d1", 0, [], [r])), doc("d2", chunk("d2", 0, [], [r]))]
    g = build_graph(docs, domain=DOMAIN, learned_at={"d1": "2025-03-01", "d2": "2024-01-01"})
    assert g.relations.iloc[0]["created_at"] == "2024-01-01"
    assert build_graph(docs, domain=DOMAIN, learned_at="2026-01-01").relations.iloc[0]["created_at"] == "2026-01-01"


def test_a_100k_edge_synthetic_graph_builds():
    rng = random.Random(5)
    people = [f"Person {i}" for i in range(20_000)]
    docs = []
    for d in range(200):
        rels = [rel(people[(d * 500 + j) % 20_000], "Person", f"Org {(d * 500 + j) // 20_000}-{j % 400}", "Organization",
                    "WORKS_FOR", conf=rng.uniform(0.4, 1.0)) for j in range(500)]
        docs.append(doc(f"d{d:03d}", chunk(f"d{d:03d}", 0, [], rels)))
    g = build_graph(docs, domain=DOMAIN)
    assert len(g.relations) == 100_000 and g.relations["support"].sum() == 100_000
    assert len(g.provenance) == 100_000 and g.relations["id"].is_unique
    assert int(g.entities["degree"].sum()) == 200_000


def test_saved_bytes_are_the_canonical_json_of_the_tables(tmp_path):
    """save_graph writes column-wise (Graph.to_json_bytes) the same bytes as json.dumps of to_json_dict."""
    import numpy as np
    import pandas as pd

    from kgkit import io

    r = rel("Ada", "Person", "Acme \u2028\x7f\x01 \"q\" \\ é 漢", "Organization", "WORKS_FOR", conf=0.00001)
    g = build_graph([doc("d1", chunk("d1", 0, [ent("Ada", "Person", 3)], [r]))], domain=DOMAIN)
    odd = g.entities.assign(confidence=[1e-7, -0.0], community=[np.int64(3), ("a", 1.5, None)],
                            aliases=[["x", "é"], [1, 2.5e-9]])
    g = g.replace(entities=odd, meta={"b": [1e-5, 1e16], "a": "é", "n": None})
    io.save_graph(g, tmp_path / "g.json")
    assert (tmp_path / "g.json").read_bytes() == (io.dumps_json(g.to_json_dict()) + "\n").encode()
    assert io.dumps_json(io.load_graph(tmp_path / "g.json").to_json_dict()) == io.dumps_json(g.to_json_dict())
    with_nan = g.replace(relations=g.relations.assign(confidence=np.nan, evidence=[float("nan")]))
    assert with_nan.to_json_bytes() == io.dumps_json(with_nan.to_json_dict()).encode()
    for bad in (g.replace(relations=g.relations.assign(confidence=np.inf)), g.replace(meta={"x": float("inf")})):
        with pytest.raises(ValueError):
            bad.to_json_bytes()
    assert pd.isna(with_nan.relations["evidence"][0])
    plain = build_graph([doc("d1", chunk("d1", 0, [ent("Ada", "Person"), ent("Bob", "Person")], [r]))], domain=DOMAIN)
    holes = plain.replace(entities=plain.entities.assign(name=["x", pd.NA, np.nan][:len(plain.entities)],
                                                         confidence=[0.5, 1e15, 0.25][:len(plain.entities)]))
    for graph in (plain, holes):
        assert graph.to_json_bytes(end=b"\n") == (io.dumps_json(graph.to_json_dict()) + "\n").encode()


def test_mentions_rows_build_the_same_graph_as_the_records():
    """build_graph(Mentions.of(records)) == build_graph(records): spans, overlap, negation, failed chunks,
    self-relations and per-document learned_at included."""
    from kgkit.stages.build import Mentions

    rels = [rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR", ev_start=5), rel("Ada", "Person", "Ada", "Person", "MEETS"),
            rel("Bob", "Person", "Ada", "Person", "MEETS", neg=True, conf=0.3), rel("Acme", "Organization", "Ada", "Person", "WORKS_FOR")]
    docs = [doc("d1", chunk("d1", 0, [ent("Ada", "Person", 0), ent("U.S.A.", "Location", 9)], rels[:2]),
                chunk("d1", 1, [ent("Ada", "Person", 0)], rels[:1], start=0), chunk("d1", 2, error="timeout")),
            doc("d2", chunk("d2", 0, [ent("Bob", "Person")], rels[2:]))]
    learned = {"d1": "2025-01-01", "d2": "2024-01-01"}
    records = build_graph(docs, domain=DOMAIN, learned_at=learned)
    rows = build_graph(Mentions.of(docs), domain=DOMAIN, learned_at=learned)
    assert rows.to_json_bytes() == records.to_json_bytes()
    assert records.documents.set_index("id").loc["d1", "errors"] == 1 and len(records.relations) == 2  # repaired, merged
    empty = Mentions(documents=[], extractors=[], chunks=[])
    assert build_graph(empty, domain=DOMAIN).to_json_bytes() == build_graph([], domain=DOMAIN).to_json_bytes()
