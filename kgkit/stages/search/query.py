"""Query vectors for the dense channel: the vectors of recent query texts (least recently used out first), and a
question embedded side by side with the keyword channel.

An embedder whose query encoder runs without Python (`LeanMiniLM.query_job`: onnxruntime's `run_async`, once
its model is loaded) embeds a question on onnxruntime's own thread while this thread runs the keyword channel
(`beside`); when the keyword hits make the vector useless (a lookup: the dense weight drops to 0), the
embedding is cancelled (onnxruntime checks the flag between graph nodes). With a second core free the two
stages take the longer of the two instead of their sum; on a busy machine the two share a core and take about
their sum, as one after the other (bench/RESULTS.md, "Search (issue 16)"). The index starts one only for a
question no row has every word of (`lookup_possible`), so a lookup never pays for an embedding.

>>> from kgkit.stages.embed import HashingEmbedder
>>> vectors = QueryVectors()
>>> v = vectors.vector(HashingEmbedder(dim=8), "a question", size=2)
>>> v.shape, vectors.vector(HashingEmbedder(dim=8), "a question", size=2) is v
((8,), True)
>>> class Job:  # what an embedder's query_job gives: start(), result() -> vector or None once cancelled, cancel()
...     cancelled = False
...     def start(self): pass
...     def result(self): return None if self.cancelled else np.ones(2, np.float32)
...     def cancel(self): self.cancelled = True
>>> beside(Job(), lambda: "lookup", stop=lambda found: found == "lookup")
('lookup', None)
>>> beside(Job(), lambda: "question", stop=lambda found: found == "lookup")[1].tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

if TYPE_CHECKING:
    from kgkit.stages.search.bm25 import KeywordIndex

__all__ = ["EncodeJob", "QueryVectors", "beside", "lookup_possible"]

T = TypeVar("T")


class EncodeJob(Protocol):
    """One query's embedding, prepared: `start()` runs it off this thread, `result()` waits for the vector (None
    once `cancel()` stopped it) (kgkit.stages.search.onnx_minilm.EncodeJob)."""

    def start(self) -> None: ...

    def result(self) -> np.ndarray | None: ...

    def cancel(self) -> None: ...


def beside(job: EncodeJob, side: Callable[[], T], *, stop: Callable[[T], bool]) -> tuple[T, np.ndarray | None]:
    """Start `job`, run `side()` here meanwhile; when `stop(side's result)`, cancel the job. Returns (side's
    result, the job's vector, or None when stopped). The module docstring has an example."""
    job.start()
    try:
        found = side()
    except BaseException:
        job.cancel()
        raise
    if stop(found):
        job.cancel()
        return found, None
    vector = job.result()
    if vector is None:
        raise RuntimeError("the query embedding was cancelled although the keyword channel wanted it")
    return found, vector


def lookup_possible(keyword: KeywordIndex, terms: Sequence[str], *, mask: np.ndarray | None = None,
                    budget: int = 2048, few: int = 32) -> bool | None:
    """Whether some live row allowed by `mask` has every one of `terms` (what a lookup needs, SearchConfig),
    read cheaply from the keyword index, or None (not known) when that would read more than ~`budget` index
    entries: the rarest term's rows, narrowed by the next rarest terms' posting lists (rows ascending: a binary
    search) until the rows are at most `few` or their own entries fewer than the next list, then the rows' own
    entries in the forward index (a row's entries are its distinct terms) for the terms left.

    >>> from kgkit.stages.search.bm25 import KeywordIndex
    >>> k = KeywordIndex()
    >>> k.add_many([("Ada", "wrote the first program"), ("Bob", "ran the first mile")])
    0
    >>> k.settle()
    >>> lookup_possible(k, ["first", "program"]), lookup_possible(k, ["program", "mile"]), lookup_possible(k, ["zzz"])
    (True, False, False)
    """
    df = keyword.df.view()
    ids = [keyword.vocab.get(t) for t in dict.fromkeys(terms)]
    if not ids or any(i is None or df[i] == 0 for i in ids):
        return False
    ids.sort(key=lambda i: int(df[i]))  # type: ignore[arg-type]
    if df[ids[0]] > budget:
        return None
    rows = keyword.e_row.data[keyword._posting(ids[0])].astype(np.int64)
    alive, start = keyword.alive.data, keyword.row_start.data
    rows = rows[alive[rows] if mask is None else alive[rows] & mask[rows]]
    rest = ids[1:]
    while rest and len(rows):
        low, size = start[rows], start[rows + 1] - start[rows]
        total = int(size.sum())
        if total <= budget and (len(rows) <= few or total <= df[rest[0]]):
            break  # the rows' own entries are few: read them
        if df[rest[0]] > budget:
            return None
        other = keyword.e_row.data[keyword._posting(rest[0])]
        rows = rows[other[np.minimum(np.searchsorted(other, rows), len(other) - 1)] == rows]
        rest = rest[1:]
    if not rest or not len(rows):
        return bool(len(rows))
    at = np.repeat(low - np.cumsum(size) + size, size) + np.arange(total)  # the rows' entries, row after row
    wanted, found = np.sort(np.array(rest, dtype=np.int64)), keyword.e_term.data[at]
    hit = wanted[np.minimum(np.searchsorted(wanted, found), len(wanted) - 1)] == found
    has = np.add.reduceat(hit.astype(np.int32), np.cumsum(size) - size)  # each row's terms left
    return bool((has >= len(rest)).any())


class QueryVectors:
    """The vectors of the last `size` query texts by (embedder id, query encoder, text), most recently used
    kept; `size` 0 keeps none. Thread-safe."""

    def __init__(self) -> None:
        self._vectors: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(embedder: Any, text: str) -> tuple[str, str, str]:
        return embedder.id, getattr(embedder, "query_encoder", ""), text

    def get(self, embedder: Any, text: str, *, size: int) -> np.ndarray | None:
        """The kept vector of `text`, or None."""
        if size <= 0:
            return None
        with self._lock:
            vector = self._vectors.get(self.key(embedder, text))
            if vector is not None:
                self._vectors.move_to_end(self.key(embedder, text))
            return vector

    def put(self, embedder: Any, text: str, vector: np.ndarray, *, size: int) -> np.ndarray:
        """Keep `vector` (as read-only float32) for `text`; returns it."""
        vector = np.asarray(vector, dtype=np.float32)
        vector.setflags(write=False)
        if size > 0:
            with self._lock:
                self._vectors[self.key(embedder, text)] = vector
                while len(self._vectors) > size:
                    self._vectors.popitem(last=False)
        return vector

    def job(self, embedder: Any, text: str, *, size: int) -> EncodeJob | None:
        """A cancellable embedding of `text` to run beside the keyword channel, or None: the vector is kept,
        or the embedder has no such path (no `query_job`, or its model is not loaded yet)."""
        make = getattr(embedder, "query_job", None)
        if make is None or self.get(embedder, text, size=size) is not None:
            return None
        return make(text)

    def vector(self, embedder: Any, text: str, *, size: int) -> np.ndarray:
        """`text`'s vector: kept, or embedded now through the embedder's `query(text)` when it has one
        (LeanMiniLM: onnxruntime int8), else `embedder([text])[0]`."""
        vector = self.get(embedder, text, size=size)
        if vector is not None:
            return vector
        query = getattr(embedder, "query", None)
        return self.put(embedder, text, query(text) if callable(query) else embedder([text])[0], size=size)
