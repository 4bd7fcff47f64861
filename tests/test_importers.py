"""sift-kg import, on files sift-kg 0.9.0 itself produced (tests/fixtures/siftkg, see its README)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgkit import io
from kgkit.io.importers import kgkit_type, read_siftkg_extractions, read_siftkg_graph, read_siftkg_mentions
from kgkit.stages.build import Mentions, build_graph

FIXTURES = Path(__file__).parent / "fixtures" / "siftkg"
HOSTILE = "Bobby \"Tables\" O'Brien <img src=x onerror=alert(1)>"


def test_type_mapping_defaults_overrides_and_domain():
    assert [kgkit_type(t) for t in ("PERSON", "ORGANIZATION", "LOCATION", "EVENT")] == [
        "Person", "Organization", "Location", "Event"]
    assert kgkit_type("FINANCIAL_INSTITUTION") == "FinancialInstitution"
    assert kgkit_type("PERSON", type_map={"PERSON": "Human"}) == "Human"
    general = io.load_domain("general")
    assert kgkit_type("GPE", domain=general) == "Location"
    assert kgkit_type("SPACESHIP", domain=general) == general.fallback_entity_type


def test_extractions_import_with_provenance_and_error_records():
    docs = read_siftkg_extractions(FIXTURES / "extractions")
    assert [d.document_id for d in docs] == [f"doc:doc_0000{i}" for i in range(4)]
    failed = [d for d in docs if d.errors]
    assert [d.document_id for d in failed] == ["doc:doc_00003"]
    assert "RateLimitError" in failed[0].errors[0]
    first = docs[0].chunks[0].extraction
    assert first.extractor_id == "siftkg:openai/gpt-4o-mini" and first.quality == "imported"
    hostile = next(e for e in first.entities if e.name == HOSTILE)
    assert hostile.type == "Person" and hostile.label == "PERSON" and "DETACH DELETE" in hostile.attributes["context"]
    rel = next(r for r in first.relations if r.source == HOSTILE)
    assert (rel.source_type, rel.target_type) == ("Person", "Person") and "MATCH (n)" in rel.evidence


def test_relation_endpoint_types_come_from_the_same_document(tmp_path):
    raw = json.loads((FIXTURES / "extractions" / "doc_00001.json").read_text())
    raw["relations"].append({"relation_type": "LOCATED_IN", "source_entity": "coffee capital",
                             "target_entity": "Nowhere Listed", "confidence": 0.9, "evidence": "x"})
    (tmp_path / "doc_00001.json").write_text(json.dumps(raw))
    (tmp_path / "broken.json").write_text("{not json")
    docs = read_siftkg_extractions(tmp_path)
    assert [d.document_id for d in docs] == ["doc:broken", "doc:doc_00001"]
    assert "not a sift-kg extraction file" in docs[0].errors[0]
    rel = docs[1].chunks[0].extraction.relations[-1]
    assert (rel.source_type, rel.target_type) == ("Organization", "Other")  # case-insensitive, then fallback


def test_imported_extractions_build_a_graph():
    docs = read_siftkg_extractions(FIXTURES / "extractions")
    graph = build_graph(docs, domain=io.load_domain("general"))
    assert len(graph.entities) == 13 and len(graph.relations) == 9
    assert graph.documents.set_index("id").loc["doc:doc_00003", "errors"] == 1
    evidence = graph.provenance[graph.provenance["kind"] == "relation"]["evidence"]
    assert evidence.str.contains("DETACH DELETE").any()
    assert set(graph.provenance["extractor_id"]) == {"siftkg:openai/gpt-4o-mini"}


def _same_graph_both_ways(folder, **kw):
    """build_graph on read_siftkg_mentions and on read_siftkg_extractions (and Mentions.of them): same bytes."""
    dom = io.load_domain("general")
    records = read_siftkg_extractions(folder, **kw)
    mentions = read_siftkg_mentions(folder, **kw)
    built = [build_graph(x, domain=dom, learned_at="2026-01-01") for x in (records, mentions, Mentions.of(records))]
    saved = {g.to_json_bytes() for g in built}
    assert len(saved) == 1 and saved.pop() == io.dumps_json(built[0].to_json_dict()).encode()
    return built[1]


def test_mentions_reader_builds_the_same_graph_as_the_records():
    graph = _same_graph_both_ways(FIXTURES / "extractions")
    assert len(graph.entities) == 13 and graph.documents.set_index("id").loc["doc:doc_00003", "errors"] == 1
    _same_graph_both_ways(FIXTURES / "extractions", type_map={"PERSON": "Human"}, domain=io.load_domain("general"))


def test_mentions_reader_gives_odd_files_the_record_path(tmp_path):
    raw = json.loads((FIXTURES / "extractions" / "doc_00001.json").read_text())
    variants = {
        "as_is": raw,
        "int_name": {**raw, "entities": [{**raw["entities"][0], "name": 2006}, *raw["entities"][1:]]},
        "text_confidence": {**raw, "relations": [{**raw["relations"][0], "confidence": "0.4"}]},
        "bool_confidence": {**raw, "entities": [{**raw["entities"][0], "confidence": True}]},
        "no_id": {k: v for k, v in raw.items() if k not in ("document_id", "document_path")},
        "null_lists": {**raw, "entities": None, "relations": None, "error": ""},
        "list_evidence": {**raw, "relations": [{**raw["relations"][0], "evidence": ["a", 1]}]},
        "null_confidence": {**raw, "entities": [{**raw["entities"][0], "confidence": None}]},
        "missing_name": {**raw, "relations": [{"relation_type": "X", "target_entity": "y"}]},
        "failed": {**raw, "error": "RateLimitError", "model_used": None},
    }
    for name, data in variants.items():
        (tmp_path / f"{name}.json").write_text(json.dumps({**data, "document_id": data.get("document_id") and name}))
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "nan.json").write_text(json.dumps(raw).replace('"confidence": 0.89,', '"confidence": NaN,', 1))
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(raw).encode())
    (tmp_path / "latin1.json").write_bytes(json.dumps(raw, ensure_ascii=False).replace("Garcia", "Garc\u00eda").encode("latin-1"))
    graph = _same_graph_both_ways(tmp_path)
    errors = {k.removeprefix("doc:"): v for k, v in zip(graph.documents["id"], graph.documents["errors"])}
    assert {k for k, v in errors.items() if v} == {"broken", "list", "bom", "latin1", "failed", "null_confidence",
                                                   "missing_name"}
    assert any(i.endswith(":2006") for i in graph.entities["id"])  # coerced to text, as the record path does


def test_graph_data_import_keeps_siftkg_graph():
    sift = json.loads((FIXTURES / "graph_data.json").read_text())
    graph = read_siftkg_graph(FIXTURES / "graph_data.json")
    docs = [n for n in sift["nodes"] if n["entity_type"] == "DOCUMENT"]
    mentioned = [link for link in sift["links"] if link["relation_type"] == "MENTIONED_IN"]
    assert len(graph.documents) == len(docs)
    assert len(graph.entities) == len(sift["nodes"]) - len(docs)
    assert len(graph.relations) == len(sift["links"]) - len(mentioned)
    assert set(graph.entities["identity"]) == {"source"}
    assert set(graph.entities["id"]) == {n["id"] for n in sift["nodes"]} - {n["id"] for n in docs}
    assert {"Person", "Organization", "Event"} <= set(graph.entities["type"])
    assert "FUNDS" in set(graph.relations["type"])
    assert (graph.provenance["kind"] == "entity").sum() == len(mentioned)
    assert set(graph.provenance["document_id"]) <= set(graph.documents["id"])
    ends = set(graph.relations["source"]) | set(graph.relations["target"])
    assert ends <= set(graph.entities["id"])
    degree = graph.entities.set_index("id")["degree"]
    assert degree.sum() == 2 * len(graph.relations)
    assert HOSTILE in set(graph.entities["name"])
    assert graph.meta["source"] == "sift-kg" and graph.meta["sift_kg_version"] == "0.9.0"


def test_imported_graph_exports_and_round_trips(tmp_path):
    from kgkit.io.export import export_graph, read_export

    graph = read_siftkg_graph(FIXTURES / "graph_data.json")
    export_graph(graph, "json", tmp_path / "g.json")
    back = read_export("json", tmp_path / "g.json")
    assert back.summary() == graph.summary()


@pytest.mark.parametrize("source", ["graph_data", "extractions"])
def test_an_imported_project_becomes_the_workspace_graph_with_a_safe_view(tmp_path, source):
    # what `kgkit import-siftkg` does (end to end in test_cli.py): sift-kg's own graph, or kgkit's build of its
    # extractions, committed with communities and the view
    from kgkit.workflows.graph import import_graph

    if source == "graph_data":
        graph, failed = read_siftkg_graph(FIXTURES / "graph_data.json"), 0
    else:
        extractions = read_siftkg_extractions(FIXTURES / "extractions")
        graph, failed = build_graph(extractions, domain=io.load_domain("general")), sum(len(d.errors) for d in extractions)
    committed, generation = import_graph(tmp_path / "ws", graph)
    assert generation == 1 and failed == (1 if source == "extractions" else 0)
    saved = io.load_graph(tmp_path / "ws" / "graph.json")
    assert len(saved.entities) == (13 if source == "extractions" else 10) == len(committed.entities)
    assert saved.entities["community"].notna().all()
    page = (tmp_path / "ws" / "graph.html").read_text()
    assert "<img src=x onerror" not in page and "onerror=alert(1)" in page  # the hostile name is shown, as text
