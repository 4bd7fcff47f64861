"""Split-off entities at build time: a mention of a split entity in one of the split's documents or chunks
takes the split's new id (the decisions and proposals are in kgkit.stages.resolve.split).

>>> spec = SplitSpec("L:paris", "L:paris~texas", frozenset({"doc:b"}), frozenset())
>>> split_ids(np.array(["L:paris", "L:paris"], dtype=object), np.array(["doc:a", "doc:b"], dtype=object), None,
...           [spec]).tolist()
['L:paris', 'L:paris~texas']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from kgkit.core.decisions import SplitSpec

__all__ = ["SplitSpec", "split_ids"]


def split_ids(ids: np.ndarray, documents: np.ndarray, chunks: np.ndarray | None,
              specs: Sequence[SplitSpec]) -> np.ndarray:
    """Entity ids per mention with the splits made: a mention of a split entity in one of its documents or
    chunks takes the new id. `documents` / `chunks`: each mention's document and chunk id (same length)."""
    out = np.asarray(ids, dtype=object).copy()
    for spec in specs:
        hit = out == spec.entity
        if not hit.any():
            continue
        where = pd.Series(documents).isin(spec.documents).to_numpy()
        if chunks is not None and spec.chunks:
            where |= pd.Series(chunks).isin(spec.chunks).to_numpy()
        out[hit & where] = spec.new_id
    return out
