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
