"""Exports of a Graph to other tools' formats, and the readers that make the round trip.

``export_graph(graph, fmt, dest)`` writes one format; ``FORMATS`` lists them with what ``dest`` is (a file
or a folder). Serialisers that return text (``node_link_json``, ``graphml``, ``gexf``, ``cytoscape_json``,
``cypher_script``, ``rdf_text``) are pure; writers put files down atomically (temp file + rename).

| format | dest | reader (round trip) |
|---|---|---|
| json (node-link, networkx) | file | read_node_link |
| cytoscape | file | - |
| graphml | file | read_graphml (entities, relations, meta) |
| gexf | file | - |
| csv | folder | - |
| parquet | folder | read_parquet |
| sqlite | file | read_sqlite |
| cypher | file | - |
| neo4j-csv | folder | - |
| turtle, json-ld | file | read_rdf |

>>> import tempfile, pathlib
>>> from kgkit.core.graph import Graph
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> [p.name for p in export_graph(Graph.empty(), "graphml", out / "g.graphml")]
['g.graphml']
>>> sorted(FORMATS)[:4]
['csv', 'cypher', 'cytoscape', 'gexf']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from kgkit.core.graph import Graph
from kgkit.io import atomic_write_text
from kgkit.io.export._common import atomic_write_lines
from kgkit.io.export.neo4j import cypher_script, write_neo4j_csv
from kgkit.io.export.networks import (
    cytoscape_json,
    gexf,
    graphml,
    iter_gexf,
    iter_graphml,
    node_link_dict,
    node_link_json,
    read_graphml,
    read_node_link,
)
from kgkit.io.export.rdf import rdf_text, read_rdf, to_rdflib
from kgkit.io.export.tabular import read_parquet, read_sqlite, write_csv, write_parquet, write_sqlite

__all__ = [
    "FORMATS", "cypher_script", "cytoscape_json", "export_graph", "gexf", "graphml", "node_link_dict",
    "node_link_json", "rdf_text", "read_export", "read_graphml", "read_node_link", "read_parquet", "read_rdf",
    "read_sqlite", "to_rdflib", "write_csv", "write_neo4j_csv", "write_parquet", "write_sqlite",
]


def _text(render: Callable[[Graph], str]) -> Callable[[Graph, Path], list[Path]]:
    def write(graph: Graph, dest: Path) -> list[Path]:
        atomic_write_text(dest, render(graph))
        return [dest]

    return write


def _stream(lines: Callable[[Graph], Iterable[str]]) -> Callable[[Graph, Path], list[Path]]:
    def write(graph: Graph, dest: Path) -> list[Path]:
        return [atomic_write_lines(dest, lines(graph))]

    return write


def _listed(write: Callable[[Graph, Path], object]) -> Callable[[Graph, Path], list[Path]]:
    def run(graph: Graph, dest: Path) -> list[Path]:
        out = write(graph, dest)
        return list(out) if isinstance(out, list) else [Path(out)]  # type: ignore[arg-type]

    return run


# name -> (writer, dest kind, default file or folder name, one-line description)
FORMATS: dict[str, tuple[Callable[[Graph, Path], list[Path]], str, str, str]] = {
    "json": (_text(node_link_json), "file", "graph.nodelink.json", "networkx node-link JSON, all four tables"),
    "cytoscape": (_text(cytoscape_json), "file", "graph.cyjs", "cytoscape.js elements JSON"),
    "graphml": (_stream(iter_graphml), "file", "graph.graphml", "GraphML (Gephi, yEd, Cytoscape, networkx)"),
    "gexf": (_stream(iter_gexf), "file", "graph.gexf", "GEXF 1.2 (Gephi)"),
    "csv": (_listed(write_csv), "folder", "csv", "nodes.csv, edges.csv, provenance.csv, documents.csv"),
    "parquet": (_listed(write_parquet), "folder", "parquet", "one Parquet file per table"),
    "sqlite": (_listed(write_sqlite), "file", "graph.sqlite", "SQLite tables with indexes"),
    "cypher": (_text(cypher_script), "file", "graph.cypher", "Neo4j Cypher script (cypher-shell -f)"),
    "neo4j-csv": (_listed(write_neo4j_csv), "folder", "neo4j", "neo4j-admin bulk-import CSVs + import.sh"),
    "turtle": (_text(lambda g: rdf_text(g, "turtle")), "file", "graph.ttl", "RDF Turtle (rdflib)"),
    "json-ld": (_text(lambda g: rdf_text(g, "json-ld")), "file", "graph.jsonld", "RDF JSON-LD (rdflib)"),
}

_READERS: dict[str, Callable[[Path], Graph]] = {
    "json": lambda p: read_node_link(p.read_text(encoding="utf-8")),
    "graphml": lambda p: read_graphml(str(p)),
    "parquet": read_parquet,
    "sqlite": read_sqlite,
    "turtle": lambda p: read_rdf(str(p), "turtle"),
    "json-ld": lambda p: read_rdf(str(p), "json-ld"),
}


def export_graph(graph: Graph, fmt: str, dest: str | os.PathLike[str]) -> list[Path]:
    """Write ``graph`` in format ``fmt`` (a key of FORMATS) to ``dest``; return the paths written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(FORMATS)}")
    return FORMATS[fmt][0](graph, Path(dest))


def read_export(fmt: str, path: str | os.PathLike[str]) -> Graph:
    """Read back a file or folder written by ``export_graph`` for the formats that round-trip."""
    if fmt not in _READERS:
        raise ValueError(f"no reader for {fmt!r}; formats that read back: {', '.join(_READERS)}")
    return _READERS[fmt](Path(path))
