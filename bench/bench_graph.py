"""Graph benchmarks (issue 4): kgkit build, communities, topology and neighbourhood queries on the synthetic
sift-kg extraction sets written by ../shared/bench/gen_extractions.py.

    python /work/shared/bench/gen_extractions.py --n 2000 --out /tmp/n2000
    .venv/bin/python bench/bench_graph.py /tmp/n2000 [/tmp/n20000 ...]
    .venv/bin/python bench/bench_graph.py --generate 20000 /tmp/n20000   # the same files, in seconds

Each data set is measured in a fresh subprocess, so the peak RSS (VmHWM) is that of kgkit alone:
interpreter + imports + reading the extraction files (kgkit.io.importers.read_siftkg_mentions) + the build +
saving graph.json (+ at n <= 5000 a second build from read_siftkg_extractions, checked to give the same
bytes). `measure_kgkit(extractions_dir) -> dict`
is the entry point a side-by-side script (kgkit vs sift-kg) imports.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = Path("/work/shared/bench/gen_extractions.py")


def _peak_rss_mb() -> float:
    """This process's own peak RSS (VmHWM). Not ru_maxrss: a child started with vfork inherits its parent's."""
    with open("/proc/self/status") as status:
        return round(int(next(x.split()[1] for x in status if x.startswith("VmHWM:"))) / 1024, 1)


def _measure_here(folder: Path, *, queries: int = 50, domain: str = "general") -> dict[str, Any]:
    """Run every step in this process and return the figures."""
    import statistics

    from kgkit import io
    from kgkit.io.importers import read_siftkg_extractions, read_siftkg_mentions
    from kgkit.stages.build import build_graph
    from kgkit.stages.communities import assign_communities, detect_communities
    from kgkit.stages.topology import neighbourhood, topology

    figures: dict[str, Any] = {"dataset": str(folder)}
    dom = io.load_domain(domain)
    t, cpu = time.perf_counter(), time.process_time()
    mentions = read_siftkg_mentions(folder)
    figures["read_s"] = round(time.perf_counter() - t, 3)
    figures["read_cpu_s"] = round(time.process_time() - cpu, 3)
    figures["rss_after_read_mb"] = _peak_rss_mb()
    figures["documents"] = len(mentions.documents)
    t, cpu = time.perf_counter(), time.process_time()
    graph = build_graph(mentions, domain=dom, learned_at="2026-01-01T00:00:00Z")
    figures["build_s"] = round(time.perf_counter() - t, 3)
    figures["build_cpu_s"] = round(time.process_time() - cpu, 3)
    figures["entities"], figures["relations"] = len(graph.entities), len(graph.relations)
    figures["rss_after_build_mb"] = _peak_rss_mb()
    del mentions
    with tempfile.TemporaryDirectory() as tmp:
        t, cpu = time.perf_counter(), time.process_time()
        io.save_graph(graph, Path(tmp) / "graph.json")  # what `kgkit build` writes (fsync'ed)
        figures["save_s"] = round(time.perf_counter() - t, 3)
        figures["save_cpu_s"] = round(time.process_time() - cpu, 3)
        saved = (Path(tmp) / "graph.json").read_bytes()
    figures["read_build_save_s"] = round(figures["read_s"] + figures["build_s"] + figures["save_s"], 3)
    figures["read_build_save_cpu_s"] = round(figures["read_cpu_s"] + figures["build_cpu_s"] + figures["save_cpu_s"], 3)
    figures["rss_after_save_mb"] = _peak_rss_mb()
    if figures["documents"] <= 5000:  # the record path holds ~8x the memory of Mentions: too much at n20000
        # the same files through pydantic records, in reverse order: the same bytes as the Mentions build
        records = list(reversed(read_siftkg_extractions(folder)))
        again = build_graph(records, domain=dom, learned_at="2026-01-01T00:00:00Z")
        figures["same_bytes_from_records_reversed"] = again.to_json_bytes(end=b"\n") == saved
        del again, records
    del saved
    t, cpu = time.perf_counter(), time.process_time()
    comms = detect_communities(graph, seed=0)
    figures["communities_s"] = round(time.perf_counter() - t, 3)
    figures["communities_cpu_s"] = round(time.process_time() - cpu, 3)
    figures["communities"] = len(comms.summary)
    graph = assign_communities(graph, comms)
    t, cpu = time.perf_counter(), time.process_time()
    topo = topology(graph, limit=20)
    figures["topology_s"] = round(time.perf_counter() - t, 3)
    figures["topology_cpu_s"] = round(time.process_time() - cpu, 3)
    figures["bridges_total"] = topo["bridges"]["total"]
    import gc

    gc.collect()
    ids = graph.entities.sort_values(["degree", "id"], ascending=[False, True])["id"].tolist()
    sample = ids[:: max(1, len(ids) // queries)][:queries]
    t = time.perf_counter()
    neighbourhood(graph, sample[0], depth=2)  # builds the adjacency index once per graph
    figures["index_first_query_s"] = round(time.perf_counter() - t, 4)
    times = []
    for eid in sample:
        for depth in (1, 2):
            t = time.perf_counter()
            neighbourhood(graph, eid, depth=depth, limit=50)
            times.append(time.perf_counter() - t)
    figures["query_median_ms"] = round(1000 * statistics.median(times), 2)
    figures["query_max_ms"] = round(1000 * max(times), 2)
    figures["queries"] = len(times)
    figures["peak_rss_mb"] = _peak_rss_mb()
    return figures


def measure_kgkit(extractions_dir: str | Path) -> dict[str, Any]:
    """Measure kgkit on one extraction set in a fresh subprocess; returns the figures as a dict."""
    out = subprocess.run([sys.executable, __file__, "--measure", str(extractions_dir)], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def generate(n: int, out: Path, *, seed: int = 7) -> None:
    """The same documents as ../shared/bench/gen_extractions.py --n N --out OUT (same seed, same files; only
    extracted_at differs), in seconds instead of an hour at n20000: its random.choices over the weighted pool
    rebuilds the cumulative weights on every call; here they are built once (CPython's choices() then draws
    exactly the same numbers)."""
    import importlib.util
    import random
    from itertools import accumulate

    spec = importlib.util.spec_from_file_location("gen_extractions", GENERATOR)
    gen = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(gen)  # type: ignore[union-attr]

    class CachedChoices(random.Random):
        cum: ClassVar[dict[int, tuple[Any, list[float]]]] = {}

        def choices(self, population, weights=None, *, cum_weights=None, k=1):  # type: ignore[override]
            if weights is not None and cum_weights is None and len(weights) > 1000:
                if id(weights) not in self.cum:
                    self.cum[id(weights)] = (weights, list(accumulate(weights)))
                return super().choices(population, cum_weights=self.cum[id(weights)][1], k=k)
            return super().choices(population, weights, cum_weights=cum_weights, k=k)

    rng = CachedChoices(seed)
    pool = gen.build_pool(max(400, 4 * n), rng)
    weights = gen.zipf_weights(len(pool), 1.05)
    folder = out / "extractions"
    folder.mkdir(parents=True, exist_ok=True)
    truth: dict[str, set[str]] = {}
    for i in range(n):
        doc = gen.make_doc(i, pool, weights, 20, 20, rng, truth)
        (folder / f"{doc['document_id']}.json").write_text(json.dumps(doc, indent=2))


def main(argv: list[str]) -> None:
    if argv[:1] == ["--generate"]:
        generate(int(argv[1]), Path(argv[2]))
        return
    if argv[:1] == ["--measure"]:
        print(json.dumps(_measure_here(Path(argv[1]))))
        return
    for folder in argv or ["/tmp/n2000"]:
        figures = measure_kgkit(folder)
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
