"""Connections to a graph database through its official Python driver: FalkorDB (`falkordb`) and Neo4j (`neo4j`).

A URL names the database and the graph:

    falkordb://[user:password@]HOST:PORT[/GRAPH]        a FalkorDB server; GRAPH defaults to "kgkit"
    neo4j://[user:password@]HOST:7687[/DATABASE]        Neo4j (also neo4j+s, bolt, bolt+s); the server's default
                                                        database without one; user and password also from
                                                        KGKIT_NEO4J_USER / KGKIT_NEO4J_PASSWORD

Both offer `query(cypher, params) -> rows`, `properties(match, var)` (the properties of every match),
`ensure_schema()` (unique ids on Entity, Document and KgkitGraph
nodes, created before any write and idempotent) and `close()`.

>>> parse_url("falkordb://127.0.0.1:6379/papers")
('falkordb', '127.0.0.1', 6379, 'papers', None, None)
>>> parse_url("neo4j://neo4j:secret@db.example:7687")[::3]
('neo4j', None)
"""

from __future__ import annotations

import os
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

__all__ = ["Backend", "FalkorDBBackend", "GraphDBError", "Neo4jBackend", "connect", "parse_url"]

NEO4J_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
SCHEMES = ("falkordb", *NEO4J_SCHEMES)
DEFAULT_GRAPH = "kgkit"
UNIQUE_IDS = ("Entity", "Document", "KgkitGraph")


class GraphDBError(RuntimeError):
    """A graph database refused, failed or holds no (or an incomplete) kgkit graph."""


class Backend(Protocol):
    kind: str

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]: ...

    def properties(self, match: str, var: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]: ...

    def ensure_schema(self) -> None: ...

    def close(self) -> None: ...


def parse_url(url: str) -> tuple[str, str, int, str | None, str | None, str | None]:
    """(scheme, host, port, graph or database name, user, password) of a graph database URL."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"not a graph database URL: {url!r} (use falkordb://HOST:PORT[/GRAPH] or neo4j://HOST:7687)")
    default_port = 6379 if parts.scheme == "falkordb" else 7687
    name = parts.path.strip("/") or None
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return parts.scheme, parts.hostname or "127.0.0.1", parts.port or default_port, name, user, password


class FalkorDBBackend:
    """One named graph on a FalkorDB server."""

    kind = "falkordb"

    def __init__(self, host: str, port: int, graph: str = DEFAULT_GRAPH, *, user: str | None = None,
                 password: str | None = None) -> None:
        from falkordb import FalkorDB

        try:  # the client asks the server about itself at once
            self.db = FalkorDB(host=host, port=port, username=user, password=password)
        except Exception as exc:
            raise GraphDBError(f"FalkorDB at {host}:{port}: {exc}") from exc
        self.graph = self.db.select_graph(graph)
        self.name = graph

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        try:
            return self.graph.query(cypher, params).result_set
        except Exception as exc:  # the driver raises redis errors: one kind for the caller
            raise GraphDBError(f"FalkorDB: {exc}") from exc

    def properties(self, match: str, var: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The properties of `var` for every match (not through toJSON: FalkorDB 4.22 leaves quotes unescaped)."""
        return [dict(row[0]) for row in self.query(f"{match} RETURN properties({var})", params)]

    def ensure_schema(self) -> None:
        try:
            self._ensure_schema()
        except GraphDBError:
            raise
        except Exception as exc:  # the driver's redis errors (connection refused ...)
            raise GraphDBError(f"FalkorDB: {exc}") from exc

    def _ensure_schema(self) -> None:
        graphs = self.db.list_graphs()
        indexed = {(r[0], r[6]) for r in self.query("CALL db.indexes()")} if self.name in graphs else set()
        unique = {(c["label"], tuple(c["properties"])) for c in self.graph.list_constraints()
                  if c["type"] == "UNIQUE"} if self.name in graphs else set()
        for label in UNIQUE_IDS:
            if (label, "NODE") not in indexed:  # FalkorDB's unique constraint stands on a range index
                self.query(f"CREATE INDEX FOR (n:{label}) ON (n.id)")
            if (label, ("id",)) not in unique:
                self.graph.create_node_unique_constraint(label, "id")
        self._wait_for_constraints()

    def _wait_for_constraints(self, timeout: float = 30.0) -> None:
        """Constraints are built in the background (PENDING): wait until all are OPERATIONAL, bounded."""
        import time

        deadline = time.monotonic() + timeout
        while any(c["status"] != "OPERATIONAL" for c in self.graph.list_constraints()):
            if time.monotonic() > deadline:
                raise GraphDBError(f"FalkorDB: constraints on {self.name!r} not operational after {timeout:.0f} s")
            time.sleep(0.05)

    def close(self) -> None:
        self.db.connection.close()


class Neo4jBackend:
    """One Neo4j database (the server's default one when `database` is None)."""

    kind = "neo4j"

    def __init__(self, uri: str, *, database: str | None = None, user: str | None = None,
                 password: str | None = None) -> None:
        import neo4j

        user = user or os.environ.get("KGKIT_NEO4J_USER", "neo4j")
        password = password or os.environ.get("KGKIT_NEO4J_PASSWORD")
        self.driver = neo4j.GraphDatabase.driver(uri, auth=(user, password) if password else None)
        self.database = database
        self.name = DEFAULT_GRAPH

    def query(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        try:
            records, _, _ = self.driver.execute_query(cypher, params or {}, database_=self.database)
        except Exception as exc:
            raise GraphDBError(f"Neo4j: {exc}") from exc
        return [list(r.values()) for r in records]

    def properties(self, match: str, var: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return [dict(row[0]) for row in self.query(f"{match} RETURN properties({var})", params)]

    def ensure_schema(self) -> None:
        for label in UNIQUE_IDS:
            self.query(f"CREATE CONSTRAINT kgkit_{label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE")
        self.query("CREATE INDEX kgkit_mention_id IF NOT EXISTS FOR ()-[m:MENTIONED_IN]-() ON (m.id)")

    def close(self) -> None:
        self.driver.close()


def connect(url: str, *, graph: str | None = None) -> Backend:
    """A backend for a URL (see the module doc); `graph` overrides the graph (FalkorDB) or database (Neo4j)."""
    scheme, host, port, name, user, password = parse_url(url)
    if scheme == "falkordb":
        return FalkorDBBackend(host, port, graph or name or DEFAULT_GRAPH, user=user, password=password)
    bare = f"{scheme}://{host}:{port}"
    return Neo4jBackend(bare, database=graph or name, user=user, password=password)
