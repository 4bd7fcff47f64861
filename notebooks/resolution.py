import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import marimo as mo

    import kgkit.notebook as kn


@app.cell
def _():
    mo.md("""
    # Resolution: which entities are the same?

    kgkit proposes merge candidates (exact key → name rules + MinHash/LSH → embedding neighbours), each with
    its score, features and reasons. The map shows entities in 2-D (PCA of name embeddings; UMAP on request)
    with candidate pairs in red (drag a box in it to filter the table); the review widget lets you accept, reject or skip each candidate (keys: a / r / s,
    j / k to move). Your decisions join the policy's and are saved to the workspace; the merge preview shows, in
    the graph explorer, what applying them would change (entities merged away and relations re-pointed in
    vermillion, what they become in blue, the rest grey), and selecting an entity there lists the decisions
    about it; the last buttons apply the saved decisions to the workspace's graph (and undo that), as
    `kgkit apply` / `kgkit undo` do.
    """)
    return


@app.cell
def config():
    workspace = kn.open_workspace("resolution")  # --workspace DIR | $KGKIT_WORKSPACE | ~/.cache/kgkit/notebooks/...
    corpus_dir = kn.corpus_dir(workspace)  # --corpus DIR | $KGKIT_CORPUS | the workspace's last corpus | the demo
    domain = kn.load_domain(kn.setting("domain", "general", workspace=workspace))
    model = kn.setting("model", workspace=workspace)  # an LLM (litellm name, its API key) or None: offline spaCy
    cache = kn.Cache(workspace.cache_dir)
    extractor = kn.make_extractor(model, cache=cache)
    embedder = kn.HashingEmbedder()  # kn.MiniLMEmbedder() for semantic neighbours (torch)
    autosave = False  # True: save decisions without pressing the button (headless runs)
    return autosave, cache, corpus_dir, domain, embedder, extractor, workspace


@app.cell
def build(cache, corpus_dir, domain, extractor, workspace):
    graph = kn.open_graph(workspace, corpus_dir, domain=domain, extractor=extractor, cache=cache)  # `run` if needed
    mo.md(f"graph: **{len(graph.entities)}** entities, **{len(graph.relations)}** relations")
    return (graph,)


@app.cell
def candidates(cache, graph):
    candidates = cache.run(kn.merge_candidates, graph)
    mo.md(f"**{len(candidates)}** merge candidates")
    return (candidates,)


@app.cell
def embeddings(cache, embedder, graph):
    vectors = kn.embed_names(cache, graph.entities["name"].tolist(), embedder=embedder)
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
    xy = cache.run(kn.project, vectors, method=method.value, seed=0)
    points = kn.cluster_points(graph.entities, xy, clusters=kn.kmeans_clusters(xy, k=8, seed=0))
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
    cluster_map = mo.ui.anywidget(kn.ClusterMap.from_points(shown, candidates=candidates, colour_by=colour_by.value))
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
    mo.accordion({"the same map as a static SVG (for export)": mo.iframe(kn.cluster_html(
        shown, candidates=candidates, colour_by=colour_by.value, title="Entities by name embedding"), height="640px")})
    return


@app.cell
def saved(workspace):
    saved_decisions = kn.decisions(workspace)
    return (saved_decisions,)


@app.cell
def review_widget(candidates, graph, saved_decisions):
    # every candidate: undecided ones first, then what the policy decided (marked; v vetoes)
    review = mo.ui.anywidget(kn.MergeReview.from_candidates(candidates[:300], decisions=saved_decisions, graph=graph,
                                                            threshold=0.9))
    mo.output.replace(review)
    return (review,)


@app.cell
def decisions(candidates, review, saved_decisions):
    now = kn.now()
    _state = review.value
    mine = kn.actions_to_decisions(_state.get("candidates", review.widget.candidates), _state.get("actions", {}),
                                   who="notebook", at=now)
    all_decisions = kn.decide(candidates, decisions=[*saved_decisions, *mine], at=now)
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
        kn.record(workspace, all_decisions)  # the workflow: decisions.yaml, one generation
        saved_path = workspace.path(kn.DECISIONS)
        _msg = mo.md(f"saved **{len(all_decisions)}** decisions to `{saved_path}`")
    else:
        saved_path = None
        _msg = mo.md("not saved yet")
    mo.output.replace(_msg)
    return (saved_path,)


@app.cell
def apply(all_decisions, domain, graph):
    applied = kn.apply_decisions(graph, all_decisions, symmetric=domain.symmetric_types())
    mo.ui.table([{"graph": "before", **graph.summary()}, {"graph": "after", **applied.graph.summary()}],
                selection=None)
    return (applied,)


@app.cell
def preview(all_decisions, graph):
    # what apply would change (nothing is applied): the graph now and after the decisions, overlaid
    merge_preview = mo.ui.anywidget(kn.Explorer.merge_preview(graph, all_decisions, height="560px"))
    mo.output.replace(merge_preview)
    return (merge_preview,)


@app.cell
def preview_selection(all_decisions, graph, merge_preview):
    # reruns when an entity is selected in the preview: the decisions that name it
    _picked = set(merge_preview.value.get("selected") or [])
    _names = dict(zip(graph.entities["id"], graph.entities["name"]))
    touching = [d for d in all_decisions if _picked & set(d.subjects)]
    mo.output.replace(
        mo.ui.table([{"decision": d.kind, "entities": " + ".join(str(_names.get(s, s)) for s in d.subjects),
                      "by": d.decided_by, "why": d.why or "", "ids": ", ".join(d.subjects)} for d in touching],
                    selection=None, label="decisions about the selected entity")
        if touching else mo.md("*Select an entity in the preview to list the decisions about it.*"
                               if not _picked else "no decision names the selected entity"))
    return (touching,)


@app.cell
def workspace_buttons():
    apply_now = mo.ui.run_button(label="apply the saved decisions to the workspace graph")
    undo_last = mo.ui.run_button(label="undo the last apply")
    mo.hstack([apply_now, undo_last], justify="start")
    return apply_now, undo_last


@app.cell
def workspace_apply(apply_now, saved_path, undo_last, workspace):
    # the workflows: apply commits the merged graph with journal/NNNN.json; undo restores the graph and pops it
    workspace_change = None
    if apply_now.value:
        workspace_change = kn.apply(workspace)
        _msg = (f"applied {workspace_change.applied} decisions: **{len(workspace_change.before.entities)}** → "
                f"**{len(workspace_change.graph.entities)}** entities, `{workspace_change.journal}`"
                if workspace_change.changed else "the workspace graph already reflects every saved decision")
    elif undo_last.value and workspace.journal_names():
        workspace_change = kn.undo(workspace)
        _msg = f"undid `{workspace_change.journal}`: **{len(workspace_change.graph.entities)}** entities"
    if workspace_change is not None and workspace_change.stale:  # out of date now: never shown as current
        _msg += "\n\n" + "\n".join(f"- stale: `{k}`: {v}" for k, v in workspace_change.stale.items())
    else:
        _msg = ("nothing to undo" if undo_last.value else
                f"applies `{saved_path or workspace.path(kn.DECISIONS)}` as saved; applied journals: "
                f"{', '.join(workspace.journal_names()) or 'none'}")
    mo.output.replace(mo.md(_msg))
    return


if __name__ == "__main__":
    app.run()
