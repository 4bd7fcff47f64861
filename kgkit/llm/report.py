"""Cost report: tokens and dollars per stage and per document, as a DataFrame.

One row per (stage, label) from the ledger's charges — label is the document id for "extract" and "context"
requests, "" for corpus-level calls ("discover"). `requests` were sent and paid this run; `cache_hits` were
answered from the per-request cache at no cost. With `extractions`, the "extract" rows also get
`recorded_usd`: what the document's extractions cost when they were made (this run or an earlier one whose
results the stage cache re-used).

>>> from kgkit.llm.ledger import Charge
>>> charges = [Charge("extract", "doc:a", "m", 100, 20, 0.01), Charge("extract", "doc:a", "m", 90, 10, 0.0, cached=True),
...            Charge("context", "doc:a", "m", 50, 10, 0.002)]
>>> cost_report(charges)[["stage", "document_id", "requests", "cache_hits", "tokens", "cost_usd"]].to_dict("records")
[{'stage': 'context', 'document_id': 'doc:a', 'requests': 1, 'cache_hits': 0, 'tokens': 60, 'cost_usd': 0.002}, {'stage': 'extract', 'document_id': 'doc:a', 'requests': 1, 'cache_hits': 1, 'tokens': 220, 'cost_usd': 0.01}]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgkit.core.records import DocumentExtraction
from kgkit.llm.ledger import Charge

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ["stage", "document_id", "path", "requests", "cache_hits", "prompt_tokens", "completion_tokens", "tokens",
           "cost_usd", "recorded_usd"]


def cost_report(charges: Sequence[Charge], extractions: Sequence[DocumentExtraction] = ()) -> pd.DataFrame:
    """Tokens and dollars per (stage, document); sorted by stage then document id."""
    import pandas as pd

    paths = {e.document_id: e.path for e in extractions}
    rows: dict[tuple[str, str], dict[str, object]] = {}

    def row(stage: str, label: str) -> dict[str, object]:
        return rows.setdefault((stage, label), {
            "stage": stage, "document_id": label, "path": paths.get(label, ""), "requests": 0, "cache_hits": 0,
            "prompt_tokens": 0, "completion_tokens": 0, "tokens": 0, "cost_usd": 0.0, "recorded_usd": 0.0})

    for c in charges:
        r = row(c.stage, c.label)
        r["cache_hits" if c.cached else "requests"] += 1  # type: ignore[operator]
        r["prompt_tokens"] += c.prompt_tokens  # type: ignore[operator]
        r["completion_tokens"] += c.completion_tokens  # type: ignore[operator]
        r["tokens"] += c.prompt_tokens + c.completion_tokens  # type: ignore[operator]
        r["cost_usd"] = round(float(r["cost_usd"]) + c.cost_usd, 10)  # type: ignore[arg-type]
    for doc in extractions:
        llm = [c.extraction for c in doc.chunks if c.extraction.quality == "llm"]
        if llm:
            r = row("extract", doc.document_id)
            r["recorded_usd"] = round(sum(x.cost_usd for x in llm), 10)
    frame = pd.DataFrame(list(rows.values()), columns=COLUMNS)
    return frame.sort_values(["stage", "document_id"], kind="stable").reset_index(drop=True)
