"""Side-by-side benchmark, kgkit vs sift-kg 0.9.0, on the same synthetic extraction sets (issue 4).

    .venv/bin/python bench/bench_siftkg.py                       # n=2000 and n=20000
    .venv/bin/python bench/bench_siftkg.py --n 2000 --sift-graphml-max 2000 --sift-timeout 900

Inputs: ../shared/bench/gen_extractions.py (sift-kg extraction JSON files); skipped with a message when
../shared is absent. sift-kg runs in its own venv (default /tmp/siftkg-venv, created on first use with
``pip install sift-kg==0.9.0 typer==0.28.0 scipy``; never kgkit's .venv), in-process through a small
driver, with LITELLM_LOCAL_MODEL_COST_MAP=True and HF_HUB_OFFLINE=1. Each tool runs in a fresh
subprocess per data set, so its peak RSS (VmHWM from /proc/self/status) is its own.
Drivers print one JSON line per finished step, so a step that runs past the timeout still leaves the
earlier figures.

What is timed (seconds, wall clock and CPU, in-process):
- kgkit: read the extraction files (``kgkit.io.importers.read_siftkg_mentions``), build_graph, save graph.json
  (``io.save_graph``), communities, GraphML export, topology summary and neighbourhood queries.
- sift-kg: ``sift_kg.pipeline.run_build`` (what ``sift build`` does), unchanged, with its phases timed by
  wrapping the functions it calls: ``load_extractions``, ``build_graph`` (dedup, postprocess),
  ``KnowledgeGraph.save`` (graph_data.json), then ``detect_communities`` + ``save_communities`` and the
  review file (the rest of run_build). Also the body of ``sift topology`` (its CLI function, output
  discarded), ``sift_kg.export.export_graph(kg, path, "graphml")``, and ``extract_subgraph(kg, id, depth=2)``
  as its neighbourhood query.

Like for like, the build row compares kgkit's read + build + save graph.json with sift-kg's load + build +
save graph_data.json; the "like `sift build`" row adds kgkit's communities and compares with all of run_build
(which also writes communities.json and relation_review.yaml).
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "bench"
GEN = SHARED / "gen_extractions.py"

SIFT_DRIVER = r'''
import contextlib, io, json, os, sys, time
from pathlib import Path
def _peak_rss_mb():
    """This process's own peak RSS (VmHWM). Not ru_maxrss: a child started with vfork inherits its parent's."""
    with open("/proc/self/status") as status:
        return round(int(next(x.split()[1] for x in status if x.startswith("VmHWM:"))) / 1024, 1)

work, steps = Path(sys.argv[1]), sys.argv[2].split(",")
_c = [time.process_time()]
def emit(**kw):
    now = time.process_time()
    kw.setdefault("cpu", round(now - _c[0], 3))
    _c[0] = now
    kw["rss_mb"] = _peak_rss_mb()
    print(json.dumps(kw), flush=True)
os.chdir(work)
t = time.perf_counter()
import sift_kg.graph.builder as builder, sift_kg.graph.communities as communities
from sift_kg.cli import _load_domain, topology
from sift_kg.config import SiftConfig
from sift_kg.export import export_graph
from sift_kg.graph.communities import extract_subgraph
from sift_kg.graph.knowledge_graph import KnowledgeGraph
from sift_kg.pipeline import run_build
emit(step="import", seconds=round(time.perf_counter() - t, 3))
phases = {}
def timed(owner, name, phase):
    """Wrap owner.name to add its wall and CPU time to phases[phase] (run_build imports it at call time)."""
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            acc = phases.setdefault(phase, [0.0, 0.0])
            acc[0] += time.perf_counter() - t0
            acc[1] += time.process_time() - c0
    setattr(owner, name, wrapper)
timed(builder, "load_extractions", "sift_load")
timed(builder, "build_graph", "sift_build_graph")
timed(KnowledgeGraph, "save", "sift_save")
timed(communities, "detect_communities", "sift_communities")
timed(communities, "save_communities", "sift_communities")
domain = _load_domain(SiftConfig(), "schema-free")  # what `sift build` uses by default
t, c = time.perf_counter(), time.process_time()
kg = run_build(work, domain)
wall, cpu = time.perf_counter() - t, time.process_time() - c
for phase, (w, cp) in phases.items():
    print(json.dumps({"step": phase, "seconds": round(w, 3), "cpu": round(cp, 3)}), flush=True)
rest = [wall - sum(w for w, _ in phases.values()), cpu - sum(cp for _, cp in phases.values())]
print(json.dumps({"step": "sift_review", "seconds": round(rest[0], 3), "cpu": round(rest[1], 3)}), flush=True)
emit(step="build", seconds=round(wall, 3), entities=kg.entity_count, relations=kg.relation_count)
if "query" in steps:
    degree = dict(kg.graph.degree())
    ids = sorted((n for n, d in kg.graph.nodes(data=True) if d.get("entity_type") != "DOCUMENT"),
                 key=lambda n: (-degree[n], n))
    sample = ids[:: max(1, len(ids) // 20)][:20]
    times = []
    for eid in sample:
        t = time.perf_counter()
        extract_subgraph(kg, eid, depth=2)
        times.append(time.perf_counter() - t)
    times.sort()
    emit(step="query", seconds=round(times[len(times) // 2], 5), max_seconds=round(times[-1], 5), queries=len(times), cpu=None)
if "topology" in steps:
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        topology(output=str(work), pretty=False, verbose=False)
    emit(step="topology", seconds=round(time.perf_counter() - t, 3))
if "graphml" in steps:
    t = time.perf_counter()
    export_graph(kg, work / "bench.graphml", "graphml")
    emit(step="graphml", seconds=round(time.perf_counter() - t, 3))
'''


_CPU = [time.process_time()]


def _peak_rss_mb() -> float:
    """This process's own peak RSS (VmHWM). Not ru_maxrss: a child started with vfork inherits its parent's."""
    with open("/proc/self/status") as status:
        return round(int(next(x.split()[1] for x in status if x.startswith("VmHWM:"))) / 1024, 1)


def _emit(**kw: Any) -> None:
    """One JSON line per step: wall seconds (given), CPU seconds since the previous line, peak RSS so far."""
    now = time.process_time()
    kw.setdefault("cpu", round(now - _CPU[0], 3))
    _CPU[0] = now
    kw["rss_mb"] = _peak_rss_mb()
    print(json.dumps(kw), flush=True)


def kgkit_driver(folder: Path, work: Path) -> None:
    """Run in a fresh kgkit process: every step, one JSON line each."""
    t = time.perf_counter()
    from kgkit import io
    from kgkit.io.export import export_graph
    from kgkit.io.importers import read_siftkg_mentions
    from kgkit.stages.build import build_graph
    from kgkit.stages.communities import assign_communities, detect_communities

    _emit(step="import", seconds=round(time.perf_counter() - t, 3))
    dom = io.load_domain("general")
    t = time.perf_counter()
    mentions = read_siftkg_mentions(folder)
    _emit(step="read", seconds=round(time.perf_counter() - t, 3), documents=len(mentions.documents))
    t = time.perf_counter()
    graph = build_graph(mentions, domain=dom, learned_at="2026-01-01T00:00:00Z")
    _emit(step="build", seconds=round(time.perf_counter() - t, 3), entities=len(graph.entities),
          relations=len(graph.relations))
    del mentions
    t = time.perf_counter()
    io.save_graph(graph, work / "graph.json")  # as sift-kg's run_build: the graph is saved before communities
    _emit(step="save", seconds=round(time.perf_counter() - t, 3), mb=round((work / "graph.json").stat().st_size / 1e6, 1))
    t = time.perf_counter()
    graph = assign_communities(graph, detect_communities(graph, seed=0))
    _emit(step="communities", seconds=round(time.perf_counter() - t, 3))
    t = time.perf_counter()
    export_graph(graph, "graphml", work / "graph.graphml")
    _emit(step="graphml", seconds=round(time.perf_counter() - t, 3),
          mb=round((work / "graph.graphml").stat().st_size / 1e6, 1))
    try:
        from kgkit.stages.topology import neighbourhood, topology
    except ImportError:
        return
    t = time.perf_counter()
    topology(graph, limit=20)
    _emit(step="topology", seconds=round(time.perf_counter() - t, 3))
    ids = graph.entities.sort_values(["degree", "id"], ascending=[False, True])["id"].tolist()
    sample = ids[:: max(1, len(ids) // 20)][:20]
    neighbourhood(graph, sample[0], depth=2)  # the first query builds the adjacency index
    times = []
    for eid in sample:
        t = time.perf_counter()
        neighbourhood(graph, eid, depth=2, limit=50)
        times.append(time.perf_counter() - t)
    times.sort()
    _emit(step="query", seconds=round(times[len(times) // 2], 5), max_seconds=round(times[-1], 5), queries=len(times),
          cpu=None)


def _run_steps(cmd: list[str], timeout: float, env: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Run a driver; collect its JSON lines by step (a timeout keeps what finished)."""
    steps: dict[str, dict[str, Any]] = {}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        out, err, code = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err, code = "", None
        steps["_timeout"] = {"seconds": timeout}
    for line in out.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            steps[row.pop("step")] = row
    if code not in (0, None):
        steps["_error"] = {"stderr": err[-2000:]}
    return steps


