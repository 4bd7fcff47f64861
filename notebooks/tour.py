import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import marimo as mo

    import kgkit.notebook as kn


@app.cell
def _():
    mo.md("""
    # A tour of kgkit, in pipeline order

    ```
    files → load → Document → chunk → Chunk → extract → ChunkExtraction → merge → DocumentExtraction
      → build → Graph → candidates → decide → apply (+ undo) → communities → search → view
    ```
    Each step is a pure function: data in, new values out. The expensive ones (extraction, graph building,
    candidates) go through the workspace's content-hash cache, so re-running this notebook costs nothing. The
    next cell is the only configuration: it opens the workspace (`--workspace DIR` after the notebook's path,
    or `KGKIT_WORKSPACE`; by default a folder in your user cache) and names the corpus, domain and model.
    """)
    return


@app.cell
def config():
    workspace = kn.open_workspace("tour")  # --workspace DIR | $KGKIT_WORKSPACE | ~/.cache/kgkit/notebooks/tour
    corpus_dir = kn.corpus_dir(workspace)  # --corpus DIR | $KGKIT_CORPUS | the workspace's last corpus | the demo
    domain = kn.load_domain(kn.setting("domain", "general", workspace=workspace))
    model = kn.setting("model", workspace=workspace)  # an LLM (litellm name, its API key) or None: offline spaCy
    cache = kn.Cache(workspace.cache_dir)
    extractor = kn.make_extractor(model, cache=cache)
    return cache, corpus_dir, domain, extractor, workspace


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
    documents, _errors = kn.load_documents(kn.read_corpus(corpus_dir))
    mo.ui.table([{"document": d.path, "characters": len(d.text), "id": d.id} for d in documents], selection=None)
    return (documents,)


@app.cell
def _():
    mo.md("""
    ## 2. Chunk: whole sentences, with character offsets into the document
    """)
    return


@app.cell
def chunk(documents):
    chunks = [c for d in documents for c in kn.chunk_document(d)]
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
    found = cache.map(kn.extract_texts, [c.text for c in chunks], domain=domain, extractor=extractor)
    _first = found[0].entities if found else ()
    mo.ui.table([{"name": e.name, "type": e.type, "label": e.label} for e in _first], selection=None,
                label="what the extractor found in the first chunk")
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
        _located[_c.document_id].append(kn.locate(_t, _c))
    extractions = [kn.merge_document(d, _located[d.id]) for d in documents]
    graph = cache.run(kn.build_graph, extractions, domain=domain)
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
    candidates = cache.run(kn.merge_candidates, graph)
    decisions = kn.decide(candidates, at=kn.now())
    applied = kn.apply_decisions(graph, decisions)
    assert kn.undo_journal(applied.graph, applied.journal).to_json_dict() == graph.to_json_dict()
    mo.vstack([mo.md(f"**{len(candidates)}** candidates, **{len(decisions)}** policy merges; after applying: "
                     f"**{len(applied.graph.entities)}** entities (undo restores the original exactly)"),
               mo.ui.table([{"source": c.source_name, "target": c.target_name, "score": c.score,
                             "verdict": c.verdict, "why": "; ".join(c.reasons)} for c in candidates[:20]],
                           selection=None)])
    return (applied,)


@app.cell
def _():
    mo.md("""
    ## 6. Communities: groups of densely connected entities, labelled by their members
    Each community has the colour it has in the explorer below (section 8): the largest communities each get a
    colour of their own from the explorer's colour-blind-safe palette, no two alike.
    """)
    return


@app.cell
def communities(applied):
    _communities = kn.communities_of(applied.graph, seed=0)
    final = kn.assign_communities(applied.graph, _communities)
    return (final,)


@app.cell
def community_table(explorer, final):
    # the explorer's colour of each community (its palette), so the table and the graph agree
    community_rows = kn.topology_tables(final, limit=10, seed=0,
                                        colours=kn.community_colours(explorer.widget.payload))["communities"]
    mo.ui.table(community_rows, selection=None, style_cell=lambda _row, column, value: (
        {"backgroundColor": value, "color": value} if column == "colour" and value else {}))
    return (community_rows,)


@app.cell
def _():
    mo.md("""
    ## 7. Search: entities, relations and passages, with provenance
    """)
    return


@app.cell
def search(cache, chunks, final):
    _index = kn.SearchIndex(embedder=kn.HashingEmbedder(), cache=cache)
    _index.add(kn.items_from_graph(final) + kn.items_from_chunks(chunks, entities_by_chunk=kn.entities_by_chunk(final)))
    hits = _index.search("president congress", limit=5)
    mo.ui.table(kn.hits_table(hits, final), selection=None)  # names and document paths first, hash ids last
    return


@app.cell
def _():
    mo.md("""
    ## 8. See it: the graph explorer
    The whole graph, coloured by community: find an entity by name or alias, filter by type, relation, community
    or document, double-click to focus on a neighbourhood, click an entity or a relation for its evidence.
    Offline (everything inlined), every document string shown as text. The same explorer is `graph.html` in the
    workspace, and `kgkit view`.
    """)
    return


@app.cell
def view(final):
    explorer = mo.ui.anywidget(kn.Explorer.from_graph(final, max_nodes=None, color_by="community",
                                                     title="The tour's graph, by community", height="560px"))
    mo.output.replace(explorer)
    return (explorer,)


@app.cell
def selected_entity(explorer, final):
    # reruns whenever an entity is selected in the explorer above: its `selected` trait holds the entity ids
    selected = [i for i in explorer.value.get("selected") or [] if i in set(final.entities["id"])]
    mo.output.replace(kn.entity_details(final, selected[0]) if selected else
                      mo.md("*Select an entity in the explorer above: its documents and relations appear here.*"))
    return (selected,)


@app.cell
def _():
    mo.md("""
    ## 9. All of it as one workflow, written to the workspace
    `kn.run(workspace, corpus)` — what `kgkit run CORPUS -o WORKSPACE` calls — loads, chunks, extracts, builds,
    finds communities and draws the view, and commits graph.json, communities.json, extractions.jsonl, run.json
    and graph.html (the explorer as a standalone page) as one generation of the workspace. Every extraction above is reused from the cache.
    """)
    return


@app.cell
def workflow(cache, corpus_dir, domain, extractor, workspace):
    run_result = kn.run(workspace, corpus_dir, domain=domain, extractor=extractor, cache=cache)
    mo.md(f"generation **{run_result.generation}** ({run_result.outcome}): **{len(run_result.graph.entities)}** "
          f"entities, **{run_result.extractor_calls}** chunks extracted anew; `{workspace.root}` holds "
          + ", ".join(f"`{name}`" for name in sorted(workspace.manifest().artefacts)))
    return


@app.cell
def _():
    mo.md("""
    Next: `notebooks/extraction.py` (diff two extraction runs, and their graphs overlaid in the explorer),
    `notebooks/resolution.py` (cluster map, the merge-approval widget, a merge preview, and the `record` / `apply`
    / `undo` workflows), `notebooks/exploration.py` (the explorer with the selected entity's details, the `index`
    and `search` workflows, topology tables). Open them on this workspace with
    `--workspace` or `KGKIT_WORKSPACE` to reuse its cache.
    """)
    return


if __name__ == "__main__":
    app.run()
