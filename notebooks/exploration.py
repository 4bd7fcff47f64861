import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    from pathlib import Path

    import marimo as mo
    import pandas as pd

    from kgkit import io
    from kgkit.stages.build import build_graph
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.communities import assign_communities, communities_of
    from kgkit.stages.embed import HashingEmbedder
    from kgkit.stages.extract import extract_texts, locate, merge_document
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.core.graph import Graph
    from kgkit.stages.load import load_documents
    from kgkit.stages.search import SearchIndex, entities_by_chunk, items_from_chunks, items_from_graph
    from kgkit.stages.topology import neighbourhood, topology
    from kgkit.views.graph import graph_html

    ROOT = Path(__file__).resolve().parent.parent


@app.cell
def _():
    mo.md("""
    # Exploration: filter, search and measure the graph

    Filter the graph view by entity type, community, document or the neighbourhood of one entity; search
    entities, relations and passages; and read the graph's topology (hubs, bridges, components).
    """)
    return


@app.cell
def config():
    corpus_dir = ROOT / "data" / "demo" / "sotu_1934_1946"
    domain = io.load_domain("general")
    extractor = OfflineExtractor()
    embedder = HashingEmbedder()  # kgkit.stages.embed.MiniLMEmbedder() for semantic search (torch)
    cache = Cache(ROOT / "workspace" / "notebooks" / "cache")
    return cache, corpus_dir, domain, embedder, extractor


@app.cell
def build(cache, corpus_dir, domain, extractor):
    documents, _errors = load_documents(io.read_corpus(corpus_dir))
    chunks = [c for d in documents for c in chunk_document(d)]
    _found = cache.map(extract_texts, [c.text for c in chunks], domain=domain, extractor=extractor)
    _located = {d.id: [] for d in documents}
    for _t, _c in zip(_found, chunks):
        _located[_c.document_id].append(locate(_t, _c))
    _built = cache.run(build_graph, [merge_document(d, _located[d.id]) for d in documents], domain=domain)
    graph = assign_communities(_built, communities_of(_built, seed=0))
    mo.md(f"graph: **{len(graph.entities)}** entities, **{len(graph.relations)}** relations, "
          f"**{graph.entities['community'].nunique()}** communities")
    return chunks, graph


@app.function
def subgraph(graph: Graph, keep: set) -> Graph:
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
        _hood = neighbourhood(graph, focus.value.strip(), depth=depth.value, limit=500)
        note = f"neighbourhood of {focus.value!r}: {_hood.status}"
        keep &= set(_hood.entities["id"])
    view_graph = subgraph(graph, keep)
    return note, view_graph


@app.cell
def view(note, view_graph):
    mo.vstack([mo.md(f"showing **{len(view_graph.entities)}** entities {note}"),
               mo.iframe(graph_html(view_graph, max_nodes=150, height="560px", color_by="type"), height="640px")])
    return


@app.cell
def index(cache, chunks, embedder, graph):
    search_index = SearchIndex(embedder=embedder, cache=cache)
    search_index.add(items_from_graph(graph) + items_from_chunks(chunks, entities_by_chunk=entities_by_chunk(graph)))
    return (search_index,)


@app.cell
def query_box():
    query = mo.ui.text(value="war production", label="search", full_width=True)
    mo.output.replace(query)
    return (query,)


@app.cell
def results(query, search_index):
    hits = search_index.search(query.value, limit=10) if query.value.strip() else pd.DataFrame()
    mo.ui.table(hits, page_size=10) if len(hits) else mo.md("no hits")
    return (hits,)


@app.cell
def shape(graph):
    shape = topology(graph, limit=10, seed=0)
    mo.tree(shape)
    return (shape,)


if __name__ == "__main__":
    app.run()
