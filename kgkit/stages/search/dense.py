"""The dense channel: exact inner-product search over float32 rows (cosine similarity for L2-normalised rows).

The float32 product over 100k x 384 rows reads 154 MB and is memory-bound (~11 ms on one core). From
`HALF_MIN_ROWS` rows, when torch is installed, the channel first scores a float16 copy of the rows (half the
bytes, ~5 ms), then re-scores in float32 every row whose float16 score is within twice a proven error bound of
the `limit`-th best: the error of a float16 score is at most `E` (the rows' and the query's rounding, the
product's output rounding and accumulation, from the stored maxima), so every row of the exact top `limit` is
among the re-scored ones and the result is the float32 one. A query whose candidates are more than a quarter of
the rows falls back to the float32 product.

From `approximate_from` rows (SearchConfig.dense_approximate, default `APPROX_MIN_ROWS`), when faiss is installed
(kgkit[search]), the channel is approximate instead: a product-quantised copy of the rows (faiss IndexPQFastScan,
dim / 4 sub-vectors of 4 bits each: 48 bytes a 384-d row, 4.8 MB at 100k) is scanned for the `candidates`
(default 1,000) best rows, which are re-scored exactly in float32 and the best `limit` of them returned: the
scores are the float32 ones, a row of the exact top `limit` can be missed when the quantised scan ranks it below
the candidates. At 100k x 384 the scan and re-scoring take ~1.5 ms of CPU against ~13 ms for the float32 product
and ~6 ms for the float16 pass; the top 5 equal the exact ones on 100% of the docstrings questions, the top 100
on ~99% (bench/RESULTS.md, "Search (issue 16)"). The codebooks are trained (k-means, one thread, fixed seed) at
the first search from up to `PQ_TRAIN_ROWS` rows spread over the index, new rows are encoded as they come, and
the codebooks are retrained when the rows have doubled since. A filter leaving too few rows for the candidates
to hold `limit` of them falls back to the exact path.

>>> d = DenseIndex(dim=2)
>>> d.add(np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32))
>>> rows, scores = d.search(np.array([0.0, 1.0], dtype=np.float32), limit=1)
>>> rows.tolist(), [round(float(s), 2) for s in scores]
([1], [0.8])
"""

from __future__ import annotations

import threading

import numpy as np

HALF_MIN_ROWS = 20_000  # below this the float32 product takes <= ~2 ms; the float16 copy would not pay for itself
APPROX_MIN_ROWS = 20_000  # SearchConfig.dense_approximate's default: from here the product-quantised scan
APPROX_CANDIDATES = 1_000  # rows the quantised scan hands to the float32 re-scoring
PQ_TRAIN_ROWS = 30_000  # at most this many rows train the codebooks
_HALF_MAX_ABS = 1.0e4  # rows with larger entries stay float32-only (float16 overflows at 65504)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _faiss():
    try:
        import faiss
    except ImportError:
        return None
    return faiss


class _OneThread:
    """faiss (OpenMP) on one thread for the calls inside, the process's setting restored after: a search is one
    query, and idle OpenMP workers spinning on a shared machine cost more than they save."""

    def __init__(self, faiss) -> None:
        self.faiss = faiss

    def __enter__(self) -> None:
        self.before = self.faiss.omp_get_max_threads()
        self.faiss.omp_set_num_threads(1)

    def __exit__(self, *exc: object) -> None:
        self.faiss.omp_set_num_threads(self.before)


