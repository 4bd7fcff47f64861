"""Query vectors for the dense channel: the vectors of recent query texts (least recently used out first), and a
question embedded side by side with the keyword channel.

An embedder whose query encoder runs without Python (`LeanMiniLM.query_job`: onnxruntime's `run_async`, once
its model is loaded) embeds a question on onnxruntime's own thread while this thread runs the keyword channel
(`beside`); when the keyword hits make the vector useless (a lookup: the dense weight drops to 0), the
embedding is cancelled (onnxruntime checks the flag between graph nodes). With a second core free the two
stages take the longer of the two instead of their sum; on a busy machine the two share a core and take about
their sum, as one after the other (bench/RESULTS.md, "Search (issue 16)"). The index starts one only for a
question no row has every word of (`KeywordIndex.lookup_possible`), so a lookup never pays for an embedding.

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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

if TYPE_CHECKING:
    pass

__all__ = ["EncodeJob", "QueryVectors", "beside"]

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
