import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    from pathlib import Path

    import marimo as mo

    from kgkit import io
    from kgkit.build import build_graph
    from kgkit.cache import Cache
    from kgkit.chunk import chunk_document
    from kgkit.extract import extract_texts, locate, merge_document
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.load import load_documents
    from kgkit.views import graph_html

    ROOT = Path(__file__).resolve().parent.parent


@app.cell
def _():
    mo.md("""
    # kgkit quickstart: documents → knowledge graph, offline

    One stage per cell, each expensive one through kgkit's content-hash cache: re-running this notebook
    re-extracts nothing. The next cell is the only configuration; change the corpus or the domain there.
    """)
    return


@app.cell
def config():
    corpus_dir = ROOT / "data" / "demo" / "sotu_1934_1946"
    domain = io.load_domain("general")
    extractor = OfflineExtractor()
    cache = Cache(ROOT / "workspace" / "quickstart" / "cache")
    return cache, corpus_dir, domain, extractor


@app.cell
def load(corpus_dir):
    documents, errors = load_documents(io.read_corpus(corpus_dir))
    mo.md(f"**{len(documents)}** documents loaded, **{len(errors)}** could not be read")
    return documents, errors


@app.cell
def chunk(documents):
    chunks = [c for d in documents for c in chunk_document(d)]
    mo.md(f"**{len(chunks)}** chunks of whole sentences")
    return (chunks,)


@app.cell
def extract(cache, chunks, domain, extractor):
    found = cache.map(extract_texts, [c.text for c in chunks], domain=domain, extractor=extractor)
    mo.md(f"extractor ran on **{cache.stats.computed['extract_texts']}** chunks (the rest came from the cache)")
    return (found,)


@app.cell
def merge(chunks, documents, found):
    located = {d.id: [] for d in documents}
    for text_extraction, c in zip(found, chunks):
        located[c.document_id].append(locate(text_extraction, c))
    extractions = [merge_document(d, located[d.id]) for d in documents]
    return (extractions,)


@app.cell
def build(cache, domain, extractions):
    graph = cache.run(build_graph, extractions, domain=domain)
    mo.md(f"graph: **{len(graph.entities)}** entities, **{len(graph.relations)}** relations")
    return (graph,)


@app.cell
def entities(graph):
    mo.ui.table(graph.entities.sort_values("mentions", ascending=False)[["name", "type", "mentions", "documents", "degree"]], page_size=10)
    return


@app.cell
def view(graph):
    mo.iframe(graph_html(graph, max_nodes=150, height="600px"), height="680px")
    return


if __name__ == "__main__":
    app.run()
