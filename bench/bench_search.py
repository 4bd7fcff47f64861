"""Search benchmark (issues 7 and 16): every shared set in one run, kgkit beside a bm25s BM25 baseline and a
MiniLM dense baseline (exact cosine over the same vectors kgkit's dense channel uses).

    .venv/bin/python bench/bench_search.py [--sizes 1000,10000,100000] [--skip-product] [--out bench/out/search.json]

Sets (../shared/data/retrieval, skipped with a message when absent; the demo corpus is in data/demo):
- docstrings: 200 known-answer queries (bags of words, fragments: every one a lookup) at each size; at 10k
  also the same queries with one foreign word added ("+1 word": no item has every word, so the fusion decides);
  100k = the 10k + perturbed distractors (their vectors are their source's plus noise). Latency per query,
  in-process: keyword queries (the lookups) and natural-language ones (the "+1 word" queries, embedded cold).
- MuSiQue (100 questions, 1,890 passages; recall@5 of the gold passages, and all_gold@5: every gold passage
  in the first 5), two ways: the library path (one item per passage, no extraction: no graph), and the
  product path: the passages written as files, `kgkit run` (offline extractor), `kgkit index` (timed), the
  questions searched as `kgkit search --kind chunk` does (in-process; the first 5 also through the CLI).
- demo known items (tests/data/demo_known_items.csv): `kgkit run` + `kgkit index` on data/demo/sotu_1934_1946
  (the index timed, cold cache), MRR and R@1 of the default search (no --kind).

"default" = SearchConfig() (what `kgkit search` runs: a query embedded by onnxruntime int8 while the keyword
channel runs in a worker thread, the dense channel approximate from 20,000 rows); "default, stages in turn" = the
same with the keyword channel and the embedding one after the other (SearchConfig.overlap False: the same hits,
the latency without the worker); "exact" = the same ranking with the query embedded by the torch float32 forward and
the exact dense product (the default before the fast query path: the recall the fast path must keep);
"approximate dense everywhere" = the default with the product-quantised dense scan at every size and only 200
candidates re-scored (harsher than the default's 1,000: its recall cost bounds the default's); "previous
default" = the fusion before issue 16 (weighted RRF keyword 1, dense 1, k 60, dense left out of lookups; no name
matches; no graph walk). Each set also reports the dense channel's own agreement with the exact product (top 5
and top 100 equal, approximate vs exact, same query vectors) and the query vectors' cosine to the float32 ones.
MiniLM runs on one thread; document vectors go through a kgkit Cache in /tmp/kgkit-bench-search-cache.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KGKIT_SHARED", ROOT.parent / "shared")) / "data" / "retrieval"
DEMO = ROOT / "data" / "demo" / "sotu_1934_1946"
KGKIT = [sys.executable, "-m", "kgkit.cli"]
CACHE = Path("/tmp/kgkit-bench-search-cache")


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, p)) if values else float("nan")


def latency(walls: list[float], cpus: list[float]) -> dict[str, float]:
    return {"wall_p50_ms": percentile(walls, 50), "wall_p95_ms": percentile(walls, 95),
            "cpu_p50_ms": percentile(cpus, 50), "cpu_p95_ms": percentile(cpus, 95)}


def show(label: str, values: dict) -> None:
    print(f"  {label:34s} {json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in values.items()})}",
          flush=True)


def configs() -> dict:
    """name -> (SearchConfig, query encoder)."""
    from kgkit.stages.search import SearchConfig

    default = SearchConfig()
    previous = replace(default, fusion="rrf", weights={"keyword": 1.0, "dense": 1.0, "graph": 0.0}, coverage_power=0,
                       names=False, dense_approximate=None)
    return {"default": (default, "auto"), "default, stages in turn": (replace(default, overlap=False), "auto"),
            "exact": (replace(default, dense_approximate=None), "torch"),
            "approximate dense everywhere": (replace(default, dense_approximate=0, dense_candidates=200), "auto"),
            "previous default": (previous, "torch")}


# ----------------------------------------------------------------- baselines


class BM25Baseline:
    """bm25s 0.3 (Lucene BM25, k1 1.5, b 0.75), English stopwords, no stemmer: title and text as one field."""

    def __init__(self, ids: list[str], texts: list[str]) -> None:
        import bm25s

        self.bm25s, self.ids = bm25s, ids
        self.model = bm25s.BM25()
        self.model.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def search(self, query: str, k: int) -> list[str]:
        tokens = self.bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        rows, scores = self.model.retrieve(tokens, k=min(k, len(self.ids)), show_progress=False)
        return [self.ids[r] for r, s in zip(rows[0], scores[0]) if s > 0]


class DenseBaseline:
    """Exact cosine over the item vectors (MiniLM, as kgkit's dense channel)."""

    def __init__(self, ids: list[str], vectors: np.ndarray, embedder) -> None:
        self.ids, self.vectors, self.embedder = ids, vectors, embedder

    def search(self, query: str, k: int) -> list[str]:
        scores = self.vectors @ self.embedder([query])[0]
        top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
        return [self.ids[i] for i in top[np.argsort(-scores[top])]]


def timed_searches(search, queries: list[str]) -> tuple[list[list[str]], dict[str, float]]:
    ranked, walls, cpus = [], [], []
    for q in queries:
        w0, c0 = time.perf_counter(), time.process_time()
        ranked.append(search(q))
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return ranked, latency(walls, cpus)


# ----------------------------------------------------------------- docstrings


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


def plus_one_word(docs: list[dict], queries: list[dict], seed: int = 16) -> list[dict]:
    """Each query with one content word of the corpus that its target does not have (so no item has every
    word of it: the fusion, not the lookup rule, decides)."""
    from kgkit.stages.search.text import STOPWORDS, tokens

    rnd = random.Random(seed)
    by_id = {d["id"]: d for d in docs}
    vocab = sorted({w for d in docs for w in tokens(d["text"]) if w not in STOPWORDS and w.isalpha() and len(w) > 3})
    out = []
    for q in queries:
        own = set(tokens(by_id[q["target"]]["title"] + " " + by_id[q["target"]]["text"]))
        extra = next(w for w in rnd.sample(vocab, 50) if w not in own)
        out.append({**q, "query": f"{q['query']} {extra}"})
    return out


def embed_items(items, *, embedder, cache) -> np.ndarray:
    from kgkit.stages.embed import embed_rows

    texts = [i.text for i in items]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    rows = cache.map(embed_rows, [texts[i] for i in order], batch_size=64, embedder=embedder)
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    out[order] = np.stack(rows)
    return out


def docstrings(sizes: list[int], *, embedder, cache) -> dict:
    from kgkit.stages.search import SearchIndex, SearchItem

    docs = [json.loads(line) for line in (SHARED / "docstrings" / "corpus.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (SHARED / "docstrings" / "queries.jsonl").read_text().splitlines()]
    real = [SearchItem(id=d["id"], kind="chunk", title=d["title"], body=d["text"]) for d in docs]
    t0, c0 = time.perf_counter(), time.process_time()
    real_vectors = embed_items(real, embedder=embedder, cache=cache)
    print(f"  embedded {len(real)} docstrings (cache {CACHE}) in {time.perf_counter() - t0:.1f} s wall, "
          f"{time.process_time() - c0:.1f} s CPU", flush=True)
    out: dict = {}
    for size in sizes:
        pool = docs[:size] if size <= len(docs) else docs + distractors(docs, size - len(docs))
        ids = [d["id"] for d in pool]
        rng = np.random.default_rng(0)
        vectors = real_vectors[: min(size, len(docs))]
        if size > len(docs):  # a distractor's vector: its source's plus Gaussian noise, renormalised
            row_of = {d["id"]: i for i, d in enumerate(docs)}
            extra = np.stack([real_vectors[row_of[d["source"]]] for d in pool[len(docs):]])
            extra = extra + rng.normal(0.0, 0.05, extra.shape).astype(np.float32)
            vectors = np.concatenate([vectors, extra / np.linalg.norm(extra, axis=1, keepdims=True)])
        present = set(ids)
        qs = [q for q in queries if q["target"] in present]
        sets = {"lookups": qs}
        if size == 10_000 or size == max(sizes):
            sets["+1 word"] = plus_one_word(docs, qs)
        print(f"docstrings n={size}: {len(qs)} queries, load {os.getloadavg()}", flush=True)
        t0 = time.perf_counter()
        index = SearchIndex(embedder=embedder)
        index.add([SearchItem(id=d["id"], kind="chunk", title=d["title"], body=d["text"]) for d in pool], vectors=vectors)
        block: dict = {"build_s": time.perf_counter() - t0, "queries": len(qs)}
        bm25 = BM25Baseline(ids, [f"{d['title']} {d['text']}" for d in pool])
        dense = DenseBaseline(ids, vectors, embedder)
        for set_name, query_set in sets.items():
            texts = [q["query"] for q in query_set]
            stages: dict = {}
            for name, run in compared(index, bm25, dense, stages).items():
                index.keyword.drop_cache()  # every system starts cold
                t0 = time.perf_counter()
                run(texts[0])  # warm-up (loads the model once; trains the dense channel's quantiser at 100k)
                warm = time.perf_counter() - t0
                stages.get(name, []).clear()
                ranked, lat = timed_searches(run, texts)
                r1 = float(np.mean([r[:1] == [q["target"]] for r, q in zip(ranked, query_set)]))
                r5 = float(np.mean([q["target"] in r[:5] for r, q in zip(ranked, query_set)]))
                block[f"{set_name} | {name}"] = {"R@1": r1, "R@5": r5, **lat, "warm_up_s": warm,
                                                 "stages_p50_p95_ms": stage_summary(stages.get(name, []))}
                show(f"{set_name} | {name}", {k: v for k, v in block[f"{set_name} | {name}"].items()
                                              if k != "stages_p50_p95_ms"})
                if name.startswith("kgkit default") or name == "kgkit exact":
                    show("    stages (wall p50, p95 ms)", block[f"{set_name} | {name}"]["stages_p50_p95_ms"])
            if set_name != "lookups":
                query_vectors = embedder(texts)
                for candidates in sorted({200, index.config.dense_candidates}):
                    agreement = dense_agreement(index, query_vectors, candidates=candidates)
                    block[f"{set_name} | dense agreement, {candidates} candidates"] = agreement
                    show(f"{set_name} | dense agreement", agreement)
        block["load_after"] = os.getloadavg()
        out[f"docstrings_{size}"] = block
    return out


def compared(index, bm25: BM25Baseline, dense: DenseBaseline, stages: dict | None = None) -> dict:
    """The systems run side by side: name -> query -> the first 5 ids. `stages[name]` collects each kgkit
    search's per-stage timings."""
    default = configs()["default"]
    systems = {"bm25s BM25": lambda q: bm25.search(q, 5), "MiniLM dense": lambda q: dense.search(q, 5),
               "kgkit keyword channel": lambda q: search_ids(index, q, *default, ("keyword",),
                                                             sink=None if stages is None else stages.setdefault(
                                                                 "kgkit keyword channel", []))}
    for name, (config, encoder) in configs().items():
        sink = None if stages is None else stages.setdefault(f"kgkit {name}", [])
        systems[f"kgkit {name}"] = lambda q, c=config, e=encoder, s=sink: search_ids(index, q, c, e, sink=s)
    return systems


def search_ids(index, query: str, config, encoder: str = "auto", channels=("keyword", "dense", "graph"), *,
               sink: list | None = None, **options) -> list[str]:
    index.config = replace(config, query_cache=0)  # every timed query embeds its text, as a new question does
    if index.embedder is not None and hasattr(index.embedder, "query_encoder"):
        index.embedder.query_encoder = encoder
    hits = index.search(query, limit=options.pop("limit", 5), channels=channels, **options)
    if sink is not None:
        sink.append(hits.attrs["timings_ms"])
    return hits["id"].tolist()


def stage_summary(timings: list[dict]) -> dict[str, list[float]]:
    """Per stage: [p50, p95] wall ms over the timed queries it ran for, and how many those were."""
    names = set().union(*(set(t) for t in timings)) if timings else set()
    out = {}
    for k in sorted(names):
        values = [t[k] for t in timings if k in t]
        out[k] = [*(round(float(np.percentile(values, p)), 3) for p in (50, 95)), len(values)]
    return out


def dense_agreement(index, vectors_of_queries: np.ndarray, *, candidates: int) -> dict[str, float]:
    """The dense channel's approximate scan vs the exact product, same query vectors: share of queries whose top
    5 are equal, and mean share of the exact top 100 found."""
    from kgkit.stages.search.dense import DenseIndex

    dense: DenseIndex = index.dense
    alive = index.keyword.alive.view()
    top5, top100 = [], []
    for vector in vectors_of_queries:
        exact = dense.search(vector, mask=alive, limit=100, approximate_from=None)[0]
        approx = dense.search(vector, mask=alive, limit=100, approximate_from=0, candidates=candidates)[0]
        top5.append(exact[:5].tolist() == approx[:5].tolist())
        top100.append(len(set(exact.tolist()) & set(approx.tolist())) / max(len(exact), 1))
    return {"top5_equal": float(np.mean(top5)), "top100_found": float(np.mean(top100)), "candidates": candidates}


def query_cosines(embedder, queries: list[str]) -> dict[str, float]:
    """Cosine of the default query encoder's vectors to the float32 (torch) ones, and its CPU time per query."""
    embedder.query_encoder = "auto"  # the default's
    exact = embedder(queries)
    embedder.query(queries[0])  # loads the model
    t0 = time.process_time()
    fast = np.stack([embedder.query(q) for q in queries])
    cpu = (time.process_time() - t0) / max(len(queries), 1) * 1000
    cos = (fast * exact).sum(axis=1)
    return {"encoder": embedder.query_precision, "cos_min": float(cos.min()), "cos_mean": float(cos.mean()),
            "cpu_ms_mean": cpu}


# ----------------------------------------------------------------- MuSiQue


def musique_corpus(folder: Path, questions: list[dict]) -> list[dict]:
    """The passage pool: musique_train_corpus.json where it is shipped, else the union of the questions' own
    paragraphs (its README: the corpus is that union, 1,890 passages), in first-seen order."""
    path = folder / "musique_train_corpus.json"
    if path.exists():
        return json.loads(path.read_text())
    seen: dict[tuple[str, str], None] = {}
    for q in questions:
        for p in q["paragraphs"]:
            seen.setdefault((p["title"], p["paragraph_text"]), None)
    return [{"title": title, "text": text} for title, text in seen]


def musique_data() -> tuple[list[dict], list[dict], list[set[str]]]:
    questions = json.loads((SHARED / "musique" / "musique_train.json").read_text())
    corpus = musique_corpus(SHARED / "musique", questions)
    gold = [{p["title"] for p in q["paragraphs"] if p["is_supporting"]} for q in questions]
    return questions, corpus, gold


def recall(ranked_titles: list[list[str]], gold: list[set[str]], k: int) -> dict[str, float]:
    return {f"R@{k}": float(np.mean([len(g & set(r[:k])) / len(g) for r, g in zip(ranked_titles, gold)])),
            f"all_gold@{k}": float(np.mean([g <= set(r[:k]) for r, g in zip(ranked_titles, gold)]))}


def musique_library(*, embedder, cache) -> dict:
    """One item per passage (title + text), no extraction: the keyword and dense channels only."""
    from kgkit.stages.search import SearchIndex, SearchItem

    questions, corpus, gold = musique_data()
    items = [SearchItem(id=f"p{i:05d}", kind="chunk", title=p["title"], body=p["text"]) for i, p in enumerate(corpus)]
    vectors = embed_items(items, embedder=embedder, cache=cache)
    index = SearchIndex(embedder=embedder)
    index.add(items, vectors=vectors)
    title = {i.id: i.title for i in items}
    ids = [i.id for i in items]
    bm25 = BM25Baseline(ids, [f"{i.title} {i.body}" for i in items])
    dense = DenseBaseline(ids, vectors, embedder)
    out = {}
    for name, run in compared(index, bm25, dense).items():
        run(questions[0]["question"])  # warm-up (loads the model once)
        ranked, lat = timed_searches(run, [q["question"] for q in questions])
        titles = [[title[x] for x in r] for r in ranked]
        out[name] = {**recall(titles, gold, 2), **recall(titles, gold, 5), **lat}
        show(f"musique library | {name}", out[name])
    query_vectors = embedder([q["question"] for q in questions])
    out["dense agreement, 200 candidates"] = dense_agreement(index, query_vectors, candidates=200)
    show("musique library | dense agreement", out["dense agreement, 200 candidates"])
    return out


def write_corpus(corpus: list[dict], folder: Path) -> dict[str, str]:
    """One file per passage, named by its title (a second passage of a title gets " (2)"); path -> title."""
    folder.mkdir(parents=True, exist_ok=True)
    seen: dict[str, int] = {}
    titles = {}
    for p in corpus:
        stem = re.sub(r"[/\\\x00]", "-", p["title"]).strip() or "untitled"
        n = seen[stem.lower()] = seen.get(stem.lower(), 0) + 1
        name = f"{stem}.txt" if n == 1 else f"{stem} ({n}).txt"
        path = folder / name
        if not path.exists() or path.read_text() != p["text"]:
            path.write_text(p["text"])
        titles[name] = p["title"]
    return titles


def run_cli(args: list[str]) -> dict:
    """A kgkit command as a user runs it: wall time, and the CPU time of the process (children's rusage)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([*KGKIT, *args], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"kgkit {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "stdout": proc.stdout, "load": os.getloadavg()[0]}


def musique_product(work: Path, *, embedder) -> dict:
    """`kgkit run` + `kgkit index` over the passages as files, then the questions as `kgkit search --kind chunk`."""
    from kgkit.stages.search.text import document_name
    from kgkit.workflows.index import open_search_index, query_embedder

    questions, corpus, gold = musique_data()
    titles = write_corpus(corpus, work / "corpus")
    ws = work / "ws"
    out = {}
    for step, args in (("run", ["run", str(work / "corpus"), "-o", str(ws), "--no-view", "--json"]),
                       ("index", ["index", "-w", str(ws)])):
        done = run_cli(args)
        out[f"{step}_wall_s"], out[f"{step}_cpu_s"], out[f"{step}_load"] = done["wall_s"], done["cpu_s"], done["load"]
        print(f"  musique product: kgkit {step} {done['wall_s']:.1f} s wall, {done['cpu_s']:.1f} s CPU "
              f"(load {done['load']:.1f})", flush=True)
    index = open_search_index(ws, embedder=query_embedder(ws))
    title_of = lambda item_title: titles.get(item_title, document_name(item_title))  # noqa: E731
    default = configs()["default"]
    runs = {**{name: (*pair, ("keyword", "dense", "graph")) for name, pair in configs().items()},
            "keyword channel": (*default, ("keyword",)), "dense channel": (*default, ("dense",))}
    for name, (config, encoder, channels) in runs.items():
        index.config = replace(config, query_cache=0)
        if index.embedder is not None and hasattr(index.embedder, "query_encoder"):
            index.embedder.query_encoder = encoder
        index.search(questions[0]["question"], kind="chunk", limit=5, channels=channels)  # warm-up
        ranked, walls, cpus, graph_ms, named = [], [], [], [], 0
        for q in questions:
            w0, c0 = time.perf_counter(), time.process_time()
            hits = index.search(q["question"], kind="chunk", limit=5, channels=channels)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            ranked.append([title_of(t) for t in hits["title"]])
            named += bool(hits.attrs.get("named"))
            if "graph" in hits.attrs["timings_ms"]:
                graph_ms.append(hits.attrs["timings_ms"]["graph"] / 1000)
        out[name] = {**recall(ranked, gold, 2), **recall(ranked, gold, 5), **latency(walls, cpus),
                     "questions_naming_entities": named, "graph_p50_ms": percentile(graph_ms, 50),
                     "graph_p95_ms": percentile(graph_ms, 95)}
        show(f"musique product | {name}", out[name])
        if name == "default":
            cli = []
            for q, want in zip(questions[:5], ranked[:5]):
                found = run_cli(["search", q["question"], "-w", str(ws), "--kind", "chunk", "--limit", "5", "--json"])
                cli.append([title_of(h["title"]) for h in json.loads(found["stdout"])["hits"]] == want)
                out.setdefault("cli_search_wall_s", []).append(found["wall_s"])
            out["cli_agrees_on_first_5"] = all(cli)
    index.close()
    return out


# ----------------------------------------------------------------- demo known items


def demo_known_items(work: Path) -> dict:
    """`kgkit run` on the demo, `kgkit index` from a cold embedding cache (timed), the known-item queries."""
    import importlib.util

    import kgkit
    from kgkit.workflows.index import open_search_index, query_embedder

    spec = importlib.util.spec_from_file_location("demo_known_items", ROOT / "tests" / "data" / "demo_known_items.py")
    known = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(known)  # type: ignore[union-attr]
    ws = work / "demo-ws"
    out = {}
    done = run_cli(["run", str(DEMO), "-o", str(ws), "--json"])
    out["run_wall_s"] = done["wall_s"]
    shutil.rmtree(ws / "index", ignore_errors=True)
    shutil.rmtree(ws / "cache" / "v1" / "embed", ignore_errors=True)  # cold: every vector computed
    done = run_cli(["index", "-w", str(ws)])
    out.update(index_wall_s=done["wall_s"], index_cpu_s=done["cpu_s"], index_load=done["load"],
               index_report=json.loads(done["stdout"].strip().splitlines()[-1]))
    print(f"  demo: kgkit index (cold) {done['wall_s']:.1f} s wall, {done['cpu_s']:.1f} s CPU "
          f"(load {done['load']:.1f}), {out['index_report']['items']} items", flush=True)
    again = run_cli(["index", "-w", str(ws)])
    out.update(reindex_wall_s=again["wall_s"], reindex_cpu_s=again["cpu_s"])
    resolved, missing = known.resolve(kgkit.read_graph(ws))
    out.update(queries=len(resolved), unresolved=missing)
    index = open_search_index(ws, embedder=query_embedder(ws))
    for name, (config, encoder) in configs().items():
        index.config = config
        if index.embedder is not None and hasattr(index.embedder, "query_encoder"):
            index.embedder.query_encoder = encoder
        ranks = known.reciprocal_ranks(lambda q: index.search(q, limit=20)["id"].tolist(), resolved)
        out[name] = {"MRR": float(np.mean(ranks)), "R@1": float(np.mean([r == 1 for r in ranks])),
                     "R@5": float(np.mean([r >= 0.2 for r in ranks]))}
        show(f"demo known items | {name}", out[name])
    if index.embedder is not None and hasattr(index.embedder, "query_encoder"):
        index.embedder.query_encoder = "auto"
    for label, channels in (("keyword channel", ("keyword",)), ("dense channel", ("dense",))):
        index.config = replace(configs()["default"][0], names=False)
        ranks = known.reciprocal_ranks(lambda q, c=channels: index.search(q, limit=20, channels=c)["id"].tolist(), resolved)
        out[label] = {"MRR": float(np.mean(ranks)), "R@1": float(np.mean([r == 1 for r in ranks])),
                      "R@5": float(np.mean([r >= 0.2 for r in ranks]))}
        show(f"demo known items | {label}", out[label])
    index.close()
    for label, query in (("keyword", "war powers act"), ("natural language", "who attacked the fleet in hawaii")):
        done = run_cli(["search", query, "-w", str(ws), "--json"])
        out[f"cli_search_{label}_wall_s"] = done["wall_s"]
        out[f"cli_search_{label}_cpu_s"] = done["cpu_s"]
        print(f"  demo: kgkit search {query!r} {done['wall_s']:.2f} s wall, {done['cpu_s']:.2f} s CPU", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--skip-product", action="store_true", help="no kgkit run/index over MuSiQue and the demo")
    parser.add_argument("--work", default=str(ROOT / "bench" / "out" / "search-work"),
                        help="folder for the product-path workspaces (kept: a re-run reuses their caches)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "search.json"))
    args = parser.parse_args()
    from kgkit.io.cache import Cache
    from kgkit.stages.search.minilm import LeanMiniLM, minilm_available

    if not minilm_available():
        print("skipped: MiniLM is not installed (kgkit[ml])")
        return
    embedder, cache = LeanMiniLM(threads=1), Cache(CACHE)
    work = Path(args.work)
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_start": os.getloadavg(),
                    "cpus": os.cpu_count()}
    if not args.skip_product:
        print(f"demo known items, load {os.getloadavg()}", flush=True)
        report["demo"] = demo_known_items(work)
    if (SHARED / "musique").exists():
        print(f"musique, load {os.getloadavg()}", flush=True)
        report["musique_library"] = musique_library(embedder=embedder, cache=cache)
        if not args.skip_product:
            report["musique_product"] = musique_product(work / "musique", embedder=embedder)
    else:
        print(f"skipped musique: {SHARED}/musique not found (the shared retrieval data sets are not on this machine)")
    cosine_queries = []
    if (SHARED / "musique").exists():
        cosine_queries += [q["question"] for q in musique_data()[0]]
    if (SHARED / "docstrings" / "queries.jsonl").exists():
        cosine_queries += [json.loads(line)["query"]
                           for line in (SHARED / "docstrings" / "queries.jsonl").read_text().splitlines()]
    if cosine_queries:
        report["query_vectors"] = query_cosines(embedder, cosine_queries)
        show(f"query vectors ({len(cosine_queries)} questions)", report["query_vectors"])
    if (SHARED / "docstrings" / "corpus.jsonl").exists():
        report.update(docstrings([int(s) for s in args.sizes.split(",")], embedder=embedder, cache=cache))
    else:
        print(f"skipped docstrings: {SHARED}/docstrings not found")
    report["load_end"] = os.getloadavg()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
