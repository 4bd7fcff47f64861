"""Shared test setup: offline everywhere, one torch thread, small fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_CORPUS = ROOT / "tests" / "fixtures" / "corpus"
DEMO_CORPUS = ROOT / "data" / "demo" / "sotu_1934_1946"


def optional_checks_missing() -> list[str]:
    """Which optional checks cannot run on this machine, and why (printed when the test run starts)."""
    import browser_tools

    missing = []
    if browser_tools.find_chromium() is None:
        fate = "fail (CI is set)" if os.environ.get("CI") else "skip"
        missing.append(f"browser checks will {fate}: no Chromium (apt-get install -y chromium)")
    if not os.environ.get("KGKIT_NEO4J_URI"):
        missing.append("Neo4j round trip will skip: KGKIT_NEO4J_URI not set (a disposable Neo4j 5 database)")
    if not (ROOT / ".venv-falkordb" / ".installed").is_file():
        missing.append("FalkorDB checks will fail: no .venv-falkordb (make install builds it with Python 3.12)")
    if not (ROOT.parent / "shared" / "data").is_dir():
        missing.append("checks on the shared evaluation data will skip: ../shared/data is not beside this checkout")
    return missing


def pytest_sessionstart(session) -> None:
    """Say at the start (even under -q, and once under xdist) which optional checks will not run here."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or hasattr(session.config, "workerinput"):
        return
    missing = optional_checks_missing()
    for line in missing or ["all can run here"]:
        reporter.write_line(f"optional checks: {line}")


LONG_FILES = ("test_examples.py", "test_notebook_scripts.py", "test_workflows.py", "test_add.py", "test_llm_faults.py",
              "test_graphdb.py", "test_dask.py", "test_search_known_items.py", "test_offline_extractor.py")
"""The test files that take longest (`pytest --durations`), longest first. They are collected first, so that
`pytest -n 2 --dist loadfile --no-loadscope-reorder` hands them out first and the short files fill the end
(xdist's default order is by the number of tests in a file, which leaves a long file of few tests for last)."""


def pytest_collection_modifyitems(config, items) -> None:
    """Move the tests of LONG_FILES to the front, in that order; the order within a file is kept."""
    here = Path(__file__).resolve().parent
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)) if item.path.parent == here else len(LONG_FILES))


@pytest.fixture(scope="session")
def offline_extractor():
    """One real offline extractor per test session (spaCy loads once)."""
    from kgkit.extractors.offline import OfflineExtractor

    return OfflineExtractor()


@pytest.fixture(scope="session")
def general_domain():
    from kgkit.io import load_domain

    return load_domain("general")


def _refuse_network(*args, **kwargs):
    raise AssertionError(f"network access attempted: {args[:2]}")


@pytest.fixture
def offline(monkeypatch):
    """No socket may connect anywhere; litellm's fake provider (kgkit.testing.fake_llm) answers instead."""
    import socket

    from kgkit.testing.fake_llm import register_fake_provider

    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, _refuse_network)
    monkeypatch.setattr(socket, "create_connection", _refuse_network)
    return register_fake_provider()


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture corpus."""
    import shutil

    dest = tmp_path / "corpus"
    shutil.copytree(FIXTURE_CORPUS, dest)
    return dest


def _built_once(tmp_path_factory, name: str, build) -> tuple[Path, list]:
    """`build(folder)` run once per test run, shared by the pytest-xdist workers: the first worker to ask builds
    it under a file lock, the others read the JSON it returned. Returns (folder, that JSON)."""
    import json

    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # under xdist: the folder above the workers' own
        shared = shared.parent
    base = shared / name
    with FileLock(str(shared / f"{name}.lock")):
        if not (base / "built.json").is_file():
            built = build(base)
            (base / "built.json").write_text(json.dumps(built), encoding="utf-8")
        return base, json.loads((base / "built.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """`kgkit run` on a copy of the bundled demo corpus with every socket call refused, then the same
    command again (warm). Returns (workspace, cold summary, warm summary). Shared by slow tests, and by the
    pytest-xdist workers of one run (built once)."""
    base, summaries = _built_once(tmp_path_factory, "demo-run", _build_demo_run)
    return base / "ws", summaries[0], summaries[1]


@pytest.fixture(scope="session")
def demo_people_cache(tmp_path_factory) -> Path:
    """The cache of `kgkit run data/demo/sotu_1934_1946 --domain people_orgs_events` (offline), built once per
    test run like demo_run: the README's first command and the extraction notebook's second domain, whose cold
    extractions of the demo it seeds (a cache is content-addressed, so copies of two caches merge)."""
    base, _ = _built_once(tmp_path_factory, "demo-people", _build_demo_people)
    return base / "cache"


def _build_demo_people(base: Path) -> list[dict]:
    return _run_demo_offline(base, ["--domain", "people_orgs_events", "--cache", str(base / "cache")], times=1)


def _build_demo_run(base: Path) -> list[dict]:
    return _run_demo_offline(base, [], times=2)


def _run_demo_offline(base: Path, options: list[str], *, times: int) -> list[dict]:
    """`kgkit run` of a copy of the demo corpus into base/ws, `times` times, every socket call refused."""
    import json
    import shutil
    import socket

    from typer.testing import CliRunner

    from kgkit.cli import app

    corpus, ws = base / "corpus", base / "ws"
    shutil.copytree(DEMO_CORPUS, corpus)
    summaries = []
    with pytest.MonkeyPatch.context() as mp:
        for name in ("connect", "connect_ex"):
            mp.setattr(socket.socket, name, _refuse_network)
        mp.setattr(socket, "create_connection", _refuse_network)
        mp.setattr(socket, "getaddrinfo", _refuse_network)
        for _ in range(times):
            result = CliRunner().invoke(app, ["run", str(corpus), "-o", str(ws), *options, "--json"])
            assert result.exit_code == 0, result.output
            summaries.append(json.loads(result.stdout))
    return summaries


@pytest.fixture(scope="module")
def chromium() -> str:
    """Path of headless Chromium (Debian package `chromium`): skipped without it, a failure in CI."""
    import browser_tools

    path = browser_tools.find_chromium()
    if path is None:
        message = "headless Chromium not found: install the Debian package `chromium` (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(message + " -- required in CI")
        pytest.skip(message)
    return path
