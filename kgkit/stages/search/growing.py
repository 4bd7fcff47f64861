"""GrowingArray: a numpy array that grows by doubling, for the search index's per-row and per-entry columns.

>>> a = GrowingArray(np.int32)
>>> for v in range(100):
...     a.append(v)
>>> a.extend(np.arange(3))
>>> len(a.view()), int(a.view()[-1]), len(a.data)
(103, 2, 128)
"""

from __future__ import annotations

import numpy as np


class GrowingArray:
    """A numpy array that grows by doubling (amortised O(1) append)."""

    def __init__(self, dtype: type, fill: object = 0) -> None:
        self.data = np.full(64, fill, dtype=dtype)
        self.fill, self.n = fill, 0

    def append(self, value: object) -> None:
        """Append one value."""
        if self.n == len(self.data):
            bigger = np.full(len(self.data) * 2, self.fill, dtype=self.data.dtype)
            bigger[: self.n] = self.data
            self.data = bigger
        self.data[self.n] = value
        self.n += 1

    def extend(self, values: np.ndarray) -> None:
        """Append many values."""
        need = self.n + len(values)
        if need > len(self.data):
            bigger = np.full(max(need, len(self.data) * 2), self.fill, dtype=self.data.dtype)
            bigger[: self.n] = self.data[: self.n]
            self.data = bigger
        self.data[self.n : need] = values
        self.n = need

    def view(self) -> np.ndarray:
        """The values so far (a view: no copy)."""
        return self.data[: self.n]
