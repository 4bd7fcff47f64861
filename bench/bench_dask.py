"""Dask benchmark (issue 19): the demo corpus extracted serially and on a LocalCluster of 2 worker processes,
side by side in one run, each into a fresh workspace (fresh cache), the graphs compared byte for byte.

    .venv/bin/python bench/bench_dask.py [--workers 2] [--corpus data/demo/sotu_1934_1946]

Prints wall and extraction seconds of each, the cluster's start-up, the speed-up (serial / dask) and the cost
per document, chunk and relation that docs/scale.md works from; JSON on the last line. The offline extractor
is CPU-bound, so the speed-up is bounded by the cores free at the time (`uptime` is printed with the figures).
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


def main(argv: list[str]) -> int:
    workers = int(argv[argv.index("--workers") + 1]) if "--workers" in argv else 2
    corpus = Path(argv[argv.index("--corpus") + 1]) if "--corpus" in argv else ROOT / "data/demo/sotu_1934_1946"
    from distributed import Client, LocalCluster

    from kgkit.workflows.executors import DaskExecutor

    base = Path(tempfile.mkdtemp(prefix="kgkit-bench-dask-"))
    figures: dict[str, object] = {"workers": workers, "cores": os.cpu_count(), "load_before": os.getloadavg()[0]}
    try:
        serial_s, serial = _run(corpus, base / "serial", None)
        t = time.perf_counter()
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.wait_for_workers(workers)
            figures["cluster_start_s"] = round(time.perf_counter() - t, 2)
            dask_s, dask = _run(corpus, base / "dask", DaskExecutor(client))
        same = (base / "serial" / "graph.json").read_bytes() == (base / "dask" / "graph.json").read_bytes()
    finally:
        figures["load_after"] = os.getloadavg()[0]
        cache_bytes = sum(p.stat().st_size for p in (base / "serial" / "cache").rglob("*") if p.is_file())
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
        "cache_bytes_per_document": round(cache_bytes / docs),
    })
    for key, value in figures.items():
        print(f"{key:32s} {value}")
    print(json.dumps(figures))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
