"""Each notebook runs as a script (`python notebooks/X.py`) on its defaults: the demo corpus, its workspace the
default one in the user cache (here a temporary XDG_CACHE_HOME), and writes nothing inside the repository.

Its own file, so that under `pytest -n 2 --dist loadfile` these four runs (the longest tests of the suite) go to
a worker of their own rather than queueing behind the rest of tests/test_notebooks.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from notebook_places import NOTEBOOKS, ROOT, changed, env_without_settings, snapshot

pytestmark = pytest.mark.slow

COLD = "tour.py"
"""The notebook that starts from an empty user cache, as a new user's first run does (spaCy extracts the whole
demo). The others start from a copy of the demo run's cache (conftest's demo_run, `kgkit run` of the same corpus
with the same general domain and offline extractor), so their extraction cells are cache hits; a cold extraction
of the demo is what the demo run itself checks."""


SECOND_DOMAIN = "extraction.py"
"""The notebook that also extracts the demo with people_orgs_events: its cache is seeded with that run's too
(conftest's demo_people_cache, which the README examples' demo build shares)."""


def _seed_cache(user_cache: Path, stem: str, *caches: Path) -> Path:
    """The notebook's default workspace, holding a copy of the given caches (nothing else)."""
    cache = user_cache / "kgkit" / "notebooks" / stem / "cache"
    for source in caches:
        shutil.copytree(source, cache, dirs_exist_ok=True)
    return cache


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_as_a_script_on_its_defaults(path: Path, tmp_path: Path, request) -> None:
    """`python notebooks/X.py` on the demo corpus, its workspace the default one (the user cache, here a
    temporary XDG_CACHE_HOME); nothing is written inside the repository."""
    user_cache = tmp_path / "user-cache"
    if path.name != COLD:
        caches = [request.getfixturevalue("demo_run")[0] / "cache"]
        if path.name == SECOND_DOMAIN:
            caches.append(request.getfixturevalue("demo_people_cache"))
        _seed_cache(user_cache, path.stem, *caches)
    before = snapshot()
    env = env_without_settings(XDG_CACHE_HOME=str(user_cache))
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    if sys.platform.startswith("linux"):  # XDG_CACHE_HOME is the user cache on Linux only
        assert (user_cache / "kgkit" / "notebooks" / path.stem / "cache").is_dir()
    assert changed(before) == []


def test_one_notebook_starts_cold() -> None:
    """COLD names a notebook that exists (a renamed notebook must not make every run a warm one)."""
    assert COLD in {p.name for p in NOTEBOOKS} and SECOND_DOMAIN in {p.name for p in NOTEBOOKS}
