"""Typed records for what used to flow as tuples and dicts: each has one JSON form, the one users already see."""

from __future__ import annotations

import json

from kgkit.core.graph import DOCUMENT_COLUMNS, Graph, GraphMeta
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, TextExtraction
from kgkit.io.cache import Cache, CacheCounts
from kgkit.io.extractions import failed_chunks
from kgkit.stages.embed import HashingEmbedder
from kgkit.stages.mention_rows import DocumentRow, EntityMention, Mentions
from kgkit.stages.search import IndexChanges, SearchIndex, SearchItem
from kgkit.stages.topology import Neighbourhood, TopologyReport, neighbourhood, topology, topology_report
from kgkit.testing.workspaces import sample_workspace
from kgkit.workflows.graph import read_graph
from kgkit.workflows.index import index_report
from kgkit.workflows.records import IndexReport, RunSummary


def test_mention_rows_are_named_and_documents_match_the_graph_table():
    assert DocumentRow._fields == tuple(DOCUMENT_COLUMNS)
    te = TextExtraction(extractor_id="x", entities=(ExtractedEntity(name="Ada", type="Person"),))
    docs = [DocumentExtraction(document_id="d1", path="a.txt", chunks=(
        ChunkExtraction(chunk_id="c1", document_id="d1", extraction=te),
        ChunkExtraction(chunk_id="c2", document_id="d1", extraction=TextExtraction(extractor_id="x", error="boom"))))]
    rows = Mentions.of(docs)
    (document,) = rows.documents
    assert (document.path, document.chunks, document.errors) == ("a.txt", 2, 1)
    (chunk,) = rows.chunks  # the failed chunk has no row
    assert chunk.chunk_id == "c1" and EntityMention(*chunk.entities[0]).name == "Ada"
    assert failed_chunks(rows) == failed_chunks(docs) == 1


def test_topology_and_neighbourhood_records_give_their_json(tmp_path):
    graph = read_graph(sample_workspace(tmp_path))
    report = topology_report(graph, limit=3)
    assert isinstance(report, TopologyReport) and report.counts.entities == len(graph.entities)
    assert report.to_json_dict() == topology(graph, limit=3) and report.to_json_dict()["format"] == "kgkit.topology/1"
    assert report.communities.limit == 3 and len(report.communities.items) <= 3
    hood = neighbourhood(graph, "Ada Lovelace", depth=1, limit=2)
    assert isinstance(hood, Neighbourhood) and hood.params.depth == 1
    data = hood.to_json_dict()
    assert data["params"] == {"depth": 1, "types": None, "relation_types": None, "limit": 2, "offset": 0}
    assert data["entities"]["total"] == hood.total_entities and len(data["entities"]["items"]) == len(hood.entities)
    assert json.loads(json.dumps(data)) == data


def test_cache_info_and_counts_records(tmp_path):
    from kgkit.stages.embed import embed_rows

    cache = Cache(tmp_path / "c")
    cache.map(embed_rows, ["a", "b"], embedder=HashingEmbedder(dim=8))
    counts = cache.stats.snapshot()
    assert counts.to_json_dict() == cache.stats.as_dict() == {"embed": {"hits": 0, "misses": 2, "computed": 2, "writes": 2}}
    assert CacheCounts.from_json_dict(counts.to_json_dict()) == counts and (counts.hits, counts.misses) == (0, 2)
    info = cache.info()
    assert info.entries == info.stages["embed"].entries == 2
    assert set(info.to_json_dict()) == {"root", "stages", "entries", "bytes", "session"}
    assert "session" not in info.to_json_dict(session=False)


def test_index_changes_and_report(tmp_path):
    index = SearchIndex()
    items = [SearchItem(id="c1", kind="chunk", title="", body="Ada met Bob.")]
    assert index.add(items) == IndexChanges(added=1) and index.add(items).unchanged == 1
    assert index.remove(["c1", "nope"]).to_json_dict() == {"added": 0, "replaced": 0, "unchanged": 0, "removed": 1}
    ws = sample_workspace(tmp_path)
    report = index_report(ws, embedder=None)
    assert isinstance(report, IndexReport) and report.added == report.items > 0
    assert set(report.to_json_dict()) == {"added", "replaced", "unchanged", "removed", "items", "documents_unreadable",
                                          "index"}


def test_run_summary_is_run_json(tmp_path):
    ws = sample_workspace(tmp_path)
    saved = ws.read_json("run.json")
    summary = RunSummary.from_json_dict(saved)
    assert summary.to_json_dict() == saved and "seconds" not in saved and "llm" not in saved
    assert saved["cache_hits"] == summary.cache.hits and saved["documents_failed"] == len(summary.failures) == 0
    shown = summary.model_copy(update={"seconds": 1.5}).to_json_dict()
    assert shown == {**saved, "seconds": 1.5}


def test_graph_meta_keys_are_documented():
    graph = Graph.empty(meta={"builder": "kgkit.build/1", "domain": "domain:x", "extractors": []})
    assert set(graph.meta) <= set(GraphMeta.__annotations__)
