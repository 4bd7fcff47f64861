"""The dense channel's float16 first pass returns exactly the float32 product's top rows."""

from __future__ import annotations

import numpy as np
import pytest

from kgkit.stages.search import dense
from kgkit.stages.search.dense import DenseIndex

pytest.importorskip("torch")


def _rows(n: int, dim: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n // 10, dim)).astype(np.float32)
    near = base[rng.integers(0, len(base), n - len(base))] + rng.normal(0, 0.05, (n - len(base), dim)).astype(np.float32)
    rows = np.concatenate([base, near])
    rows[50:60] = rows[49]  # exact ties: the older row comes first
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("masked", [False, True])
def test_half_first_pass_equals_the_float32_product(masked):
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
