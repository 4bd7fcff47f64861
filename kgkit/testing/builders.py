"""Minimal graph table rows for tests and docstring examples (never imported by product code).

- `entity_row(eid, name, typ, mentions)`: an entities-table row (name defaults to the id upper-cased).
- `relation_row(rid, created, expired, valid, invalid)`: a relations-table row from "a" to "b" with the given
  graph times (created_at, expired_at) and world times (valid_at, invalid_at).
- `edge_row(source, target, rtype, support, confidence)`: a relations-table row between two entities, its id
  made as the build stage makes it.
- `ada_works_for_acme(evidence)`: the two-entity graph of the narrate examples (Ada WORKS_FOR Acme, relation "r1").

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> g = Graph.empty().replace(entities=pd.DataFrame([entity_row("a"), entity_row("b", "Bob", "Person", 2)]),
...                           relations=pd.DataFrame([edge_row("a", "b")]))
>>> g.entities["name"].tolist(), g.relations["type"].tolist()
(['A', 'Bob'], ['R'])
"""

from __future__ import annotations

from typing import Any

from kgkit.core.names import relation_id

__all__ = ["ada_works_for_acme", "edge_row", "entity_row", "relation_row"]


def entity_row(eid: str, name: str | None = None, typ: str = "T", mentions: int = 1, *,
               degree: int = 0) -> dict[str, Any]:
    """A minimal entity row."""
    return {"id": eid, "name": eid.upper() if name is None else name, "type": typ, "aliases": [],
            "mentions": mentions, "documents": 1, "confidence": 1.0, "identity": "derived", "degree": degree,
            "community": None}


def relation_row(rid: str, created: str | None = None, expired: str | None = None, valid: str | None = None,
                 invalid: str | None = None) -> dict[str, Any]:
    """A minimal relation row from "a" to "b" (override `source`/`target` with `{**relation_row(...), ...}`)."""
    return {"id": rid, "source": "a", "target": "b", "type": "T", "predicate": None, "negated": False,
            "confidence": 1.0, "support": 1, "evidence": None, "valid_at": valid, "invalid_at": invalid,
            "created_at": created, "expired_at": expired, "flags": []}


def edge_row(source: str, target: str, rtype: str = "R", support: int = 1, confidence: float = 0.5) -> dict[str, Any]:
    """A minimal relation row between two entities, with the id the build stage gives it."""
    return {"id": relation_id(source, rtype, target), "source": source, "target": target, "type": rtype,
            "predicate": None, "negated": False, "confidence": confidence, "support": support, "evidence": None,
            "valid_at": None, "invalid_at": None, "created_at": None, "expired_at": None, "flags": []}


def ada_works_for_acme(evidence: str = "Ada joined Acme.") -> Any:
    """A Graph of two entities, Ada and Acme, and one relation "r1" (Ada WORKS_FOR Acme) with `evidence`."""
    import pandas as pd

    from kgkit.core.graph import Graph

    ents = pd.DataFrame([{**entity_row("a", "Ada", "Thing", 2), "degree": 1},
                         {**entity_row("b", "Acme", "Thing", 2), "degree": 1}]).drop(columns="community")
    rels = pd.DataFrame([{**relation_row("r1"), "type": "WORKS_FOR", "evidence": evidence}])
    return Graph.empty().replace(entities=ents, relations=rels)


def paris_extractions() -> list[Any]:
    """Three one-chunk documents naming "Paris": two about the French capital (doc:fr1, doc:fr2: with France,
    the Seine, the Louvre ...), one about Paris, Texas (doc:tx1: with Texas, Lamar County, Dallas); each
    document says Paris is located in its country or state."""
    from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction

    def doc(doc_id: str, place: str, others: list[str], confidence: float) -> DocumentExtraction:
        ents = [ExtractedEntity(name=n, type="Location") for n in ["Paris", place, *others]]
        rel = ExtractedRelation(source="Paris", source_type="Location", target=place, target_type="Location",
                                type="LOCATED_IN", evidence=f"Paris is in {place}.", confidence=confidence)
        text = TextExtraction(entities=tuple(ents), relations=(rel,), extractor_id="test")
        chunk = ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=text)
        return DocumentExtraction(document_id=doc_id, path=f"{doc_id[4:]}.txt", chunks=(chunk,))

    return [doc("doc:fr1", "France", ["Seine", "Louvre"], 0.8), doc("doc:fr2", "France", ["Eiffel Tower", "Seine"], 0.6),
            doc("doc:tx1", "Texas", ["Lamar County", "Dallas"], 0.7)]


def split_graph() -> Any:
    """The graph of `paris_extractions` (one Paris entity, as the build merges by name)."""
    from kgkit.io import load_domain
    from kgkit.stages.build import build_graph

    return build_graph(paris_extractions(), domain=load_domain("general"))
