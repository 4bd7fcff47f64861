"""Search benchmark (issue 7): kgkit vs sage-memory 0.13.2 on the docstrings known-answer set (1k, 10k), kgkit
alone at 100k (10k + perturbed distractors), write throughput, and MuSiQue recall@5 of supporting passages.

    .venv/bin/python bench/bench_search.py [--sizes 1000,10000,100000] [--no-sage] [--out bench/out/search.json]

Data: ../shared/data/retrieval/{docstrings,musique} (skipped with a message when absent). sage-memory runs in its
own venv (/tmp/sage-venv, made with Debian's /usr/bin/python3, whose sqlite3 can load extensions) in a separate
process; it uses its default embedder (no API key: its char n-gram LocalEmbedder). kgkit uses MiniLM-L6-v2
(one torch thread); embeddings go through a kgkit Cache in /tmp/kgkit-bench-search-cache.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KGKIT_SHARED", ROOT.parent / "shared")) / "data" / "retrieval"
SAGE_VENV = Path("/tmp/sage-venv")

SAGE_RUNNER = r'''
import json, os, sys, time, tempfile
from pathlib import Path
spec = json.load(open(sys.argv[1]))
project = Path(tempfile.mkdtemp(prefix="sage-proj-"))
(project / "pyproject.toml").write_text("")
os.environ["HOME"] = tempfile.mkdtemp(prefix="sage-home-")
os.environ["SAGE_PROJECT_ROOT"] = str(project)
os.chdir(project)
from sage_memory import db, store, search
db.set_project(str(project))
owner = {}
t0 = time.perf_counter(); c0 = time.process_time()
for doc in spec["docs"]:
    r = store.store(content=doc["text"], title=doc["title"], entities=[])
    if r.get("id"):
        owner.setdefault(r["id"], doc["id"])
write_wall = time.perf_counter() - t0; write_cpu = time.process_time() - c0
out = []
for q in spec["queries"]:
    t0 = time.perf_counter(); c0 = time.process_time()
    r = search.search(query=q, limit=spec["k"])
    wall = time.perf_counter() - t0; cpu = time.process_time() - c0
    out.append({"ids": [owner.get(x["id"]) for x in r["results"]], "wall": wall, "cpu": cpu})
json.dump({"write_wall": write_wall, "write_cpu": write_cpu, "results": out}, open(sys.argv[2], "w"))
'''


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, p)) if values else float("nan")


def latency(walls: list[float], cpus: list[float]) -> dict[str, float]:
    return {"wall_mean_ms": float(np.mean(walls) * 1000), "wall_p50_ms": percentile(walls, 50),
            "wall_p95_ms": percentile(walls, 95), "cpu_mean_ms": float(np.mean(cpus) * 1000),
            "cpu_p50_ms": percentile(cpus, 50), "cpu_p95_ms": percentile(cpus, 95)}


def recall(ranked: list[list[str]], queries: list[dict], texts: dict[str, str]) -> dict[str, float]:
    """Strict (the target id) and by text (a returned doc with the target's exact text also counts)."""
    out = {}
    for k in (1, 5):
        strict = np.mean([q["target"] in r[:k] for r, q in zip(ranked, queries)])
        same = np.mean([any(texts.get(x) == texts[q["target"]] for x in r[:k]) for r, q in zip(ranked, queries)])
        out[f"R@{k}"], out[f"R@{k}_same_text"] = float(strict), float(same)
    return out


def distractors(docs: list[dict], n: int, seed: int = 0) -> list[dict]:
    """Perturbed copies: half of each source doc's words replaced by random corpus words, then shuffled; a
    title from another doc's module path plus a random word. Same length and vocabulary statistics."""
    rnd = random.Random(seed)
    vocab = sorted({w for d in docs for w in d["text"].split()})
    out = []
    for i in range(n):
        src = rnd.choice(docs)
        words = [w if rnd.random() < 0.5 else rnd.choice(vocab) for w in src["text"].split()]
        rnd.shuffle(words)
        title = rnd.choice(docs)["title"].rsplit(".", 1)[0] + "." + rnd.choice(vocab).strip(".,:;()'\"`")
        out.append({"id": f"x{i:06d}", "title": title, "text": " ".join(words), "source": src["id"]})
    return out


def kgkit_items(docs: list[dict]):
    from kgkit.stages.search import SearchItem

    return [SearchItem(id=d["id"], kind="chunk", title=d["title"], body=d["text"], document_id=d["id"],
                       documents=(d["id"],)) for d in docs]


def embed_pool(docs, *, embedder, cache, noise=0.05, seed=0) -> np.ndarray:
    """MiniLM vectors (through the cache) for real docs; a distractor gets its source doc's vector plus Gaussian
    noise, renormalised (MiniLM on one shared core embeds ~7-100 docstrings/s: 90k distractors would take hours)."""
    from kgkit.stages.embed import embed_rows
    from kgkit.stages.search import SearchItem

    real = [d for d in docs if "source" not in d]
    texts = [SearchItem(id=d["id"], kind="chunk", title=d["title"], body=d["text"]).text for d in real]
    t0 = time.perf_counter()
    got = dict(zip((d["id"] for d in real), cache.map(embed_rows, texts, batch_size=64, embedder=embedder)))
    print(f"  embedded {len(real)} docs in {time.perf_counter() - t0:.1f} s", flush=True)
    rng = np.random.default_rng(seed)
    rows = []
    for d in docs:
        if "source" in d:
            v = got[d["source"]] + rng.normal(0.0, noise, embedder.dim).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        else:
            rows.append(got[d["id"]])
    return np.stack(rows).astype(np.float32)


def run_kgkit(docs, queries, *, embedder, cache, k=5) -> dict:
    from kgkit.stages.search import CHANNELS, SearchConfig, SearchIndex

    vectors = None
    if embedder is not None:
        vectors = embed_pool(docs, embedder=embedder, cache=cache)
    t0 = time.perf_counter()
    index = SearchIndex(embedder=embedder, cache=cache)
    index.add(kgkit_items(docs), vectors=vectors)
    build = time.perf_counter() - t0
    texts = {d["id"]: d["text"] for d in docs}
    out = {"build_s": build}
    modes = {"keyword": ("keyword",)}
    if embedder:  # the default; and the same with the dense channel fused (and run) for lookups too
        modes.update({"hybrid": CHANNELS, "hybrid_dense_always": CHANNELS})
    for mode, channels in modes.items():
        # query_cache=0: every timed query embeds its text (cold), as a new question does
        index.config = SearchConfig(lookup_dense=1.0 if mode == "hybrid_dense_always" else 0.0, query_cache=0)
        index.keyword.drop_cache()  # every mode starts cold (per-term contributions are kept between queries)
        ranked, walls, cpus, stages, lookups = [], [], [], [], []
        index.search(queries[0]["query"], limit=k, channels=channels)  # warm-up (first call loads the model)
        for q in queries:
            w0, c0 = time.perf_counter(), time.process_time()
            hits = index.search(q["query"], limit=k, channels=channels)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            ranked.append(hits["id"].tolist())
            stages.append(hits.attrs["timings_ms"])
            lookups.append(bool(hits.attrs.get("lookup")))
        out[mode] = {**recall(ranked, queries, texts), **latency(walls, cpus), "lookup_share": float(np.mean(lookups))}
        other = [i for i, lk in enumerate(lookups) if not lk]  # queries the dense channel ran for
        if other and mode != "keyword":
            out[mode].update({f"non_lookup_{key}": v for key, v in
                              latency([walls[i] for i in other], [cpus[i] for i in other]).items()})
        if mode == "hybrid_dense_always":  # the same 50 questions asked again (a next page): the vector LRU
            index.config = SearchConfig(lookup_dense=1.0)
            again = [q["query"] for q in queries[:50]]
            for text in again:
                index.search(text, limit=k, channels=channels)
            rw, rc = [], []
            for text in again:
                w0, c0 = time.perf_counter(), time.process_time()
                index.search(text, limit=k, offset=k, channels=channels)
                rw.append(time.perf_counter() - w0)
                rc.append(time.process_time() - c0)
            out[mode].update({f"repeat_{key}": v for key, v in latency(rw, rc).items()})
        for stage in ("keyword", "embed", "dense", "graph", "fusion", "assemble"):
            values = [t[stage] / 1000 for t in stages if stage in t]
            if values:
                out[mode][f"stage_{stage}_p50_ms"] = percentile(values, 50)
                out[mode][f"stage_{stage}_p95_ms"] = percentile(values, 95)
        print(f"  kgkit {mode:8s} {json.dumps({k2: round(v, 3) for k2, v in out[mode].items()})}", flush=True)
    return out


def run_sage(docs, queries, *, k=5) -> dict | None:
    python = SAGE_VENV / "bin" / "python"
    if not python.exists():
        print("  creating the sage-memory venv with /usr/bin/python3 ...", flush=True)
        subprocess.run(["/usr/bin/python3", "-m", "venv", str(SAGE_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "sage-memory==0.13.2"], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        spec, result, runner = Path(tmp) / "spec.json", Path(tmp) / "out.json", Path(tmp) / "runner.py"
        spec.write_text(json.dumps({"docs": docs, "queries": [q["query"] for q in queries], "k": k}))
        runner.write_text(SAGE_RUNNER)
        env = {k2: v for k2, v in os.environ.items() if not k2.endswith("_API_KEY")}
        proc = subprocess.run([str(python), str(runner), str(spec), str(result)], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print("  sage-memory failed:", proc.stderr[-2000:], flush=True)
            return None
        data = json.loads(result.read_text())
    texts = {d["id"]: d["text"] for d in docs}
    ranked = [[x for x in r["ids"] if x] for r in data["results"]]
    out = {**recall(ranked, queries, texts), **latency([r["wall"] for r in data["results"]], [r["cpu"] for r in data["results"]]),
           "writes_per_s": len(docs) / data["write_wall"]}
    print(f"  sage     {json.dumps({k2: round(v, 3) for k2, v in out.items()})}", flush=True)
    return out


def fsync_probe(n=500, size=300) -> dict:
    """The disk's floor for durable writes: `n` appends of `size` bytes to a file in bench/out, each followed
    by os.fsync (p50 / p95 latency, and how many such writes a second one thread gets)."""
    path = ROOT / "bench" / "out" / f".fsync-probe-{os.getpid()}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    times = []
    try:
        t0 = time.perf_counter()
        for _ in range(n):
            t = time.perf_counter()
            os.write(fd, b"x" * size)
            os.fsync(fd)
            times.append(time.perf_counter() - t)
        total = time.perf_counter() - t0
    finally:
        os.close(fd)
        path.unlink()
    return {"p50_ms": percentile(times, 50), "p95_ms": percentile(times, 95), "per_s": n / total}


def write_throughput(docs, *, embedder, cache, n=1000) -> dict:
    """Durable single writes: one item per `add` call, each its own committed transaction (synchronous=FULL),
    from one thread and from 8 and 32 threads (their commits grouped); the fsync floor measured before and after."""
    from concurrent.futures import ThreadPoolExecutor

    from kgkit.io.search_store import open_index

    out = {"fsync_before": fsync_probe()}
    runs = [("full_no_embedder", None, "FULL"), ("normal_no_embedder", None, "NORMAL"),
            ("full_minilm_cached", embedder, "FULL")]
    for label, emb, sync in runs:
        if emb is None and "minilm" in label:
            continue
        with tempfile.TemporaryDirectory(dir=ROOT / "bench" / "out") as tmp:
            index = open_index(Path(tmp) / "index", embedder=emb, cache=cache, synchronous=sync)
            items = kgkit_items(docs[:n])
            t0 = time.perf_counter()
            for item in items:
                index.add([item])
            out[label] = n / (time.perf_counter() - t0)
            index.close()
        for threads in (8, 32) if emb is None else ():  # the same single writes from threads: commits grouped
            with tempfile.TemporaryDirectory(dir=ROOT / "bench" / "out") as tmp:
                index = open_index(Path(tmp) / "index", synchronous=sync)
                t0 = time.perf_counter()
                with ThreadPoolExecutor(threads) as pool:
                    list(pool.map(lambda item, ix=index: ix.add([item]), kgkit_items(docs[:n])))
                out[label.replace("no_embedder", f"{threads}_threads")] = n / (time.perf_counter() - t0)
                index.close()
    out["fsync_after"] = fsync_probe()
    print(f"  kgkit writes/s {json.dumps(out)}", flush=True)
    return out


def open_times(docs) -> dict:
    """Opening a stored keyword-only index of `docs`: rebuilt from the rows vs loaded from keyword.npz."""
    from kgkit.io.search_store import open_index

    out = {}
    with tempfile.TemporaryDirectory(dir=ROOT / "bench" / "out") as tmp:
        folder = Path(tmp) / "index"
        index = open_index(folder)
        index.add(kgkit_items(docs))
        index.close()
        for label in ("rows", "snapshot"):
            if label == "rows":
                (folder / "keyword.npz").unlink()
            w0, c0 = time.perf_counter(), time.process_time()
            index = open_index(folder)
            out[f"open_{index.opened_from}_s"] = time.perf_counter() - w0
            out[f"open_{index.opened_from}_cpu_s"] = time.process_time() - c0
            index.close()
        out["snapshot_mb"] = (folder / "keyword.npz").stat().st_size / 1e6
        out["db_mb"] = (folder / "search.db").stat().st_size / 1e6
    print(f"  kgkit open n={len(docs)}: {json.dumps({k: round(v, 2) for k, v in out.items()})}", flush=True)
    return out


def musique(*, embedder, cache, sage: bool, k=5) -> dict:
    from kgkit.stages.search import SearchIndex, SearchItem

    questions = json.loads((SHARED / "musique" / "musique_train.json").read_text())
    corpus = json.loads((SHARED / "musique" / "musique_train_corpus.json").read_text())
    docs = [{"id": f"p{i:05d}", "title": p["title"], "text": p["text"]} for i, p in enumerate(corpus)]
    title_of = {d["id"]: d["title"] for d in docs}
    gold = [{p["title"] for p in q["paragraphs"] if p["is_supporting"]} for q in questions]

    def score(ranked):
        return float(np.mean([len(g & {title_of.get(x) for x in r[:k]}) / len(g) for r, g in zip(ranked, gold)]))

    out = {}
    index = SearchIndex(embedder=embedder, cache=cache)
    index.add([SearchItem(id=d["id"], kind="chunk", title=d["title"], body=d["text"]) for d in docs],
              vectors=None if embedder is None else embed_pool(docs, embedder=embedder, cache=cache))
    for mode, channels in (("keyword", ("keyword",)), ("hybrid", ("keyword", "dense", "graph"))):
        ranked = [index.search(q["question"], limit=k, channels=channels)["id"].tolist() for q in questions]
        out[f"kgkit_{mode}"] = score(ranked)
    if sage:
        qs = [{"query": q["question"], "target": ""} for q in questions]
        python = SAGE_VENV / "bin" / "python"
        with tempfile.TemporaryDirectory() as tmp:
            spec, result, runner = Path(tmp) / "spec.json", Path(tmp) / "out.json", Path(tmp) / "runner.py"
            spec.write_text(json.dumps({"docs": docs, "queries": [q["query"] for q in qs], "k": k}))
            runner.write_text(SAGE_RUNNER)
            subprocess.run([str(python), str(runner), str(spec), str(result)], check=True, capture_output=True)
            data = json.loads(result.read_text())
        out["sage"] = score([[x for x in r["ids"] if x] for r in data["results"]])
    print(f"  musique recall@{k}: {json.dumps({k2: round(v, 3) for k2, v in out.items()})}", flush=True)
    return out


def render(report: dict) -> str:
    """The RESULTS.md tables from a report written by main()."""
    lines = ["| set | system | R@1 | R@5 | CPU mean / p50 / p95 ms | wall mean / p50 / p95 ms |", "|---|---|---|---|---|---|"]
    for key, block in report.items():
        if not key.startswith("docstrings_"):
            continue
        size = key.split("_")[1]
        names = {"keyword": "kgkit keyword", "hybrid": "kgkit hybrid (default)",
                 "hybrid_dense_always": "kgkit hybrid, dense also for lookups"}
        rows = [(name, block["kgkit"][m]) for m, name in names.items() if m in block["kgkit"]]
        if block.get("sage"):
            rows.append(("sage-memory 0.13.2", block["sage"]))
        for name, r in rows:
            lines.append(f"| docstrings {int(size):,} | {name} | {r['R@1']:.3f} | {r['R@5']:.3f} | "
                         f"{r['cpu_mean_ms']:.2f} / {r['cpu_p50_ms']:.2f} / {r['cpu_p95_ms']:.2f} | "
                         f"{r['wall_mean_ms']:.2f} / {r['wall_p50_ms']:.2f} / {r['wall_p95_ms']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-sage", action="store_true")
    parser.add_argument("--no-dense", action="store_true", help="keyword channel only (no MiniLM)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "search.json"))
    parser.add_argument("--render", help="print the results table of a saved report and exit")
    args = parser.parse_args()
    if args.render:
        print(render(json.loads(Path(args.render).read_text())))
        return
    if not (SHARED / "docstrings" / "corpus.jsonl").exists():
        print(f"skipped: {SHARED}/docstrings not found (the shared retrieval data sets are not on this machine)")
        return
    import torch

    torch.set_num_threads(1)
    from kgkit.io.cache import Cache
    from kgkit.stages.embed import MiniLMEmbedder

    (ROOT / "bench" / "out").mkdir(exist_ok=True)
    embedder = None if args.no_dense else MiniLMEmbedder(threads=1)
    cache = Cache("/tmp/kgkit-bench-search-cache")
    docs = [json.loads(line) for line in (SHARED / "docstrings" / "corpus.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (SHARED / "docstrings" / "queries.jsonl").read_text().splitlines()]
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load": os.getloadavg()}
    for size in [int(s) for s in args.sizes.split(",")]:
        pool = docs[:size] if size <= len(docs) else docs + distractors(docs, size - len(docs))
        sent = [{k2: v for k2, v in d.items() if k2 != "source"} for d in pool]
        ids = {d["id"] for d in pool}
        qs = [q for q in queries if q["target"] in ids]
        print(f"docstrings n={size}: {len(qs)} queries, load {os.getloadavg()}", flush=True)
        report[f"docstrings_{size}"] = {"queries": len(qs), "kgkit": run_kgkit(pool, qs, embedder=embedder, cache=cache)}
        if not args.no_sage and size <= len(docs):
            report[f"docstrings_{size}"]["sage"] = run_sage(sent, qs)
        if size == max(int(s2) for s2 in args.sizes.split(",")):
            report[f"docstrings_{size}"]["open"] = open_times(pool)
        report[f"docstrings_{size}"]["load_after"] = os.getloadavg()
        Path(args.out).write_text(json.dumps(report, indent=2))
    report["writes"] = write_throughput(docs, embedder=embedder, cache=cache)
    if (SHARED / "musique").exists():
        report["musique"] = musique(embedder=embedder, cache=cache, sage=not args.no_sage)
    else:
        print(f"skipped musique: {SHARED}/musique not found")
    report["load_end"] = os.getloadavg()
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
