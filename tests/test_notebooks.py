"""Notebooks run headless on the fixture corpus with their configuration cell replaced, and lint clean."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from kgkit import io
from kgkit.cache import Cache

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


def test_quickstart_runs_on_the_fixture_corpus_and_reruns_from_cache(corpus_copy, tmp_path, offline_extractor):
    app = _load(ROOT / "notebooks" / "quickstart.py")
    defs = {"corpus_dir": corpus_copy, "domain": io.load_domain("general"), "extractor": offline_extractor}
    _, first = app.run(defs={**defs, "cache": Cache(tmp_path / "cache")})
    assert len(first["documents"]) == 3 and len(first["graph"].entities) > 10
    again = Cache(tmp_path / "cache")
    _, second = app.run(defs={**defs, "cache": again})
    assert again.stats.computed["extract_texts"] == 0
    assert list(second["graph"].entities["id"]) == list(first["graph"].entities["id"])


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_as_a_script_on_its_defaults(path):
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
