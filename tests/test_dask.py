"""Dask for the map over documents, for real: `kgkit run --executor local:2` (a LocalCluster of 2 worker
processes on 127.0.0.1) extracts the demo with one worker process killed mid-run (the scheduler re-runs its
batches) and gives the serial run's graph.json bytes (tests/conftest.py `demo_run`)."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest
from conftest import DEMO_CORPUS
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.stages.extract import extract_texts
from kgkit.workflows.executors import DaskExecutor, ExecutorSpecError, executor_name, open_executor

pytestmark = pytest.mark.slow


def _kill_a_worker_once_a_batch_is_cached(cache: Path, killed: list[int], stop: threading.Event) -> None:
    """Watch the run's cache; once the first extraction batch is written, SIGKILL one Dask worker process
    (a child of this process started by multiprocessing's spawn). Bounded: gives up after 600 s."""
    deadline = time.monotonic() + 600
    while not stop.is_set() and time.monotonic() < deadline:
        if any((cache / "v1" / extract_texts.stage_name).glob("*/*.json")):
            workers = [p for p in psutil.Process().children(recursive=True)
                       if any("spawn_main" in part for part in p.cmdline())]
            if workers:
                workers[0].send_signal(signal.SIGKILL)
                killed.append(workers[0].pid)
                return
        time.sleep(0.05)


def test_cli_local_cluster_with_a_worker_killed_gives_the_serial_bytes(demo_run, tmp_path):
    serial_ws, serial_summary, _ = demo_run
    ws = tmp_path / "ws"
    killed: list[int] = []
    stop = threading.Event()
    watcher = threading.Thread(target=_kill_a_worker_once_a_batch_is_cached, args=(ws / "cache", killed, stop))
    watcher.start()
    try:
        out = CliRunner().invoke(app, ["run", str(DEMO_CORPUS), "-o", str(ws), "--executor", "local:2", "--json",
                                       "--no-view"])
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert out.exit_code == 0, out.output
    assert killed, "no worker was killed: the run ended before its first batch was cached"
    summary = json.loads(out.stdout)
    assert summary["outcome"] == "complete" and not summary["chunk_errors"]
    # every chunk extracted once, on the cluster (a fresh cache), and nothing lost or doubled
    assert summary["extractor_calls"] == summary["chunks"] == serial_summary["chunks"]
    assert (ws / "graph.json").read_bytes() == (serial_ws / "graph.json").read_bytes()


def test_dask_executor_from_python_keeps_input_order():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:  # in-process: no sockets
        assert list(DaskExecutor(client).map(lambda x: x * x, range(40))) == [x * x for x in range(40)]


def test_executor_names():
    assert executor_name("local:3") == "local:3"
    assert executor_name("dask", "127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    for bad in (("dask", None), ("local:0", None), ("gpu", None), ("serial", "tcp://x:1")):
        with pytest.raises(ExecutorSpecError):
            executor_name(*bad)
    with open_executor("threads:2") as ex:
        assert list(ex.map(str.upper, ["a", "b"])) == ["A", "B"]


def test_cli_usage_errors_exit_2(tmp_path):
    for args in (["--executor", "dask"], ["--executor", "gpu:2"], ["--executor", "local:2", "--scheduler", "tcp://x:1"]):
        out = CliRunner().invoke(app, ["run", str(DEMO_CORPUS), "-o", str(tmp_path / "ws"), *args])
        assert out.exit_code == 2, out.output
    assert not (tmp_path / "ws" / "graph.json").exists()
