"""RDF exports (Turtle, JSON-LD) via rdflib, and the reader that turns them back into a Graph.

Vocabulary: ``kg:`` = ``https://kgkit.dev/ns#`` (classes ``kg:Entity``, ``kg:Relation``, ``kg:Mention``,
``kg:Document``, ``kg:Graph``; one property ``kg:<column>`` per table column). Resources live under a
base IRI (default ``urn:kgkit:``) with their kgkit id percent-encoded, so any id is a valid IRI:
``Person:ada lovelace`` -> ``urn:kgkit:entity/Person%3Aada%20lovelace``. Each relation is a
``kg:Relation`` resource (its columns as properties) and also a direct triple
``<source> kgr:<TYPE> <target>`` for plain SPARQL. List columns are RDF collections (order kept);
``kg:row`` keeps table order so a round trip gives the same tables.

>>> from kgkit.core.graph import Graph
>>> read_rdf(rdf_text(Graph.empty(), "turtle"), "turtle").summary()["entities"]
0
>>> entity_iri("Person:ada lovelace")
rdflib.term.URIRef('urn:kgkit:entity/Person%3Aada%20lovelace')
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pandas as pd

from kgkit.core.graph import Graph
from kgkit.io.export._common import column_kinds, graph_from_tables, records

NS = "https://kgkit.dev/ns#"
REL_NS = "https://kgkit.dev/relation#"
BASE = "urn:kgkit:"
_CLASSES = {"entities": ("Entity", "entity"), "relations": ("Relation", "relation"),
            "provenance": ("Mention", "mention"), "documents": ("Document", "document")}


def _iri(kind: str, key: str, base: str = BASE) -> Any:
    from rdflib import URIRef

    return URIRef(f"{base}{kind}/{quote(str(key), safe='')}")


def entity_iri(entity_id: str, base: str = BASE) -> Any:
    """The IRI of an entity: base + "entity/" + percent-encoded id."""
    return _iri("entity", entity_id, base)


def to_rdflib(graph: Graph, *, base: str = BASE) -> Any:
    """The graph as an rdflib.Graph (namespaces ``kg`` and ``kgr`` bound)."""
    from rdflib import RDF, BNode, Literal, Namespace, URIRef
    from rdflib import Graph as RDFGraph
    from rdflib.collection import Collection

    kg, kgr = Namespace(NS), Namespace(REL_NS)
    g = RDFGraph()
    g.bind("kg", kg)
    g.bind("kgr", kgr)
    root = URIRef(f"{base}graph")
    g.add((root, RDF.type, kg.Graph))
    g.add((root, kg.meta, Literal(json.dumps(graph.meta, sort_keys=True, ensure_ascii=False))))
    for table, (cls, kind) in _CLASSES.items():
        df = getattr(graph, table)
        kinds = column_kinds(df)
        for i, row in enumerate(records(df)):
            node = _iri(kind, row.get("id", i), base)
            g.add((node, RDF.type, kg[cls]))
            g.add((node, kg.row, Literal(i)))
            for col, value in row.items():
                pred = URIRef(NS + quote(str(col), safe=""))
                if kinds[col] == "list" and not value:
                    g.add((node, pred, RDF.nil))
                elif kinds[col] == "list":
                    head = BNode()
                    Collection(g, head, [Literal(str(v)) for v in value or []])
                    g.add((node, pred, head))
                elif value is not None:
                    g.add((node, pred, Literal(value)))
            if table == "relations":
                g.add((entity_iri(row["source"], base), URIRef(REL_NS + quote(str(row["type"]), safe="")),
                       entity_iri(row["target"], base)))
    return g


def rdf_text(graph: Graph, fmt: str = "turtle", *, base: str = BASE) -> str:
    """Serialise as ``turtle`` or ``json-ld`` (any rdflib format name works)."""
    g = to_rdflib(graph, base=base)
    if fmt == "json-ld":
        return g.serialize(format="json-ld", context={"kg": NS, "kgr": REL_NS}, indent=1)
    return g.serialize(format=fmt)


def read_rdf(source: str, fmt: str = "turtle") -> Graph:
    """A Graph from RDF written by :func:`rdf_text` (all four tables and meta). ``source``: text or path."""
    from rdflib import RDF, Namespace, URIRef
    from rdflib import Graph as RDFGraph
    from rdflib.collection import Collection
    from rdflib.term import BNode, Literal

    kg = Namespace(NS)
    g = RDFGraph()
    if "\n" in source or source.lstrip().startswith(("{", "[", "@")):
        g.parse(data=source, format=fmt)
    else:
        g.parse(source, format=fmt)
    meta: dict[str, Any] = {}
    for _, _, value in g.triples((None, kg.meta, None)):
        meta = json.loads(str(value))
    tables: dict[str, pd.DataFrame] = {}
    for table, (cls, _) in _CLASSES.items():
        rows = []
        for node in g.subjects(RDF.type, kg[cls]):
            row: dict[str, Any] = {}
            for pred, obj in g.predicate_objects(node):
                if not isinstance(pred, URIRef) or not str(pred).startswith(NS) or pred == RDF.type:
                    continue
                col = _unquote(str(pred)[len(NS):])
                if isinstance(obj, BNode) or obj == RDF.nil:
                    row[col] = [v.toPython() for v in Collection(g, obj)]
                elif isinstance(obj, Literal):
                    row[col] = obj.toPython()
            rows.append(row)
        rows.sort(key=lambda r: r.pop("row", 0))
        tables[table] = pd.DataFrame(rows)
    return graph_from_tables(tables, meta)


def _unquote(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text)