def ensure_sift_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "sift-kg==0.9.0", "typer==0.28.0", "scipy"], check=True)
    return python


def ensure_dataset(n: int, root: Path) -> Path:
    folder = root / f"n{n}"
    if not (folder / "extractions").is_dir():
        subprocess.run([sys.executable, str(GEN), "--n", str(n), "--out", str(folder)], check=True)
    return folder


def measure(n: int, data_root: Path, sift_python: Path, *, sift_steps: list[str], timeout: float,
            tools: tuple[str, ...] = ("kgkit", "sift")) -> dict[str, Any]:
    data = ensure_dataset(n, data_root)
    with tempfile.TemporaryDirectory(prefix=f"kgkit-bench-{n}-") as tmp:
        kg_work, sift_work = Path(tmp) / "kgkit", Path(tmp) / "sift"
        kg_work.mkdir()
        sift_work.mkdir()
        (sift_work / "extractions").symlink_to((data / "extractions").resolve())
        kg = _run_steps([sys.executable, __file__, "--kgkit-driver", str(data), str(kg_work)], timeout) \
            if "kgkit" in tools else {}
        if "sift" not in tools:
            return {"n": n, "kgkit": kg, "sift": {}, "sift_steps": []}
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
            fh.write(SIFT_DRIVER)
        try:
            sift = _run_steps([str(sift_python), fh.name, str(sift_work), ",".join(sift_steps)], timeout, env)
        finally:
            os.unlink(fh.name)
    return {"n": n, "kgkit": kg, "sift": sift, "sift_steps": sift_steps}


