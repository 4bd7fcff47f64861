"""Small graphs for the entity-resolution tests (built with the real build stage)."""

from __future__ import annotations

from kgkit.core.domain import parse_domain
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction
from kgkit.stages.build import build_graph

DOMAIN = parse_domain("""
name: er-test
entity_types: {Person: people, Organization: orgs, Location: places, Other: other}
relation_types:
  WORKS_FOR: {description: job}
  KNOWS: {description: acquaintance, symmetric: true}
  LOCATED_IN: {description: place}
""")


def doc(doc_id: str, entities: list[tuple[str, str]], relations: list[tuple[str, str, str, str, str]]) -> DocumentExtraction:
    """entities: (name, type); relations: (source, source type, type, target, target type)."""
    ext = TextExtraction(extractor_id="test", quality="imported",
                         entities=tuple(ExtractedEntity(name=n, type=t) for n, t in entities),
                         relations=tuple(ExtractedRelation(source=s, source_type=st, type=r, target=d, target_type=dt,
                                                           confidence=0.6, evidence=f"{s} {r} {d}")
                                         for s, st, r, d, dt in relations))
    return DocumentExtraction(document_id=doc_id, path=f"{doc_id}.txt",
                              chunks=(ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=ext),))


def corpus() -> list[DocumentExtraction]:
    P, O, L = "Person", "Organization", "Location"  # noqa: E741
    return [
        doc("d1", [("Jane Smith", P), ("Acme Corporation", O), ("Washington", L)],
            [("Jane Smith", P, "WORKS_FOR", "Acme Corporation", O), ("Acme Corporation", O, "LOCATED_IN", "Washington", L)]),
        doc("d2", [("Dr. Jane Smith", P), ("ACME Corp.", O), ("Bob Stone", P)],
            [("Dr. Jane Smith", P, "WORKS_FOR", "ACME Corp.", O), ("Bob Stone", P, "KNOWS", "Dr. Jane Smith", P)]),
        doc("d3", [("J. Smith", P), ("International Business Machines", O), ("IBM", O), ("Washington", P)],
            [("J. Smith", P, "WORKS_FOR", "IBM", O), ("Washington", P, "KNOWS", "J. Smith", P),
             ("Bob Stone", P, "WORKS_FOR", "International Business Machines", O)]),
    ]


def graph():
    return build_graph(corpus(), domain=DOMAIN)
