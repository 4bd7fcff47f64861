"""`kgkit build`, `kgkit topology`, `kgkit query`: what a user sees, and the JSON shapes docs/graph.md promises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgkit import io
from kgkit.cli import app
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction

SIFTKG = Path(__file__).parent / "fixtures" / "siftkg"
runner = CliRunner()


def _doc(doc_id: str, rels: list[tuple[str, str, str]], valid: str | None = None) -> DocumentExtraction:
    te = TextExtraction(extractor_id="test:1", entities=(ExtractedEntity(name="Zed", type="Person"),),
                        relations=tuple(ExtractedRelation(source=s, source_type="Person", target=t,
                                                          target_type="Organization", type=typ, valid_at=valid,
                                                          confidence=0.9) for s, typ, t in rels))
    return DocumentExtraction(document_id=doc_id, path=f"{doc_id}.txt",
                              chunks=(ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=te),))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    docs = [_doc("d1", [("Ada", "MEMBER_OF", "Acme"), ("Bob", "MEMBER_OF", "Acme")]),
            _doc("d2", [("Ada", "MEMBER_OF", "Globex"), ("Cy", "MEMBER_OF", "Globex")])]
    io.write_jsonl(ws / "extractions.jsonl", [d.model_dump(mode="json") for d in docs])
    return ws


def build(ws: Path, out: Path, *extra: str) -> dict:
    result = runner.invoke(app, ["build", str(ws / "extractions.jsonl"), "-o", str(out), "--json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_build_writes_graph_communities_and_view(workspace, tmp_path):
    summary = build(workspace, tmp_path / "out")
    assert summary["entities"] == 6 and summary["relations"] == 4 and summary["communities"] >= 2
    assert set(summary["outputs"]) == {"graph", "communities", "view"}
    graph = io.load_graph(summary["outputs"]["graph"])
    assert graph.entities["community"].notna().all()
    comms = io.read_json(summary["outputs"]["communities"])
    assert comms["format"] == "kgkit.communities/1" and set(comms["membership"]) == set(graph.entities["id"])
    assert {"community", "size", "relations", "label", "top_entities", "top_names", "terms"} <= set(comms["communities"][0])
    assert Path(summary["outputs"]["view"]).read_text().startswith("<!DOCTYPE html>")


def test_build_is_byte_identical_and_learned_at_is_stamped(workspace, tmp_path):
    first, second = build(workspace, tmp_path / "a", "--no-view"), build(workspace, tmp_path / "b", "--no-view")
    assert Path(first["outputs"]["graph"]).read_bytes() == Path(second["outputs"]["graph"]).read_bytes()
    stamped = build(workspace, tmp_path / "c", "--no-view", "--learned-at", "2026-02-01T00:00:00Z")
    created = io.load_graph(stamped["outputs"]["graph"]).relations["created_at"]
    assert set(created) == {"2026-02-01T00:00:00Z"} and stamped["learned_at"] == "2026-02-01T00:00:00Z"
    bad = runner.invoke(app, ["build", str(workspace), "-o", str(tmp_path / "d"), "--learned-at", "yesterday"])
    assert bad.exit_code == 2 and "ISO 8601" in bad.output


def test_build_reads_a_workspace_folder_and_a_siftkg_folder(workspace, tmp_path):
    result = runner.invoke(app, ["build", str(workspace), "-o", str(tmp_path / "w"), "--json", "--no-view"])
    assert result.exit_code == 0 and json.loads(result.stdout)["relations"] == 4
    if not (SIFTKG / "extractions").is_dir():
        pytest.skip("no sift-kg fixtures")
    result = runner.invoke(app, ["build", str(SIFTKG), "-o", str(tmp_path / "s"), "--json", "--no-view"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["entities"] > 0


def test_topology_json_shape_and_pagination(workspace, tmp_path):
    out = build(workspace, tmp_path / "out", "--no-view")
    result = runner.invoke(app, ["topology", out["outputs"]["graph"], "--json", "--limit", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "kgkit.topology/1"
    assert set(data) == {"format", "counts", "communities", "connections", "bridges", "isolated", "params"}
    for key in ("communities", "connections", "bridges", "isolated"):
        assert set(data[key]) == {"total", "offset", "limit", "items"} and len(data[key]["items"]) <= 1
    assert data["isolated"]["total"] == 1 and data["counts"]["entities"] == 6
    text = runner.invoke(app, ["topology", str(tmp_path / "out")])  # a workspace folder works too
    assert text.exit_code == 0 and "6 entities" in text.output


def test_query_json_shape_filters_and_not_found(workspace, tmp_path):
    graph = build(workspace, tmp_path / "out", "--no-view")["outputs"]["graph"]
    result = runner.invoke(app, ["query", "ada", "--graph", graph, "--depth", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "kgkit.neighbourhood/1" and data["status"] == "found"
    assert data["matches"] == ["Person:ada"] and data["entities"]["total"] == 5
    assert {e["id"]: e["hop"] for e in data["entities"]["items"]}["Person:bob"] == 2
    typed = json.loads(runner.invoke(app, ["query", "ada", "-g", graph, "--depth", "2", "--type", "Person", "--json"]).stdout)
    assert [e["id"] for e in typed["entities"]["items"]] == ["Person:ada"]
    wrong = runner.invoke(app, ["query", "Person:ada", "-g", graph, "--type", "Organization", "--json"])
    assert wrong.exit_code == 1 and json.loads(wrong.stdout)["status"] == "not_found"
    missing = runner.invoke(app, ["query", "nobody", "-g", graph])
    assert missing.exit_code == 1 and "no entity matches" in missing.output
    paged = json.loads(runner.invoke(app, ["query", "ada", "-g", graph, "--depth", "2", "--limit", "2", "--offset", "1", "--json"]).stdout)
    assert paged["entities"]["total"] == 5 and len(paged["entities"]["items"]) == 2
