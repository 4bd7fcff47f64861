import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import marimo as mo

    import kgkit.notebook as kn


@app.cell
def _():
    mo.md("""
    # Extraction: run an extractor, then diff two runs

    Run A is the offline extractor with one domain; run B is either the same corpus under another domain
    (offline, the default) or an LLM when a model is given (`--model openai/gpt-4o-mini` after the notebook's
    path, or `KGKIT_MODEL`, with its API key; at most $0.50). The diff shows, per document and chunk, what each
    run found, with the chunk text and each run's spans highlighted side by side; the graph each run builds is
    overlaid in the graph explorer (what run B added in blue, what it dropped in vermillion, the rest grey).
    Every extraction goes through the workspace's content-hash cache.
    """)
    return


@app.cell
def config():
    workspace = kn.open_workspace("extraction")  # --workspace DIR | $KGKIT_WORKSPACE | ~/.cache/kgkit/notebooks/...
    corpus_dir = kn.corpus_dir(workspace)  # --corpus DIR | $KGKIT_CORPUS | the workspace's last corpus | the demo
    domain = kn.load_domain(kn.setting("domain", "general", workspace=workspace))
    domain_b = kn.load_domain(kn.setting("domain_b", "people_orgs_events"))
    model = kn.setting("model")  # an LLM for run B when set (needs its provider's API key)
    cache = kn.Cache(workspace.cache_dir)
    extractor = kn.make_extractor()  # run A: the offline extractor (spaCy + rules)
    return cache, corpus_dir, domain, domain_b, extractor, model


@app.cell
def load(cache, corpus_dir):
    documents, errors = kn.load_corpus(corpus_dir, cache=cache)
    chunks = [c for d in documents for c in kn.chunk_document(d)]
    mo.md(f"**{len(documents)}** documents, **{len(chunks)}** chunks, **{len(errors)}** unreadable files")
    return chunks, documents


@app.cell
def extractor_b(cache, extractor, model):
    second = kn.make_extractor(model, max_cost=0.50, cache=cache) if model else extractor
    return (second,)


@app.cell
def run_a(cache, documents, domain, extractor):
    _chunks, run_a = kn.extract_documents(documents, cache=cache, domain=domain, extractor=extractor)
    mo.md(f"run A: **{sum(len(c.extraction.entities) for d in run_a for c in d.chunks)}** entity mentions")
    return (run_a,)


@app.cell
def run_b(cache, documents, domain, domain_b, model, second):
    _chunks, run_b = kn.extract_documents(documents, cache=cache, domain=domain if model else domain_b,
                                          extractor=second)
    mo.md(f"run B: **{sum(len(c.extraction.entities) for d in run_b for c in d.chunks)}** entity mentions")
    return (run_b,)


@app.cell
def diff(cache, chunks, domain, domain_b, model, run_a, run_b):
    label_a, label_b = f"offline · {domain.name}", f"{model} · {domain.name}" if model else f"offline · {domain_b.name}"
    extraction_diff = cache.run(kn.diff_extractions, run_a, run_b, chunks=chunks, label_a=label_a, label_b=label_b)
    return extraction_diff, label_a, label_b


@app.cell
def summary(extraction_diff):
    mo.ui.table([{"items": "entities", **extraction_diff.entities.model_dump(),
                  "agreement": round(extraction_diff.entity_agreement, 3)},
                 {"items": "relations", **extraction_diff.relations.model_dump(),
                  "agreement": round(extraction_diff.relation_agreement, 3)}], selection=None)
    return


@app.cell
def pick(extraction_diff):
    document = mo.ui.dropdown([d.path for d in extraction_diff.documents], value=extraction_diff.documents[0].path
                              if extraction_diff.documents else None, label="document")
    only_changes = mo.ui.checkbox(value=True, label="only chunks that differ")
    mo.hstack([document, only_changes], justify="start")
    return document, only_changes


@app.cell
def view(document, extraction_diff, only_changes):
    one = extraction_diff.model_copy(update={"documents": tuple(d for d in extraction_diff.documents
                                                                if d.path == document.value)})
    mo.iframe(kn.diff_html(one, only_changes=only_changes.value, max_chunks=30), height="700px")
    return


@app.cell
def graphs(cache, domain, domain_b, model, run_a, run_b):
    graph_a = cache.run(kn.build_graph, run_a, domain=domain)
    graph_b = cache.run(kn.build_graph, run_b, domain=domain if model else domain_b)
    return graph_a, graph_b


@app.cell
def overlay(graph_a, graph_b, label_a, label_b):
    # both runs' graphs in one explorer: added by run B (blue), dropped by it (vermillion), in both (grey)
    graph_overlay = mo.ui.anywidget(kn.Explorer.overlay(graph_a, graph_b, labels=(label_a, label_b), height="560px"))
    mo.vstack([mo.md(f"run A **{len(graph_a.entities)}** entities, **{len(graph_a.relations)}** relations; run B "
                     f"**{len(graph_b.entities)}**, **{len(graph_b.relations)}**"), graph_overlay])
    return (graph_overlay,)


if __name__ == "__main__":
    app.run()
