"""Notebooks run headless on the fixture corpus with their configuration cell replaced (or for real, with the
workspace chosen by the environment), lint clean, and never write inside the repository."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kgkit import io
from kgkit.io.cache import Cache
from kgkit.io.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
# where a notebook could write inside the repository: its own folder, and the folder the notebooks used before
REPO_PLACES = (ROOT / "notebooks", ROOT / "workspace")


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"nb_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no notebooks/__pycache__ from the tests
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module.app


def _snapshot() -> dict[str, tuple[int, int]]:
    """Every file under the places a notebook could write in the repository: {path: (size, mtime)}."""
    found = {}
    for place in REPO_PLACES:
        for path in place.rglob("*") if place.is_dir() else ():
            if path.is_file() and "__pycache__" not in path.parts:
                info = path.stat()
                found[str(path.relative_to(ROOT))] = (info.st_size, info.st_mtime_ns)
    return found


def _changed(before: dict[str, tuple[int, int]]) -> list[str]:
    after = _snapshot()
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def _env_without_settings(**extra: str) -> dict[str, str]:
    """The environment minus every KGKIT_* setting a developer may have exported, plus `extra`."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("KGKIT_")}, **extra}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_marimo_check_is_clean(path):
    result = subprocess.run([sys.executable, "-m", "marimo", "check", str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_is_marimo_and_one_kgkit_import(path):
    """The setup cell imports marimo and kgkit.notebook only; no notebook names a folder of the repository."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    setup = next(node for node in tree.body if isinstance(node, ast.With))
    imported = sorted(alias.name if isinstance(node, ast.Import) else f"{node.module}.{alias.name}"
                      for node in ast.walk(setup) if isinstance(node, ast.Import | ast.ImportFrom)
                      for alias in node.names)
    assert imported == ["kgkit.notebook", "marimo"], imported
    text = path.read_text(encoding="utf-8")
    assert "__file__" not in text and '"workspace" / "notebooks"' not in text


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_as_a_script_on_its_defaults(path, tmp_path):
    """`python notebooks/X.py` on the demo corpus, its workspace the default one (the user cache, here a
    temporary XDG_CACHE_HOME); nothing is written inside the repository."""
    before = _snapshot()
    env = _env_without_settings(XDG_CACHE_HOME=str(tmp_path / "user-cache"))
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    if sys.platform.startswith("linux"):  # XDG_CACHE_HOME is the user cache on Linux only
        assert (tmp_path / "user-cache" / "kgkit" / "notebooks" / path.stem / "cache").is_dir()
    assert _changed(before) == []


# --------------------------------------------------------------------------- the workspace is chosen, not fixed


@pytest.mark.parametrize("name", ["exploration.py", "tour.py"])
def test_notebook_opens_the_workspace_it_is_given_and_writes_nothing_in_the_repository(
        name, corpus_copy, tmp_path, monkeypatch):
    """The real config cell (not replaced): the corpus from KGKIT_CORPUS, the workspace from the command line
    (`python nb.py --workspace DIR`); the notebook's outputs land there and nowhere in the repository."""
    before = _snapshot()
    for key in [k for k in os.environ if k.startswith("KGKIT_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("KGKIT_CORPUS", str(corpus_copy))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # the default, should it be used
    monkeypatch.setattr(sys, "argv", [name, "--workspace", str(tmp_path / "chosen")])
    _, defs = _load(ROOT / "notebooks" / name).run()
    assert defs["workspace"].root == tmp_path / "chosen" and defs["corpus_dir"] == corpus_copy
    assert (tmp_path / "chosen" / "graph.json").is_file() and (tmp_path / "chosen" / "cache").is_dir()
    assert not (tmp_path / "user-cache" / "kgkit").exists()  # (marimo keeps its log there)
    assert _changed(before) == []


def test_settings_come_from_the_command_line_then_the_environment_then_the_workspace(tmp_path):
    import kgkit.notebook as kn

    ws = Workspace(tmp_path / "ws")
    with ws.writer():
        gen = ws.begin("run", config={"corpus": str(tmp_path / "docs"), "domain_source": "people_orgs_events"})
        gen.write_text("run.json", "{}\n")
        gen.commit()
    env = {"KGKIT_DOMAIN": "general"}
    assert kn.setting("domain", "x", workspace=ws, args={"domain": "mine"}, environ=env) == "mine"
    assert kn.setting("domain", "x", workspace=ws, args={}, environ=env) == "general"
    assert kn.setting("domain", "x", workspace=ws, args={}, environ={}) == "people_orgs_events"
    assert kn.setting("domain", "x", args={"domain": ""}, environ={}) == "x"  # `--domain` alone: no value
    assert kn.corpus_dir(ws, args={}, environ={}) == tmp_path / "docs"  # the corpus of the workspace's last run
    assert kn.corpus_dir(None, args={}, environ={}) == kn.DEMO_CORPUS
    chosen = kn.open_workspace("tour", args={"workspace": str(tmp_path / "a")}, environ={"KGKIT_WORKSPACE": "b"})
    assert chosen.root == tmp_path / "a" and chosen.root.is_dir()
    assert kn.open_workspace("tour", args={}, environ={"KGKIT_WORKSPACE": str(tmp_path / "b")}).root == tmp_path / "b"
    default = kn.open_workspace("tour", args={}, environ={"XDG_CACHE_HOME": str(tmp_path / "c")}).root
    if sys.platform.startswith("linux"):
        assert default == tmp_path / "c" / "kgkit" / "notebooks" / "tour"
    assert default.is_dir() and ROOT not in default.parents


def test_kgkit_notebook_import_is_light_and_every_name_resolves():
    code = ("import sys, kgkit.notebook as kn; heavy = [m for m in ('pandas', 'numpy', 'spacy', 'marimo', 'torch') "
            "if m in sys.modules]; assert not heavy, heavy; [getattr(kn, n) for n in kn.__all__]; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "ok", result.stderr[-2000:]


# --------------------------------------------------------------------------- notebooks of issue 6


def _run_twice(name: str, defs: dict) -> tuple[dict, dict, Cache]:
    """Run a notebook on the fixture corpus, then again on the same workspace: (first, second, second's cache)."""
    app = _load(ROOT / "notebooks" / name)
    workspace = defs["workspace"]
    _, first = app.run(defs={**defs, "cache": Cache(workspace.cache_dir)})
    again = Cache(workspace.cache_dir)
    _, second = app.run(defs={**defs, "cache": again})
    return first, second, again


@pytest.fixture
def fixture_defs(corpus_copy, offline_extractor, tmp_path) -> dict:
    """The config cell's definitions, but for the cache (`_run_twice` opens it on the workspace)."""
    return {"workspace": Workspace(tmp_path / "ws"), "corpus_dir": corpus_copy, "domain": io.load_domain("general"),
            "extractor": offline_extractor, "model": None}


def test_extraction_notebook_diffs_two_runs_and_reruns_from_cache(fixture_defs, tmp_path):
    defs = {**fixture_defs, "domain_b": io.load_domain("people_orgs_events")}
    first, second, again = _run_twice("extraction.py", defs)
    diff = first["extraction_diff"]
    assert len(diff.documents) == 3 and diff.entities.total > 10
    assert {d.presence for d in diff.documents} == {"both"}
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["diff_extractions"] == 0
    assert second["extraction_diff"] == diff
    assert (tmp_path / "ws" / "cache").is_dir()


def test_resolution_notebook_saves_decisions_and_applies_them(fixture_defs, tmp_path):
    from kgkit.io.decisions import read_decisions
    from kgkit.stages.embed import HashingEmbedder

    defs = {**fixture_defs, "autosave": True, "embedder": HashingEmbedder(dim=64)}
    first, _second, again = _run_twice("resolution.py", defs)
    assert (tmp_path / "ws" / "decisions.yaml").exists() and first["saved_path"] is not None
    assert read_decisions(tmp_path / "ws") == [d for d in first["all_decisions"]]
    assert len(first["points"]) == len(first["graph"].entities) and {"x", "y", "cluster"} <= set(first["points"])
    assert first["review"].widget.candidates is not None
    assert len(first["cluster_map"].widget.points) == len(first["shown"])
    assert len(first["applied"].graph.entities) <= len(first["graph"].entities)
    for stage_name in ("extract_texts", "build_graph", "merge_candidates", "embed", "project"):
        assert again.stats.computed[stage_name] == 0, stage_name
    assert first["workspace_change"] is None  # the apply / undo buttons were not pressed


def test_resolution_notebook_applies_and_undoes_through_the_workflows(fixture_defs, tmp_path):
    """The two buttons (pressed: their run_button replaced) call the apply and undo workflows on the workspace;
    the notebook opened again keeps the applied graph (no re-run over it), so undo finds its journal's graph."""
    from kgkit.stages.embed import HashingEmbedder
    from kgkit.stages.resolve.decisions import person_decision
    from kgkit.workflows.graph import read_graph

    app = _load(ROOT / "notebooks" / "resolution.py")
    pressed, idle = SimpleNamespace(value=True), SimpleNamespace(value=False)
    ws = fixture_defs["workspace"]
    defs = {**fixture_defs, "autosave": True, "embedder": HashingEmbedder(dim=64), "cache": Cache(ws.cache_dir)}
    _, first = app.run(defs={**defs, "apply_now": idle, "undo_last": idle})
    people = first["graph"].entities.query("type == 'Person'")["id"].tolist()[:2]
    merge = [person_decision("merge", tuple(people), why="same person", who="test", at="2026-01-01T00:00:00+00:00")]
    _, second = app.run(defs={**defs, "saved_decisions": merge, "apply_now": pressed, "undo_last": idle})
    change = second["workspace_change"]
    assert change.changed and ws.journal_names() == [change.journal]
    assert len(read_graph(ws).entities) == len(change.graph.entities) == len(second["applied"].graph.entities)
    assert len(change.graph.entities) == len(first["graph"].entities) - 1
    _, third = app.run(defs={**defs, "saved_decisions": merge, "apply_now": idle, "undo_last": pressed})
    assert len(third["graph"].entities) == len(change.graph.entities)  # opened on the applied graph
    assert third["workspace_change"].journal == change.journal and ws.journal_names() == []
    assert len(read_graph(ws).entities) == len(first["graph"].entities)


def test_exploration_notebook_filters_searches_and_measures(fixture_defs, tmp_path):
    from kgkit.stages.embed import HashingEmbedder

    first, _second, again = _run_twice("exploration.py", {**fixture_defs, "embedder": HashingEmbedder(dim=64)})
    assert len(first["view_graph"].entities) == len(first["graph"].entities)  # no filter by default
    assert isinstance(first["shape"], dict) and first["shape"]
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["build_graph"] == 0
    assert first["index_report"]["items"] > 0 and len(first["hits"]) > 0  # the index and search workflows
    assert (tmp_path / "ws" / "graph.json").is_file() and (tmp_path / "ws" / "index").is_dir()


def test_tour_notebook_walks_the_pipeline(fixture_defs, tmp_path):
    first, _second, again = _run_twice("tour.py", fixture_defs)
    assert len(first["documents"]) == 3 and len(first["final"].entities) > 10
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["merge_candidates"] == 0
    assert first["run_result"].outcome == "complete" and (tmp_path / "ws" / "graph.json").is_file()


@pytest.mark.slow
def test_jupyter_tour_passes_nbmake_on_the_fixture_corpus(corpus_copy, tmp_path):
    before = _snapshot()
    env = _env_without_settings(KGKIT_CORPUS=str(corpus_copy), KGKIT_WORKSPACE=str(tmp_path / "ws"),
                                XDG_CACHE_HOME=str(tmp_path / "user-cache"))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "--nbmake", "-p", "no:cacheprovider",
                             "--rootdir", str(tmp_path), str(ROOT / "notebooks" / "tour.ipynb")],
                            capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert (tmp_path / "ws" / "cache").is_dir() and (tmp_path / "ws" / "graph.json").is_file()
    assert not (tmp_path / "user-cache" / "kgkit").exists() and _changed(before) == []
