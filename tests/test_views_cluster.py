"""Cluster map: deterministic projection, points table, an offline SVG page with escaped names."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from kgkit.core.decisions import MergeCandidate
from kgkit.stages.embed import HashingEmbedder, embed_texts
from kgkit.views.cluster import cluster_html, cluster_points, kmeans_clusters, project

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture
def entities() -> pd.DataFrame:
    names = ["Jane Smith", "J. Smith", "Acme Corp", "ACME Corporation", "Paris", XSS]
    types = ["Person", "Person", "Organization", "Organization", "Location", "Person"]
    return pd.DataFrame({"id": [f"{t}:{n}" for n, t in zip(names, types)], "name": names, "type": types,
                         "community": ["c0", "c0", "c1", "c1", None, "c0"]})


def test_pca_is_deterministic_and_keeps_neighbours_close(entities):
    v = embed_texts(entities["name"].tolist(), embedder=HashingEmbedder(dim=128))
    xy = project(v)
    assert xy.shape == (6, 2) and xy.dtype == np.float32
    assert np.array_equal(xy, project(v.copy()))
    d = lambda i, j: float(np.linalg.norm(xy[i] - xy[j]))  # noqa: E731
    assert d(2, 3) < d(2, 4)  # Acme / ACME closer than Acme / Paris
    assert project(np.zeros((0, 4))).shape == (0, 2) and project(np.ones((1, 4))).shape == (1, 2)
    with pytest.raises(ValueError):
        project(v, method="tsne")


@pytest.mark.slow  # umap-learn's first call JIT-compiles for ~30 s
def test_umap_on_request(entities):
    v = embed_texts(entities["name"].tolist() * 4, embedder=HashingEmbedder(dim=32))
    xy = project(v, method="umap", seed=1)
    assert xy.shape == (24, 2) and np.isfinite(xy).all()


def test_page_is_offline_escaped_and_highlights_candidates(entities):
    xy = project(embed_texts(entities["name"].tolist(), embedder=HashingEmbedder(dim=64)))
    points = cluster_points(entities, xy, clusters=kmeans_clusters(xy, k=3))
    cand = MergeCandidate(source=entities["id"][1], target=entities["id"][0], source_name="J. Smith",
                          target_name="Jane Smith", source_type="Person", target_type="Person", score=0.9, step="rule",
                          verdict="unique", features={}, reasons=())
    for by in ("type", "community", "cluster"):
        page = cluster_html(points, candidates=[cand, ("missing", "ids")], colour_by=by, title=XSS)
        assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "<script" not in page and not re.search(r"\b(href|src)=\"", page)
        assert page.count("<line ") == 1 and page.count("<circle ") == 6
        assert "1 candidate pairs" in page


def test_empty_points_render():
    page = cluster_html(cluster_points(pd.DataFrame({"id": [], "name": [], "type": []}), np.zeros((0, 2))))
    assert "0 entities" in page
