"""Dask benchmark (issue 19): the demo corpus extracted serially and on a LocalCluster of 2 worker processes,
side by side in one run, each into a fresh workspace (fresh cache), the graphs compared byte for byte; then
each workspace indexed (`kgkit index`: entities, relations and chunks embedded with the default search
embedder, MiniLM), serially and on the same cluster, the stored vectors compared.

    .venv/bin/python bench/bench_dask.py [--workers 2] [--corpus data/demo/sotu_1934_1946] [--no-index]

Prints wall and extraction seconds of each, the cluster's start-up, the speed-ups (serial / dask) and the
cost per document, chunk, relation and indexed item that docs/scale.md works from; JSON on the last line.
Extraction and embedding are CPU-bound, so the speed-up is bounded by the cores free at the time (the load
average is printed with the figures).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(corpus: Path, ws: Path, executor: object) -> tuple[float, dict]:
    from kgkit.workflows.run import run

    t = time.perf_counter()
    result = run(ws, corpus, executor=executor, write_view=False)  # type: ignore[arg-type]
    return time.perf_counter() - t, result.summary()


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _index(ws: Path, executor: object) -> tuple[float, dict]:
    from kgkit.stages.search.minilm import search_embedder
    from kgkit.workflows.index import index_report

    t = time.perf_counter()
    report = index_report(ws, embedder=search_embedder("minilm"), embedder_name="minilm", executor=executor)  # type: ignore[arg-type]
    return time.perf_counter() - t, report.to_json_dict()


def _max_vector_difference(a: Path, b: Path) -> float:
    import numpy as np

    from kgkit.io.search_store import IndexStore

    loaded = []
    for ws in (a, b):
        store = IndexStore(ws / "index")
        try:
            items, vectors, _ = store.load()
        finally:
            store.close()
        loaded.append(({i.id: row for row, i in enumerate(items)}, vectors))
    (rows_a, vec_a), (rows_b, vec_b) = loaded
    if rows_a.keys() != rows_b.keys():
        return float("inf")
    return max((float(np.abs(vec_a[r] - vec_b[rows_b[k]]).max()) for k, r in rows_a.items()), default=0.0)


def main(argv: list[str]) -> int:
    workers = int(argv[argv.index("--workers") + 1]) if "--workers" in argv else 2
    corpus = Path(argv[argv.index("--corpus") + 1]) if "--corpus" in argv else ROOT / "data/demo/sotu_1934_1946"
    from distributed import Client, LocalCluster

    from kgkit.workflows.executors import DaskExecutor

    base = Path(tempfile.mkdtemp(prefix="kgkit-bench-dask-"))
    figures: dict[str, object] = {"workers": workers, "cores": os.cpu_count(), "load_before": os.getloadavg()[0]}
    with_index = "--no-index" not in argv
    try:
        serial_s, serial = _run(corpus, base / "serial", None)
        run_cache_bytes = _bytes(base / "serial" / "cache")
        if with_index:
            index_serial_s, index_serial = _index(base / "serial", None)
        t = time.perf_counter()
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.wait_for_workers(workers)
            figures["cluster_start_s"] = round(time.perf_counter() - t, 2)
            dask_s, dask = _run(corpus, base / "dask", DaskExecutor(client))
            if with_index:
                index_dask_s, index_dask = _index(base / "dask", DaskExecutor(client))
        same = (base / "serial" / "graph.json").read_bytes() == (base / "dask" / "graph.json").read_bytes()
        if with_index:
            texts = index_serial["added"] + index_serial["replaced"]
            figures.update({
                "index_items": texts, "index_serial_s": round(index_serial_s, 2), "index_dask_s": round(index_dask_s, 2),
                "speedup_index": round(index_serial_s / index_dask_s, 2),
                "index_serial_s_per_item": round(index_serial_s / max(texts, 1), 4),
                "index_same_counts": {k: v for k, v in index_serial.items() if k != "index"}
                == {k: v for k, v in index_dask.items() if k != "index"},
                "index_max_vector_difference": _max_vector_difference(base / "serial", base / "dask"),
            })
    finally:
        figures["load_after"] = os.getloadavg()[0]
        cache_bytes = _bytes(base / "serial" / "cache")
        shutil.rmtree(base, ignore_errors=True)
    docs, chunks, relations = serial["documents_ok"], serial["chunks"], serial["relations"]
    figures.update({
        "documents": docs, "chunks": chunks, "relations": relations, "entities": serial["entities"],
        "serial_wall_s": round(serial_s, 2), "serial_extract_s": serial["timings"]["extract"],
        "dask_wall_s": round(dask_s, 2), "dask_extract_s": dask["timings"]["extract"],
        "speedup_extract": round(serial["timings"]["extract"] / dask["timings"]["extract"], 2),
        "speedup_wall": round(serial_s / dask_s, 2), "identical_graph_json": same,
        "serial_extract_s_per_document": round(serial["timings"]["extract"] / docs, 3),
        "serial_extract_s_per_chunk": round(serial["timings"]["extract"] / chunks, 4),
        "serial_wall_s_per_relation": round(serial_s / max(relations, 1), 4),
        "cache_bytes_per_document": round(run_cache_bytes / docs),  # what the run stored
        "cache_bytes_per_document_with_index": round(cache_bytes / docs),  # and the index's embeddings
    })
    for key, value in figures.items():
        print(f"{key:32s} {value}")
    print(json.dumps(figures))
    return 0 if same and figures.get("index_same_counts", True) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
