import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")

with app.setup:
    import os
    from pathlib import Path

    import marimo as mo
    import pandas as pd

    from kgkit import io
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.diff import diff_extractions
    from kgkit.stages.extract import extract_texts, locate, merge_document
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.stages.load import load_documents
    from kgkit.views.diff import diff_html

    ROOT = Path(__file__).resolve().parent.parent


@app.cell
def _():
    mo.md("""
    # Extraction: run an extractor, then diff two runs

    Run A is the offline extractor with one domain; run B is either the same corpus under another domain
    (offline, the default) or an LLM when `KGKIT_MODEL` is set (e.g. `openai/gpt-4o-mini`, with its API key).
    The diff shows, per document and chunk, what each run found, with the chunk text and each run's spans
    highlighted side by side. Every extraction goes through the content-hash cache.
    """)
    return


@app.cell
def config():
    corpus_dir = ROOT / "data" / "demo" / "sotu_1934_1946"
    domain = io.load_domain("general")
    domain_b = io.load_domain("people_orgs_events")
    extractor = OfflineExtractor()
    model = os.environ.get("KGKIT_MODEL")  # an LLM for run B when set (needs its provider's API key)
    cache = Cache(ROOT / "workspace" / "notebooks" / "cache")
    return cache, corpus_dir, domain, domain_b, extractor, model


@app.cell
def load(corpus_dir):
    documents, errors = load_documents(io.read_corpus(corpus_dir))
    chunks = [c for d in documents for c in chunk_document(d)]
    mo.md(f"**{len(documents)}** documents, **{len(chunks)}** chunks, **{len(errors)}** unreadable files")
    return chunks, documents


@app.cell
def extractor_b(extractor, model):
    if model:
        from kgkit.extractors.llm import LLMExtractor
        from kgkit.llm import BudgetLedger, LLMClient

        second = LLMExtractor(LLMClient(model, ledger=BudgetLedger(cap_usd=0.50)))
    else:
        second = extractor
    return (second,)


@app.function
def extract_run(cache, documents, chunks, domain, extractor):
    """One extraction run: every chunk through the cached stage, then merged per document."""
    found = cache.map(extract_texts, [c.text for c in chunks], domain=domain, extractor=extractor)
    located = {d.id: [] for d in documents}
    for text_extraction, c in zip(found, chunks):
        located[c.document_id].append(locate(text_extraction, c))
    return [merge_document(d, located[d.id]) for d in documents]


@app.cell
def run_a(cache, chunks, documents, domain, extractor):
    run_a = extract_run(cache, documents, chunks, domain, extractor)
    mo.md(f"run A: **{sum(len(c.extraction.entities) for d in run_a for c in d.chunks)}** entity mentions")
    return (run_a,)


@app.cell
def run_b(cache, chunks, documents, domain, domain_b, model, second):
    run_b = extract_run(cache, documents, chunks, domain if model else domain_b, second)
    mo.md(f"run B: **{sum(len(c.extraction.entities) for d in run_b for c in d.chunks)}** entity mentions")
    return (run_b,)


@app.cell
def diff(cache, chunks, domain, domain_b, model, run_a, run_b, second):
    label_b = f"{second.id} · {domain.name if model else domain_b.name}"
    extraction_diff = cache.run(diff_extractions, run_a, run_b, chunks=chunks, label_a=f"offline · {domain.name}",
                                label_b=label_b)
    return (extraction_diff,)


@app.cell
def summary(extraction_diff):
    mo.ui.table(pd.DataFrame([{"items": "entities", **extraction_diff.entities.model_dump(),
                               "agreement": round(extraction_diff.entity_agreement, 3)},
                              {"items": "relations", **extraction_diff.relations.model_dump(),
                               "agreement": round(extraction_diff.relation_agreement, 3)}]), selection=None)
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
    mo.iframe(diff_html(one, only_changes=only_changes.value, max_chunks=30), height="700px")
    return


if __name__ == "__main__":
    app.run()
