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
from notebook_places import NOTEBOOKS, changed, env_without_settings, snapshot

from kgkit import io
from kgkit.io.cache import Cache
from kgkit.io.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"nb_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no notebooks/__pycache__ from the tests
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module.app


@pytest.fixture(scope="module")
def marimo_check() -> subprocess.CompletedProcess:
    """`marimo check` over every notebook at once (one start-up of marimo rather than one a notebook)."""
    return subprocess.run([sys.executable, "-m", "marimo", "check", *map(str, NOTEBOOKS)], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_marimo_check_is_clean(path, marimo_check):
    said = marimo_check.stdout + marimo_check.stderr
    assert path.name not in said, said  # what marimo found in this notebook
    assert marimo_check.returncode == 0 and not marimo_check.stdout.strip(), said


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


# --------------------------------------------------------------------------- the workspace is chosen, not fixed


@pytest.mark.parametrize("name", ["exploration.py", "tour.py"])
def test_notebook_opens_the_workspace_it_is_given_and_writes_nothing_in_the_repository(
        name, corpus_copy, tmp_path, monkeypatch):
    """The real config cell (not replaced): the corpus from KGKIT_CORPUS, the workspace from the command line
    (`python nb.py --workspace DIR`); the notebook's outputs land there and nowhere in the repository."""
    before = snapshot()
    for key in [k for k in os.environ if k.startswith("KGKIT_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("KGKIT_CORPUS", str(corpus_copy))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # the default, should it be used
    monkeypatch.setattr(sys, "argv", [name, "--workspace", str(tmp_path / "chosen")])
    _, defs = _load(ROOT / "notebooks" / name).run()
    assert defs["workspace"].root == tmp_path / "chosen" and defs["corpus_dir"] == corpus_copy
    assert (tmp_path / "chosen" / "graph.json").is_file() and (tmp_path / "chosen" / "cache").is_dir()
    assert not (tmp_path / "user-cache" / "kgkit").exists()  # (marimo keeps its log there)
    assert changed(before) == []


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
    assert again.stats.computed["build_graph"] == 0
    assert second["extraction_diff"] == diff
    assert (tmp_path / "ws" / "cache").is_dir()
    # the two runs' graphs overlaid in the explorer: every entity of either, each marked added / removed / kept
    a, b = first["graph_a"], first["graph_b"]
    overlay = first["graph_overlay"].widget.payload
    ids_a, ids_b = set(a.entities["id"]), set(b.entities["id"])
    assert {n["id"]: n["diff"] for n in overlay["nodes"]} == {
        i: "added" if i not in ids_a else "removed" if i not in ids_b else "kept" for i in ids_a | ids_b}


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
    # the merge preview: the graph now against what applying the decisions would make of it (nothing applied)
    preview = first["merge_preview"].widget.payload
    now, after = set(first["graph"].entities["id"]), set(first["applied"].graph.entities["id"])
    assert {n["id"] for n in preview["nodes"]} == now | after
    assert {n["id"] for n in preview["nodes"] if n["diff"] == "removed"} == now - after


def test_resolution_notebook_applies_and_undoes_through_the_workflows(fixture_defs, tmp_path):
    """The two buttons (pressed: their run_button replaced) call the apply and undo workflows on the workspace;
    the notebook opened again keeps the applied graph (no re-run over it), so undo finds its journal's graph."""
    from kgkit.core.decisions import person_decision
    from kgkit.stages.embed import HashingEmbedder
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
    preview = second["merge_preview"].widget.payload  # the preview shows the merge before it was applied
    assert {n["id"] for n in preview["nodes"] if n["diff"] == "removed"} == {people[0]}
    _, picked = app.run(defs={**defs, "saved_decisions": merge, "apply_now": idle, "undo_last": idle,
                               "merge_preview": SimpleNamespace(value={"selected": [people[1]]})})
    assert any(d.kind == "merge" and set(d.subjects) == set(people) for d in picked["touching"])
    _, third = app.run(defs={**defs, "saved_decisions": merge, "apply_now": idle, "undo_last": pressed})
    assert len(third["graph"].entities) == len(change.graph.entities)  # opened on the applied graph
    assert third["workspace_change"].journal == change.journal and ws.journal_names() == []
    assert len(read_graph(ws).entities) == len(first["graph"].entities)


def test_exploration_notebook_explores_searches_and_measures(fixture_defs, tmp_path):
    from kgkit.stages.embed import HashingEmbedder

    defs = {**fixture_defs, "embedder": HashingEmbedder(dim=64)}
    first, _second, again = _run_twice("exploration.py", defs)
    graph = first["graph"]
    # the whole graph in the explorer widget; nothing selected yet, so no details
    assert {n["id"] for n in first["explorer"].widget.payload["nodes"]} == set(graph.entities["id"])
    assert first["selected"] == [] and first["details"] is None
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["build_graph"] == 0
    assert first["index_report"]["items"] > 0  # the index and search workflows
    # search hits as a person reads them: name, kind, document path, score, match first; hashes last
    hits = first["hit_rows"]
    assert len(hits) > 0 and list(hits.columns[:6]) == ["name", "kind", "type", "document", "score", "match"]
    assert list(hits.columns[-2:]) == ["id", "document_id"]
    paths = set(graph.documents["path"])
    assert all(d.split(" +")[0] in paths for d in hits["document"] if d)  # relative paths, never hash ids
    # topology as tables: communities with size and top members, hubs, bridges, connections
    shape = first["shape"]
    assert set(shape) == {"communities", "hubs", "bridges", "connections"}
    assert {"size", "top members"} <= set(shape["communities"].columns) and len(shape["communities"]) > 0
    assert shape["hubs"]["name"].iloc[0] == graph.entities.sort_values(["degree", "mentions", "id"],
        ascending=[False, False, True])["name"].iloc[0]  # fmt: skip
    assert (tmp_path / "ws" / "graph.json").is_file() and (tmp_path / "ws" / "index").is_dir()
    # an entity selected in the explorer (its `selected` trait) -> the details cell and the neighbourhood
    hub = shape["hubs"]["id"].iloc[0]
    app = _load(ROOT / "notebooks" / "exploration.py")
    _, picked = app.run(defs={**defs, "cache": Cache(defs["workspace"].cache_dir),
                              "explorer": SimpleNamespace(value={"selected": [hub]})})
    assert picked["selected"] == [hub] and picked["details"].id == hub
    assert set(picked["details"].documents["document"]) <= paths and len(picked["details"].relations) > 0


def test_tour_notebook_walks_the_pipeline(fixture_defs, tmp_path):
    first, _second, again = _run_twice("tour.py", fixture_defs)
    assert len(first["documents"]) == 3 and len(first["final"].entities) > 10
    assert again.stats.computed["extract_texts"] == 0 and again.stats.computed["merge_candidates"] == 0
    assert first["run_result"].outcome == "complete" and (tmp_path / "ws" / "graph.json").is_file()
    # the whole graph in the explorer, coloured by community
    final, payload = first["final"], first["explorer"].widget.payload
    assert {n["id"] for n in payload["nodes"]} == set(final.entities["id"]) and first["selected"] == []
    # communities shown together have different colours, the ones the explorer draws them in
    rows = first["community_rows"]
    assert len(rows) == min(10, final.entities["community"].nunique())
    assert rows["colour"].str.match(r"^#[0-9A-Fa-f]{6}$").all() and rows["colour"].is_unique
    drawn = {n["community"]: n["colour"] for n in payload["nodes"]}
    assert all(drawn[c] == colour for c, colour in zip(rows["community"], rows["colour"]))


@pytest.mark.slow
def test_jupyter_tour_passes_nbmake_on_the_fixture_corpus(corpus_copy, tmp_path):
    before = snapshot()
    env = env_without_settings(KGKIT_CORPUS=str(corpus_copy), KGKIT_WORKSPACE=str(tmp_path / "ws"),
                                XDG_CACHE_HOME=str(tmp_path / "user-cache"))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "--nbmake", "-p", "no:cacheprovider",
                             "--rootdir", str(tmp_path), str(ROOT / "notebooks" / "tour.ipynb")],
                            capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert (tmp_path / "ws" / "cache").is_dir() and (tmp_path / "ws" / "graph.json").is_file()
    assert not (tmp_path / "user-cache" / "kgkit").exists() and changed(before) == []


# --------------------------------------------------------------------------- tables a person reads (kgkit.notebook.tables)


def test_tables_lead_with_names_and_document_paths_and_escape_every_string():
    import pandas as pd
    from explorer_graphs import XSS, small_graph

    import kgkit.notebook as kn
    from kgkit.stages.search.search_index import HIT_COLUMNS

    graph = small_graph()
    ada = kn.entity_details(graph, "Person:ada")
    assert (ada.name, ada.aliases) == ("Ada Lovelace", ("Countess of Lovelace",))
    assert ada.documents["document"].tolist() == ["letters/ada.txt", "notes/engine <b>notes</b>.txt"]
    assert ada.documents["sentence"].iloc[0].startswith("In 1843 Ada Lovelace")  # a relation's sentence stands in
    assert "Ada Lovelace —WROTE_TO→ Charles Babbage" in ada.relations["relation"].tolist()
    page = kn.entity_details(graph, "Person:xss")._repr_html_()
    assert "<img" not in page and "<script" not in page and "&lt;img src=x" in page  # hostile text stays text
    assert "doc:notes" not in kn.entity_details(graph, "Person:ada")._repr_html_()  # paths, never hash ids
    with pytest.raises(KeyError):
        kn.entity_details(graph, "Person:nobody")

    hit = dict.fromkeys(HIT_COLUMNS)
    hits = pd.DataFrame([{**hit, "rank": 1, "id": "rel:wrote", "kind": "relation", "score": 0.91234, "type": "WROTE_TO",
                          "title": "Ada Lovelace ; Charles Babbage", "document_id": "doc:letters",
                          "documents": ["doc:letters"], "entities": ["Person:ada", "Person:babbage"],
                          "evidence": "In 1843 Ada wrote.", "match": "phrase"},
                         {**hit, "rank": 2, "id": "Person:ada", "kind": "entity", "score": 0.5, "type": "Person",
                          "title": "Ada Lovelace", "documents": ["doc:letters", "doc:notes"], "entities": ["Person:ada"],
                          "text": "Person"}])
    table = kn.hits_table(hits, graph)
    assert list(table.columns) == ["name", "kind", "type", "document", "score", "match", "text", "entities", "id",
                                   "document_id"]
    assert table["name"].tolist() == ["Ada Lovelace —WROTE_TO→ Charles Babbage", "Ada Lovelace"]
    assert table["document"].tolist() == ["letters/ada.txt", "letters/ada.txt +1 more"]
    assert table["entities"].iloc[0] == "Ada Lovelace, Charles Babbage" and table["score"].iloc[0] == 0.912
    assert kn.hits_table(hits)["document"].iloc[0] == "doc:letters"  # without a graph: the ids as they are

    shape = kn.topology_tables(graph, limit=5, colours={"c0": "#0072B2"})
    assert shape["communities"].columns[0] == "colour" and "top members" in shape["communities"]
    assert shape["hubs"]["name"].iloc[0] in ("Ada Lovelace", "Charles Babbage") and XSS in set(graph.entities["name"])
    assert kn.community_colours({"communities": [["c0", 3, "#0072B2", "Ada"]]}) == {"c0": "#0072B2"}
