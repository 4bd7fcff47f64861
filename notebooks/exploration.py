import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import marimo as mo

    import kgkit.notebook as kn


@app.cell
def _():
    mo.md("""
    # Exploration: filter, search and measure the graph

    Filter the graph view by entity type, community, document or the neighbourhood of one entity; search
    entities, relations and passages; and read the graph's topology (hubs, bridges, components).
    The graph is the workspace's (made by the `run` workflow when it has none of this corpus yet) and the search
    index is the `index` workflow's, on the workspace the next cell opens (`--workspace DIR` after the
    notebook's path, or `KGKIT_WORKSPACE`).
    """)
    return


@app.cell
def config():
    workspace = kn.open_workspace("exploration")  # --workspace DIR | $KGKIT_WORKSPACE | ~/.cache/kgkit/notebooks/...
    corpus_dir = kn.corpus_dir(workspace)  # --corpus DIR | $KGKIT_CORPUS | the workspace's last corpus | the demo
    domain = kn.load_domain(kn.setting("domain", "general", workspace=workspace))
    model = kn.setting("model", workspace=workspace)  # an LLM (litellm name, its API key) or None: offline spaCy
    cache = kn.Cache(workspace.cache_dir)
    extractor = kn.make_extractor(model, cache=cache)
    embedder = kn.HashingEmbedder()  # kn.MiniLMEmbedder() for semantic search (torch)
    return cache, corpus_dir, domain, embedder, extractor, workspace


@app.cell
def build(cache, corpus_dir, domain, extractor, workspace):
    graph = kn.open_graph(workspace, corpus_dir, domain=domain, extractor=extractor, cache=cache)  # `run` if needed
    mo.md(f"graph: **{len(graph.entities)}** entities, **{len(graph.relations)}** relations, "
          f"**{graph.entities['community'].nunique()}** communities — `{workspace.root}`, generation "
          f"{workspace.manifest().generation}")
    return (graph,)


@app.function
def subgraph(graph: kn.Graph, keep: set) -> kn.Graph:
    """The entities in `keep`, the relations between them and their provenance."""
    ents = graph.entities[graph.entities["id"].isin(keep)]
    rels = graph.relations[graph.relations["source"].isin(keep) & graph.relations["target"].isin(keep)]
    prov = graph.provenance[graph.provenance["item_id"].isin(set(ents["id"]) | set(rels["id"]))]
    return graph.replace(entities=ents, relations=rels, provenance=prov)


@app.cell
def filters(graph):
    _types = sorted(graph.entities["type"].unique().tolist())
    types = mo.ui.multiselect(_types, value=_types, label="types")
    community = mo.ui.dropdown(["all", *sorted(graph.entities["community"].dropna().unique().tolist())], value="all",
                               label="community")
    document = mo.ui.dropdown(["all", *graph.documents["path"].tolist()], value="all", label="document")
    focus = mo.ui.text(value="", label="neighbourhood of", placeholder="an entity name")
    depth = mo.ui.slider(1, 3, value=1, label="hops")
    mo.vstack([mo.hstack([types, community, document], justify="start"), mo.hstack([focus, depth], justify="start")])
    return community, depth, document, focus, types


@app.cell
def filtered(community, depth, document, focus, graph, types):
    _ents = graph.entities[graph.entities["type"].isin(types.value)]
    if community.value != "all":
        _ents = _ents[_ents["community"] == community.value]
    if document.value != "all":
        _doc_id = graph.documents.loc[graph.documents["path"] == document.value, "id"].iloc[0]
        _prov = graph.provenance
        _ents = _ents[_ents["id"].isin(_prov.loc[_prov["document_id"] == _doc_id, "item_id"])]
    keep = set(_ents["id"])
    note = ""
    if focus.value.strip():
        _hood = kn.neighbourhood(graph, focus.value.strip(), depth=depth.value, limit=500)
        note = f"neighbourhood of {focus.value!r}: {_hood.status}"
        keep &= set(_hood.entities["id"])
    view_graph = subgraph(graph, keep)
    return note, view_graph


@app.cell
def view(note, view_graph):
    mo.vstack([mo.md(f"showing **{len(view_graph.entities)}** entities {note}"),
               mo.iframe(kn.graph_html(view_graph, max_nodes=150, height="560px", color_by="type"), height="640px")])
    return


@app.cell
def index(embedder, graph, workspace):
    index_report = kn.index(workspace, embedder=embedder)  # the workspace's graph + its corpus's passages
    mo.md(f"search index: **{index_report['items']}** items ({len(graph.entities)} entities, their relations, "
          f"the passages; {index_report['added']} added now) in `{index_report['index']}`")
    return (index_report,)


@app.cell
def query_box():
    query = mo.ui.text(value="war production", label="search", full_width=True)
    mo.output.replace(query)
    return (query,)


@app.cell
def results(embedder, index_report, query, workspace):
    hits = (kn.search(workspace, query.value, embedder=embedder, limit=10)
            if query.value.strip() and index_report["items"] else None)
    mo.ui.table(hits, page_size=10) if hits is not None and len(hits) else mo.md("no hits")
    return


@app.cell
def shape(graph):
    shape = kn.topology(graph, limit=10, seed=0)
    mo.tree(shape)
    return


if __name__ == "__main__":
    app.run()
