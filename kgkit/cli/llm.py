"""LLM commands for the kgkit CLI, registered on `kgkit.cli.app` when imported (litellm loads inside commands).

    kgkit discover DOCS -o WS --model openai/gpt-4o-mini --max-cost 0.20    -> WS/domain.yaml (editable)
    kgkit extract DOCS -o WS --model openai/gpt-4o-mini --max-cost 1.50     -> WS/extractions.jsonl, no graph
    kgkit run DOCS -o WS --model openai/gpt-4o-mini --max-cost 1.50 [--domain WS/domain.yaml]

Also the helpers `kgkit run --model` uses: `llm_extractor(...)` builds the client + extractor from the options,
`llm_rows(summary)` gives the cost lines of the run summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import _cache_root, _size, app


class LLMOptionError(ValueError):
    """Inconsistent model options (no price for an unknown model, no cap for a paid one)."""


def llm_extractor(
    model: str, *, max_cost: float | None, price_in: float | None = None, price_out: float | None = None,
    free: bool = False, concurrency: int = 8, rpm: int | None = None, tpm: int | None = None,
    document_context: bool = True, api_base: str | None = None, cache: Any = None, max_tokens: int = 2048,
    max_reasks: int = 2, timeout: float = 120.0,
) -> Any:
    """An LLMExtractor for a litellm model string, behind one budget ledger capped at `max_cost` dollars."""
    from kgkit.extractors.llm import LLMExtractor

    client = llm_client(model, max_cost=max_cost, price_in=price_in, price_out=price_out, free=free,
                        concurrency=concurrency, rpm=rpm, tpm=tpm, api_base=api_base, cache=cache,
                        max_tokens=max_tokens, max_reasks=max_reasks, timeout=timeout)
    return LLMExtractor(client, document_context=document_context)


def llm_client(
    model: str, *, max_cost: float | None, price_in: float | None = None, price_out: float | None = None,
    free: bool = False, concurrency: int = 8, rpm: int | None = None, tpm: int | None = None,
    api_base: str | None = None, cache: Any = None, max_tokens: int = 2048, max_reasks: int = 2,
    timeout: float = 120.0,
) -> Any:
    from kgkit.llm import BudgetLedger, LLMClient, LLMSettings, RateLimiter, UnknownPrice, resolve_price

    try:
        price = resolve_price(model, price_in=price_in, price_out=price_out, free=free)
    except (UnknownPrice, ValueError) as exc:
        raise LLMOptionError(str(exc)) from None
    if max_cost is None and not price.free:
        raise LLMOptionError(f"{model} costs money: give a hard cap with --max-cost DOLLARS (or --free for a local model)")
    return LLMClient(model, price=price, ledger=BudgetLedger(cap_usd=max_cost), cache=cache,
                     settings=LLMSettings(max_tokens=max_tokens, max_reasks=max_reasks, timeout=timeout),
                     max_concurrency=concurrency, limiter=RateLimiter(rpm=rpm, tpm=tpm),
                     extra={"api_base": api_base} if api_base else {})


def extraction_batch_size(uses_llm: bool, concurrency: int) -> int:
    """Chunks per extraction batch: small for the offline extractor (progress, memory), large for an LLM so
    the requests of one batch keep `concurrency` slots busy (a batch ends before the next one starts).

    >>> extraction_batch_size(False, 8), extraction_batch_size(True, 8)
    (16, 256)
    """
    return max(64, 32 * concurrency) if uses_llm else 16


def llm_rows(summary: dict[str, Any], *, top_documents: int = 10) -> list[tuple[str, str]]:
    """Summary table rows for the LLM part of a run: budget, spending, requests and tokens per stage, and the
    documents that cost most (this run's spending)."""
    llm = summary.get("llm")
    if not llm:
        return []
    cap = "no cap" if llm["cap_usd"] is None else f"${llm['cap_usd']:.4f}"
    rows = [("LLM spent / cap", f"${llm['spent_usd']:.4f} / {cap}"),
            ("LLM calls refused (budget)", str(llm["refused"]))]
    for stage, s in sorted(llm["stages"].items()):
        rows.append((f"  {stage}", f"{s['calls']} requests, {s['cached']} cached, "
                                   f"{s['prompt_tokens'] + s['completion_tokens']} tokens, ${s['cost_usd']:.4f}"))
    per_doc: dict[str, list[float]] = {}
    paths: dict[str, str] = {}
    for row in summary.get("llm_costs", []):
        if row["document_id"]:
            acc = per_doc.setdefault(row["document_id"], [0, 0.0])
            acc[0] += row["tokens"]
            acc[1] += row["cost_usd"]
            paths[row["document_id"]] = row["path"] or paths.get(row["document_id"], "")
    ranked = sorted(per_doc.items(), key=lambda kv: (-kv[1][1], kv[0]))
    for doc_id, (tokens, cost) in ranked[:top_documents]:
        rows.append((f"  {paths.get(doc_id) or doc_id}", f"{int(tokens)} tokens, ${cost:.4f}"))
    if len(ranked) > top_documents:
        rows.append(("  ...", f"{len(ranked) - top_documents} more documents in run.json (llm_costs)"))
    return rows


@app.command()
def discover(
    docs: Path = typer.Argument(..., help="Folder (or file) of documents to sample."),
    output: Path = typer.Option(..., "-o", "--output", help="Workspace folder (domain.yaml and cache go here)."),
    model: str = typer.Option(..., "--model", "-m", help="litellm model string, e.g. openai/gpt-4o-mini, ollama/llama3.1."),
    max_cost: float | None = typer.Option(None, "--max-cost", help="Hard budget cap in dollars."),
    price_in: float | None = typer.Option(None, "--price-in", help="Input price, dollars per 1M tokens (unlisted models)."),
    price_out: float | None = typer.Option(None, "--price-out", help="Output price, dollars per 1M tokens."),
    free: bool = typer.Option(False, "--free", help="A local model (Ollama, vLLM): no price, no cost."),
    api_base: str | None = typer.Option(None, "--api-base", help="Provider URL (e.g. http://localhost:11434)."),
    max_types: int = typer.Option(10, "--max-types", help="Entity types at most, fallback types included."),
    sample: int = typer.Option(12, "--sample", help="Chunks sampled from the corpus."),
    seed: int = typer.Option(0, "--seed", help="Sampling seed (same corpus + seed -> same sample)."),
    name: str = typer.Option("discovered", "--name", help="The domain's name."),
    domain_file: Path | None = typer.Option(None, "--domain-file", help="Where to write (default WS/domain.yaml)."),
    max_size: str = typer.Option("20MB", help="Files larger than this are not read."),
    chunk_chars: int = typer.Option(2000, help="Maximum characters per chunk."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Propose a domain (entity and relation types) from sampled chunks; save it as editable YAML."""
    from kgkit import io
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.discover import discover_domain
    from kgkit.workflows.pipeline import load_corpus

    if not docs.exists():
        typer.echo(f"no such file or folder: {docs}", err=True)
        raise typer.Exit(2)
    cache = Cache(_cache_root(None, output))
    try:
        client = llm_client(model, max_cost=max_cost, price_in=price_in, price_out=price_out, free=free,
                            api_base=api_base, cache=cache)
    except LLMOptionError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    documents, _errors = load_corpus(docs, cache=cache, max_bytes=_size(max_size))
    texts = [c.text for d in documents for c in chunk_document(d, max_chars=chunk_chars)]
    found = discover_domain(texts, client=client, max_entity_types=max_types, sample=sample, seed=seed, name=name)
    report = {"llm": client.ledger.summary(), "error": found.error}
    if found.domain is None:
        typer.echo(json.dumps(report, indent=2) if as_json else f"discovery failed: {found.error}", err=not as_json)
        raise typer.Exit(1)
    target = domain_file or output / "domain.yaml"
    io.save_domain(found.domain, target)
    report.update({"domain": found.domain.id, "path": str(target), "entity_types": sorted(found.domain.entity_types),
                   "relation_types": sorted(found.domain.relation_types)})
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True))
        return
    typer.echo(f"{found.domain.id}  {len(found.domain.entity_types)} entity types, "
               f"{len(found.domain.relation_types)} relation types -> {target}")
    for label, value in llm_rows(report):
        typer.echo(f"{label}: {value}")
    typer.echo(f"edit it, then: kgkit run {docs} -o {output} --domain {target} --model {model}")


@app.command()
def extract(
    docs: Path = typer.Argument(..., help="Folder (or file) of documents."),
    output: Path = typer.Option(..., "-o", "--output", help="Workspace folder (extractions.jsonl, extract.json, cache)."),
    domain: str = typer.Option("general", "--domain", "-d", help="Bundled domain name or path to a domain YAML."),
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model string; offline extractor without it."),
    max_cost: float | None = typer.Option(None, "--max-cost", help="Hard budget cap in dollars."),
    price_in: float | None = typer.Option(None, "--price-in", help="Input price, dollars per 1M tokens (unlisted models)."),
    price_out: float | None = typer.Option(None, "--price-out", help="Output price, dollars per 1M tokens."),
    free: bool = typer.Option(False, "--free", help="A local model (Ollama, vLLM): no price, no cost."),
    api_base: str | None = typer.Option(None, "--api-base", help="Provider URL (e.g. http://localhost:11434)."),
    concurrency: int = typer.Option(8, "--concurrency", help="LLM requests in flight at most."),
    no_context: bool = typer.Option(False, "--no-context", help="No shared document summary in extraction prompts."),
    max_size: str = typer.Option("20MB", help="Files larger than this are reported, not read."),
    chunk_chars: int = typer.Option(2000, help="Maximum characters per chunk."),
    overlap_chars: int = typer.Option(200, help="Characters of whole sentences repeated between chunks."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Load, chunk and extract only (no graph): write extractions.jsonl and extract.json with the costs."""
    from kgkit import io
    from kgkit.io.cache import Cache
    from kgkit.core.domain import DomainError
    from kgkit.stages.extract import extract_texts
    from kgkit.llm.report import cost_report
    from kgkit.workflows.pipeline import default_extractor, extract_documents, load_corpus

    if not docs.exists():
        typer.echo(f"no such file or folder: {docs}", err=True)
        raise typer.Exit(2)
    cache = Cache(_cache_root(None, output))
    try:
        dom = io.load_domain(domain)
        extractor = default_extractor() if model is None else llm_extractor(
            model, max_cost=max_cost, price_in=price_in, price_out=price_out, free=free, concurrency=concurrency,
            document_context=not no_context, api_base=api_base, cache=cache)
    except (DomainError, LLMOptionError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    documents, errors = load_corpus(docs, cache=cache, max_bytes=_size(max_size))
    chunks, extractions = extract_documents(
        documents, cache=cache, domain=dom, extractor=extractor, max_chars=chunk_chars, overlap_chars=overlap_chars,
        batch_size=extraction_batch_size(model is not None, concurrency))
    ledger = getattr(getattr(extractor, "client", None), "ledger", None)
    summary: dict[str, Any] = {
        "documents_ok": len(documents), "documents_failed": len(errors),
        "chunks": len(chunks), "chunk_errors": [e for x in extractions for e in x.errors],
        "extractor": extractor.id, "extractor_calls": cache.stats.computed[extract_texts.stage_name],
        "domain": dom.id,
    }
    if ledger is not None:
        summary["llm"] = ledger.summary()
        summary["llm_costs"] = cost_report(ledger.charges, extractions).to_dict("records")
    io.write_jsonl(output / "extractions.jsonl", [e.model_dump(mode="json") for e in extractions])
    io.write_json(output / "extract.json", summary, indent=2)
    if as_json:
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    typer.echo(f"{summary['documents_ok']} documents, {summary['chunks']} chunks "
               f"({len(summary['chunk_errors'])} failed), {summary['extractor_calls']} extracted now "
               f"-> {output / 'extractions.jsonl'}")
    for label, value in llm_rows(summary):
        typer.echo(f"{label}: {value}")
    for err in summary["chunk_errors"][:20]:
        typer.echo(f"chunk failed {err}")
