"""Benchmark: the demo run cold and warm, and `kgkit --help` start time.

    .venv/bin/python bench/bench_demo.py [--repeat 5]

Each measurement is a fresh process (what a user waits for). Cold = empty cache; warm = the same command
again (target: <= 2 s beyond interpreter start, 0 extractor calls). Interpreter start is measured as
`python -c pass` in the same run, so the figure "beyond interpreter start" is warm - bare.
Prints a table; paste it into bench/RESULTS.md with the date and machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KGKIT = [sys.executable, "-m", "kgkit.cli"]
DEMO = ROOT / "data" / "demo" / "sotu_1934_1946"


def timed(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    bare = statistics.median(timed([sys.executable, "-c", "pass"])[0] for _ in range(args.repeat))
    help_times = [timed([*KGKIT, "--help"])[0] for _ in range(args.repeat)]

    work = Path(tempfile.mkdtemp(prefix="kgkit-bench-"))
    try:
        run = [*KGKIT, "run", str(DEMO), "-o", str(work / "ws"), "--json"]
        cold_s, cold_out = timed(run)
        cold = json.loads(cold_out)
        warm = []
        for _ in range(args.repeat):
            seconds, out = timed(run)
            warm.append((seconds, json.loads(out)))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    warm_s = statistics.median(s for s, _ in warm)
    rows = [
        ("python -c pass (interpreter start)", f"{bare:.3f} s", ""),
        ("kgkit --help", f"{statistics.median(help_times):.3f} s", "target <= 0.5 s"),
        ("demo cold (14 docs, empty cache)", f"{cold_s:.2f} s",
         f"{cold['extractor_calls']} extractor calls, {cold['entities']} entities, {cold['relations']} relations"),
        ("demo warm (same command again)", f"{warm_s:.2f} s",
         f"{max(w['extractor_calls'] for _, w in warm)} extractor calls; beyond interpreter start {warm_s - bare:.2f} s "
         "(target <= 2 s)"),
    ]
    print(f"| measurement | median of {args.repeat} | notes |\n|---|---|---|")
    for name, value, note in rows:
        print(f"| {name} | {value} | {note} |")
    print(f"\nstages (cold, in-process timings): {cold['timings']}")
    print(f"stages (warm): {warm[-1][1]['timings']}")


if __name__ == "__main__":
    main()
