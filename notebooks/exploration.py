import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import marimo as mo

    import kgkit.notebook as kn


@app.cell
def _():
    mo.md("""
    # Exploration: explore, search and measure the graph

    The whole graph in the explorer (find an entity by name or alias, filter by type, relation, community,
    document or degree, focus on a neighbourhood, open an entity's evidence); the entity you select there in
    the next cell, with its documents and relations; search over entities, relations and passages; and the
    graph's topology (communities, hubs, bridges) as tables.
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
          f"**{graph.entities['community'].nunique()}** communities, **{len(graph.documents)}** documents — "
          f"`{workspace.root}`, generation {workspace.manifest().generation}")
    return (graph,)


@app.cell
def view(graph):
    # the whole graph (up to 5,000 entities, the most connected first); filters, search and focus are in it
    explorer = mo.ui.anywidget(kn.Explorer.from_graph(graph, max_nodes=5000, height="620px"))
    mo.output.replace(explorer)
    return (explorer,)


@app.cell
def selection(explorer, graph):
    # reruns whenever an entity is selected in the explorer: its `selected` trait holds the entity ids
    selected = [i for i in explorer.value.get("selected") or [] if i in set(graph.entities["id"])]
    details = kn.entity_details(graph, selected[0]) if selected else None
    mo.output.replace(details if details is not None else
                      mo.md("*Select an entity in the explorer (click it, or find it by name) to see its documents "
                            "and relations here.*"))
    return details, selected


@app.cell
def around(selected):
    hops = mo.ui.slider(1, 3, value=1, label="neighbourhood of the selected entity: hops")
    mo.output.replace(hops if selected else mo.md(""))
    return (hops,)


@app.cell
def neighbours(graph, hops, selected):
    hood = kn.neighbourhood(graph, selected[0], depth=hops.value, limit=200) if selected else None
    mo.output.replace(mo.ui.table(hood.entities[["name", "type", "hop", "degree", "community", "id"]], page_size=10,
                                  selection=None, label=f"{hood.status}: {len(hood.entities)} entities within "
                                                        f"{hops.value} hop(s)")
                      if hood is not None else mo.md(""))
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
def results(embedder, graph, index_report, query, workspace):
    hits = (kn.search(workspace, query.value, embedder=embedder, limit=10)
            if query.value.strip() and index_report["items"] else None)
    # names, kind, the document by its path, score and match first; the hash ids last
    hit_rows = kn.hits_table(hits, graph) if hits is not None else None
    mo.output.replace(mo.ui.table(hit_rows, page_size=10, selection=None)
                      if hit_rows is not None and len(hit_rows) else mo.md("no hits"))
    return (hit_rows,)


@app.cell
def shape(graph):
    shape = kn.topology_tables(graph, limit=10, seed=0)
    _counts = graph.summary()
    mo.vstack([
        mo.md(f"**{_counts['entities']}** entities, **{_counts['relations']}** relations in "
              f"**{graph.entities['community'].nunique()}** communities; the largest, the most connected "
              "entities (hubs), the entities linking communities (bridges) and the communities most linked:"),
        mo.ui.tabs({name: mo.ui.table(frame, page_size=10, selection=None) for name, frame in shape.items()}),
    ])
    return (shape,)


if __name__ == "__main__":
    app.run()
