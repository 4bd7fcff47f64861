"""`kgkit index` and `kgkit search --json`: the kgkit.search/1 schema, pagination, filters, errors."""

from __future__ import annotations

import itertools
import json

import pytest
from typer.testing import CliRunner

from kgkit.cli import app

HIT_KEYS = {"rank", "id", "kind", "score", "title", "type", "text", "provenance", "channels", "entities"}
TOP_KEYS = {"schema", "query", "terms", "filters", "channels", "lookup", "weights", "limit", "offset", "total", "next_offset", "timings_ms", "hits"}
PROVENANCE_KEYS = {"document_id", "chunk_id", "start", "end", "evidence", "documents"}


class CapitalisedWords:
    """A fast stand-in extractor: capitalised words are entities, neighbours in a sentence are related."""

    id = "capitalised:1"

    def extract(self, texts, *, domain):
        from kgkit.core.records import ExtractedEntity, ExtractedRelation, TextExtraction

        out = []
        for text in texts:
            names = list(dict.fromkeys(w.strip(".,;:()\"'") for w in text.split() if w[:1].isupper()))
            names = [n for n in names if len(n) > 2]
            ents = tuple(ExtractedEntity(name=n, type="Location" if n.endswith("a") else "Other") for n in names)
            rels = tuple(ExtractedRelation(source=a.name, source_type=a.type, target=b.name, target_type=b.type,
                                           type="MENTIONED_WITH", evidence=text[:200])
                         for a, b in itertools.pairwise(ents))
            out.append(TextExtraction(extractor_id=self.id, entities=ents, relations=rels))
        return out


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    import shutil

    from conftest import FIXTURE_CORPUS

    from kgkit import io
    from kgkit.workflows.run import run

    base = tmp_path_factory.mktemp("search")
    corpus, ws = base / "corpus", base / "ws"
    shutil.copytree(FIXTURE_CORPUS, corpus)
    graph = run(ws, corpus, extractor=CapitalisedWords(), write_view=False).graph
    relations = graph.relations.assign(created_at="2024-01-01T00:00:00")
    io.save_graph(graph.replace(relations=relations), ws / "graph.json")
    runner = CliRunner()
    result = runner.invoke(app, ["index", str(corpus), "-w", str(ws), "--embedder", "hashing"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["added"] == report["items"] > 0
    return corpus, ws


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


def test_rollup_groups_the_page(workspace):
    _, ws = workspace
    out = search(ws, "space program launch", "--kind", "chunk", "--rollup", "document")
    groups = out["rollup"]["groups"]
    assert out["rollup"]["by"] == "document" and groups
    assert sum(g["hits"] for g in groups) == len(out["hits"])
    assert {g["key"] for g in groups} == {h["provenance"]["document_id"] for h in out["hits"]}


def test_pagination_walks_every_hit_once(workspace):
    _, ws = workspace
    first = search(ws, "Soviet", "--limit", "4")
    seen, offset = [], 0
    while offset is not None:
        page = search(ws, "Soviet", "--limit", "4", "--offset", str(offset))
        assert page["total"] == first["total"]
        seen += [h["id"] for h in page["hits"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == first["total"]


def test_filters_from_the_command_line(workspace):
    _, ws = workspace
    rel = search(ws, "Soviet", "--kind", "relation", "--limit", "20")["hits"]
    assert rel and all(h["kind"] == "relation" for h in rel)
    ent = search(ws, "Soviet", "--kind", "entity", "--type", "Location", "--limit", "20")["hits"]
    assert all(h["kind"] == "entity" and h["type"] == "Location" for h in ent)
    doc = rel[0]["provenance"]["document_id"]
    in_doc = search(ws, "Soviet", "--document", doc, "--limit", "50")["hits"]
    assert in_doc and all(doc in h["provenance"]["documents"] for h in in_doc)
    assert search(ws, "Soviet", "--kind", "relation", "--as-of", "2023-12-31")["hits"] == []
    assert search(ws, "Soviet", "--kind", "relation", "--as-of", "2024-06-01")["hits"]


def test_reindex_skips_unchanged_and_replaces_edited(workspace, tmp_path):
    corpus, ws = workspace
    runner = CliRunner()
    again = json.loads(runner.invoke(app, ["index", str(corpus), "-w", str(ws), "--embedder", "hashing"]).output.splitlines()[-1])
    assert again["added"] == 0 and again["unchanged"] == again["items"]


def test_malformed_queries_and_errors(workspace, tmp_path):
    _, ws = workspace
    for query in ["", "*", '"', "NEAR(", "the of", "x" * 20000]:
        out = search(ws, query, "--limit", "3")
        assert out["schema"] == "kgkit.search/1" and len(out["hits"]) <= 3
    bad = CliRunner().invoke(app, ["search", "x", "-w", str(ws), "--kind", "nope"])
    assert bad.exit_code == 2 and "unknown item kind" in bad.output
    too_many = CliRunner().invoke(app, ["search", "x", "-w", str(ws), "--limit", "1000"])
    assert too_many.exit_code == 2
    missing = CliRunner().invoke(app, ["search", "x", "-w", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no search index" in missing.output
