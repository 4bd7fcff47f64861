"""The command line: fast start, domains listing, view re-rendering."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from kgkit.cli import app

HEAVY = ("spacy", "torch", "pandas", "litellm", "pyvis", "sentence_transformers", "networkx", "pypdf")


def test_help_imports_nothing_heavy():
    code = "import sys, json\nfrom kgkit.cli import app\nprint(json.dumps(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = set(json.loads(out.stdout))
    assert not [m for m in HEAVY if m in loaded]
    help_run = subprocess.run([sys.executable, "-m", "kgkit.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert help_run.returncode == 0 and "run" in help_run.stdout and "cache" in help_run.stdout


def test_domains_lists_bundled_domains_with_content_ids():
    result = CliRunner().invoke(app, ["domains"])
    assert result.exit_code == 0
    assert "general" in result.output and "people_orgs_events" in result.output and "domain:" in result.output


def test_view_rerenders_a_saved_graph(corpus_copy, tmp_path):
    ws = tmp_path / "ws"
    assert CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(ws), "--no-view"]).exit_code == 0
    assert not (ws / "graph.html").exists()
    out = tmp_path / "small.html"
    result = CliRunner().invoke(app, ["view", str(ws / "graph.json"), "-o", str(out), "--max-nodes", "5"])
    assert result.exit_code == 0, result.output
    assert "showing 5 of" in out.read_text()


def test_unknown_domain_is_a_clear_error(corpus_copy, tmp_path):
    result = CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(tmp_path / "ws"), "--domain", "nope"])
    assert result.exit_code == 2 and "no bundled domain named 'nope'" in result.output


def test_run_learned_at_stamps_created_at(corpus_copy, tmp_path):
    from kgkit.io import load_graph

    ws = tmp_path / "ws"
    result = CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(ws), "--no-view", "--learned-at", "2026-01-31T12:00:00Z"])
    assert result.exit_code == 0, result.output
    graph = load_graph(ws / "graph.json")
    assert set(graph.relations["created_at"]) == {"2026-01-31T12:00:00Z"}
    bad = CliRunner().invoke(app, ["run", str(corpus_copy), "-o", str(ws), "--learned-at", "yesterday-ish"])
    assert bad.exit_code != 0


def test_python_dash_m_shows_every_command_group():
    for module in ("kgkit", "kgkit.cli"):
        out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0
        for command in ("run", "build", "export", "resolve", "search", "narrate", "discover"):
            assert f" {command} " in out.stdout, (module, command)
