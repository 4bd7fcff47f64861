"""`kgkit index` and `kgkit search --json` end to end: the kgkit.search/1 schema, rollups, paging through the
JSON, argument errors. What the index and search workflows find is tested in test_search_workflow.py."""

from __future__ import annotations

import json

import pytest
from test_search_workflow import indexed_workspace
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.testing.workspaces import sample_workspace

HIT_KEYS = {"rank", "id", "kind", "score", "title", "type", "text", "provenance", "channels", "entities", "match"}
TOP_KEYS = {"schema", "query", "terms", "filters", "channels", "lookup", "weights", "named_entities", "limit", "offset",
            "total", "next_offset", "timings_ms", "hits"}
PROVENANCE_KEYS = {"document_id", "chunk_id", "start", "end", "evidence", "documents"}
INDEX_KEYS = {"added", "replaced", "unchanged", "removed", "items", "documents_unreadable", "index"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A workspace run and indexed by the library (shared with test_search_workflow.py)."""
    return indexed_workspace(tmp_path_factory)


def test_index_command_prints_its_counts_and_reads_the_run_corpus(tmp_path):
    ws = sample_workspace(tmp_path)
    runner = CliRunner()
    result = runner.invoke(app, ["index", str(tmp_path / "docs"), "-w", str(ws.root), "--embedder", "hashing"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert set(report) >= INDEX_KEYS and report["added"] == report["items"] > 0
    again = runner.invoke(app, ["index", "-w", str(ws.root), "--embedder", "hashing"])  # the run's corpus by default
    assert again.exit_code == 0, again.output
    assert json.loads(again.output.splitlines()[-1])["unchanged"] == report["items"]
    missing = runner.invoke(app, ["index", str(tmp_path / "nope"), "-w", str(ws.root)])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output
    hits = search(ws.root, "Ada Lovelace", "--kind", "entity")["hits"]
    assert hits[0]["title"] == "Ada Lovelace"  # the index the command built answers


def search(ws, *args):
    result = CliRunner().invoke(app, ["search", *args, "-w", str(ws), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_schema(workspace):
    _, ws = workspace
    out = search(ws, "space program launch", "--limit", "5")
    assert set(out) == TOP_KEYS and out["schema"] == "kgkit.search/1"
    assert 0 < len(out["hits"]) <= 5 and out["limit"] == 5 and out["offset"] == 0
    kinds = set()
    for i, hit in enumerate(out["hits"], start=1):
        assert set(hit) == HIT_KEYS and hit["rank"] == i and set(hit["provenance"]) == PROVENANCE_KEYS
        assert hit["kind"] in {"entity", "relation", "chunk"} and len(hit["text"]) <= 501
        assert set(hit["channels"]) <= {"keyword", "dense", "graph"}
        kinds.add(hit["kind"])
    assert {"total", "cpu_total"} <= set(out["timings_ms"])
    chunk_hits = search(ws, "space program launch", "--kind", "chunk")["hits"]
    assert chunk_hits and all(h["provenance"]["document_id"] and h["provenance"]["start"] is not None for h in chunk_hits)


def test_text_output_names_documents_by_path(workspace):
    _, ws = workspace
    for kind in ("chunk", "relation"):
        result = CliRunner().invoke(app, ["search", "space program launch", "--kind", kind, "-w", str(ws)])
        assert result.exit_code == 0, result.output
        hits = [line for line in result.stdout.splitlines() if line[:4].strip().rstrip(".").isdigit()]
        assert hits and all("doc:" not in line for line in hits)  # paths a person reads, never ids
        assert all(any(p in line for p in (".txt", ".md", ".html")) for line in hits)


def test_rollup_groups_the_page(workspace):
    _, ws = workspace
    out = search(ws, "space program launch", "--kind", "chunk", "--rollup", "document")
    groups = out["rollup"]["groups"]
    assert out["rollup"]["by"] == "document" and groups
    assert sum(g["hits"] for g in groups) == len(out["hits"])
    assert {g["key"] for g in groups} == {h["provenance"]["document_id"] for h in out["hits"]}


def test_next_offset_walks_every_hit_once(workspace):
    _, ws = workspace
    first = search(ws, "Soviet", "--limit", "4")
    seen, offset = [], 0
    while offset is not None:
        page = search(ws, "Soviet", "--limit", "4", "--offset", str(offset))
        assert page["total"] == first["total"]
        seen += [h["id"] for h in page["hits"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == first["total"]


def test_filter_options_reach_the_search(workspace):
    _, ws = workspace
    out = search(ws, "Soviet", "--kind", "entity", "--type", "Location", "--as-of", "2024-06-01", "--limit", "20")
    assert out["filters"] == {"kind": ["entity"], "type": ["Location"], "as_of": "2024-06-01"}
    assert all(h["kind"] == "entity" and h["type"] == "Location" for h in out["hits"])
    assert search(ws, "Soviet", "--kind", "relation", "--as-of", "2023-12-31")["hits"] == []


def test_malformed_queries_and_errors(workspace, tmp_path):
    _, ws = workspace
    for query in ["", "*", '"', "NEAR(", "the of", "x" * 20000]:
        out = search(ws, query, "--limit", "3")
        assert out["schema"] == "kgkit.search/1" and len(out["hits"]) <= 3
    bad = CliRunner().invoke(app, ["search", "x", "-w", str(ws), "--kind", "nope"])
    assert bad.exit_code == 2 and "unknown item kind" in bad.output
    too_many = CliRunner().invoke(app, ["search", "x", "-w", str(ws), "--limit", "1000"])
    assert too_many.exit_code == 2
    rollup = CliRunner().invoke(app, ["search", "x", "-w", str(ws), "--rollup", "nope"])
    assert rollup.exit_code == 2 and "--rollup" in rollup.output
    missing = CliRunner().invoke(app, ["search", "x", "-w", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no search index" in missing.output