def _s(steps: dict[str, Any], name: str, key: str = "seconds") -> float | None:
    return steps.get(name, {}).get(key)


def _sum(steps: dict[str, Any], names: tuple[str, ...], key: str) -> float | None:
    values = [_s(steps, n, key) for n in names if n in steps]
    return round(sum(v for v in values if v is not None), 6) if values else None


def table(result: dict[str, Any]) -> str:
    """Markdown table: wall seconds (CPU seconds); the ratio is sift-kg / kgkit on CPU seconds, which a
    shared, busy machine distorts less than wall time (query rows: wall median)."""
    kg, sift = result["kgkit"], result["sift"]

    def cell(steps: dict[str, Any], names: tuple[str, ...], step_for_skip: str) -> tuple[str, tuple[float, float] | None]:
        if not any(n in steps for n in names):
            if steps is sift and step_for_skip not in result["sift_steps"]:
                return "skipped", None
            if steps is sift and "_timeout" in steps:
                return f"not finished in {steps['_timeout']['seconds']:.0f} s", None
            return "-", None
        wall, cpu = _sum(steps, names, "seconds"), _sum(steps, names, "cpu")
        if names == ("query",):
            return f"{wall * 1000:.1f} ms", (wall, wall)
        return f"{wall:.2f} s (cpu {cpu:.2f} s)", (wall, cpu)

    def ratio(a: tuple[float, float] | None, b: tuple[float, float] | None) -> str:
        if not (a and b and a[0] and a[1]):
            return "-"
        return f"{b[0] / a[0]:.1f}x" if a == (a[0], a[0]) and b == (b[0], b[0]) else \
            f"{b[0] / a[0]:.1f}x wall, {b[1] / a[1]:.1f}x cpu"

    def rss(steps: dict[str, Any], step: str | None = None) -> str:
        vals = [v.get("rss_mb", 0) for k, v in steps.items() if not k.startswith("_") and (step is None or k == step)]
        return f"{max(vals):.0f} MB" if vals else "-"

    specs = [
        ("read extraction files", ("read",), ("sift_load",), "build"),
        ("build graph", ("build",), ("sift_build_graph",), "build"),
        ("save graph.json / graph_data.json", ("save",), ("sift_save",), "build"),
        ("**build like for like: read + build + save**", ("read", "build", "save"),
         ("sift_load", "sift_build_graph", "sift_save"), "build"),
        ("communities (sift-kg: + communities.json)", ("communities",), ("sift_communities",), "build"),
        ("like `sift build` (kgkit: + communities; sift-kg: all of run_build, incl. review file)",
         ("read", "build", "save", "communities"), ("build",), "build"),
        ("GraphML export", ("graphml",), ("graphml",), "graphml"),
        ("topology summary", ("topology",), ("topology",), "topology"),
        ("neighbourhood query, depth 2 (median of 20)", ("query",), ("query",), "query"),
    ]
    lines = [f"### n = {result['n']}", "", "| step | kgkit | sift-kg 0.9.0 | sift-kg / kgkit |", "|---|---|---|---|"]
    for label, kg_names, sift_names, step in specs:
        (a, av), (b, bv) = cell(kg, kg_names, step), cell(sift, sift_names, step)
        lines.append(f"| {label} | {a} | {b} | {ratio(av, bv)} |")
    lines.append(f"| peak RSS after build (kgkit: after saving graph.json; sift-kg: after run_build) | {rss(kg, 'save')} | "
                 f"{rss(sift, 'build')} | - |")
    lines.append(f"| peak RSS, whole run | {rss(kg)} | {rss(sift)} | - |")
    kb, sb = kg.get("build", {}), sift.get("build", {})
    lines.append(f"| entities / relations | {kb.get('entities')} / {kb.get('relations')} | "
                 f"{sb.get('entities')} / {sb.get('relations')} (incl. DOCUMENT nodes, MENTIONED_IN links) | - |")
    for tool, steps in (("kgkit", kg), ("sift-kg", sift)):
        if "_error" in steps:
            lines.append(f"\n{tool} failed: {steps['_error']['stderr'][-400:]}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--kgkit-driver"]:
        kgkit_driver(Path(argv[1]), Path(argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[2000, 20000])
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "kgkit-bench-data")
    ap.add_argument("--sift-venv", type=Path, default=Path("/tmp/siftkg-venv"))
    ap.add_argument("--sift-graphml-max", type=int, default=2000, help="largest n for sift-kg's GraphML export (265 s at n2000)")
    ap.add_argument("--sift-topology-max", type=int, default=2000, help="largest n for sift-kg's topology")
    ap.add_argument("--sift-query-max", type=int, default=2000, help="largest n for sift-kg's neighbourhood queries")
    ap.add_argument("--sift-timeout", type=float, default=1200.0, help="seconds per tool and data set")
    ap.add_argument("--json", type=Path, help="also write the raw figures here")
    ap.add_argument("--tools", default="kgkit,sift", help="comma-separated: kgkit, sift")
    ap.add_argument("--sift-from", type=Path, help="reuse sift-kg figures from an earlier --json file (same n)")
    args = ap.parse_args(argv)
    if not GEN.exists():
        print(f"skipped: {GEN} not found (the shared benchmark generator lives in ../shared/bench)")
        return 0
    sift_python = ensure_sift_venv(args.sift_venv)
    results = []
    for n in args.n:
        steps = ["build"]
        steps += ["query"] if n <= args.sift_query_max else []
        steps += ["topology"] if n <= args.sift_topology_max else []
        steps += ["graphml"] if n <= args.sift_graphml_max else []
        started = time.perf_counter()
        tools = tuple(args.tools.split(","))
        result = measure(n, args.data, sift_python, sift_steps=steps, timeout=args.sift_timeout, tools=tools)
        if args.sift_from:
            earlier = {r["n"]: r for r in json.loads(args.sift_from.read_text())}
            if n in earlier:
                result.update(sift=earlier[n]["sift"], sift_steps=earlier[n]["sift_steps"], sift_from=str(args.sift_from))
        result["wall_s"] = round(time.perf_counter() - started, 1)
        results.append(result)
        print(table(result) + "\n", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
