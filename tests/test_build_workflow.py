"""The build workflow (`kgkit.build`): extractions -> graph.json with communities, communities.json and graph.html;
byte-identical re-builds, the learned-at stamp, and every source it reads (an extractions.jsonl, a folder
holding one, a sift-kg output folder). `kgkit build` itself is tested end to end in test_cli_graph.py."""

from __future__ import annotations

from pathlib import Path

import pytest

import kgkit
from kgkit import io
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction

SIFTKG = Path(__file__).parent / "fixtures" / "siftkg"


def _doc(doc_id: str, rels: list[tuple[str, str, str]], valid: str | None = None) -> DocumentExtraction:
    te = TextExtraction(extractor_id="test:1", entities=(ExtractedEntity(name="Zed", type="Person"),),
                        relations=tuple(ExtractedRelation(source=s, source_type="Person", target=t,
                                                          target_type="Organization", type=typ, valid_at=valid,
                                                          confidence=0.9) for s, typ, t in rels))
    return DocumentExtraction(document_id=doc_id, path=f"{doc_id}.txt",
                              chunks=(ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=te),))


def two_documents() -> list[DocumentExtraction]:
    """Ada, Bob -> Acme; Ada, Cy -> Globex; Zed alone: 6 entities, 4 relations, Zed isolated."""
    return [_doc("d1", [("Ada", "MEMBER_OF", "Acme"), ("Bob", "MEMBER_OF", "Acme")]),
            _doc("d2", [("Ada", "MEMBER_OF", "Globex"), ("Cy", "MEMBER_OF", "Globex")])]


def write_extractions(folder: Path) -> Path:
    """A folder holding extractions.jsonl of `two_documents()`; returns the folder."""
    io.write_jsonl(folder / "extractions.jsonl", [d.model_dump(mode="json") for d in two_documents()])
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_extractions(tmp_path / "ws")


def test_build_writes_graph_communities_and_view(workspace, tmp_path):
    built = kgkit.build(tmp_path / "out", workspace / "extractions.jsonl")
    assert len(built.graph.entities) == 6 and len(built.graph.relations) == 4 and len(built.communities.summary) >= 2
    assert set(built.outputs) == {"graph", "communities", "view"}
    graph = io.load_graph(built.outputs["graph"])
    assert graph.entities["community"].notna().all()
    assert kgkit.read_graph(tmp_path / "out").to_json_bytes() == graph.to_json_bytes()
    comms = io.read_json(built.outputs["communities"])
    assert comms["format"] == "kgkit.communities/1" and set(comms["membership"]) == set(graph.entities["id"])
    assert {"community", "size", "relations", "label", "top_entities", "top_names", "terms"} <= set(comms["communities"][0])
    assert Path(built.outputs["view"]).read_text().startswith("<!DOCTYPE html>")


def test_build_is_byte_identical_and_learned_at_is_stamped(workspace, tmp_path):
    source = workspace / "extractions.jsonl"
    first = kgkit.build(tmp_path / "a", source, write_view=False)
    second = kgkit.build(tmp_path / "b", source, write_view=False)
    assert "view" not in first.outputs and not (tmp_path / "a" / "graph.html").exists()
    assert Path(first.outputs["graph"]).read_bytes() == Path(second.outputs["graph"]).read_bytes()
    stamped = kgkit.build(tmp_path / "c", source, write_view=False, learned_at="2026-02-01T00:00:00Z")
    created = io.load_graph(stamped.outputs["graph"]).relations["created_at"]
    assert set(created) == {"2026-02-01T00:00:00Z"}
    assert set(io.load_graph(first.outputs["graph"]).relations["created_at"]) == {None}  # unstamped by default


def test_build_reads_a_workspace_folder_and_a_siftkg_folder(workspace, tmp_path):
    assert len(kgkit.build(tmp_path / "w", workspace, write_view=False).graph.relations) == 4
    if not (SIFTKG / "extractions").is_dir():
        pytest.skip("no sift-kg fixtures")
    built = kgkit.build(tmp_path / "s", SIFTKG, write_view=False)
    assert len(built.graph.entities) > 0
    assert built.chunk_errors == 1  # the sift-kg fixture's failed extraction (doc_00003) is counted, not built
