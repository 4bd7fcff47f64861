"""Post-processing against the domain: reversed relations are flipped without changing their type, flags mark
what a person should look at, isolated entities stay unless pruning is asked for."""

from __future__ import annotations

from kgkit.core.domain import parse_domain
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
from kgkit.stages.postprocess import needs_review, postprocess

DOMAIN = parse_domain(
    """
name: t
entity_types: {Person: p, Organization: o, Location: l, Other: x}
relation_types:
  WORKS_FOR: {description: w, signatures: [[Person, Organization]]}
  LOCATED_IN: {description: l, signatures: [[Organization, Location], [Person, Location]]}
  PARTNER_OF: {description: p, signatures: [[Person, Organization]], symmetric: true}
  AUDITED: {description: a, review_required: true}
"""
)


def rel(s, st, t, tt, typ, *, conf=0.9, at=None):
    span = None if at is None else Span(start=at, end=at + 5)
    return ExtractedRelation(source=s, source_type=st, target=t, target_type=tt, type=typ, confidence=conf,
                             evidence=f"{s} {typ} {t}", evidence_span=span)


def graph_of(*rels, ents=(), repair=True):
    te = TextExtraction(extractor_id="test:1", relations=tuple(rels), entities=tuple(ents))
    d = DocumentExtraction(document_id="d1", path="d1.txt",
                           chunks=(ChunkExtraction(chunk_id="d1#0", document_id="d1", extraction=te),))
    return build_graph([d], domain=DOMAIN, repair=repair)


def rows(graph):
    return {(r["source"], r["type"], r["target"]): r for r in graph.relations.to_dict("records")}


REVERSED = rel("Acme", "Organization", "Ada", "Person", "WORKS_FOR", at=0)
STRAIGHT = rel("Ada", "Person", "Acme", "Organization", "WORKS_FOR", at=10)


def test_a_reversed_relation_is_flipped_and_keeps_its_type():
    g = graph_of(REVERSED)
    [(key, row)] = rows(g).items()
    assert key == ("Person:ada", "WORKS_FOR", "Organization:acme")
    assert "direction_repaired" in row["flags"] and "signature_violation" not in row["flags"]


def test_a_repaired_mention_merges_with_the_straight_ones():
    g = graph_of(REVERSED, STRAIGHT)
    [row] = rows(g).values()
    assert row["support"] == 2 and "direction_repaired" in row["flags"]
    prov = g.provenance[g.provenance["kind"] == "relation"]
    assert set(prov["item_id"]) == {row["id"]} and len(prov) == 2


def test_without_repair_the_relation_is_only_flagged():
    g = graph_of(REVERSED, repair=False)
    [(key, row)] = rows(g).items()
    assert key == ("Organization:acme", "WORKS_FOR", "Person:ada") and row["flags"] == ["signature_violation"]


def test_a_relation_that_fits_neither_way_is_flagged_not_flipped():
    g = graph_of(rel("Ada", "Person", "Bob", "Person", "WORKS_FOR"))
    [(key, row)] = rows(g).items()
    assert key == ("Person:ada", "WORKS_FOR", "Person:bob") and "signature_violation" in row["flags"]
    assert list(needs_review(g)["id"]) == [row["id"]]


def test_symmetric_types_fit_in_either_stored_order():
    g = graph_of(rel("Ada", "Person", "Acme", "Organization", "PARTNER_OF"))
    [(key, row)] = rows(g).items()
    assert key == ("Organization:acme", "PARTNER_OF", "Person:ada")  # canonical order: lower id first
    assert "signature_violation" not in row["flags"] and "direction_repaired" not in row["flags"]


def test_flags_low_confidence_and_review_required():
    g = graph_of(rel("Ada", "Person", "Acme", "Organization", "AUDITED", conf=0.3))
    [row] = rows(g).values()
    assert row["flags"] == ["low_confidence", "review_required"]


def test_postprocess_repairs_a_graph_and_remaps_provenance():
    raw = graph_of(REVERSED, STRAIGHT, repair=False)
    assert len(raw.relations) == 2
    fixed = postprocess(raw, domain=DOMAIN)
    [row] = rows(fixed).values()
    assert row["support"] == 2 and "direction_repaired" in row["flags"] and row["type"] == "WORKS_FOR"
    assert row["confidence"] == round(1 - 0.1 * 0.1, 6)
    prov = fixed.provenance[fixed.provenance["kind"] == "relation"]
    assert set(prov["item_id"]) == {row["id"]}
    assert len(raw.relations) == 2  # the input is not changed
    assert dumps_json(fixed.to_json_dict()) == dumps_json(graph_of(REVERSED, STRAIGHT).to_json_dict())


def test_postprocess_on_a_built_graph_changes_nothing_and_keeps_other_flags():
    g = graph_of(REVERSED, rel("Ada", "Person", "Bob", "Person", "WORKS_FOR"))
    assert dumps_json(postprocess(g, domain=DOMAIN).to_json_dict()) == dumps_json(g.to_json_dict())
    marked = g.replace(relations=g.relations.assign(flags=[[*f, "checked_by_person"] for f in g.relations["flags"]]))
    again = postprocess(marked, domain=DOMAIN)
    assert all("checked_by_person" in f for f in again.relations["flags"])


def test_isolated_entities_are_kept_unless_pruning_is_asked():
    g = graph_of(STRAIGHT, ents=[ExtractedEntity(name="Zed", type="Person")])
    assert "Person:zed" in set(g.entities["id"])
    pruned = postprocess(g, domain=DOMAIN, prune_isolated=True)
    assert "Person:zed" not in set(pruned.entities["id"]) and len(pruned.entities) == 2
    assert "Person:zed" not in set(pruned.provenance["item_id"])
    assert "Person:zed" in set(g.entities["id"])  # the input is not changed
