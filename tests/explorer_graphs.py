"""Small graphs for the explorer tests and bench (test tooling only): a hand-made graph with documents,
provenance (spans), valid times, flags and a hostile name; and a synthetic large graph."""

from __future__ import annotations

import random

import pandas as pd

from kgkit.core.graph import Graph

XSS = "<img src=x onerror=document.body.setAttribute('data-pwned',1)>"
ADA_SENTENCE = "In 1843 Ada Lovelace wrote to Charles Babbage about the engine."
DOCS = [("doc:letters", "letters/ada.txt"), ("doc:notes", "notes/engine <b>notes</b>.txt")]


def _ent(eid: str, name: str, typ: str, degree: int, community: str, aliases: list[str] | None = None) -> dict:
    return {"id": eid, "name": name, "type": typ, "aliases": aliases or [], "mentions": 1, "documents": 1,
            "confidence": 0.9, "identity": "source", "degree": degree, "community": community}


def _rel(rid: str, s: str, t: str, typ: str, evidence: str, **kw) -> dict:
    row = {"id": rid, "source": s, "target": t, "type": typ, "predicate": typ.lower(), "negated": False,
           "confidence": 0.8, "support": 1, "evidence": evidence, "valid_at": None, "invalid_at": None,
           "created_at": None, "expired_at": None, "flags": []}
    return row | kw


def _prov(item: str, kind: str, doc: str, start: int, end: int, evidence: str | None) -> dict:
    return {"item_id": item, "kind": kind, "document_id": doc, "chunk_id": f"{doc}#0", "start": start, "end": end,
            "evidence": evidence, "extractor_id": "test", "model": None, "prompt_hash": None}


def small_graph() -> Graph:
    """Ada, Babbage, the engine, London, the Royal Society, a hostile name; relations with valid times
    (Ada in London 1835 until 1852-11-27; Babbage in the Royal Society from 1816), a flagged one, and
    co-occurrence. Ada's mention has no sentence of its own: its span lies inside a relation's sentence."""
    ents = [
        _ent("Person:ada", "Ada Lovelace", "Person", 4, "c0", ["Countess of Lovelace"]),
        _ent("Person:babbage", "Charles Babbage", "Person", 4, "c0"),
        _ent("Product:engine", "Analytical Engine", "Product", 2, "c0"),
        _ent("Location:london", "London", "Location", 2, "c1"),
        _ent("Organization:rs", "Royal Society", "Organization", 1, "c1"),
        _ent("Person:xss", XSS, "Person", 1, "c1", ["<script>document.body.setAttribute('data-pwned',2)</script>"]),
    ]
    rels = [
        _rel("rel:wrote", "Person:ada", "Person:babbage", "WROTE_TO", ADA_SENTENCE, valid_at="1843-01-01"),
        _rel("rel:designed", "Person:babbage", "Product:engine", "DESIGNED", "Babbage designed the Analytical Engine."),
        _rel("rel:lived", "Person:ada", "Location:london", "LIVED_IN", "Ada Lovelace lived in London.",
             valid_at="1835-07-08", invalid_at="1852-11-27"),
        _rel("rel:member", "Person:babbage", "Organization:rs", "MEMBER_OF", "Babbage was elected to the Royal Society.",
             valid_at="1816-01-01", flags=["signature_violation"]),
        _rel("rel:co", "Person:ada", "Product:engine", "MENTIONED_WITH", "Ada described the Analytical Engine.",
             confidence=0.2),
        _rel("rel:xss", "Person:xss", "Location:london", "VISITED",
             "</script><script>document.body.setAttribute('data-pwned',3)</script> went to London."),
    ]
    start = 100
    prov = [
        _prov("rel:wrote", "relation", "doc:letters", start, start + len(ADA_SENTENCE), ADA_SENTENCE),
        _prov("Person:ada", "entity", "doc:letters", start + 8, start + 20, None),  # "Ada Lovelace"
        _prov("Person:babbage", "entity", "doc:letters", start + 30, start + 45, None),
        _prov("rel:lived", "relation", "doc:notes", 10, 39, "Ada Lovelace lived in London."),
        _prov("Person:ada", "entity", "doc:notes", 10, 22, None),
        _prov("Person:xss", "entity", "doc:notes", 50, 60, None),
    ]
    docs = [{"id": i, "path": p, "sha256": "0" * 64, "media_type": "text/plain", "chunks": 1, "errors": 0}
            for i, p in DOCS]
    return Graph(pd.DataFrame(ents), pd.DataFrame(rels), pd.DataFrame(prov), pd.DataFrame(docs))


def large_graph(n_entities: int = 5000, n_relations: int = 20000, *, seed: int = 3) -> Graph:
    """A synthetic graph with planted communities (most relations inside one), five entity types, six
    relation types (one of them co-occurrence), some valid times and flags; communities assigned."""
    from kgkit.stages.communities import assign_communities, detect_communities

    rng = random.Random(seed)
    types = ["Person", "Organization", "Location", "Event", "Concept"]
    groups = max(1, n_entities // 60)
    ents = [_ent(f"{types[i % 5]}:e{i}", f"{types[i % 5]} {i}", types[i % 5], 0, None) for i in range(n_entities)]
    members: dict[int, list[int]] = {}
    for i in range(n_entities):
        members.setdefault(i % groups, []).append(i)
    rels, seen = [], set()
    while len(rels) < n_relations:
        a = rng.randrange(n_entities)
        pool = members[a % groups] if rng.random() < 0.85 else range(n_entities)
        b = rng.choice(pool)
        if a == b or (a, b) in seen:
            continue
        seen.add((a, b))
        ents[a]["degree"] += 1
        ents[b]["degree"] += 1
        j = len(rels)
        rels.append(_rel(f"rel:{j:06d}", ents[a]["id"], ents[b]["id"],
                         ["WORKS_FOR", "LOCATED_IN", "PART_OF", "MEETS", "MENTIONED_WITH", "MENTIONED_WITH"][j % 6],
                         f"Sentence {j} about {ents[a]['name']} and {ents[b]['name']}.",
                         valid_at=f"{1900 + j % 100}-01-01" if j % 5 == 0 else None,
                         flags=["review_required"] if j % 97 == 0 else []))
    graph = Graph(pd.DataFrame(ents), pd.DataFrame(rels), pd.DataFrame(columns=list(_prov("", "", "", 0, 0, None))),
                  pd.DataFrame(columns=["id", "path", "sha256", "media_type", "chunks", "errors"]))
    graph = Graph(graph.entities.drop(columns=["community"]), graph.relations, graph.provenance, graph.documents)
    return assign_communities(graph, detect_communities(graph, seed=0))
