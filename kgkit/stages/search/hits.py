"""Turn fused rows into the hits DataFrame (pure).

>>> from kgkit.stages.search.items import SearchItem
>>> items = [SearchItem(id="c1", kind="chunk", title="a.txt", body="Ada met Bob.", document_id="d1")]
>>> frame = hits_frame([(0, 0.5)], items, {"keyword": {0: (1, 2.5)}})
>>> frame[["rank", "id", "keyword_rank", "dense_rank"]].values.tolist()
[[1, 'c1', 1, None]]
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from kgkit.stages.search.items import SearchItem


@functools.cache
def _string_dtype() -> Any:
    """pandas' default string dtype, looked up once (a lookup by name costs ~0.1 ms)."""
    return pd.api.types.pandas_dtype("str")


def hits_frame(page: Sequence[tuple[int, float]], items: Sequence[SearchItem],
               detail: Mapping[str, Mapping[int, tuple[int, float]]], *, offset: int = 0,
               matches: Mapping[int, str] | None = None) -> pd.DataFrame:
    """One row per (row, fused score), ranks counted from offset + 1; per-channel rank/score or None; `match`:
    how the query names the item ('exact', 'phrase') or None.

    Built column by column (a typed array each: rank int64, score float64, id / kind / title / text strings, the
    rest object arrays keeping None), so pandas infers nothing: ~0.3 ms for a page of 10 instead of ~0.8 ms
    from a list of records (bench/RESULTS.md, "Search (issue 16)")."""
    from kgkit.stages.search.index import HIT_COLUMNS

    matches = matches or {}
    n = len(page)
    rows = [row for row, _ in page]
    chosen = [items[row] for row in rows]

    def objects(values: Sequence[Any]) -> np.ndarray:
        array = np.empty(n, dtype=object)
        array[:] = values
        return array

    def strings(values: list[str]) -> Any:
        return pd.array(values, dtype=_string_dtype())

    columns: dict[str, Any] = {
        "rank": np.arange(offset + 1, offset + n + 1, dtype=np.int64),
        "id": strings([i.id for i in chosen]),
        "kind": strings([i.kind for i in chosen]),
        "score": np.array([round(float(score), 6) for _, score in page], dtype=np.float64),
        "title": strings([i.title for i in chosen]),
        "type": objects([i.type for i in chosen]),
        "document_id": objects([i.document_id for i in chosen]),
        "chunk_id": objects([i.chunk_id for i in chosen]),
        "start": objects([i.start for i in chosen]),
        "end": objects([i.end for i in chosen]),
        "evidence": objects([i.evidence for i in chosen]),
        "text": strings([i.body for i in chosen]),
        "documents": objects([list(i.documents) for i in chosen]),
        "entities": objects([list(i.entities) for i in chosen]),
    }
    for channel in ("keyword", "dense", "graph"):
        found = detail.get(channel, {})
        pairs = [found.get(row) for row in rows]
        columns[f"{channel}_rank"] = objects([None if p is None else p[0] for p in pairs])
        columns[f"{channel}_score"] = objects([None if p is None else round(float(p[1]), 6) for p in pairs])
    columns["match"] = objects([matches.get(row) for row in rows])
    assert list(columns) == HIT_COLUMNS
    return pd.DataFrame(columns, copy=False)
