"""End to end through the cache with the real offline extractor: what re-runs, what is reported."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kgkit.core.records import ExtractedEntity, TextExtraction
from kgkit.io import load_domain
from kgkit.io.cache import Cache
from kgkit.workflows.run import run as run_workflow

ROOT = Path(__file__).resolve().parent.parent


def run(corpus, ws, extractor, **kw):
    return run_workflow(ws, corpus, extractor=extractor, cache=Cache(ws / "cache"), **kw)


def chunk_texts_of(result, path):
    doc = next(d for d in result.documents if d.path == path)
    return [c.text for c in result.chunks if c.document_id == doc.id]


def test_second_run_makes_no_extractor_calls_and_same_bytes(corpus_copy, tmp_path, offline_extractor):
    ws = tmp_path / "ws"
    first = run(corpus_copy, ws, offline_extractor)
    assert first.extractor_calls == len(first.chunks) > 0
    graph_bytes = (ws / "graph.json").read_bytes()
    second = run(corpus_copy, ws, offline_extractor)
    assert second.extractor_calls == 0
    assert second.cache.stats.misses["extract_texts"] == 0
    assert (ws / "graph.json").read_bytes() == graph_bytes
    assert len(first.graph.entities) >= 15 and len(first.graph.relations) >= 3


def test_changed_document_reextracts_only_its_new_chunks(corpus_copy, tmp_path, offline_extractor):
    ws = tmp_path / "ws"
    before = run(corpus_copy, ws, offline_extractor, max_chars=300, overlap_chars=60)
    edited = corpus_copy / "apollo.txt"
    edited.write_text(edited.read_text().replace("Buzz Aldrin", "Edwin Aldrin"))
    after = run(corpus_copy, ws, offline_extractor, max_chars=300, overlap_chars=60)
    new_texts = set(chunk_texts_of(after, "apollo.txt")) - set(chunk_texts_of(before, "apollo.txt"))
    assert 0 < len(new_texts) < len(chunk_texts_of(after, "apollo.txt"))
    assert after.extractor_calls == len(new_texts)
    names = set(after.graph.entities["name"])
    assert "Edwin Aldrin" in names and "Buzz Aldrin" not in names


def test_renamed_file_is_not_reextracted_and_provenance_follows(corpus_copy, tmp_path, offline_extractor):
    ws = tmp_path / "ws"
    before = run(corpus_copy, ws, offline_extractor)
    (corpus_copy / "soviet.md").rename(corpus_copy / "space_race.md")
    after = run(corpus_copy, ws, offline_extractor)
    assert after.extractor_calls == 0
    paths = set(after.graph.documents["path"])
    assert "space_race.md" in paths and "soviet.md" not in paths
    old_id = next(d.id for d in before.documents if d.path == "soviet.md")
    new_id = next(d.id for d in after.documents if d.path == "space_race.md")
    assert old_id != new_id
    gagarin = after.graph.entity(next(i for i in after.graph.entities["id"] if i.endswith(":yuri gagarin")))
    assert {p["document_id"] for p in gagarin["provenance"]} == {new_id}


def test_domain_content_or_extractor_version_change_reextracts(corpus_copy, tmp_path, offline_extractor):
    ws = tmp_path / "ws"
    first = run(corpus_copy, ws, offline_extractor)
    edited_domain = tmp_path / "general-edited.yaml"
    text = (ROOT / "domains" / "general.yaml").read_text()
    edited_domain.write_text(text.replace("description:", "description: (edited)", 1))
    assert load_domain(edited_domain).id != load_domain("general").id
    second = run(corpus_copy, ws, offline_extractor, domain=load_domain(edited_domain))
    assert second.extractor_calls == len(first.chunks)

    class NewerRules(type(offline_extractor)):
        pass

    newer = NewerRules()
    newer.id = offline_extractor.id + "+test"
    newer._nlp = getattr(offline_extractor, "_nlp", None)
    third = run(corpus_copy, ws, newer)
    assert third.extractor_calls == len(first.chunks)


def test_bad_inputs_are_reported_and_good_files_still_land(tmp_path, offline_extractor):
    from corpus_builders import BAD_CORPUS_MAX_BYTES, GOOD_CORPUS, write_bad_corpus, write_good_corpus

    corpus = tmp_path / "mixed"
    write_good_corpus(corpus)
    expected = write_bad_corpus(corpus)
    result = run(corpus, tmp_path / "ws", offline_extractor, max_bytes=BAD_CORPUS_MAX_BYTES)
    failures = {e.path: e for e in result.errors}
    for path, kind in expected.items():
        if kind is None:  # decodes fine (e.g. cp1252 text): must be a document
            assert path in {d.path for d in result.documents}
            continue
        assert path in failures, f"{path} should fail as {kind}"
        assert failures[path].kind == kind and failures[path].reason
    per_doc = result.graph.provenance.groupby("document_id").size()
    for path in GOOD_CORPUS:
        doc = next(d for d in result.documents if d.path == path)
        assert per_doc.get(doc.id, 0) > 0, f"no entities from {path}"
    summary = json.loads((tmp_path / "ws" / "run.json").read_text())
    assert summary["documents_failed"] == len([k for k in expected.values() if k])
    assert all(f["reason"] for f in summary["failures"])


class Failing:
    """A fake extractor that fails on one text: that chunk is an error record, the rest go on."""

    id = "failing:1"

    def extract(self, texts, *, domain):
        out = []
        for t in texts:
            if "Sputnik" in t:
                out.append(TextExtraction(extractor_id=self.id, error="rate limited (429)"))
            else:
                out.append(TextExtraction(extractor_id=self.id, entities=(ExtractedEntity(name="<img src=x onerror=alert(1)>", type="Person"),)))
        return out


def test_chunk_failure_is_reported_not_empty_and_retried(corpus_copy, tmp_path):
    ws = tmp_path / "ws"
    first = run(corpus_copy, ws, Failing())
    assert len(first.chunk_errors) == 1 and "429" in first.chunk_errors[0]
    assert first.outcome == "rejected" and not (ws / "graph.json").exists()  # 1 of 3 chunks: over the 10% limit
    again = run(corpus_copy, ws, Failing(), keep_partial=True)
    assert again.extractor_calls == 1 and again.outcome == "failures"  # only the failed chunk is asked again
    html = (ws / "graph.html").read_text()
    assert "<img src=x onerror" not in html
    assert "&lt;img src=x onerror" in html or "\\u003cimg src=x onerror" in html  # shown, as text


def test_learned_at_stamps_created_at_and_default_leaves_it_empty(corpus_copy, tmp_path, offline_extractor):
    # one cache folder for both runs: learned_at is not part of any extraction's key
    stamped = run_workflow(tmp_path / "a", corpus_copy, extractor=offline_extractor, cache=Cache(tmp_path / "cache"),
                           write_view=False, learned_at="2026-01-31T12:00:00Z")
    assert len(stamped.graph.relations) > 0 and not (tmp_path / "a" / "graph.html").exists()
    saved = json.loads((tmp_path / "a" / "graph.json").read_text())
    assert {r["created_at"] for r in saved["relations"]} == {"2026-01-31T12:00:00Z"}
    plain = run_workflow(tmp_path / "b", corpus_copy, extractor=offline_extractor, cache=Cache(tmp_path / "cache"),
                         write_view=False)
    assert plain.extractor_calls == 0 and len(plain.graph.relations) == len(stamped.graph.relations)
    assert set(plain.graph.relations["created_at"]) == {None}  # re-runs give byte-identical graphs


@pytest.mark.slow
def test_demo_runs_offline_with_enough_entities(demo_run):
    ws, cold, warm = demo_run
    assert cold["documents_ok"] == 14 and cold["documents_failed"] == 0
    assert cold["entities"] >= 100 and cold["relations"] >= 50
    html = (ws / "graph.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # no CDN: everything inline
    assert warm["extractor_calls"] == 0 and warm["entities"] == cold["entities"]


def test_same_corpus_in_two_workspaces_gives_identical_graphs(corpus_copy, tmp_path, offline_extractor):
    run(corpus_copy, tmp_path / "a", offline_extractor)
    run(corpus_copy, tmp_path / "b", offline_extractor)
    assert (tmp_path / "a" / "graph.json").read_bytes() == (tmp_path / "b" / "graph.json").read_bytes()
    assert (tmp_path / "a" / "graph.html").read_bytes() == (tmp_path / "b" / "graph.html").read_bytes()


def test_thread_executor_gives_the_same_graph(corpus_copy, tmp_path, offline_extractor):
    from kgkit.core.executor import ThreadExecutor

    run(corpus_copy, tmp_path / "serial", offline_extractor, batch_size=1)
    run(corpus_copy, tmp_path / "threads", offline_extractor, batch_size=1, executor=ThreadExecutor(max_workers=2))
    assert (tmp_path / "serial" / "graph.json").read_bytes() == (tmp_path / "threads" / "graph.json").read_bytes()
