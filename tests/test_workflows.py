"""The named workflows over a Workspace, as a user meets them: what `run` writes, what apply/undo refresh,
what a failed run keeps, what a killed run leaves, and two writers at once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import kgkit
from kgkit.cli import app
from kgkit.core.records import TextExtraction
from kgkit.io.workspace import Workspace, WorkspaceBusy
from kgkit.stages.embed import HashingEmbedder
from kgkit.stages.extract import ExtractorBase
from kgkit.stages.resolve import person_decision
from kgkit.testing.workspaces import SAMPLE_DOCUMENTS, CapitalisedNames

ROOT = Path(__file__).resolve().parent.parent


def corpus(tmp_path: Path, **extra: str) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in {**SAMPLE_DOCUMENTS, **extra}.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


class Failing:
    """An extractor whose every chunk fails (a provider without an API key behaves so)."""

    id = "failing:1"

    def extract(self, texts, *, domain):
        return [TextExtraction(extractor_id=self.id, error="AuthenticationError: no API key") for _ in texts]


def test_run_writes_communities_into_the_graph_and_beside_it(tmp_path):
    result = kgkit.run(tmp_path / "ws", corpus(tmp_path), extractor=CapitalisedNames())
    ws = Workspace(tmp_path / "ws")
    graph = kgkit.read_graph(ws)
    assert graph.entities["community"].notna().all() and len(graph.entities) > 0
    saved = ws.read_json("communities.json")
    assert saved["membership"] == dict(zip(graph.entities["id"], graph.entities["community"]))
    assert result.summary()["communities"] == len(saved["communities"]) > 0
    topology = CliRunner().invoke(app, ["topology", str(tmp_path / "ws"), "--json"])
    assert topology.exit_code == 0 and json.loads(topology.stdout)["counts"]["communities"] > 0
    manifest = ws.manifest()
    assert manifest.generation == 1 and manifest.step == "run"
    assert {"graph.json", "graph.html", "run.json", "extractions.jsonl", "communities.json"} <= set(manifest.artefacts)
    assert manifest.config["max_chars"] == 2000 and manifest.config["extractor"] == "capitalised-names:1"


def test_apply_marks_view_index_and_narrative_stale_the_next_commands_refresh_them_undo_restores_bytes(tmp_path):
    ws = Workspace(tmp_path / "ws")
    kgkit.run(ws, corpus(tmp_path), extractor=CapitalisedNames())
    kgkit.index(ws, embedder=HashingEmbedder(dim=32), embedder_name="hashing")
    kgkit.narrate(ws)
    before = ws.read_bytes("graph.json")
    assert "Person:charles babage" in ws.read_text("graph.html")
    kgkit.record(ws, [person_decision("merge", ("Person:charles babage", "Person:charles babbage"), why="typo",
                                      at="2026-01-01T00:00:00Z")])
    done = kgkit.apply(ws)
    assert done.changed and "Person:charles babage" not in set(done.graph.entities["id"])
    # communities are found again at once (graph.json carries them); the view of the old graph is not left behind
    assert kgkit.read_graph(ws).entities["community"].notna().all() and not ws.exists("graph.html")
    assert set(done.stale) == set(ws.manifest().stale) == {"graph.html", "index", "narrative.md"}
    assert "kgkit view" in done.stale["graph.html"]
    drawn = CliRunner().invoke(app, ["view", str(ws.root)])  # the next view draws the merged graph
    view = ws.read_text("graph.html")
    assert drawn.exit_code == 0 and "graph.html" not in ws.manifest().stale
    # the view shows the merged graph: the merged-away node is gone (its name lives on as an alias)
    assert "Person:charles babbage" in view and "Person:charles babage" not in view
    searched = CliRunner().invoke(app, ["search", "Babage", "-w", str(ws.root), "--json", "--no-refresh"])
    assert searched.exit_code == 0 and "stale" in searched.stderr and json.loads(searched.stdout)["stale"]
    hits = json.loads(searched.stdout)["hits"]
    assert "Person:charles babage" in {h["id"] for h in hits}  # the stale index still holds the merged-away entity
    refreshed = CliRunner().invoke(app, ["search", "Babage", "-w", str(ws.root), "--json"])  # refreshed on use
    assert refreshed.exit_code == 0 and "bringing it up to date" in refreshed.stderr
    assert "stale" not in json.loads(refreshed.stdout) and "index" not in ws.manifest().stale
    assert "Person:charles babage" not in {h["id"] for h in json.loads(refreshed.stdout)["hits"]}
    undone = CliRunner().invoke(app, ["undo", "-w", str(ws.root)])
    assert undone.exit_code == 0 and "stale: graph.html" in undone.stdout and "stale: index" in undone.stdout
    assert ws.read_bytes("graph.json") == before and not ws.exists("graph.html")
    assert set(ws.manifest().stale) == {"graph.html", "index", "narrative.md"}
    kgkit.index(ws, embedder=HashingEmbedder(dim=32), embedder_name="hashing")
    assert set(ws.manifest().stale) == {"graph.html", "narrative.md"}


def test_index_chunks_the_corpus_as_the_run_did_without_being_told(tmp_path):
    docs = corpus(tmp_path)
    result = kgkit.run(tmp_path / "ws", docs, extractor=CapitalisedNames(), max_chars=60, overlap_chars=0)
    report = kgkit.index(tmp_path / "ws", embedder=None)
    chunk_items = report["items"] - len(result.graph.entities) - len(result.graph.relations)
    assert chunk_items == len(result.chunks) > len(SAMPLE_DOCUMENTS)


def test_a_failed_run_keeps_the_good_graph_and_says_so(tmp_path):
    docs = corpus(tmp_path)
    kgkit.run(tmp_path / "ws", docs, extractor=CapitalisedNames())
    ws = Workspace(tmp_path / "ws")
    good = ws.read_bytes("graph.json")
    bad = kgkit.run(ws, docs, extractor=Failing())
    assert bad.outcome == "rejected" and "nothing was replaced" in bad.notes[-1]
    assert ws.read_bytes("graph.json") == good and ws.manifest().generation == 1
    assert json.loads((ws.root / ".kgkit" / "rejected-run.json").read_text())["outcome"] == "rejected"
    forced = kgkit.run(ws, docs, extractor=Failing(), keep_partial=True)
    assert forced.outcome == "failures" and ws.manifest().generation == 2


def test_a_run_whose_every_chunk_failed_exits_1_and_writes_no_graph(tmp_path, monkeypatch):
    import kgkit.cli.run as cli_run

    monkeypatch.setattr(cli_run, "_extractor", lambda llm, cache: Failing())
    result = CliRunner().invoke(app, ["run", str(corpus(tmp_path)), "-o", str(tmp_path / "ws")])
    assert result.exit_code == 1 and "nothing was replaced" in result.output
    assert not (tmp_path / "ws" / "graph.json").exists()


def test_a_workspace_inside_its_corpus_is_not_read_as_documents(tmp_path):
    docs = corpus(tmp_path)
    kgkit.run(docs / "ws", docs, extractor=CapitalisedNames())
    again = kgkit.run(docs / "ws", docs, extractor=CapitalisedNames())
    assert sorted(d.path for d in again.documents) == sorted(SAMPLE_DOCUMENTS)


KILLER = textwrap.dedent("""
    import os, signal, sys
    import kgkit.io.generation as generation
    point = sys.argv[1]
    def checkpoint(name):
        if name == point:
            os.kill(os.getpid(), signal.SIGKILL)
    generation._checkpoint = checkpoint
    from kgkit.cli import main
    sys.argv = ["kgkit", "run", sys.argv[2], "-o", sys.argv[3], "--domain", "general"]
    main()
