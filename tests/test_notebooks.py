"""Notebooks run headless on the fixture corpus with their configuration cell replaced, and lint clean."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from kgkit import io
from kgkit.io.cache import Cache

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"nb_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.app


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_marimo_check_is_clean(path):
    result = subprocess.run([sys.executable, "-m", "marimo", "check", str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_as_a_script_on_its_defaults(path):
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]


# --------------------------------------------------------------------------- notebooks of issue 6


def _run_twice(name: str, tmp_path: Path, defs: dict) -> tuple[dict, dict, Cache]:
    """Run a notebook on the fixture corpus, then again on the same cache directory: (first, second, cache)."""
    app = _load(ROOT / "notebooks" / name)
    _, first = app.run(defs={**defs, "cache": Cache(tmp_path / "cache")})
    again = Cache(tmp_path / "cache")
    _, second = app.run(defs={**defs, "cache": again})
    return first, second, again


@pytest.fixture
def fixture_defs(corpus_copy, offline_extractor) -> dict:
    return {"corpus_dir": corpus_copy, "domain": io.load_domain("general"), "extractor": offline_extractor}


def test_extraction_notebook_diffs_two_runs_and_reruns_from_cache(fixture_defs, tmp_path):
    defs = {**fixture_defs, "domain_b": io.load_domain("people_orgs_events"), "model": None}
    first, second, again = _run_twice("extraction.py", tmp_path, defs)
    diff = first["extraction_diff"]
    assert len(diff.documents) == 3 and diff.entities.total > 10
    assert {d.presence for d in diff.documents} == {"both"}
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["diff_extractions"] == 0
    assert second["extraction_diff"] == diff


def test_resolution_notebook_saves_decisions_and_applies_them(fixture_defs, tmp_path):
    from kgkit.io.decisions import read_decisions
    from kgkit.stages.embed import HashingEmbedder

    defs = {**fixture_defs, "workspace": tmp_path / "ws", "autosave": True, "embedder": HashingEmbedder(dim=64)}
    first, _second, again = _run_twice("resolution.py", tmp_path, defs)
    assert (tmp_path / "ws" / "decisions.yaml").exists() and first["saved_path"] is not None
    assert read_decisions(tmp_path / "ws") == [d for d in first["all_decisions"]]
    assert len(first["points"]) == len(first["graph"].entities) and {"x", "y", "cluster"} <= set(first["points"])
    assert first["review"].widget.candidates is not None
    assert len(first["cluster_map"].widget.points) == len(first["shown"])
    assert len(first["applied"].graph.entities) <= len(first["graph"].entities)
    for stage_name in ("extract_texts", "build_graph", "merge_candidates", "embed", "project"):
        assert again.stats.computed[stage_name] == 0, stage_name


def test_exploration_notebook_filters_searches_and_measures(fixture_defs, tmp_path):
    from kgkit.stages.embed import HashingEmbedder

    first, _second, again = _run_twice("exploration.py", tmp_path, {**fixture_defs, "embedder": HashingEmbedder(dim=64)})
    assert len(first["view_graph"].entities) == len(first["graph"].entities)  # no filter by default
    assert isinstance(first["shape"], dict) and first["shape"]
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["build_graph"] == 0


def test_tour_notebook_walks_the_pipeline(fixture_defs, tmp_path):
    first, _second, again = _run_twice("tour.py", tmp_path, fixture_defs)
    assert len(first["documents"]) == 3 and len(first["final"].entities) > 10
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["merge_candidates"] == 0


@pytest.mark.slow
def test_jupyter_tour_passes_nbmake_on_the_fixture_corpus(corpus_copy, tmp_path):
    import os

    env = {**os.environ, "KGKIT_CORPUS": str(corpus_copy), "KGKIT_WORKSPACE": str(tmp_path / "ws")}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "--nbmake", "-p", "no:cacheprovider",
                             "--rootdir", str(tmp_path), str(ROOT / "notebooks" / "tour.ipynb")],
                            capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert (tmp_path / "ws" / "cache").is_dir()
