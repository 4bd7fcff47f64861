"""Turn fused rows into the hits DataFrame (pure).

>>> from kgkit.stages.search.items import SearchItem
>>> items = [SearchItem(id="c1", kind="chunk", title="a.txt", body="Ada met Bob.", document_id="d1")]
>>> frame = hits_frame([(0, 0.5)], items, {"keyword": {0: (1, 2.5)}})
>>> frame[["rank", "id", "keyword_rank", "dense_rank"]].values.tolist()
[[1, 'c1', 1, None]]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from kgkit.stages.search.items import SearchItem


@functools.cache
def _string_dtype() -> Any:
    """pandas' default string dtype, looked up once (a lookup by name costs ~0.1 ms)."""
    return pd.api.types.pandas_dtype("str")


@functools.cache
def _strings_builder() -> Callable[[list[str | None]], Any] | None:
    """A quicker way to the string column `pd.array(values, dtype="str")` gives, when pandas keeps strings in
    pyarrow: the pyarrow array wrapped as they are (~13 µs a column against ~30); None otherwise."""
    dtype = _string_dtype()
    if not isinstance(dtype, pd.StringDtype) or dtype.storage != "pyarrow":
        return None
    import pyarrow as pa

    arrow_type = pa.array(pd.array([""], dtype=dtype)).type  # the type pandas stores them as

    def build(values: list[str | None]) -> Any:
        return pd.arrays.ArrowStringArray(pa.array(values, type=arrow_type), dtype=dtype)

    try:
        build(["a", None])
    except (TypeError, ValueError):  # a pandas whose constructor differs: pd.array
        return None
    return build


@functools.cache
def _column_index() -> pd.Index:
    """The hits' column labels as one Index, built once (pandas infers a string Index's dtype: ~40 µs each time)."""
    from kgkit.stages.search.config import HIT_COLUMNS

    return pd.Index(HIT_COLUMNS)


def _frame(columns: dict[str, Any], n: int) -> pd.DataFrame:
    """A DataFrame of typed 1-d arrays of length `n`, passed to pandas as they are (`DataFrame._from_arrays`
    without re-checking them: ~0.06 ms against ~0.25 ms for `pd.DataFrame(dict)`, which re-checks every column;
    the same frame, tests/test_search_queries.py); the public constructor when a pandas lacks that method."""
    from kgkit.stages.search.config import HIT_COLUMNS

    arrays = list(columns.values())
    build = getattr(pd.DataFrame, "_from_arrays", None)
    if build is not None and list(columns) == HIT_COLUMNS:
        try:
            return build(arrays, columns=_column_index(), index=pd.RangeIndex(n), verify_integrity=False)
        except (TypeError, ValueError):  # another pandas' signature or checks: the public path below
            pass
    return pd.DataFrame(columns, copy=False)


def hits_frame(page: Sequence[tuple[int, float]], items: Sequence[SearchItem],
               detail: Mapping[str, Mapping[int, tuple[int, float]]], *, offset: int = 0,
               matches: Mapping[int, str] | None = None) -> pd.DataFrame:
    """One row per (row, fused score), ranks counted from offset + 1; per-channel rank/score or None; `match`:
    how the query names the item ('exact', 'phrase') or None.

    Built column by column, each array typed as pandas would infer it from the values (rank int64, score
    float64, strings where every value is a string or None and one is a string, object arrays keeping None
    elsewhere), so pandas need not look at them (bench/RESULTS.md, "Search (issue 16)")."""
    from kgkit.stages.search.config import HIT_COLUMNS

    matches = matches or {}
    n = len(page)
    rows = [row for row, _ in page]
    chosen = [items[row] for row in rows]

    def objects(values: Sequence[Any]) -> np.ndarray:
        array = np.empty(n, dtype=object)
        array[:] = values
        return array

    fast_strings = _strings_builder()

    def strings(values: list[str]) -> Any:
        return pd.array(values, dtype=_string_dtype()) if fast_strings is None else fast_strings(values)

    def texts(values: list[str | None]) -> Any:  # a string column with gaps, as pandas' own inference types it
        typed = isinstance(_string_dtype(), pd.StringDtype) and any(v is not None for v in values)
        return strings(values) if typed and all(v is None or isinstance(v, str) for v in values) else objects(values)

    columns: dict[str, Any] = {
        "rank": np.arange(offset + 1, offset + n + 1, dtype=np.int64),
        "id": strings([i.id for i in chosen]),
        "kind": strings([i.kind for i in chosen]),
        "score": np.array([round(float(score), 6) for _, score in page], dtype=np.float64),
        "title": strings([i.title for i in chosen]),
        "type": texts([i.type for i in chosen]),
        "document_id": texts([i.document_id for i in chosen]),
        "chunk_id": texts([i.chunk_id for i in chosen]),
        "start": objects([i.start for i in chosen]),
        "end": objects([i.end for i in chosen]),
        "evidence": texts([i.evidence for i in chosen]),
        "text": strings([i.body for i in chosen]),
        "documents": objects([list(i.documents) for i in chosen]),
        "entities": objects([list(i.entities) for i in chosen]),
    }
    for channel in ("keyword", "dense", "graph"):
        found = detail.get(channel, {})
        pairs = [found.get(row) for row in rows]
        columns[f"{channel}_rank"] = objects([None if p is None else p[0] for p in pairs])
        columns[f"{channel}_score"] = objects([None if p is None else round(float(p[1]), 6) for p in pairs])
    columns["match"] = texts([matches.get(row) for row in rows])
    assert list(columns) == HIT_COLUMNS
    return _frame(columns, n)
