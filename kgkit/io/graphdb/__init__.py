"""A kgkit Graph in a live graph database: push, pull and Cypher scripts through the official drivers
(`falkordb` for FalkorDB, `neo4j` for Neo4j; the `graphdb` extra).

    db = connect("falkordb://127.0.0.1:6379/papers")      # or neo4j://host:7687 (KGKIT_NEO4J_USER / _PASSWORD)
    push_graph(graph, db)                                  # idempotent: the database holds exactly this graph
    pull_graph(db)                                         # the same graph back (same canonical JSON)
    load_cypher_script(db, cypher_script(graph))           # the `kgkit export cypher` script, run statement by statement

The property model and the push's guarantees: kgkit.io.graphdb.sync; rows and their exact cells:
kgkit.io.graphdb.rows; URLs: kgkit.io.graphdb.backends.
"""

from __future__ import annotations

from kgkit.io.graphdb.backends import Backend, GraphDBError, connect, parse_url
from kgkit.io.graphdb.sync import PushReport, load_cypher_script, pull_graph, push_graph

__all__ = ["Backend", "GraphDBError", "PushReport", "connect", "load_cypher_script", "parse_url", "pull_graph",
           "push_graph"]
