"""How the CLI shows what an LLM run cost: rows for the summary tables (presentation only)."""

from __future__ import annotations

from typing import Any

__all__ = ["llm_rows"]


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
