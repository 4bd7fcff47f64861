"""Turn fused rows into the hits DataFrame (pure).

>>> from kgkit.stages.search.items import SearchItem
>>> items = [SearchItem(id="c1", kind="chunk", title="a.txt", body="Ada met Bob.", document_id="d1")]
>>> frame = hits_frame([(0, 0.5)], items, {"keyword": {0: (1, 2.5)}})
>>> frame[["rank", "id", "keyword_rank", "dense_rank"]].values.tolist()
[[1, 'c1', 1, None]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from kgkit.stages.search.items import SearchItem


def hits_frame(page: Sequence[tuple[int, float]], items: Sequence[SearchItem],
               detail: Mapping[str, Mapping[int, tuple[int, float]]], *, offset: int = 0,
               matches: Mapping[int, str] | None = None) -> pd.DataFrame:
    """One row per (row, fused score), ranks counted from offset + 1; per-channel rank/score or None; `match`:
    how the query names the item ('exact', 'phrase') or None."""
    matches = matches or {}
    from kgkit.stages.search.index import HIT_COLUMNS

    records: list[dict[str, Any]] = []
    for i, (row, score) in enumerate(page):
        item = items[row]
        rec: dict[str, Any] = {
            "rank": offset + i + 1, "id": item.id, "kind": item.kind, "score": round(float(score), 6),
            "title": item.title, "type": item.type, "document_id": item.document_id, "chunk_id": item.chunk_id,
            "start": item.start, "end": item.end, "evidence": item.evidence, "text": item.body,
            "documents": list(item.documents), "entities": list(item.entities),
        }
        for channel in ("keyword", "dense", "graph"):
            rank, value = detail.get(channel, {}).get(row, (None, None))
            rec[f"{channel}_rank"] = rank
            rec[f"{channel}_score"] = None if value is None else round(float(value), 6)
        rec["match"] = matches.get(row)
        records.append(rec)
    nullable = set(HIT_COLUMNS) - {"rank", "id", "kind", "score", "title", "text"}  # None stays None
    columns: dict[str, Any] = {}
    for c in HIT_COLUMNS:
        values = [r[c] for r in records]
        if c in nullable:
            array = np.empty(len(values), dtype=object)
            array[:] = values
            columns[c] = array
        else:
            columns[c] = values
    return pd.DataFrame(columns, columns=HIT_COLUMNS, copy=False)
