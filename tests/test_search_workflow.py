"""The index and search workflows over a workspace (`index_report`, the record behind `kgkit.index`, and
`kgkit.search`): pagination walks every hit once, filters (kind, type, document, as-of) hold on every hit, a
re-index skips what did not change. The `kgkit index` / `kgkit search` commands (the kgkit.search/1 JSON,
rollups, errors) are tested in test_cli_search.py."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURE_CORPUS

import kgkit
from kgkit import io
from kgkit.stages.embed import HashingEmbedder
from kgkit.workflows.index import IndexReport, index_report


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


def ran_workspace(base: Path) -> tuple[Path, Path]:
    """(corpus, workspace): the fixture corpus run with CapitalisedWords, every relation learned on 2024-01-01."""
    corpus, ws = base / "corpus", base / "ws"
    shutil.copytree(FIXTURE_CORPUS, corpus)
    graph = kgkit.run(ws, corpus, extractor=CapitalisedWords(), write_view=False).graph
    relations = graph.relations.assign(created_at="2024-01-01T00:00:00")
    io.save_graph(graph.replace(relations=relations), ws / "graph.json")
    return corpus, ws


def index(ws: Path, corpus: Path) -> IndexReport:
    return index_report(ws, corpus, embedder=HashingEmbedder(), embedder_name="hashing")


def search(ws: Path, query: str, **options: Any):
    return kgkit.search(ws, query, embedder=HashingEmbedder(), **options)


_INDEXED: dict[str, tuple[Path, Path]] = {}


def indexed_workspace(tmp_path_factory) -> tuple[Path, Path]:
    """(corpus, workspace) run and indexed (hashing embedder) by the library, once per test session: shared by
    this module and test_cli_search.py, which only read it (re-indexing it changes nothing)."""
    if "ws" not in _INDEXED:
        corpus, ws = ran_workspace(tmp_path_factory.mktemp("search"))
        report = index(ws, corpus)
        assert report.added == report.items > 0 and report.removed == 0
        _INDEXED["ws"] = corpus, ws
    return _INDEXED["ws"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return indexed_workspace(tmp_path_factory)


def test_pagination_walks_every_hit_once(workspace):
    _, ws = workspace
    total = search(ws, "Soviet", limit=4).attrs["total"]
    assert total > 4  # more than one page
    seen, offset = [], 0
    while offset < total:
        page = search(ws, "Soviet", limit=4, offset=offset)
        assert page.attrs["total"] == total and 0 < len(page) <= 4
        assert list(page["rank"]) == list(range(offset + 1, offset + len(page) + 1))
        seen += list(page["id"])
        offset += len(page)
    assert len(seen) == len(set(seen)) == total


def test_filters_hold_on_every_hit(workspace):
    _, ws = workspace
    rel = search(ws, "Soviet", kind=["relation"], limit=20)
    assert len(rel) and set(rel["kind"]) == {"relation"}
    ent = search(ws, "Soviet", kind=["entity"], type=["Location"], limit=20)
    assert set(ent["kind"]) <= {"entity"} and set(ent["type"]) <= {"Location"}
    doc = rel.iloc[0]["document_id"]
    in_doc = search(ws, "Soviet", document=[doc], limit=50)
    assert len(in_doc) and all(doc in documents for documents in in_doc["documents"])
    assert search(ws, "Soviet", kind=["relation"], as_of="2023-12-31").empty  # learned in 2024
    assert len(search(ws, "Soviet", kind=["relation"], as_of="2024-06-01"))


def test_reindex_skips_unchanged(workspace):
    corpus, ws = workspace
    again = index(ws, corpus)
    assert again.added == 0 and again.unchanged == again.items and again.removed == 0


def test_search_without_an_index_says_how_to_build_one(tmp_path):
    from kgkit.io.workspace import WorkspaceError

    with pytest.raises(WorkspaceError, match="no search index"):
        kgkit.search(tmp_path / "ws", "x")


def test_index_reports_progress_and_embeds_only_what_changed(tmp_path):
    corpus, ws = ran_workspace(tmp_path)
    events: list[tuple[str, int, int]] = []
    report = index_report(ws, corpus, embedder=HashingEmbedder(), embedder_name="hashing",
                          progress=lambda stage, done, total: events.append((stage, done, total)))
    assert events and {stage for stage, _, _ in events} == {"embed"}
    assert [done for _, done, _ in events] == sorted(done for _, done, _ in events)  # only forward
    _, done, total = events[-1]
    assert done == total < report.items  # identical texts (relations from one sentence) are embedded once
    again: list[tuple[str, int, int]] = []
    index_report(ws, corpus, embedder=HashingEmbedder(), embedder_name="hashing",
                 progress=lambda *event: again.append(event))
    assert again == []  # nothing changed: nothing embedded