""")


@pytest.mark.slow
@pytest.mark.parametrize("point", ["intent", "backup", "swap:graph.json", "swap:run.json"])
def test_a_run_killed_while_committing_leaves_the_previous_generation(tmp_path, point):
    docs = corpus(tmp_path)
    ws_path = tmp_path / "ws"
    assert CliRunner().invoke(app, ["run", str(docs), "-o", str(ws_path)]).exit_code == 0
    before = {name: (ws_path / name).read_bytes() for name in ("graph.json", "run.json", "graph.html")}
    (docs / "extra.txt").write_text("Grace Hopper met Alan Turing in Princeton.", encoding="utf-8")
    killed = subprocess.run([sys.executable, "-c", KILLER, point, str(docs), str(ws_path)], capture_output=True,
                            text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    opened = CliRunner().invoke(app, ["topology", str(ws_path), "--json"])  # any command opens the workspace
    assert opened.exit_code == 0 and "rolled back" in opened.stderr and "generation 1 is current" in opened.stderr
    assert {name: (ws_path / name).read_bytes() for name in before} == before
    assert not (ws_path / ".kgkit" / "staging").exists() and not list(ws_path.rglob(".*.tmp"))
    assert CliRunner().invoke(app, ["run", str(docs), "-o", str(ws_path)]).exit_code == 0
    assert Workspace(ws_path).manifest().generation == 2


def test_a_second_writer_waits_then_gives_up_clearly(tmp_path):
    ws = Workspace(tmp_path / "ws")
    held, release = threading.Event(), threading.Event()

    def hold():
        with Workspace(tmp_path / "ws").writer(step="run"):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        with pytest.raises(WorkspaceBusy, match="step run"):
            kgkit.run(ws, corpus(tmp_path), extractor=CapitalisedNames(), lock_timeout=0.2)
        busy = CliRunner().invoke(app, ["view", str(ws.root), "--lock-timeout", "0.2"])
        assert busy.exit_code == 2 and "being written by another kgkit process" in busy.output
    finally:
        release.set()
        holder.join()


@pytest.mark.slow
def test_two_index_writers_at_once_give_what_one_after_the_other_gives(tmp_path):
    docs = corpus(tmp_path)
    for n in range(30):
        (docs / f"more{n:02d}.txt").write_text(f"Person{n} Smith met Agency{n} Jones in City{n}. " * 20)
    ws_path = tmp_path / "ws"
    assert CliRunner().invoke(app, ["run", str(docs), "-o", str(ws_path), "--no-view"]).exit_code == 0
    command = [str(ROOT / ".venv" / "bin" / "kgkit"), "index", "-w", str(ws_path), "--embedder", "hashing"]
    both = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in both]
    assert [p.returncode for p in both] == [0, 0], outs
    # serialised by the workspace lock: one indexes everything, the other then finds nothing new
    reports = sorted((json.loads(out) for out, _ in outs), key=lambda r: r["added"])
    assert reports[0]["added"] == 0 and reports[0]["items"] == reports[1]["items"] == reports[1]["added"]


def test_decisions_survive_a_rebuild_and_undo_still_works(tmp_path):
    docs = corpus(tmp_path)
    ws = Workspace(tmp_path / "ws")
    built = kgkit.run(ws, docs, extractor=CapitalisedNames()).graph
    kgkit.record(ws, [person_decision("merge", ("Person:charles babage", "Person:charles babbage"), why="typo",
                                      at="2026-01-01T00:00:00Z")])
    merged = kgkit.apply(ws).graph
    again = kgkit.run(ws, docs, extractor=CapitalisedNames())  # a rebuild from the extractions
    assert "Person:charles babage" not in set(again.graph.entities["id"])
    assert ws.read_bytes("graph.json") == merged.to_json_bytes(end=b"\n")
    assert ws.journal_names() == ["journal/0001.json"]  # the old lineage's journal is gone, a fresh one undoes
    kgkit.undo(ws)
    assert set(kgkit.read_graph(ws).entities["id"]) == set(built.entities["id"])


class Shorter(CapitalisedNames, ExtractorBase):
    """CapitalisedNames declaring a document hook (kgkit.stages.extract.ExtractorBase.refine_documents) that
    keeps only each chunk's first entity, so what reaches the graph shows the hook ran."""

    id = "shorter:1"

    def refine_documents(self, extractions, *, domain, texts):
        assert set(texts) == {d.document_id for d in extractions}  # every document's text is handed over
        return [d.model_copy(update={"chunks": tuple(
            c.model_copy(update={"extraction": c.extraction.model_copy(update={
                "entities": c.extraction.entities[:1], "relations": ()})}) for c in d.chunks)}) for d in extractions]


