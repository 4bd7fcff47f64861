"""The dense channel's float16 first pass returns exactly the float32 product's top rows; its product-quantised
scan (faiss) returns the float32 scores of nearly the same rows, and never a row a filter leaves out."""

from __future__ import annotations

import numpy as np
import pytest

from kgkit.stages.search import dense
from kgkit.stages.search.dense import DenseIndex


def _rows(n: int, dim: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n // 10, dim)).astype(np.float32)
    near = base[rng.integers(0, len(base), n - len(base))] + rng.normal(0, 0.05, (n - len(base), dim)).astype(np.float32)
    rows = np.concatenate([base, near])
    rows[50:60] = rows[49]  # exact ties: the older row comes first
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("masked", [False, True])
def test_half_first_pass_equals_the_float32_product(masked):
    pytest.importorskip("torch")
    rows = _rows(dense.HALF_MIN_ROWS + 5_000, 24)
    fast, exact = DenseIndex(24), DenseIndex(24, half=False)
    for part in np.array_split(rows, 3):  # grown by adds, the float16 copy catches up at search time
        fast.add(part)
        exact.add(part)
        fast.search(rows[0], limit=10)
    mask = np.random.default_rng(1).random(len(rows)) > 0.3 if masked else None
    rng = np.random.default_rng(2)
    for i in range(30):
        query = rows[49] if i == 0 else rows[rng.integers(0, len(rows))] + rng.normal(0, 0.1, 24).astype(np.float32)
        got, want = fast.search(query, mask=mask, limit=100), exact.search(query, mask=mask, limit=100)
        assert got[0].tolist() == want[0].tolist()
        assert np.allclose(got[1], want[1], atol=1e-6)
    assert fast._half_n == len(rows) and exact._half_n == 0


def test_half_path_edge_cases():
    pytest.importorskip("torch")
    rows = _rows(dense.HALF_MIN_ROWS + 100, 8)
    index = DenseIndex(8)
    index.add(rows)
    nothing = np.zeros(len(rows), dtype=np.bool_)
    assert index.search(rows[0], mask=nothing, limit=5)[0].tolist() == []
    few = nothing.copy()
    few[[7, 3000, 20_050]] = True
    assert sorted(index.search(rows[0], mask=few, limit=5)[0].tolist()) == [7, 3000, 20_050]
    index.add(np.full((1, 8), 1e5, dtype=np.float32))  # too large for float16: float32 product only
    assert index.search(np.ones(8, dtype=np.float32), limit=1)[0].tolist() == [len(rows)]
    assert not index._half_ok


def test_query_vectors_are_kept_by_text():
    from kgkit.stages.embed import HashingEmbedder
    from kgkit.stages.search import SearchConfig, SearchIndex, SearchItem

    calls = []

    class Counting(HashingEmbedder):
        def __call__(self, texts):
            calls.append(list(texts))
            return super().__call__(texts)

    index = SearchIndex(embedder=Counting(dim=32), config=SearchConfig(query_cache=2))
    index.add([SearchItem(id=f"c{i}", kind="chunk", title="", body=f"text number {i}") for i in range(5)])
    calls.clear()
    first = index.search("what is number three", channels=("dense",))
    assert index.search("what is number three", channels=("dense",), offset=1)["id"].tolist() == first["id"].tolist()[1:]
    index.search("another question", channels=("dense",))
    index.search("a third question", channels=("dense",))  # evicts the least recently used
    index.search("what is number three", channels=("dense",))
    assert calls == [["what is number three"], ["another question"], ["a third question"], ["what is number three"]]
    index.config = SearchConfig(query_cache=0)
    index.search("another question", channels=("dense",))
    index.search("another question", channels=("dense",))
    assert len(calls) == 6


def test_the_quantised_scan_finds_the_exact_top_rows_with_their_float32_scores():
    pytest.importorskip("faiss")
    rows = _rows(24_000, 64)
    index = DenseIndex(64)
    for part in np.array_split(rows, 3):  # codebooks trained at the first search, later rows encoded as they come
        index.add(part)
        index.search(rows[0], limit=10, approximate_from=0)
    trained = index._pq_trained
    assert index._pq_n == len(rows) and trained < len(rows)
    rng = np.random.default_rng(3)
    same5, found = [], []
    for _ in range(40):
        query = rows[rng.integers(0, len(rows))] + rng.normal(0, 0.1, 64).astype(np.float32)
        got_rows, got_scores = index.search(query, limit=100, approximate_from=0)
        want_rows, _ = index.search(query, limit=100, approximate_from=None)
        assert np.allclose(got_scores, index.matrix[got_rows] @ query, atol=1e-6)  # float32 scores
        assert list(got_scores) == sorted(got_scores, reverse=True)
        same5.append(got_rows[:5].tolist() == want_rows[:5].tolist())
        found.append(len(set(got_rows.tolist()) & set(want_rows.tolist())) / 100)
    assert np.mean(same5) >= 0.9 and np.mean(found) >= 0.8, (np.mean(same5), np.mean(found))
    index.add(rows[: 2 * trained])  # the rows doubled since training: the codebooks are trained again
    index.search(rows[0], limit=10, approximate_from=0)
    assert index._pq_trained == len(index) and index._pq_n == len(index)


def test_the_quantised_scan_respects_masks_and_falls_back_when_they_are_narrow():
    pytest.importorskip("faiss")
    rows = _rows(30_000, 32)
    index = DenseIndex(32)
    index.add(rows)
    query = rows[123]
    half = np.zeros(len(rows), dtype=np.bool_)
    half[::2] = True
    got = index.search(query, mask=half, limit=50, approximate_from=0)[0]
    assert len(got) == 50 and half[got].all()
    assert index._pq is not None
    narrow = np.zeros(len(rows), dtype=np.bool_)
    narrow[[5, 700, 29_999]] = True  # too few rows for the candidates: the exact product over them
    assert sorted(index.search(query, mask=narrow, limit=10, approximate_from=0)[0].tolist()) == [5, 700, 29_999]
    assert index.search(query, mask=np.zeros(len(rows), dtype=np.bool_), limit=5, approximate_from=0)[0].tolist() == []
    small = DenseIndex(6)  # a dimension that does not split into 4-d sub-vectors: always exact
    small.add(_rows(3_000, 6))
    assert small.search(small.matrix[0], limit=5, approximate_from=0)[0][0] == 0 and small._pq is None


def test_the_search_index_uses_the_quantised_scan_from_its_threshold():
    pytest.importorskip("faiss")
    from kgkit.stages.search import SearchConfig, SearchIndex, SearchItem

    class Fixed:
        dim, id = 32, "fixed"

        def __call__(self, texts):
            return np.stack([vectors[int(t.split()[-1])] if t.split()[-1].isdigit() else vectors[0] for t in texts])

    vectors = _rows(2_000, 32)
    items = [SearchItem(id=f"c{i}", kind="chunk", title="", body=f"row {i}") for i in range(len(vectors))]
    exact = SearchIndex(embedder=Fixed(), config=SearchConfig(dense_approximate=None))
    approx = SearchIndex(embedder=Fixed(), config=SearchConfig(dense_approximate=1_000, dense_candidates=300))
    for index in (exact, approx):
        index.add(items, vectors=vectors)
    got = approx.search("near row 17", channels=("dense",), limit=5)
    want = exact.search("near row 17", channels=("dense",), limit=5)
    assert got["id"].tolist()[0] == want["id"].tolist()[0] == "c17"
    assert approx.dense._pq is not None and exact.dense._pq is None
