"""Incremental ingestion benchmark (issue 18): add one demo-sized document to the demo workspace.

    .venv/bin/python bench/bench_add.py [--out bench/out/add]

Sets up (not timed): the demo corpus without two documents of average size (1937, 1938: 17 KB and 28 KB), a
cold `kgkit run` of the other 12 into a workspace, and `kgkit index --embedder hashing`. Then times:

- `kgkit.add(ws, [1937])` in-process (the extractor already loaded, as in the MCP server or a notebook): the new
  document is extracted for real (not in the cache), graph, communities, view and index are brought up to date;
- `kgkit add 1938 -w ws` as a fresh CLI process (interpreter, imports and spaCy's model load included);
- the peer: a full `kgkit run` of the same 14 documents (warm: every chunk comes from the cache), and checks that
  graph.json, communities.json and extractions.jsonl are byte-identical to the incremental result;
- `kgkit add --remove 1938` (a retraction).

Prints one JSON document and a table. Target: adding one document <= 3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo" / "sotu_1934_1946"
KGKIT = [sys.executable, "-m", "kgkit"]
LEFT_OUT = ("1937-Roosevelt-1.txt", "1938-Roosevelt-1.txt")
ARTEFACTS = ("graph.json", "communities.json", "extractions.jsonl")


def _cli(*args: str) -> float:
    t = time.perf_counter()
    subprocess.run([*KGKIT, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "add")
    out = parser.parse_args().out
    shutil.rmtree(out, ignore_errors=True)
    corpus, outside, ws, full = out / "corpus", out / "outside", out / "ws", out / "full"
    shutil.copytree(DEMO, corpus)
    outside.mkdir()
    for name in LEFT_OUT:
        shutil.move(corpus / name, outside / name)
    setup = _cli("run", str(corpus), "-o", str(ws))
    _cli("index", "-w", str(ws), "--embedder", "hashing")

    import kgkit
    from kgkit.extractors.offline import OfflineExtractor

    extractor = OfflineExtractor()
    extractor.extract(["Warm the model up."], domain=kgkit.load_domain("general"))  # spaCy loaded, not timed
    t = time.perf_counter()
    added = kgkit.add(ws, [outside / LEFT_OUT[0]], extractor=extractor)
    in_process = time.perf_counter() - t
    cli = _cli("add", str(outside / LEFT_OUT[1]), "-w", str(ws))
    cli_summary = json.loads((ws / "run.json").read_text())
    shutil.copytree(ws / "cache", full / "cache")
    peer = _cli("run", str(corpus), "-o", str(full))
    same = {name: (ws / name).read_bytes() == (full / name).read_bytes() for name in ARTEFACTS}
    remove = _cli("add", "-w", str(ws), "--remove", LEFT_OUT[1])
    report = {
        "load_average": os.getloadavg(), "cpus": os.cpu_count(), "setup_cold_run_s": round(setup, 2),
        "add_in_process_s": round(in_process, 3), "add_in_process_timings": added.timings,
        "add_in_process_extractor_calls": added.extractor_calls,
        "add_cli_s": round(cli, 3), "add_cli_extractor_calls": cli_summary["extractor_calls"],
        "add_cli_timings": cli_summary["timings"],
        "peer_full_warm_run_s": round(peer, 3), "ratio_cli_add_to_full_warm_run": round(cli / peer, 2),
        "byte_identical_to_full_run": same, "remove_cli_s": round(remove, 3), "target_s": 3.0,
    }
    print(json.dumps(report, indent=2))
    print(f"\n| measurement | seconds |\n|---|---|\n| add one document, in-process | {in_process:.2f} |\n"
          f"| add one document, CLI process | {cli:.2f} |\n| full warm run (peer) | {peer:.2f} |\n"
          f"| retract one document, CLI | {remove:.2f} |")
    if not all(same.values()):
        sys.exit("the incremental result differs from the full run")


if __name__ == "__main__":
    main()
