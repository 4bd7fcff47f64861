import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    from datetime import UTC, datetime
    from pathlib import Path

    import marimo as mo
    import numpy as np
    import pandas as pd

    from kgkit import io
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.io.cache import Cache
    from kgkit.io.decisions import read_decisions, write_decisions
    from kgkit.stages.build import build_graph
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.communities import assign_communities, communities_of
    from kgkit.stages.embed import HashingEmbedder, embed_rows
    from kgkit.stages.extract import extract_texts, locate, merge_document
    from kgkit.stages.load import load_documents
    from kgkit.stages.resolve import apply_decisions, decide, merge_candidates, pending
    from kgkit.views.cluster import cluster_html, cluster_points, kmeans_clusters, project
    from kgkit.views.graph import graph_html
    from kgkit.views.widgets import ClusterMap, MergeReview, actions_to_decisions

    ROOT = Path(__file__).resolve().parent.parent


@app.cell
def _():
    mo.md("""
    # Resolution: which entities are the same?

    kgkit proposes merge candidates (exact key → name rules + MinHash/LSH → embedding neighbours), each with
    its score, features and reasons. The map shows entities in 2-D (PCA of name embeddings; UMAP on request)
    with candidate pairs in red (drag a box in it to filter the table); the review widget lets you accept, reject or skip each candidate (keys: a / r / s,
    j / k to move). Your decisions join the policy's, are saved to the workspace, and the graph is shown
    before and after applying them.
    """)
    return


@app.cell
def config():
    corpus_dir = ROOT / "data" / "demo" / "sotu_1934_1946"
    domain = io.load_domain("general")
    extractor = OfflineExtractor()
    embedder = HashingEmbedder()  # kgkit.stages.embed.MiniLMEmbedder() for semantic neighbours (torch)
    workspace = ROOT / "workspace" / "notebooks"
    cache = Cache(workspace / "cache")
    autosave = False  # True: save decisions without pressing the button (headless runs)
    return autosave, cache, corpus_dir, domain, embedder, extractor, workspace


@app.cell
def build(cache, corpus_dir, domain, extractor):
    documents, _errors = load_documents(io.read_corpus(corpus_dir))
    chunks = [c for d in documents for c in chunk_document(d)]
    _found = cache.map(extract_texts, [c.text for c in chunks], domain=domain, extractor=extractor)
    _located = {d.id: [] for d in documents}
    for _t, _c in zip(_found, chunks):
        _located[_c.document_id].append(locate(_t, _c))
    graph = cache.run(build_graph, [merge_document(d, _located[d.id]) for d in documents], domain=domain)
    mo.md(f"graph: **{len(graph.entities)}** entities, **{len(graph.relations)}** relations")
    return (graph,)


@app.cell
def candidates(cache, graph):
    candidates = cache.run(merge_candidates, graph)
    mo.md(f"**{len(candidates)}** merge candidates")
    return (candidates,)


@app.cell
def embeddings(cache, embedder, graph):
    names = graph.entities["name"].tolist()
    vectors = np.stack(cache.map(embed_rows, names, embedder=embedder)) if names else np.zeros((0, embedder.dim))
    return (vectors,)


@app.cell
def controls(graph):
    method = mo.ui.dropdown(["pca", "umap"], value="pca", label="projection")
    colour_by = mo.ui.dropdown(["type", "community", "cluster"], value="type", label="colour by")
    _types = sorted(graph.entities["type"].unique().tolist())
    types = mo.ui.multiselect(_types, value=_types, label="types")
    only_candidates = mo.ui.checkbox(value=False, label="only entities in a candidate pair")
    mo.hstack([method, colour_by, types, only_candidates], justify="start")
    return colour_by, method, only_candidates, types


@app.cell
def points(cache, graph, method, vectors):
    xy = cache.run(project, vectors, method=method.value, seed=0)
    _graph = assign_communities(graph, communities_of(graph, seed=0))
    points = cluster_points(_graph.entities, xy, clusters=kmeans_clusters(xy, k=8, seed=0))
    return (points,)


@app.cell
def selection(candidates, only_candidates, points, types):
    _paired = {i for c in candidates for i in (c.source, c.target)}
    shown = points[points["type"].isin(types.value)]
    if only_candidates.value:
        shown = shown[shown["id"].isin(_paired)]
    return (shown,)


@app.cell
def chart(candidates, colour_by, shown):
    cluster_map = mo.ui.anywidget(ClusterMap.from_points(shown, candidates=candidates, colour_by=colour_by.value))
    mo.output.replace(cluster_map)
    return (cluster_map,)


@app.cell
def table(cluster_map, shown):
    _chosen = cluster_map.value.get("selected") or []
    _rows = shown[shown["id"].isin(_chosen)] if _chosen else shown
    mo.ui.table(_rows[["name", "type", "community", "cluster", "x", "y"]].round(3), page_size=10,
                label="drag a box in the map to filter this table")
    return


@app.cell
def static_chart(candidates, colour_by, shown):
    mo.accordion({"the same map as a static SVG (for export)": mo.iframe(cluster_html(
        shown, candidates=candidates, colour_by=colour_by.value, title="Entities by name embedding"), height="640px")})
    return


@app.cell
def saved(workspace):
    saved_decisions = read_decisions(workspace)
    return (saved_decisions,)


@app.cell
def review_widget(candidates, graph, saved_decisions):
    _todo = [c for c in pending(candidates, saved_decisions) if c.step != "exact"][:200]
    review = mo.ui.anywidget(MergeReview.from_candidates(_todo, graph=graph, threshold=0.9))
    mo.output.replace(review)
    return (review,)


@app.cell
def decisions(candidates, review, saved_decisions):
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    _state = review.value
    mine = actions_to_decisions(_state.get("candidates", review.widget.candidates), _state.get("actions", {}), who="notebook",
                                at=now)
    all_decisions = decide(candidates, decisions=[*saved_decisions, *mine], at=now)
    mo.md(f"**{len(mine)}** decisions from the widget, **{len(all_decisions)}** in all (policy included)")
    return (all_decisions,)


@app.cell
def save_button():
    save = mo.ui.run_button(label="save decisions to the workspace")
    mo.output.replace(save)
    return (save,)


@app.cell
def write(all_decisions, autosave, save, workspace):
    if save.value or autosave:
        saved_path = write_decisions(workspace, all_decisions)
        _msg = mo.md(f"saved **{len(all_decisions)}** decisions to `{saved_path}`")
    else:
        saved_path = None
        _msg = mo.md("not saved yet")
    mo.output.replace(_msg)
    return (saved_path,)


@app.cell
def apply(all_decisions, domain, graph):
    applied = apply_decisions(graph, all_decisions, symmetric=domain.symmetric_types())
    mo.ui.table(pd.DataFrame([{"graph": "before", **graph.summary()}, {"graph": "after", **applied.graph.summary()}]),
                selection=None)
    return (applied,)


@app.cell
def before_after(applied, graph):
    mo.ui.tabs({
        "before": mo.iframe(graph_html(graph, max_nodes=120, height="520px", title="before"), height="600px"),
        "after": mo.iframe(graph_html(applied.graph, max_nodes=120, height="520px", title="after"), height="600px"),
    })
    return


if __name__ == "__main__":
    app.run()