class DenseIndex:
    """A growing (n, dim) float32 matrix; rows line up with the keyword index's rows.

    `half`: None (default) scores a float16 copy first from `HALF_MIN_ROWS` rows when torch is installed (the
    results are the float32 ones, see the module docstring); False always runs the float32 product alone."""

    def __init__(self, dim: int, *, half: bool | None = None) -> None:
        self.dim, self.half = dim, half
        self.matrix = np.zeros((256, dim), dtype=np.float32)
        self.n = 0
        self._half_lock = threading.Lock()
        self._half_matrix = None  # torch float16 tensor, capacity >= _half_n
        self._half_n = 0  # rows copied so far
        self._half_err = 0.0  # max over copied rows of ||row - float16(row)||
        self._half_norm = 0.0  # max over copied rows of ||float16(row)||
        self._half_ok = True  # False once a row's entries are too large for float16
        self._pq_lock = threading.Lock()
        self._pq = None  # faiss IndexPQFastScan over rows [0, _pq_n)
        self._pq_n = 0
        self._pq_trained = 0  # rows there were when its codebooks were trained

    def __len__(self) -> int:
        return self.n

    def add(self, vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        need = self.n + len(vectors)
        if need > len(self.matrix):
            bigger = np.zeros((max(need, 2 * len(self.matrix)), self.dim), dtype=np.float32)
            bigger[: self.n] = self.matrix[: self.n]
            self.matrix = bigger
        self.matrix[self.n : need] = vectors
        self.n = need

    def vectors(self, rows: np.ndarray) -> np.ndarray:
        return self.matrix[rows]

    def _half_rows(self, n: int):
        """The float16 copy of the first `n` rows (a torch tensor), brought up to date; None when not used."""
        if self.half is False or n < HALF_MIN_ROWS or not self._half_ok:
            return None
        torch = _torch()
        if torch is None:
            return None
        with self._half_lock:
            if self._half_n < n:
                new = self.matrix[self._half_n : n]
                if self._half_matrix is None or len(self._half_matrix) < n:
                    bigger = torch.empty((max(n, 2 * self._half_n), self.dim), dtype=torch.float16)
                    if self._half_matrix is not None:
                        bigger[: self._half_n] = self._half_matrix[: self._half_n]
                    self._half_matrix = bigger
                with torch.inference_mode():
                    for start in range(0, len(new), 8192):  # chunks: the temporaries stay in cache
                        rows = torch.from_numpy(new[start : start + 8192])
                        if float(rows.abs().max()) >= _HALF_MAX_ABS:
                            self._half_ok = False
                            return None
                        halves = rows.to(torch.float16)
                        back = halves.to(torch.float32)
                        err = float(torch.linalg.vector_norm(rows - back, dim=1).max())
                        self._half_err = max(self._half_err, err)
                        self._half_norm = max(self._half_norm, float(torch.linalg.vector_norm(back, dim=1).max()))
                        at = self._half_n + start
                        self._half_matrix[at : at + len(halves)] = halves
                self._half_n = n
            return self._half_matrix[:n]

    def _pq_rows(self, n: int):
        """The product-quantised copy of the first `n` rows (a faiss index), trained and brought up to date;
        None when faiss is not installed or the dimension does not split into 4-d sub-vectors."""
        faiss = _faiss()
        if faiss is None or self.dim % 4 or self.dim < 8:
            return None
        with self._pq_lock, _OneThread(faiss):
            if self._pq is None or n >= 2 * self._pq_trained:
                sample = self.matrix[np.linspace(0, n - 1, min(n, PQ_TRAIN_ROWS)).astype(np.int64)]
                index = faiss.IndexPQFastScan(self.dim, self.dim // 4, 4, faiss.METRIC_INNER_PRODUCT)
                index.train(np.ascontiguousarray(sample))
                self._pq, self._pq_n, self._pq_trained = index, 0, n
            if self._pq_n < n:
                for start in range(self._pq_n, n, 65_536):
                    self._pq.add(np.ascontiguousarray(self.matrix[start : min(n, start + 65_536)]))
                self._pq_n = n
            return self._pq

    def _search_pq(self, query: np.ndarray, mask: np.ndarray | None, limit: int, candidates: int, n: int
                   ) -> tuple[np.ndarray, np.ndarray] | None:
        """The quantised scan's best candidates re-scored in float32; None: use the exact path."""
        allowed = n if mask is None else int(np.count_nonzero(mask[:n]))
        if allowed == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        want = -(-max(candidates, limit) * n // allowed)  # enough for `candidates` allowed rows on average
        if want > n // 4:
            return None
        index = self._pq_rows(n)
        if index is None:
            return None
        with _OneThread(_faiss()):
            _, found = index.search(query.reshape(1, -1), want)
        rows = found[0][found[0] >= 0]
        if mask is not None:
            rows = rows[mask[rows]]
        if len(rows) < min(limit, allowed):
            return None
        return _best(rows.astype(np.int64), self.matrix[rows] @ query, limit)

    def search(self, query: np.ndarray, *, mask: np.ndarray | None = None, limit: int = 100,
               approximate_from: int | None = None, candidates: int = APPROX_CANDIDATES
               ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of the `limit` best allowed rows by float32 inner product, best first (ties: older
        row first). From `approximate_from` rows (None: never) the rows come from the product-quantised scan's
        `candidates` best (module docstring); their scores are still the float32 ones."""
        n = self.n
        if n == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        query = np.asarray(query, dtype=np.float32).reshape(self.dim)
        if mask is not None and mask[:n].all():
            mask = None
        if approximate_from is not None and n >= approximate_from and n > 4 * limit:
            found = self._search_pq(query, mask, limit, candidates, n)
            if found is not None:
                return found
        half = self._half_rows(n) if 4 * limit < n else None
        if half is not None:
            found = self._search_half(half, query, mask, limit, n)
            if found is not None:
                return found
        scores = self.matrix[:n] @ query
        if mask is not None:
            allowed = np.flatnonzero(mask[:n])
            scores = scores[allowed]
        else:
            allowed = None
        if len(scores) > limit:
            top = np.argpartition(-scores, limit - 1)[:limit]
        else:
            top = np.arange(len(scores))
        rows = top if allowed is None else allowed[top]
        order = np.lexsort((rows, -scores[top]))
        return rows[order], scores[top][order].astype(np.float32)

    def _search_half(self, half, query: np.ndarray, mask: np.ndarray | None, limit: int, n: int
                     ) -> tuple[np.ndarray, np.ndarray] | None:
        """Float16 scores for every row, float32 re-scoring of the candidates; None: use the float32 product."""
        torch = _torch()
        if float(np.abs(query).max()) >= _HALF_MAX_ABS:
            return None
        with torch.inference_mode():
            query_half = torch.from_numpy(query.copy()).to(torch.float16)  # copy: the query may be read-only
            query_norm = float(np.linalg.norm(query))
            query_err = float(np.linalg.norm(query - query_half.numpy().astype(np.float32)))
            approx = torch.mv(half, query_half).to(torch.float32)
            count = n
            if mask is not None:
                allowed = torch.from_numpy(np.array(mask[:n], dtype=np.bool_))
                count = int(allowed.sum())
                if count == 0:
                    return np.zeros(0, np.int64), np.zeros(0, np.float32)
                approx.masked_fill_(~allowed, float("-inf"))
            kth = float(torch.topk(approx, min(limit, count), sorted=False).values.min())
            # |q.x - half(q).half(x)| <= |q.(x - half(x))| + |(q - half(q)).half(x)| + output rounding (2^-11
            # relative) + float32 accumulation (dim * 2^-24 relative), doubled for slack
            bound = self._half_norm * (query_norm + query_err)
            err = 2.0 * (self._half_err * query_norm + query_err * self._half_norm
                         + bound * (2.0**-11 + self.dim * 2.0**-24) + 1e-7)
            candidates = torch.nonzero(approx >= kth - 2.0 * err).view(-1).numpy()
        if len(candidates) > n // 4:
            return None
        return _best(candidates.astype(np.int64), self.matrix[candidates] @ query, limit)


def _best(rows: np.ndarray, scores: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The `limit` best (rows, float32 scores), best first, ties by row: `np.lexsort((rows, -scores))[:limit]`,
    with only the rows scoring at least the `limit`-th best sorted (~0.2 ms less for 1,000 candidates).

    >>> [a.tolist() for a in _best(np.array([5, 3, 9, 1]), np.array([0.5, 0.75, 0.5, 0.25]), 2)]
    [[3, 5], [0.75, 0.5]]
    """
    if len(scores) > limit > 0:
        kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        keep = scores >= kth
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:limit]
    return rows[order], scores[order].astype(np.float32)
