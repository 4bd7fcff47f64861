"""The keyword channel: an in-memory BM25F index over two fields (title, body): OR-of-terms, per-field weighted
and length-normalised term frequencies summed before saturation, one document-level idf, and a coordination factor (a document matching more of the query's terms ranks higher, as in Lucene's classic
`coord`). Then a proximity reward: the best `rerank` rows are re-scored by the share of the query's adjacent
word pairs (stopwords included, in query order) that also occur side by side in the row, the ordered-bigram
part of Metzler and Croft's sequential dependence model, so a row quoting the query's phrases beats one that
only has its words. Rows are appended (incremental) and retired (replaced or removed items); document frequencies and
average lengths count live rows only, so an index grown by adds scores exactly like one built in one go.

Chosen over SQLite FTS5 and bm25s by measurement (bench/RESULTS.md): FTS5's OR queries scored every matching
row (p95 36 ms at 100k), bm25s cannot append; here a query touches only the posting lists of its terms.

>>> k = KeywordIndex()
>>> k.add("posix.pidfd_open", "Return a file descriptor referring to the process pid.")
0
>>> k.add("os.kill", "Send a signal to the process.")
1
>>> rows, scores, matched = k.search(["process", "pid"])
>>> [int(r) for r in rows], [int(m) for m in matched]
([0, 1], [2, 1])
>>> k.add("os.kill", "Send the process a signal.")  # same words as row 1, in another order
2
>>> [int(r) for r in k.search(["send", "signal", "process"], pairs=k.query_pairs("send a signal to the process"))[0]]
[1, 2, 0]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from kgkit.search.text import tokens

FIELDS = ("title", "body")


class _Growing:
    """A numpy array that grows by doubling (amortised O(1) append)."""

    def __init__(self, dtype: type, fill: object = 0) -> None:
        self.data = np.full(64, fill, dtype=dtype)
        self.fill, self.n = fill, 0

    def append(self, value: object) -> None:
        if self.n == len(self.data):
            bigger = np.full(len(self.data) * 2, self.fill, dtype=self.data.dtype)
            bigger[: self.n] = self.data
            self.data = bigger
        self.data[self.n] = value
        self.n += 1

    def extend(self, values: np.ndarray) -> None:
        need = self.n + len(values)
        if need > len(self.data):
            bigger = np.full(max(need, len(self.data) * 2), self.fill, dtype=self.data.dtype)
            bigger[: self.n] = self.data[: self.n]
            self.data = bigger
        self.data[self.n : need] = values
        self.n = need

    def view(self) -> np.ndarray:
        return self.data[: self.n]


class _Postings:
    """term id -> (rows, tf in each field) over both fields at once; lists while growing, numpy arrays when
    queried (a row having the term in either field is one entry, so no per-query merge of the fields)."""

    def __init__(self, fields: int) -> None:
        self.lists: dict[int, tuple[list[int], ...]] = {}  # term -> (rows, tf field 0, tf field 1, ...)
        self.frozen: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # term -> (rows, (fields, len) tfs)
        self.fields = fields

    def add(self, row: int, counts: Sequence[Counter[int]]) -> None:
        lists, frozen = self.lists, self.frozen
        for term in set().union(*counts):
            entry = lists.get(term)
            if entry is None:
                entry = lists[term] = tuple([] for _ in range(self.fields + 1))
            elif term in frozen:
                del frozen[term]
            entry[0].append(row)
            for f, c in enumerate(counts, start=1):
                entry[f].append(c.get(term, 0))

    def get(self, term: int) -> tuple[np.ndarray, np.ndarray] | None:
        hit = self.frozen.get(term)
        if hit is None and term in self.lists:
            entry = self.lists[term]
            hit = self.frozen[term] = (np.asarray(entry[0], dtype=np.int64), np.asarray(entry[1:], dtype=np.float32))
        return hit


class KeywordIndex:
    """BM25F over (title, body). `weights` are the field weights; k1, b the usual BM25 constants; `coord` the
    exponent of the fraction of query terms a row matches (0 turns it off)."""

    def __init__(self, *, weights: tuple[float, float] = (2.0, 1.0), k1: float = 1.2, b: float = 0.75,
                 coord: float = 1.0, proximity: float = 0.5, rerank: int = 30) -> None:
        self.weights, self.k1, self.b, self.coord = weights, k1, b, coord
        self.proximity, self.rerank = proximity, rerank
        self.vocab: dict[str, int] = {}
        self.postings = _Postings(len(FIELDS))
        self.lengths = [_Growing(np.float32) for _ in FIELDS]
        self.total_length = [0.0 for _ in FIELDS]
        self.alive = _Growing(np.bool_, False)
        self.live = 0
        self.df: Counter[int] = Counter()  # live rows containing the term in any field
        self._counts: list[tuple[Counter[int], ...]] = []
        self._pairs = _Growing(np.int64)  # each row's distinct adjacent term pairs (a << 32 | b), sorted
        self._pair_start = _Growing(np.int64)  # row -> its slice of _pairs: [start[row], start[row + 1])
        self._pair_start.append(0)
        self._scored: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # term -> _term_scores, until a write
        self._norm_cache: list[np.ndarray] | None = None

    def __len__(self) -> int:
        return self.alive.n

    def _term_ids(self, text: str) -> list[int]:
        vocab = self.vocab
        return [vocab.setdefault(t, len(vocab)) for t in tokens(text)]

    def query_pairs(self, query: str, *, max_pairs: int = 64) -> np.ndarray:
        """The query's adjacent word pairs (stopwords included) as pair codes; pairs with a word no live row has
        are left out (no row can have them, and the share stays the same after rows are retired)."""
        ids = [i if i is not None and self.df[i] > 0 else None for i in map(self.vocab.get, tokens(query[:2000]))]
        codes = dict.fromkeys((a << 32) | b for a, b in pairwise(ids) if a is not None and b is not None)
        return np.array(list(codes)[:max_pairs], dtype=np.int64)

    def add(self, title: str, body: str) -> int:
        """Append a row; returns its number."""
        self._scored.clear()
        self._norm_cache = None
        row = self.alive.n
        ids = (self._term_ids(title), self._term_ids(body))
        sequence = np.array(ids[0] + ids[1], dtype=np.int64)
        self._pairs.extend(np.unique((sequence[:-1] << 32) | sequence[1:]))
        self._pair_start.append(self._pairs.n)
        counts = (Counter(ids[0]), Counter(ids[1]))
        self.postings.add(row, counts)
        for f, c in enumerate(counts):
            n = float(sum(c.values()))
            self.lengths[f].append(n)
            self.total_length[f] += n
        self._counts.append(counts)
        self.df.update(counts[0].keys() | counts[1].keys())
        self.alive.append(True)
        self.live += 1
        return row

    def retire(self, row: int) -> None:
        """Take a row out of every statistic and result (its postings stay, masked)."""
        if not self.alive.data[row]:
            return
        self._scored.clear()
        self._norm_cache = None
        self.alive.data[row] = False
        self.live -= 1
        for f, c in enumerate(self._counts[row]):
            self.total_length[f] -= float(sum(c.values()))
        self.df.subtract(self._counts[row][0].keys() | self._counts[row][1].keys())
        self._counts[row] = (Counter(), Counter())

    def _norms(self) -> list[np.ndarray]:
        """Per field, every row's BM25 length normalisation 1 - b + b * length / average (until a write)."""
        if self._norm_cache is None:
            averages = [max(total / self.live, 1e-9) for total in self.total_length]
            self._norm_cache = [1.0 - self.b + self.b * self.lengths[f].view() / avg for f, avg in enumerate(averages)]
        return self._norm_cache

    def _term_scores(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, BM25F contribution) of one term over every row that has it (retired rows included: the
        caller masks them). Kept until the next add or retire changes the statistics it depends on."""
        hit = self._scored.get(term)
        if hit is not None:
            return hit
        posting = self.postings.get(term)
        if posting is None:
            rows, tf = np.zeros(0, np.int64), np.zeros(0, np.float32)
        else:
            rows, tfs = posting
            norms = self._norms()
            tf = np.zeros(len(rows), dtype=np.float32)
            for f, weight in enumerate(self.weights):
                if weight:
                    tf += weight * tfs[f] / norms[f][rows]
            if not all(self.weights):  # a row with the term only in a weight-0 field does not match it
                rows, tf = rows[tf > 0], tf[tf > 0]
        df = self.df[term]
        idf = math.log(1.0 + (self.live - df + 0.5) / (df + 0.5))
        if len(self._scored) >= 4096:
            self._scored.clear()
        hit = self._scored[term] = (rows, idf * tf * (self.k1 + 1.0) / (tf + self.k1))
        return hit

    def search(self, terms: Sequence[str], *, mask: np.ndarray | None = None, limit: int = 100,
               pairs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, scores, matched term counts) of the best `limit` live rows allowed by `mask`, best first.
        `pairs` (from `query_pairs`) turns on the proximity reward for the best `rerank` rows. Ties break by
        row number (older first), so results are deterministic."""
        n = self.alive.n
        ids = [i for i in (self.vocab.get(t) for t in dict.fromkeys(terms)) if i is not None and self.df[i] > 0]
        empty = (np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int16))
        if not ids or self.live == 0:
            return empty
        scores = np.zeros(n, dtype=np.float32)
        matched = np.zeros(n, dtype=np.int16)
        for term in ids:
            rows, contribution = self._term_scores(term)
            scores[rows] += contribution
            matched[rows] += 1
        allowed = self.alive.view() if mask is None else self.alive.view() & mask[:n]
        candidates = np.flatnonzero((matched > 0) & allowed)
        if len(candidates) == 0:
            return empty
        final = scores[candidates]
        if self.coord:
            final = final * (matched[candidates] / len(ids)) ** self.coord
        if len(candidates) > limit:
            top = np.argpartition(-final, limit - 1)[:limit]
            candidates, final = candidates[top], final[top]
        order = np.lexsort((candidates, -final))
        rows, final = candidates[order], final[order].astype(np.float32)
        if pairs is not None and len(pairs) and self.proximity:
            rows, final = self._reward_proximity(rows, final, pairs)
        return rows, final, matched[rows]

    def _reward_proximity(self, rows: np.ndarray, scores: np.ndarray, pairs: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
        """Multiply the first `rerank` scores by 1 + proximity * (share of `pairs` the row has) and re-sort
        them; the reward only raises scores, so the re-sorted head stays above the rest."""
        n = min(self.rerank, len(rows))
        if n < len(rows):  # rows tied with the last one re-scored are re-scored too: row order never matters
            n += int(np.count_nonzero(scores[n:] == scores[n - 1]))
        head, boosted = rows[:n], scores[:n].copy()
        start, codes = self._pair_start.data, self._pairs.data
        for i, row in enumerate(head):
            mine = codes[start[row] : start[row + 1]]
            found = np.searchsorted(mine, pairs)
            hits = int(np.count_nonzero(mine[np.minimum(found, len(mine) - 1)] == pairs)) if len(mine) else 0
            boosted[i] *= 1.0 + self.proximity * hits / len(pairs)
        order = np.lexsort((head, -boosted))
        return np.concatenate([head[order], rows[n:]]), np.concatenate([boosted[order], scores[n:]])
