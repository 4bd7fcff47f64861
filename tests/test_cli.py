"""The command line end to end: fast start and help, `run` (the one CLI run with the real offline extractor),
`view`, `domains`, `cache`, `export`, `import-siftkg` and `narrate`; exit codes, messages and --json output.
What the workflows behind them produce is tested in the library tests (test_pipeline.py, test_cache.py,
test_export.py, test_importers.py, test_narrate.py); the other command groups in test_cli_*.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import kgkit
from kgkit import io
from kgkit.cli import app
from kgkit.testing.workspaces import CapitalisedNames

HEAVY = ("spacy", "torch", "pandas", "litellm", "pyvis", "sentence_transformers", "networkx", "pypdf")
SIFTKG = Path(__file__).parent / "fixtures" / "siftkg"
runner = CliRunner()


@pytest.fixture
def ws_no_view(corpus_copy, tmp_path) -> Path:
    """A workspace run by the library on the fixture corpus, without graph.html."""
    kgkit.run(tmp_path / "ws", corpus_copy, extractor=CapitalisedNames(), write_view=False)
    assert not (tmp_path / "ws" / "graph.html").exists()
    return tmp_path / "ws"


# --------------------------------------------------------------------------- start-up and help


def test_help_imports_nothing_heavy():
    code = "import sys, json\nfrom kgkit.cli import app\nprint(json.dumps(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = set(json.loads(out.stdout))
    assert not [m for m in HEAVY if m in loaded]
    help_run = subprocess.run([sys.executable, "-m", "kgkit.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert help_run.returncode == 0 and "run" in help_run.stdout and "cache" in help_run.stdout


def test_python_dash_m_shows_every_command_group():
    for module in ("kgkit", "kgkit.cli"):
        out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0
        for command in ("run", "build", "export", "resolve", "search", "narrate", "discover"):
            assert f" {command} " in out.stdout, (module, command)


def test_domains_lists_bundled_domains_with_content_ids():
    result = runner.invoke(app, ["domains"])
    assert result.exit_code == 0
    assert "general" in result.output and "people_orgs_events" in result.output and "domain:" in result.output


# --------------------------------------------------------------------------- run and view


def test_run_prints_summary_and_writes_outputs(corpus_copy, tmp_path):
    ws = tmp_path / "ws"
    result = runner.invoke(app, ["run", str(corpus_copy), "-o", str(ws), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["documents_ok"] == 3 and summary["entities"] > 0 and summary["extractor_calls"] > 0
    assert summary["outcome"] == "complete" and summary["generation"] == 1 and summary["seconds"] >= 0
    for name in ("graph.json", "graph.html", "run.json", "extractions.jsonl"):
        assert (ws / name).stat().st_size > 0
    assert len(io.read_jsonl(ws / "extractions.jsonl")) == 3
    bad = runner.invoke(app, ["run", str(tmp_path / "nope"), "-o", str(ws)])
    assert bad.exit_code == 2 and "no such file or folder" in bad.output


def test_unknown_domain_is_a_clear_error(corpus_copy, tmp_path):
    result = runner.invoke(app, ["run", str(corpus_copy), "-o", str(tmp_path / "ws"), "--domain", "nope"])
    assert result.exit_code == 2 and "no bundled domain named 'nope'" in result.output


def test_bad_learned_at_is_a_clear_error(corpus_copy, tmp_path):
    # what --learned-at stamps is tested on the workflow (test_pipeline.py); a bad value stops before any work
    bad = runner.invoke(app, ["run", str(corpus_copy), "-o", str(tmp_path / "ws"), "--learned-at", "yesterday-ish"])
    assert bad.exit_code == 2 and "ISO 8601" in bad.output
    assert not (tmp_path / "ws" / "graph.json").exists()


def test_view_rerenders_a_saved_graph(ws_no_view, tmp_path):
    out = tmp_path / "small.html"
    result = runner.invoke(app, ["view", str(ws_no_view / "graph.json"), "-o", str(out), "--max-nodes", "5"])
    assert result.exit_code == 0, result.output
    assert "showing 5 of" in out.read_text() and not (ws_no_view / "graph.html").exists()
    result = runner.invoke(app, ["view", str(ws_no_view)])  # a workspace: its own graph.html, a new generation
    assert result.exit_code == 0 and result.output.strip() == str(ws_no_view / "graph.html"), result.output
    assert (ws_no_view / "graph.html").read_text().startswith("<!DOCTYPE html>")


# --------------------------------------------------------------------------- cache


def test_cache_info_and_prune(tmp_path):
    from test_cache import upper

    from kgkit.io.cache import Cache

    cache = Cache(tmp_path / "c")
    cache.map(upper, ["a", "b"])
    info = runner.invoke(app, ["cache", "info", "--cache", str(tmp_path / "c"), "--json"])
    assert info.exit_code == 0, info.output
    assert json.loads(info.stdout)["stages"]["upper"]["entries"] == 2
    pruned = runner.invoke(app, ["cache", "prune", "--cache", str(tmp_path / "c"), "--stage", "upper"])
    assert pruned.exit_code == 0 and "removed 2 entries" in pruned.output
    bad = runner.invoke(app, ["cache", "prune", "--cache", str(tmp_path / "c"), "--older-than", "soon"])
    assert bad.exit_code != 0


def test_cache_commands_take_an_fsspec_url(tmp_path):
    from test_cache import upper

    from kgkit.io.cache import Cache

    url = (tmp_path / "c").as_uri()  # file:///...: the same entries as the folder
    Cache(url).map(upper, ["a", "b", "c"])
    info = runner.invoke(app, ["cache", "info", "--cache", url, "--json"])
    assert info.exit_code == 0, info.output
    assert json.loads(info.stdout)["stages"]["upper"]["entries"] == 3
    pruned = runner.invoke(app, ["cache", "prune", "--cache", url, "--stage", "upper"])
    assert pruned.exit_code == 0 and "removed 3 entries" in pruned.output
    assert Cache(tmp_path / "c").info().entries == 0
    unknown = runner.invoke(app, ["cache", "info", "--cache", "nosuchprotocol://bucket/cache"])
    assert unknown.exit_code == 2 and "nosuchprotocol" in unknown.output


# --------------------------------------------------------------------------- export and import-siftkg


def test_export_writes_files_and_folders_and_refuses_unknown_formats(ws_no_view, tmp_path):
    result = runner.invoke(app, ["export", "graphml", "--graph", str(ws_no_view), "-o", str(tmp_path / "g.graphml")])
    assert result.exit_code == 0 and result.output.strip() == str(tmp_path / "g.graphml"), result.output
    assert (tmp_path / "g.graphml").read_text().startswith("<?xml")
    result = runner.invoke(app, ["export", "csv", "--graph", str(ws_no_view / "graph.json"), "-o", str(tmp_path / "csv")])
    assert result.exit_code == 0, result.output
    written = result.output.split()  # one line per file written
    assert str(tmp_path / "csv" / "nodes.csv") in written and all(Path(p).is_file() for p in written)
    result = runner.invoke(app, ["export", "nope", "--graph", str(ws_no_view), "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "unknown export format" in result.output


def test_export_format_list_matches_the_dispatcher():
    from kgkit.cli.export import EXPORT_FORMATS  # kept literal there so `import kgkit.cli` stays light
    from kgkit.io.export import FORMATS

    assert list(EXPORT_FORMATS) == list(FORMATS)


@pytest.mark.parametrize("extra", [[], ["--from-extractions"]])
def test_import_siftkg_reads_the_graph_or_rebuilds_from_extractions(tmp_path, extra):
    src = tmp_path / "sift"
    shutil.copytree(SIFTKG, src)
    ws = tmp_path / "ws"
    result = runner.invoke(app, ["import-siftkg", str(src), "-o", str(ws), *extra])
    assert result.exit_code == 0, result.output
    assert str(ws / "graph.json") in result.output and str(ws / "graph.html") in result.output
    entities = 13 if extra else 10  # graph_data.json by default, kgkit's own build with --from-extractions
    assert len(io.load_graph(ws / "graph.json").entities) == entities and f"{entities} entities" in result.output
    assert ("1 failed extractions" in result.output) == bool(extra)


def test_import_siftkg_without_inputs_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["import-siftkg", str(tmp_path), "-o", str(tmp_path / "ws")])
    assert result.exit_code == 2 and "no graph_data.json" in result.output


# --------------------------------------------------------------------------- narrate


def test_narrate_offline_and_json(ws_no_view, tmp_path):
    out = tmp_path / "story.md"
    result = runner.invoke(app, ["narrate", str(ws_no_view), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output and "entities described" in result.output
    assert out.read_text().startswith("# Narrative") and (tmp_path / "story.json").is_file()
    graph_file = tmp_path / "elsewhere" / "graph.json"  # a graph file outside any workspace
    io.save_graph(kgkit.read_graph(ws_no_view), graph_file)
    result = runner.invoke(app, ["narrate", str(graph_file), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "kgkit.narrative/1" and data["sources"]
    assert set(data["sources"]) <= set(kgkit.read_graph(ws_no_view).relations["id"])
    assert (graph_file.parent / "narrative.md").is_file()  # written beside the graph file
    missing = runner.invoke(app, ["narrate", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "no such graph" in missing.output
