"""Graph benchmarks (issue 4): kgkit build, communities, topology and neighbourhood queries on the synthetic
sift-kg extraction sets written by ../shared/bench/gen_extractions.py.

    python /work/shared/bench/gen_extractions.py --n 2000 --out /tmp/n2000
    .venv/bin/python bench/bench_graph.py /tmp/n2000 [/tmp/n20000 ...]
    .venv/bin/python bench/bench_graph.py --generate 20000 /tmp/n20000   # the same files, in seconds

Each data set is measured in a fresh subprocess, so the peak RSS (ru_maxrss) is that of kgkit alone:
interpreter + imports + reading the extraction files + the build. `measure_kgkit(extractions_dir) -> dict`
is the entry point a side-by-side script (kgkit vs sift-kg) imports.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = Path("/work/shared/bench/gen_extractions.py")


def _read_extractions(folder: Path) -> list[Any]:
    """sift-kg extraction files -> DocumentExtractions: kgkit's importer when it exists, else a small local
    converter (one chunk per document, UPPER_SNAKE types -> Title case)."""
    try:
        from kgkit.importers import read_siftkg_extractions  # written in parallel (issue 4, sift-kg import)
    except ImportError:
        return _convert(folder)
    return read_siftkg_extractions(folder)


def _convert(folder: Path) -> list[Any]:
    from kgkit.types import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction

    base = folder / "extractions" if (folder / "extractions").is_dir() else folder
    out = []
    for path in sorted(base.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("error"):
            continue
        typ = {}
        ents = []
        for e in raw["entities"]:
            t = e["entity_type"].replace("_", " ").title().replace(" ", "")
            typ.setdefault(e["name"].casefold(), t)
            ents.append(ExtractedEntity(name=e["name"], type=t, confidence=e["confidence"],
                                        attributes={k: str(v) for k, v in e.get("attributes", {}).items()}))
        rels = [ExtractedRelation(source=r["source_entity"], source_type=typ.get(r["source_entity"].casefold(), "Other"),
                                  target=r["target_entity"], target_type=typ.get(r["target_entity"].casefold(), "Other"),
                                  type=r["relation_type"], confidence=r["confidence"], evidence=r.get("evidence"))
                for r in raw["relations"]]
        te = TextExtraction(extractor_id=f"sift-kg:{raw.get('model_used', '')}", quality="imported",
                            model=raw.get("model_used"), entities=tuple(ents), relations=tuple(rels))
        doc_id = raw["document_id"]
        out.append(DocumentExtraction(document_id=doc_id, path=raw.get("document_path", doc_id),
                                      chunks=(ChunkExtraction(chunk_id=f"{doc_id}#0", document_id=doc_id, extraction=te),)))
    return out


def _measure_here(folder: Path, *, queries: int = 50, domain: str = "general") -> dict[str, Any]:
    """Run every step in this process and return the figures."""
    import statistics

    from kgkit import io
    from kgkit.build import build_graph
    from kgkit.communities import assign_communities, detect_communities
    from kgkit.topology import neighbourhood, topology

    figures: dict[str, Any] = {"dataset": str(folder)}
    dom = io.load_domain(domain)
    t = time.perf_counter()
    extractions = _read_extractions(folder)
    figures["read_s"] = round(time.perf_counter() - t, 3)
    figures["rss_after_read_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    figures["documents"] = len(extractions)
    t, cpu = time.perf_counter(), time.process_time()
    graph = build_graph(extractions, domain=dom, learned_at="2026-01-01T00:00:00Z")
    figures["build_s"] = round(time.perf_counter() - t, 3)
    figures["build_cpu_s"] = round(time.process_time() - cpu, 3)
    figures["entities"], figures["relations"] = len(graph.entities), len(graph.relations)
    figures["rss_after_build_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if len(extractions) <= 5000:  # a second graph and two JSON forms at once would dominate the peak at n20000
        again = build_graph(list(reversed(extractions)), domain=dom, learned_at="2026-01-01T00:00:00Z")
        figures["build_deterministic"] = io.dumps_json(again.to_json_dict()) == io.dumps_json(graph.to_json_dict())
        del again
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
    # a query process holds a graph, not the extraction records: free them, so a cyclic-GC pass over 1.5 GB
    # of pydantic objects (n20000) does not land inside a timed query
    del extractions
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
    figures["rss_before_json_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    t = time.perf_counter()
    graph.to_json_dict()  # what io.save_graph serialises (graph.json rows as dicts)
    figures["to_json_s"] = round(time.perf_counter() - t, 3)
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
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
