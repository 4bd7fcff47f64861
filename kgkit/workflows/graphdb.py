"""A workspace's graph in a live graph database: push it (`kgkit push WS URL`), pull one back into a workspace
(`kgkit pull URL -o WS`). The database side (model, idempotence, checks) is kgkit.io.graphdb.

    push("workspace/demo", "falkordb://127.0.0.1:6379/demo")     # -> PushReport(entities=..., relations=...)
    pull("falkordb://127.0.0.1:6379/demo", "workspace/copy")      # -> (graph, generation)
"""

from __future__ import annotations

import os
from typing import Any

from kgkit.core.constants import VIEW_NODES
from kgkit.core.graph import Graph
from kgkit.io.graphdb import PushReport, connect, pull_graph, push_graph
from kgkit.io.workspace import Workspace
from kgkit.stages.communities import communities_of
from kgkit.workflows.graph import as_workspace, mark_stale_if_changed, read_graph, write_graph_outputs

__all__ = ["pull", "push"]


def push(workspace: Workspace | str | os.PathLike[str], url: str, *, graph: str | None = None,
         batch: int | None = None, progress: Any = None) -> PushReport:
    """Push the workspace's graph to the database at `url` (falkordb://HOST:PORT[/GRAPH], neo4j://HOST:7687);
    `graph` names the graph (FalkorDB) or database (Neo4j) instead of the URL's path. Idempotent."""
    from kgkit.io.graphdb.backends import parse_url

    parse_url(url)  # a wrong URL is a usage error before the graph is read
    data = read_graph(as_workspace(workspace))
    db = connect(url, graph=graph)
    try:
        return push_graph(data, db, progress=progress, **({"batch": batch} if batch else {}))
    finally:
        db.close()


def pull(url: str, workspace: Workspace | str | os.PathLike[str], *, graph: str | None = None,
         write_view: bool = True, max_view_nodes: int = VIEW_NODES, lock_timeout: float = 60.0) -> tuple[Graph, int]:
    """Pull the graph at `url` into the workspace as one generation: graph.json exactly as pushed (its
    communities kept), communities.json and graph.html; returns (graph, generation)."""
    db = connect(url, graph=graph)
    try:
        pulled = pull_graph(db)
    finally:
        db.close()
    ws = as_workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="pull"):
        gen = ws.begin("pull", config={"view_nodes": max_view_nodes, "pulled_from": _without_password(url)})
        mark_stale_if_changed(gen, pulled.to_json_bytes(end=b"\n"))
        write_graph_outputs(gen, pulled, communities_of(pulled), write_view=write_view, view_nodes=max_view_nodes)
        number = gen.commit()
    return pulled, number


def _without_password(url: str) -> str:
    """The URL as the manifest may keep it: no password.

    >>> _without_password("neo4j://neo4j:secret@db:7687")
    'neo4j://neo4j@db:7687'
    """
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
