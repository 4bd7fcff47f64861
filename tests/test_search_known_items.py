"""The demo known-item set (tests/data/demo_known_items.csv): entity and relation look-ups on the graph `kgkit run`
builds from the bundled demo, gold answers written as names and resolved to ids here. `kgkit index` with its
default settings, then the search `kgkit search` runs (default settings, no --kind): MRR >= 0.9."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import kgkit
from kgkit.cli import app
from kgkit.workflows.index import open_search_index, query_embedder

sys.path.insert(0, str(Path(__file__).parent / "data"))
import demo_known_items


@pytest.mark.slow
def test_demo_known_items_rank_first(demo_run, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(demo_run[0], ws)
    indexed = CliRunner().invoke(app, ["index", "-w", str(ws)])  # the default embedder
    assert indexed.exit_code == 0, indexed.output
    resolved, missing = demo_known_items.resolve(kgkit.read_graph(ws))
    assert len(resolved) >= 50, f"only {len(resolved)} queries resolved; no gold in this graph for {missing}"
    index = open_search_index(ws, embedder=query_embedder(ws))  # what `kgkit search` opens
    try:
        ranks = demo_known_items.reciprocal_ranks(lambda q: index.search(q, limit=20)["id"].tolist(), resolved)
    finally:
        index.close()
    worst = sorted(zip(ranks, (q for q, _ in resolved)))[:5]
    assert float(np.mean(ranks)) >= 0.9, f"MRR {np.mean(ranks):.3f}; worst {worst}"
    out = CliRunner().invoke(app, ["search", "war powers act", "-w", str(ws), "--json", "--limit", "3"])
    hits = json.loads(out.stdout)["hits"]
    assert "War Powers Act" in hits[0]["title"] and hits[0]["match"] in ("exact", "phrase")