class PlainNames:
    """Only `id` and `extract`: the default capabilities (no hook, no client, no preflight)."""

    id = "plain-names:1"

    def extract(self, texts, *, domain):
        return CapitalisedNames().extract(texts, domain=domain)


def test_the_document_hook_is_the_extractors_own_and_a_plain_extractor_gets_the_defaults(tmp_path):
    docs = corpus(tmp_path)
    hooked = kgkit.run(tmp_path / "hooked", docs, extractor=Shorter(), write_view=False)
    plain = kgkit.run(tmp_path / "plain", docs, extractor=PlainNames(), write_view=False)
    assert hooked.outcome == plain.outcome == "complete"
    def per_chunk(result):
        return [len(c.extraction.entities) for d in result.extractions for c in d.chunks]

    assert max(per_chunk(hooked)) == 1 < max(per_chunk(plain))  # the hook's output is what was kept and built
    assert len(hooked.graph.entities) < len(plain.graph.entities)
    assert Workspace(tmp_path / "plain").manifest().config["model"] is None  # no client: no model recorded


def test_the_llm_options_are_declared_once_and_discover_needs_a_model(tmp_path):
    runner = CliRunner()
    for command in ("run", "extract", "discover", "narrate"):
        shown = runner.invoke(app, [command, "--help"], terminal_width=200).stdout
        assert "--model" in shown and "--max-cost" in shown and "--price-in" in shown, command
    assert "--rpm" in runner.invoke(app, ["run", "--help"], terminal_width=200).stdout
    missing = runner.invoke(app, ["discover", str(corpus(tmp_path)), "-o", str(tmp_path / "ws")])
    assert missing.exit_code == 2 and "--model" in missing.output
    unpriced = runner.invoke(app, ["discover", str(corpus(tmp_path)), "-o", str(tmp_path / "ws"),
                                   "--model", "openai/gpt-4o-mini"])
    assert unpriced.exit_code == 2 and "--max-cost" in unpriced.output  # a paid model needs a cap: nothing sent
