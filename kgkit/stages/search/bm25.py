"""The keyword channel: an in-memory BM25F index over two fields (title, body): OR-of-terms, per-field weighted
and length-normalised term frequencies summed before saturation (a title is a name: a word it repeats, as in
`socket.socket.detach`, counts once), one document-level idf, and a coordination factor: the score times the
share of the query's idf the row matches, to a power (Lucene's classic `coord` counts matched terms; weighing
them by idf lets a row with the query's rare words beat one with several of its common ones). Then a
proximity reward: the best `rerank` rows are re-scored by the share of the query's adjacent word pairs
(stopwords included, in query order) that also occur side by side in the row, the ordered-bigram part of
Metzler and Croft's sequential dependence model, so a row quoting the query's phrases beats one that only has
its words. Rows are appended (incremental) and retired (replaced or removed items); document frequencies and
average lengths count live rows only, so an index grown by adds scores exactly like one built in one go.

Chosen over SQLite FTS5 and bm25s by measurement (bench/RESULTS.md): FTS5's OR queries scored every matching
row (p95 36 ms at 100k), bm25s cannot append; here a query touches only the posting lists of its terms.

Columnar: every row appends its distinct terms with their title and body frequencies to flat numpy arrays
(the forward index, in row order); the inverted index is the same entries sorted by term (stable, so rows
ascend within a term), a term's rows and frequencies side by side (contiguous slices: gathering them from the
forward index took 4x longer for a common word), and entries appended since the last sort are a short unsorted
tail, scanned per query term and merged in once it grows. All state is numpy arrays plus the vocabulary, so
`state()` / `from_state` save and load it without pickling (kgkit.io.search_store keeps it beside the SQLite file).

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
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from kgkit.stages.search.growing import GrowingArray
from kgkit.stages.search.text import tokens

__all__ = ["GrowingArray", "KeywordIndex"]

FIELDS = ("title", "body")
SCORE_CACHE_ENTRIES = 4_000_000  # per-term contributions kept between writes, in posting entries (~48 MB)
SHARE_SCALE = 1.001  # see KeywordIndex.search


def _power(values: np.ndarray, exponent: float) -> np.ndarray:
    """values ** exponent, by repeated products when the exponent is a small whole number (3x faster than
    numpy's float power on a query's ~50k candidate rows)."""
    if not float(exponent).is_integer() or not 1 <= exponent <= 8:
        return values ** np.float32(exponent)
    out = values
    for _ in range(int(exponent) - 1):
        out = out * values
    return out


class KeywordIndex:
    """BM25F over (title, body). `weights` are the field weights; k1, b the usual BM25 constants; `coord` the
    exponent of the share of the query's idf a row matches (0 turns it off; 3 chosen on every shared set at
    once: bench/RESULTS.md, "Search (issue 16)"); `proximity` the pair reward's strength over the best
    `rerank` rows (0 turns it off)."""

    def __init__(self, *, weights: tuple[float, float] = (2.0, 1.0), k1: float = 1.2, b: float = 0.75,
                 coord: float = 3.0, proximity: float = 0.5, rerank: int = 30) -> None:
        self.weights, self.k1, self.b, self.coord = weights, k1, b, coord
        self.proximity, self.rerank = proximity, rerank
        self.vocab: dict[str, int] = {}
        self.df = GrowingArray(np.int64)  # term id -> live rows containing it in any field
        # forward index: a row's distinct terms and their title/body frequencies, rows in order
        self.e_term, self.e_row = GrowingArray(np.int32), GrowingArray(np.int32)
        self.e_tf0, self.e_tf1 = GrowingArray(np.float32), GrowingArray(np.float32)
        self.row_start = GrowingArray(np.int64)  # row -> its entries [row_start[row], row_start[row + 1])
        self.row_start.append(0)
        self.lengths = (GrowingArray(np.float32), GrowingArray(np.float32))
        self.alive = GrowingArray(np.bool_, False)
        self.live = 0  # live (not retired) rows
        self.pairs = GrowingArray(np.int64)  # each row's distinct adjacent term pairs (a << 32 | b), sorted
        self.pair_start = GrowingArray(np.int64)  # row -> its slice of pairs
        self.pair_start.append(0)
        self._sorted = 0  # entries [0, _sorted) are in the inverted arrays below
        self._offsets = np.zeros(1, np.int64)  # term -> its first inverted entry (terms known at the last merge)
        # the sorted entries (by term, then row): entry number, row, in the title (0/1), body frequency
        self._inv_entry, self._inv_row = np.zeros(0, np.int32), np.zeros(0, np.int32)
        self._inv_title, self._inv_tf1 = np.zeros(0, np.uint8), np.zeros(0, np.float32)
        self._scored: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # term -> _term_scores, until a write
        self._scored_entries = 0
        self._norm_cache: list[np.ndarray] | None = None

    def __len__(self) -> int:
        return self.alive.n

    def drop_cache(self) -> None:
        """Forget the per-term contributions and length norms (a write does this; benchmarks call it to time
        queries from cold)."""
        self._scored.clear()
        self._scored_entries = 0
        self._norm_cache = None

    def _term_ids(self, text: str) -> list[int]:
        vocab = self.vocab
        return [vocab.setdefault(t, len(vocab)) for t in tokens(text)]

    def query_pairs(self, query: str, *, max_pairs: int = 64) -> np.ndarray:
        """The query's adjacent word pairs (stopwords included) as pair codes; pairs with a word no live row has
        are left out (no row can have them, and the share stays the same after rows are retired)."""
        df = self.df.view()
        ids = [i if i is not None and df[i] > 0 else None for i in map(self.vocab.get, tokens(query[:2000]))]
        codes = dict.fromkeys((a << 32) | b for a, b in pairwise(ids) if a is not None and b is not None)
        return np.array(list(codes)[:max_pairs], dtype=np.int64)

    def add(self, title: str, body: str) -> int:
        """Append a row; returns its number."""
        return self.add_many([(title, body)])

    def add_many(self, rows: Sequence[tuple[str, str]]) -> int:
        """Append rows of (title, body), vectorised over the batch; returns the first new row's number. The
        same arrays as adding them one by one."""
        first = self.alive.n
        if not rows:
            return first
        self.drop_cache()
        ids = [(self._term_ids(title), self._term_ids(body)) for title, body in rows]
        len0 = np.array([len(a) for a, _ in ids], dtype=np.int64)
        len1 = np.array([len(b) for _, b in ids], dtype=np.int64)
        size = len0 + len1
        flat = np.fromiter((t for a, b in ids for t in (*a, *b)), dtype=np.int64, count=int(size.sum()))
        row = np.repeat(np.arange(len(rows), dtype=np.int64), size)
        starts = np.concatenate([[0], np.cumsum(size)[:-1]])
        field = (np.arange(len(flat)) - np.repeat(starts, size) >= np.repeat(len0, size)).astype(np.int64)
        # entries: (row, term) with its count in each field, sorted by row then term
        keys, counts = np.unique((row << 33) | (flat << 1) | field, return_counts=True)
        row_term = keys >> 1
        new_entry = np.concatenate([[True], row_term[1:] != row_term[:-1]])[: len(keys)]
        entry_of = np.cumsum(new_entry) - 1
        tf = np.zeros((2, int(new_entry.sum())), dtype=np.float32)
        tf[keys & 1, entry_of] = counts
        entry_key = row_term[new_entry]
        e_row, e_term = entry_key >> 32, entry_key & 0xFFFFFFFF
        # adjacent pairs within a row (title then body), distinct and sorted per row
        same_row = row[1:] == row[:-1]
        pair_row, pair = row[1:][same_row], ((flat[:-1] << 32) | flat[1:])[same_row]
        order = np.lexsort((pair, pair_row))
        pair_row, pair = pair_row[order], pair[order]
        keep = np.concatenate([[True], (pair_row[1:] != pair_row[:-1]) | (pair[1:] != pair[:-1])])[: len(pair)]
        pair_row, pair = pair_row[keep], pair[keep]
        self.pairs.extend(pair)
        self.pair_start.extend(self.pairs.n - len(pair) + np.cumsum(np.bincount(pair_row, minlength=len(rows))))
        self.e_term.extend(e_term)
        self.e_row.extend(e_row + first)
        self.e_tf0.extend(tf[0])
        self.e_tf1.extend(tf[1])
        self.row_start.extend(self.e_term.n - len(e_term) + np.cumsum(np.bincount(e_row, minlength=len(rows))))
        self.lengths[0].extend(len0)
        self.lengths[1].extend(len1)
        if self.df.n < len(self.vocab):
            self.df.extend(np.zeros(len(self.vocab) - self.df.n, np.int64))
        self.df.data[: len(self.vocab)] += np.bincount(e_term, minlength=len(self.vocab))
        self.alive.extend(np.ones(len(rows), dtype=np.bool_))
        self.live += len(rows)
        return first

    def retire(self, row: int) -> None:
        """Take a row out of every statistic and result (its entries stay, masked)."""
        if not self.alive.data[row]:
            return
        self.drop_cache()
        self.alive.data[row] = False
        self.live -= 1
        self.df.data[self.e_term.data[self.row_start.data[row] : self.row_start.data[row + 1]]] -= 1

    # ----------------------------------------------------------------- inverted view

    def settle(self, *, force: bool = False) -> None:
        """Merge the unsorted tail of entries into the inverted arrays once it is long (or when forced)."""
        n = self.e_term.n
        tail = n - self._sorted
        if tail == 0 or (not force and tail <= max(4096, self._sorted // 256)):
            return
        new_entry = self._sorted + np.argsort(self.e_term.data[self._sorted : n], kind="stable")
        new_term = self.e_term.data[new_entry].astype(np.int64)
        vocab = len(self.vocab)
        start = np.full(vocab + 1, len(self._inv_entry), dtype=np.int64)  # terms new since the last merge: at the end
        start[: len(self._offsets)] = self._offsets
        at = start[new_term + 1]  # after the term's entries: rows stay ascending
        self._offsets = start + np.concatenate([[0], np.cumsum(np.bincount(new_term, minlength=vocab))])
        dtype = np.int32 if n < 2**31 else np.int64
        self._inv_entry = np.insert(self._inv_entry.astype(dtype, copy=False), at, new_entry.astype(dtype))
        self._inv_row = np.insert(self._inv_row, at, self.e_row.data[new_entry])
        self._inv_title = np.insert(self._inv_title, at, self.e_tf0.data[new_entry] > 0)
        self._inv_tf1 = np.insert(self._inv_tf1, at, self.e_tf1.data[new_entry])
        self._sorted = n

    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of `term` (ascending), whether it is in each one's title (0/1) and its body frequency there."""
        self.settle()
        offsets = self._offsets
        low, high = (offsets[term], offsets[term + 1]) if term + 1 < len(offsets) else (0, 0)
        found = self._inv_row[low:high], self._inv_title[low:high], self._inv_tf1[low:high]
        if self._sorted < self.e_term.n:
            tail = np.flatnonzero(self.e_term.data[self._sorted : self.e_term.n] == term) + self._sorted
            more = self.e_row.data[tail], self.e_tf0.data[tail] > 0, self.e_tf1.data[tail]
            found = tuple(np.concatenate([a, b.astype(a.dtype)]) for a, b in zip(found, more))  # type: ignore[assignment]
        return found

    # ----------------------------------------------------------------- scoring

    def _norms(self) -> list[np.ndarray]:
        """Per field, every row's BM25 length normalisation 1 - b + b * length / average (until a write)."""
        if self._norm_cache is None:
            alive = self.alive.view()
            norms = []
            for lengths in self.lengths:
                avg = max(float(lengths.view()[alive].sum(dtype=np.float64)) / max(self.live, 1), 1e-9)
                norms.append(1.0 - self.b + self.b * lengths.view() / avg)
            self._norm_cache = norms
        return self._norm_cache

    def _idf(self, term: int) -> float:
        """BM25's idf of a term over the live rows (always > 0)."""
        df = int(self.df.data[term])
        return math.log(1.0 + (self.live - df + 0.5) / (df + 0.5))

    def _term_scores(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, BM25F contribution) of one term over every row that has it (retired rows included: the
        caller masks them). Kept until the next add or retire changes the statistics it depends on."""
        hit = self._scored.get(term)
        if hit is not None:
            return hit
        rows, title, body = self._postings(term)
        rows = rows.astype(np.int64)
        norms = self._norms()
        tf = np.zeros(len(rows), dtype=np.float32)
        title = title.astype(np.float32)  # a name's word counts once
        for weight, tfs, norm in zip(self.weights, (title, body), norms):
            if weight:
                tf += weight * tfs / norm[rows]
        if not all(self.weights):  # a row with the term only in a weight-0 field does not match it
            rows, tf = rows[tf > 0], tf[tf > 0]
        idf = self._idf(term)
        if self._scored_entries + len(rows) > SCORE_CACHE_ENTRIES:  # bounded memory (~12 bytes an entry)
            self.drop_cache()
        hit = self._scored[term] = (rows, idf * tf * (self.k1 + 1.0) / (tf + self.k1))
        self._scored_entries += len(rows)
        return hit

    def search(self, terms: Sequence[str], *, mask: np.ndarray | None = None, limit: int = 100,
               pairs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, scores, matched term counts) of the best `limit` live rows allowed by `mask`, best first.
        `pairs` (from `query_pairs`) turns on the proximity reward for the best `rerank` rows. Ties break by
        row number (older first), so results are deterministic."""
        n = self.alive.n
        df = self.df.view()
        ids = [i for i in (self.vocab.get(t) for t in dict.fromkeys(terms)) if i is not None and df[i] > 0]
        empty = (np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int16))
        if not ids or self.live == 0:
            return empty
        scores = np.zeros(n, dtype=np.float32)
        # one array for two counts: each term a row has adds 1 + its share of the query's idf (shrunk by
        # SHARE_SCALE so the shares sum below 1): the whole part is how many terms it matches, the fraction
        # how much of the query's idf (one scatter per term instead of two; float32 keeps the share to ~1e-5
        # for the at most 32 query terms, and rows with the same terms get the same sum, added in one order)
        idfs = [self._idf(term) for term in ids]
        step = [1.0 + idf / (sum(idfs) * SHARE_SCALE) for idf in idfs]
        hits = np.zeros(n, dtype=np.float32)
        for term, add in zip(ids, step):  # a term's rows are distinct: np.add.at adds as `a[rows] += b`, 2-3x quicker
            rows, contribution = self._term_scores(term)
            np.add.at(scores, rows, contribution)
            np.add.at(hits, rows, np.float32(add))
        candidates = hits > 0
        if mask is not None or self.live < n:
            candidates &= self.alive.view() if mask is None else self.alive.view() & mask[:n]
        candidates = np.flatnonzero(candidates)
        if len(candidates) == 0:
            return empty
        final = scores[candidates]
        if self.coord:  # (share of the query's idf the row matches) ** coord
            share = hits[candidates]
            share -= np.floor(share)
            share *= SHARE_SCALE
            final = final * _power(np.minimum(share, 1.0, out=share), self.coord)
        if len(candidates) > limit:
            top = np.argpartition(-final, limit - 1)[:limit]
            candidates, final = candidates[top], final[top]
        order = np.lexsort((candidates, -final))
        rows, final = candidates[order], final[order].astype(np.float32)
        if pairs is not None and len(pairs) and self.proximity:
            rows, final = self._reward_proximity(rows, final, pairs)
        return rows, final, np.floor(hits[rows]).astype(np.int16)

    def lookup_possible(self, terms: Sequence[str], *, mask: np.ndarray | None = None, budget: int = 2048,
                        few: int = 32) -> bool | None:
        """Whether some live row allowed by `mask` has every one of `terms` (what a lookup needs, SearchConfig),
        read cheaply from the keyword index, or None (not known) when that would read more than ~`budget` index
        entries: the rarest term's rows, narrowed by the next rarest terms' posting lists (rows ascending: a binary
        search) until the rows are at most `few` or their own entries fewer than the next list, then the rows' own
        entries in the forward index (a row's entries are its distinct terms) for the terms left.

        >>> k = KeywordIndex()
        >>> k.add_many([("Ada", "wrote the first program"), ("Bob", "ran the first mile")])
        0
        >>> k.settle()
        >>> k.lookup_possible(["first", "program"]), k.lookup_possible(["program", "mile"]), k.lookup_possible(["zzz"])
        (True, False, False)
        """
        df = self.df.view()
        ids = [self.vocab.get(t) for t in dict.fromkeys(terms)]
        if not ids or any(i is None or df[i] == 0 for i in ids):
            return False
        ids.sort(key=lambda i: int(df[i]))  # type: ignore[arg-type]
        if df[ids[0]] > budget:
            return None
        rows = self._postings(ids[0])[0].astype(np.int64)
        alive, start = self.alive.data, self.row_start.data
        rows = rows[alive[rows] if mask is None else alive[rows] & mask[rows]]
        rest = ids[1:]
        while rest and len(rows):
            low, size = start[rows], start[rows + 1] - start[rows]
            total = int(size.sum())
            if total <= budget and (len(rows) <= few or total <= df[rest[0]]):
                break  # the rows' own entries are few: read them
            if df[rest[0]] > budget:
                return None
            other = self._postings(rest[0])[0]
            rows = rows[other[np.minimum(np.searchsorted(other, rows), len(other) - 1)] == rows]
            rest = rest[1:]
        if not rest or not len(rows):
            return bool(len(rows))
        at = np.repeat(low - np.cumsum(size) + size, size) + np.arange(total)  # the rows' entries, row after row
        wanted, found = np.sort(np.array(rest, dtype=np.int64)), self.e_term.data[at]
        hit = wanted[np.minimum(np.searchsorted(wanted, found), len(wanted) - 1)] == found
        has = np.add.reduceat(hit.astype(np.int32), np.cumsum(size) - size)  # each row's terms left
        return bool((has >= len(rest)).any())

    def title_rows(self, terms: Sequence[str], *, mask: np.ndarray | None = None, limit: int = 100) -> np.ndarray:
        """Live rows allowed by `mask` whose title has every one of `terms`, shortest title first (then by row):
        the candidates for a name match (kgkit.stages.search.names)."""
        df = self.df.view()
        ids = [self.vocab.get(t) for t in dict.fromkeys(terms)]
        if not ids or any(i is None or df[i] == 0 for i in ids):
            return np.zeros(0, np.int64)
        rows: np.ndarray | None = None
        for term in sorted(ids, key=lambda i: int(df[i])):  # rarest first: the intersection shrinks fastest
            found, title, _ = self._postings(term)  # type: ignore[arg-type]
            found = found[title != 0].astype(np.int64)
            rows = found if rows is None else np.intersect1d(rows, found, assume_unique=True)
            if len(rows) == 0:
                return rows
        assert rows is not None
        keep = self.alive.data[rows] if mask is None else self.alive.data[rows] & mask[rows]
        rows = rows[keep]
        return rows[np.lexsort((rows, self.lengths[0].data[rows]))[:limit]]

    def _reward_proximity(self, rows: np.ndarray, scores: np.ndarray, pairs: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
        """Multiply the first `rerank` scores by 1 + proximity * (share of `pairs` the row has) and re-sort
        them; the reward only raises scores, so the re-sorted head stays above the rest."""
        n = min(self.rerank, len(rows))
        if n < len(rows):  # rows tied with the last one re-scored are re-scored too: row order never matters
            n += int(np.count_nonzero(scores[n:] == scores[n - 1]))
        head = rows[:n]
        start, codes = self.pair_start.data, self.pairs.data
        low, size = start[head], start[head + 1] - start[head]
        # every head row's pair codes side by side (a row's codes are distinct), and how many of them the query has
        at = np.repeat(low - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
        hits = np.bincount(np.repeat(np.arange(n), size), weights=np.isin(codes[at], pairs), minlength=n)
        boosted = scores[:n] * (1.0 + self.proximity * hits / len(pairs)).astype(np.float32)
        order = np.lexsort((head, -boosted))
        return np.concatenate([head[order], rows[n:]]), np.concatenate([boosted[order], scores[n:]])

    # ----------------------------------------------------------------- saving

    def state(self) -> dict[str, np.ndarray]:
        """Every array the index needs, for np.savez (no pickling). Retired rows are left out (the rows after
        them move up), so it describes the live rows only, in order."""
        self.settle(force=True)
        keep = self.alive.view()
        out = {"e_term": self.e_term.view(), "e_tf0": self.e_tf0.view(), "e_tf1": self.e_tf1.view(),
               "row_start": self.row_start.view(), "pairs": self.pairs.view(), "pair_start": self.pair_start.view(),
               "len0": self.lengths[0].view(), "len1": self.lengths[1].view(), "inv_entry": self._inv_entry}
        if not keep.all():
            entries = keep[self.e_row.view()]
            for name in ("e_term", "e_tf0", "e_tf1"):
                out[name] = out[name][entries]
            out["pairs"] = out["pairs"][np.repeat(keep, np.diff(out["pair_start"]))]
            for start in ("row_start", "pair_start"):
                out[start] = np.concatenate([[0], np.cumsum(np.diff(out[start])[keep])])
            out["len0"], out["len1"] = out["len0"][keep], out["len1"][keep]
            out["inv_entry"] = np.argsort(out["e_term"], kind="stable")
        out["inv_entry"] = out["inv_entry"].astype(np.int32 if len(out["e_term"]) < 2**31 else np.int64)
        if max(out["e_tf0"].max(initial=0), out["e_tf1"].max(initial=0)) < 2**16:  # counts: half the bytes
            out["e_tf0"], out["e_tf1"] = out["e_tf0"].astype(np.uint16), out["e_tf1"].astype(np.uint16)
        out["alive"] = np.ones(int(np.count_nonzero(keep)), dtype=np.bool_)
        out["df"] = self.df.view()
        out["vocab"] = np.frombuffer("\n".join(self.vocab).encode(), dtype=np.uint8)
        return out

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray], **settings: object) -> KeywordIndex:
        """The index `state()` described (settings as for the constructor)."""
        index = cls(**settings)  # type: ignore[arg-type]
        words = bytes(state["vocab"]).decode()
        index.vocab = {w: i for i, w in enumerate(words.split("\n"))} if words else {}
        for name in ("e_term", "e_tf0", "e_tf1", "alive", "pairs", "df"):
            getattr(index, name).extend(state[name])
        index.lengths[0].extend(state["len0"])
        index.lengths[1].extend(state["len1"])
        index.row_start.n = index.pair_start.n = 0
        index.row_start.extend(state["row_start"])
        index.pair_start.extend(state["pair_start"])
        rows = index.alive.n
        index.e_row.extend(np.repeat(np.arange(rows, dtype=np.int32), np.diff(state["row_start"])))
        entry = np.asarray(state["inv_entry"])
        index._inv_entry = entry.astype(np.int32 if len(entry) < 2**31 else np.int64, copy=False)
        index._inv_row = index.e_row.data[entry]
        index._inv_title = (np.asarray(state["e_tf0"])[entry] > 0).view(np.uint8)  # the stored counts: fewer bytes
        index._inv_tf1 = np.asarray(state["e_tf1"])[entry].astype(np.float32, copy=False)
        index._offsets = np.concatenate([[0], np.cumsum(np.bincount(state["e_term"], minlength=len(index.vocab)))])
        index._sorted = len(entry)
        index.live = int(np.count_nonzero(index.alive.view()))
        return index
