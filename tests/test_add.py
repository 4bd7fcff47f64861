"""Incremental ingestion (`kgkit add`, `kgkit.add`): adding a document gives the same bytes as a full rebuild of
the corpus (graph.json, communities.json, extractions.jsonl) and the same search results; only new or changed
text is extracted; a removed document is retracted (its relations expired, still visible with `as_of`), and
adding it back restores the rebuild's bytes. Built on the session's demo run (its cache answers the extraction).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO_CORPUS

import kgkit
from kgkit.workflows.add import RETRACTED, add

pytestmark = pytest.mark.slow
DOC = "1937-Roosevelt-1.txt"  # a demo-sized document (17 KB)
ARTEFACTS = ("graph.json", "communities.json", "extractions.jsonl")


@pytest.fixture(scope="module")
def full(demo_run, tmp_path_factory) -> Path:
    """The demo workspace (a full run of the 14 documents), indexed with the hashing embedder."""
    from kgkit.stages.search.minilm import search_embedder

    ws = tmp_path_factory.mktemp("full") / "ws"
    shutil.copytree(demo_run[0], ws)
    kgkit.index(ws, embedder=search_embedder("hashing"), embedder_name="hashing")
    return ws


@pytest.fixture(scope="module")
def partial(full: Path, demo_run, tmp_path_factory, offline_extractor) -> tuple[Path, Path, Path]:
    """(workspace, corpus, the document left out): a run of the demo corpus without DOC, indexed, sharing the
    full run's cache. The tests below continue from one another's state (each says what it starts from)."""
    from kgkit.stages.search.minilm import search_embedder

    tmp_path = tmp_path_factory.mktemp("partial")
    corpus, ws, outside = tmp_path / "corpus", tmp_path / "ws", tmp_path / DOC
    shutil.copytree(demo_run[0].parent / "corpus", corpus)
    shutil.move(corpus / DOC, outside)
    shutil.copytree(full / "cache", ws / "cache")
    kgkit.run(ws, corpus, extractor=offline_extractor)
    kgkit.index(ws, embedder=search_embedder("hashing"), embedder_name="hashing")
    return ws, corpus, outside


def _search(ws: Path, query: str) -> list[tuple]:
    from kgkit.stages.search.minilm import search_embedder

    hits = kgkit.search(ws, query, limit=20, embedder=search_embedder("hashing"))
    return [(h.id, round(float(h.score), 9)) for h in hits.itertuples()]


def test_add_equals_a_full_rebuild(full: Path, partial, offline_extractor) -> None:
    ws, corpus, outside = partial
    before = kgkit.read_graph(ws)
    added = add(ws, [outside], extractor=offline_extractor)
    assert added.added == [DOC] and (corpus / DOC).read_bytes() == outside.read_bytes()
    assert added.outcome == "complete" and added.index["added"] > 0
    for name in ARTEFACTS:
        assert (ws / name).read_bytes() == (full / name).read_bytes(), name
    assert kgkit.Workspace(ws).manifest().stale == {}
    for query in ("war powers", "Congress", "neutrality act of 1937"):
        assert _search(ws, query) == _search(full, query), query
    assert len(kgkit.read_graph(ws).documents) == len(before.documents) + 1


def test_remove_retracts_and_adding_back_restores(full: Path, partial, offline_extractor) -> None:
    ws, corpus, outside = partial
    if not (corpus / DOC).exists():  # run alone: start from the added state
        add(ws, [outside], extractor=offline_extractor, update_index=False)
    (corpus / DOC).unlink()  # deleted by hand: the next add retracts it (test_cli_and_mcp_add: `remove`)
    gone = add(ws, extractor=offline_extractor, at="2030-01-01T00:00:00Z", update_index=False)
    assert gone.retracted == [DOC] and gone.expired_relations > 0
    graph = kgkit.read_graph(ws)
    reference = kgkit.read_graph(full)
    assert DOC not in set(graph.documents["path"])
    expired = graph.relations[graph.relations["expired_at"].notna()]
    assert len(expired) == gone.expired_relations and set(expired["expired_at"]) == {"2030-01-01T00:00:00Z"}
    # before the retraction the graph still believes everything the full corpus said; after it, only the rest
    assert set(graph.as_of("2029-12-31T00:00:00Z").relations["id"]) == set(reference.relations["id"])
    without = set(graph.as_of("2030-01-02T00:00:00Z").relations["id"])
    assert without == set(graph.relations["id"]) - set(expired["id"]) and without < set(reference.relations["id"])
    assert (ws / RETRACTED).is_file()
    # a file added back comes back to life
    shutil.copy(outside, corpus / DOC)
    back = add(ws, extractor=offline_extractor, update_index=False)
    assert back.added == [] and back.expired_relations == 0 and not (ws / RETRACTED).exists()
    for name in ARTEFACTS:
        assert (ws / name).read_bytes() == (full / name).read_bytes(), name


def test_cli_and_mcp_add(partial) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from typer.testing import CliRunner

    from kgkit.cli import app

    ws, corpus, outside = partial
    (corpus / DOC).unlink(missing_ok=True)  # start from the corpus without DOC
    runner = CliRunner()
    out = runner.invoke(app, ["add", str(outside), "-w", str(ws), "--json", "--no-index"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)
    assert summary["schema"] == "kgkit.add/1" and summary["added"] == [DOC] and summary["index"] is None
    assert "index" in kgkit.Workspace(ws).manifest().stale  # --no-index: said stale, not silently old
    assert runner.invoke(app, ["add", "nowhere.txt", "-w", str(ws)]).exit_code == 2
    assert runner.invoke(app, ["add", "-w", str(ws), "--remove", "/etc/hostname"]).exit_code == 2

    params = StdioServerParameters(command=sys.executable, args=["-m", "kgkit", "mcp", "-w", str(ws), "--allow", "add",
                                                                     "--lock-timeout", "300"],
                                   env={k: v for k, v in os.environ.items() if k.isupper()})

    started: dict[str, subprocess.Popen] = {}

    async def main() -> None:
        with anyio.fail_after(400):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                assert "add" in {t.name for t in (await session.list_tools()).tools}
                # a CLI `kgkit run` writing the workspace: the server's add waits for its lock, then runs
                cli_run = started["run"] = subprocess.Popen([sys.executable, "-m", "kgkit", "run", str(corpus), "-o", str(ws)],
                                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL)
                writer, seen = ws / ".kgkit" / "writer.json", False
                for _ in range(1200):  # bounded: up to 60 s for the run to take the lock
                    with contextlib.suppress(OSError):
                        seen = '"run"' in writer.read_text()
                    if seen or cli_run.poll() is not None:
                        break
                    await anyio.sleep(0.05)
                assert seen, "the CLI run was never seen holding the workspace lock"
                result = await session.call_tool("add", {"remove": [DOC]})
                assert cli_run.wait(timeout=400) == 0  # it finished first, untouched by the server's write
                assert not result.is_error, result.content[0].text
                done = json.loads(result.content[0].text)
                assert done["schema"] == "kgkit.add/1" and done["retracted"] == [DOC] and done["expired_relations"] > 0
                assert done["index"]["items"] > 0  # the stale index was brought up to date
                nothing = await session.call_tool("add", {})
                assert nothing.is_error and "nothing to do" in nothing.content[0].text

    try:
        anyio.run(main)
    finally:
        for process in started.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
    assert (ws / RETRACTED).exists() and not (corpus / DOC).exists()
    assert (ws / "removed" / DOC).is_file()  # moved out of the corpus, never deleted
    manifest = kgkit.Workspace(ws).manifest()
    assert manifest.step == "index" and json.loads((ws / "run.json").read_text())["documents_ok"] == 13


def test_a_fresh_cli_add_extracts_on_forked_workers_and_equals_the_one_process_run(
        full: Path, offline_extractor, general_domain, tmp_path: Path) -> None:
    """A fresh `kgkit add` process forks extraction workers before its imports (kgkit.workflows.prefork: they
    load spaCy while it imports pandas, then parse the new chunks side by side), and draws the view in a child
    while it prepares the search index update. DOC's chunks are taken out of the cache, so the workers extract
    them for real: graph.json, communities.json, extractions.jsonl and graph.html equal the full run's, whose
    extraction ran in one process (the demo run), and the index answers as the full run's does."""
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.extract import extract_texts
    from kgkit.stages.search.minilm import search_embedder
    from kgkit.workflows.corpus import load_corpus
    from kgkit.workflows.prefork import available_cores

    corpus, ws, outside = tmp_path / "corpus", tmp_path / "ws", tmp_path / "outside" / DOC
    shutil.copytree(DEMO_CORPUS, corpus)
    outside.parent.mkdir()
    shutil.move(corpus / DOC, outside)
    shutil.copytree(full / "cache", ws / "cache")
    [doc], _ = load_corpus(outside.parent, cache=Cache(tmp_path / "other"))
    cache = Cache(ws / "cache")
    keys = {cache.key(extract_texts, [c.text], domain=general_domain, extractor=offline_extractor)
            for c in chunk_document(doc, max_chars=2000, overlap_chars=200)}
    dropped = [Path(path) for stage, path, _ in cache.entries() if stage == "extract_texts" and Path(path).stem in keys]
    assert len(dropped) == len(keys) == 10
    for path in dropped:
        path.unlink()
    kgkit.run(ws, corpus, extractor=offline_extractor)  # every chunk but DOC's from the cache
    kgkit.index(ws, embedder=search_embedder("hashing"), embedder_name="hashing")
    env = {k: v for k, v in os.environ.items() if k.isupper()}
    out = subprocess.run([sys.executable, "-m", "kgkit", "add", str(outside), "-w", str(ws), "--json"], env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["extractor_calls"] == 10 and summary["added"] == [DOC]
    assert summary["extraction_processes"] == (min(available_cores(), 8) if available_cores() >= 2 else 0)
    for name in (*ARTEFACTS, "graph.html"):
        assert (ws / name).read_bytes() == (full / name).read_bytes(), name
    assert summary["index"]["added"] > 0 and kgkit.Workspace(ws).manifest().stale == {}
    for query in ("war powers", "Congress", "neutrality act of 1937"):
        assert _search(ws, query) == _search(full, query), query


def test_forked_workers_survive_a_dying_worker_and_run_in_order(tmp_path: Path) -> None:
    """A worker that dies has its batches computed by another, or here when none is left; results come back
    in order; batches and answers larger than a pipe's buffer pass; a pool never sent a batch is ended at once;
    `while_waiting` runs once, only when a map waits."""
    from kgkit.workflows.prefork import ForkedWorkers

    seen = []
    with ForkedWorkers.start(lambda: None, workers=2) as pool:
        pool.while_waiting(lambda: seen.append("waited"))
        assert list(pool.map(sorted, [[3, 1], [2], [9, 4, 7]] * 5)) == [[1, 3], [2], [4, 7, 9]] * 5
        assert seen == ["waited"] and pool.used and pool.processes == 2
        os.kill(pool.pid, 9)  # the first worker dies; the second is its child and lives on
        assert list(pool.map(len, [[1], [1, 2], []] * 4)) == [1, 2, 0] * 4
    with ForkedWorkers.start(lambda: None, workers=1) as pool:
        os.kill(pool.pid, 9)
        assert list(pool.map(sum, [[1, 2], [3]])) == [3, 3]  # no worker left: computed in this process
    big = ["x" * 3_000_000, "y" * 2_000_000, "z"] * 3  # batches and answers larger than a pipe holds: no deadlock
    with ForkedWorkers.start(lambda: __import__("time").sleep(0.5), workers=2) as pool:
        assert list(pool.map(str.upper, big)) == [b.upper() for b in big]
    unused = ForkedWorkers.start(lambda: __import__("time").sleep(60), workers=2)
    unused.close()  # killed at once, not after its warm-up
    assert unused.pid is None and seen == ["waited"]


def test_a_forked_call_gives_its_value_or_computes_it_here(tmp_path: Path) -> None:
    """ForkedCall (the view drawn beside the index update): the child's value, large or not; a child that fails
    or dies, or no child at all, means the value (or the same error) is computed in this process; a child whose
    value was never taken is killed."""
    from kgkit.workflows.forked_call import ForkedCall

    here = os.getpid()
    with ForkedCall.start(lambda: ("x" * 3_000_000, os.getpid()), fork=True) as call:
        text, pid = call.result()
    assert call.forked and len(text) == 3_000_000 and pid != here  # more than a pipe holds: no deadlock
    assert ForkedCall.start(os.getpid, fork=False).result() == here

    def fails_there() -> int:
        if os.getpid() != here:
            raise RuntimeError("only in the child")
        return 7

    assert ForkedCall.start(fails_there, fork=True).result() == 7  # computed again here
    with pytest.raises(ZeroDivisionError):
        ForkedCall.start(lambda: 1 // 0, fork=True).result()  # the same error, raised here
    mark = tmp_path / "finished"
    waiting = ForkedCall.start(lambda: (__import__("time").sleep(30), mark.touch()), fork=True)
    waiting.close()  # killed at once
    assert waiting.pid is None and not mark.exists()


def test_only_changed_text_is_extracted(tmp_path: Path) -> None:
    from kgkit.testing.workspaces import CapitalisedNames, sample_workspace

    ws = sample_workspace(tmp_path)
    docs = tmp_path / "docs"
    (docs / "babbage.txt").write_text("Charles Babbage designed the Difference Engine.")
    changed = add(ws, [docs / "babbage.txt"], extractor=CapitalisedNames())
    assert changed.extractor_calls == 1 and changed.added == ["babbage.txt"] and changed.retracted == []
    with pytest.raises(kgkit.WorkspaceError, match="is not the one"):
        add(ws, extractor=type("Other", (CapitalisedNames,), {"id": "other:1"})())


def test_an_add_whose_new_document_failed_replaces_nothing(tmp_path: Path) -> None:
    from kgkit.core.records import TextExtraction
    from kgkit.io.workspace import REJECTED_RUN
    from kgkit.testing.workspaces import CapitalisedNames, sample_workspace

    class Failing(CapitalisedNames):  # the same extractor, but the provider is down for the changed text
        def extract(self, texts, *, domain):
            return [TextExtraction(extractor_id=self.id, error="RateLimitError: provider down") if "Difference" in t
                    else found for t, found in zip(texts, super().extract(texts, domain=domain))]

    ws = sample_workspace(tmp_path)
    before = (ws.root / "graph.json").read_bytes()
    generation = ws.manifest().generation
    (tmp_path / "docs" / "babbage.txt").write_text("Charles Babbage designed the Difference Engine.")
    rejected = add(ws, [tmp_path / "docs" / "babbage.txt"], extractor=Failing())
    assert rejected.outcome == "rejected" and "every chunk of babbage.txt failed" in rejected.notes[-1]
    assert (ws.root / "graph.json").read_bytes() == before and ws.manifest().generation == generation
    assert json.loads(ws.path(REJECTED_RUN).read_text())["outcome"] == "rejected"
    kept = add(ws, [tmp_path / "docs" / "babbage.txt"], extractor=Failing(), keep_partial=True)
    assert kept.outcome == "failures" and ws.manifest().generation == generation + 1


PARSE = """
import json, sys
from kgkit.extractors.offline import OfflineExtractor
from kgkit.io import load_domain
texts = json.load(sys.stdin)
found = OfflineExtractor().extract(texts, domain=load_domain("general"))
import thinc.compat
print(json.dumps({"extractions": [f.model_dump(mode="json") for f in found], "torch": "torch" in sys.modules,
                  "thinc_has_torch": thinc.compat.has_torch}))
"""


def test_the_cli_loads_spacy_without_torch_and_extracts_the_same(offline_extractor, tmp_path: Path) -> None:
    """The CLI (kgkit.cli.main) sets KGKIT_SPACY_WITHOUT_TORCH: spaCy comes without torch behind thinc (1-2 s of a
    cold `kgkit add`), and the offline extractor's output is the one a library process gets (bench/bench_add.py
    --check-spacy compares spaCy's annotations over the whole demo corpus)."""
    from kgkit.extractors.offline.loading import WITHOUT_TORCH, spacy_architectures_only
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.workflows.corpus import load_corpus

    shutil.copy(DEMO_CORPUS / DOC, tmp_path / DOC)
    [doc], _ = load_corpus(tmp_path, cache=Cache(tmp_path / "cache"))
    texts = [c.text for c in chunk_document(doc, max_chars=2000, overlap_chars=200)]
    base = {k: v for k, v in os.environ.items() if k.isupper()}
    children = {flag: subprocess.Popen([sys.executable, "-c", PARSE], env={**base, WITHOUT_TORCH: flag},
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for flag in ("1", "0")}  # side by side: a library's import (thinc with torch) and the CLI's
    out = {flag: json.loads(child.communicate(json.dumps(texts), timeout=300)[0]) for flag, child in children.items()}
    assert all(child.returncode == 0 for child in children.values())
    assert not out["1"]["torch"] and not out["1"]["thinc_has_torch"] and out["0"]["thinc_has_torch"]
    assert out["1"]["extractions"] == out["0"]["extractions"] and len(out["1"]["extractions"]) == len(texts) == 10

    assert spacy_architectures_only(offline_extractor.model)
    model = tmp_path / "trf"
    model.mkdir()
    (model / "config.cfg").write_text('[components.transformer.model]\n@architectures = '
                                      '"spacy-transformers.TransformerModel.v3"\n')
    assert not spacy_architectures_only(str(model))  # a torch-based pipeline keeps thinc's torch support
    assert not spacy_architectures_only("no_such_spacy_model")


def test_load_corpus_caches_the_furniture_and_gives_the_same_documents(tmp_path: Path) -> None:
    from kgkit.io.cache import Cache
    from kgkit.stages.furniture import strip_furniture
    from kgkit.workflows.corpus import load_corpus

    cache = Cache(tmp_path / "cache")
    plain, _ = load_corpus(DEMO_CORPUS, cache=Cache(tmp_path / "other"), furniture=False)
    assert load_corpus(DEMO_CORPUS, cache=cache)[0] == [strip_furniture(d) for d in plain]
    again = Cache(tmp_path / "cache")
    load_corpus(DEMO_CORPUS, cache=again)
    assert again.stats.hits["strip_furniture"] == 14 and again.stats.computed["strip_furniture"] == 0
