import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    from datetime import UTC, datetime
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
    from kgkit.stages.load import load_documents
    from kgkit.stages.resolve import apply_decisions, decide, merge_candidates, undo
    from kgkit.stages.search import SearchIndex, entities_by_chunk, items_from_chunks, items_from_graph
    from kgkit.views.graph import graph_html

    ROOT = Path(__file__).resolve().parent.parent


@app.cell
def _():
    mo.md("""
    # A tour of kgkit, in pipeline order

    ```
    files → load → Document → chunk → Chunk → extract → ChunkExtraction → merge → DocumentExtraction
      → build → Graph → candidates → decide → apply (+ undo) → communities → search → view
    ```
    Each step is a pure function: data in, new values out. The expensive ones (extraction, graph building,
    candidates) go through a content-hash cache, so re-running this notebook costs nothing. The next cell is
    the only configuration.
    """)
    return


@app.cell
def config():
    corpus_dir = ROOT / "data" / "demo" / "sotu_1934_1946"
    domain = io.load_domain("general")
    extractor = OfflineExtractor()
    cache = Cache(ROOT / "workspace" / "notebooks" / "cache")
    return cache, corpus_dir, domain, extractor


@app.cell
def _():
    mo.md("""
    ## 1. Load: files become Documents
    A document's id is the hash of its content and its relative path. Files that cannot be read become
    `DocumentError`s with a reason; the run goes on.
    """)
    return


@app.cell
def load(corpus_dir):
    documents, _errors = load_documents(io.read_corpus(corpus_dir))
    mo.ui.table(pd.DataFrame([{"id": d.id, "path": d.path, "characters": len(d.text)} for d in documents]),
                selection=None)
    return (documents,)


@app.cell
def _():
    mo.md("""
    ## 2. Chunk: whole sentences, with character offsets into the document
    """)
    return


@app.cell
def chunk(documents):
    chunks = [c for d in documents for c in chunk_document(d)]
    mo.md(f"**{len(chunks)}** chunks; the first one:\n\n> {chunks[0].text[:300]}" if chunks else "no chunks")
    return (chunks,)


@app.cell
def _():
    mo.md("""
    ## 3. Extract: entities and relations per chunk (cached by the chunk's text)
    The offline extractor (spaCy + dependency rules) needs no key and no network; its results are labelled
    `quality: offline`. An LLM extractor plugs into the same stage.
    """)
    return


@app.cell
def extract(cache, chunks, domain, extractor):
    found = cache.map(extract_texts, [c.text for c in chunks], domain=domain, extractor=extractor)
    _first = found[0] if found else None
    mo.ui.table(pd.DataFrame([{"name": e.name, "type": e.type, "label": e.label} for e in _first.entities])
                if _first else pd.DataFrame(), selection=None, label="what the extractor found in the first chunk")
    return (found,)


@app.cell
def _():
    mo.md("""
    ## 4. Merge and build: chunk results become one graph, with provenance for every fact
    """)
    return


@app.cell
def build(cache, chunks, documents, domain, found):
    _located = {d.id: [] for d in documents}
    for _t, _c in zip(found, chunks):
        _located[_c.document_id].append(locate(_t, _c))
    extractions = [merge_document(d, _located[d.id]) for d in documents]
    graph = cache.run(build_graph, extractions, domain=domain)
    mo.md(f"**{len(graph.entities)}** entities, **{len(graph.relations)}** relations, "
          f"**{len(graph.provenance)}** provenance rows")
    return (graph,)


@app.cell
def _():
    mo.md("""
    ## 5. Resolve: candidates, decisions, apply — and undo
    Every candidate says why it was proposed; the policy accepts only unique, high-scoring ones. Applying
    decisions gives a new graph and a journal that undoes it exactly.
    """)
    return


@app.cell
def resolve(cache, graph):
    candidates = cache.run(merge_candidates, graph)
    decisions = decide(candidates, at=datetime.now(UTC).replace(microsecond=0).isoformat())
    applied = apply_decisions(graph, decisions)
    assert undo(applied.graph, applied.journal).to_json_dict() == graph.to_json_dict()
    mo.vstack([mo.md(f"**{len(candidates)}** candidates, **{len(decisions)}** policy merges; after applying: "
                     f"**{len(applied.graph.entities)}** entities (undo restores the original exactly)"),
               mo.ui.table(pd.DataFrame([{"source": c.source_name, "target": c.target_name, "score": c.score,
                                          "verdict": c.verdict, "why": "; ".join(c.reasons)} for c in candidates[:20]]),
                           selection=None)])
    return (applied,)


@app.cell
def _():
    mo.md("""
    ## 6. Communities: groups of densely connected entities, labelled by their members
    """)
    return


@app.cell
def communities(applied):
    _communities = communities_of(applied.graph, seed=0)
    final = assign_communities(applied.graph, _communities)
    mo.ui.table(_communities.summary[["community", "size", "label"]].head(10), selection=None)
    return (final,)


@app.cell
def _():
    mo.md("""
    ## 7. Search: entities, relations and passages, with provenance
    """)
    return


@app.cell
def search(cache, chunks, final):
    _index = SearchIndex(embedder=HashingEmbedder(), cache=cache)
    _index.add(items_from_graph(final) + items_from_chunks(chunks, entities_by_chunk=entities_by_chunk(final)))
    hits = _index.search("president congress", limit=5)
    mo.ui.table(hits, selection=None)
    return


@app.cell
def _():
    mo.md("""
    ## 8. See it: an offline graph view (vis-network inlined, every label escaped)
    """)
    return


@app.cell
def view(final):
    mo.iframe(graph_html(final, max_nodes=120, color_by="community", height="560px"), height="640px")
    return


@app.cell
def _():
    mo.md("""
    Next: `notebooks/extraction.py` (diff two extraction runs), `notebooks/resolution.py` (cluster map and
    the merge-approval widget), `notebooks/exploration.py` (filtered views, search, topology).
    """)
    return


if __name__ == "__main__":
    app.run()
