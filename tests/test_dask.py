"""Dask for the maps over documents and texts, for real: `kgkit run --executor local:2` (a LocalCluster of 2
worker processes on 127.0.0.1) extracts the demo with one worker process killed mid-run (the scheduler re-runs
its batches) and gives the serial run's graph.json bytes (tests/conftest.py `demo_run`); `kgkit index
--executor dask --scheduler ADDR` and `index(..., executor=DaskExecutor(client))` embed on a LocalCluster of 2
worker processes (one cluster for the module), store the serial index's vectors, ship the embedder to each
worker once, and report every batch to the progress callback as it finishes."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import psutil
import pytest
from conftest import DEMO_CORPUS
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.core.stage import stage
from kgkit.io.cache import Cache
from kgkit.io.search_store import IndexStore
from kgkit.stages.embed import HashingEmbedder
from kgkit.stages.extract import extract_texts
from kgkit.testing.workspaces import sample_workspace
from kgkit.workflows.executors import DaskExecutor, ExecutorSpecError, executor_name, open_executor
from kgkit.workflows.index import index_report, search

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
        out = CliRunner().invoke(app, ["index", str(DEMO_CORPUS), "-w", str(tmp_path / "ws"), *args])
        assert out.exit_code == 2, out.output
    assert not (tmp_path / "ws" / "graph.json").exists() and not (tmp_path / "ws" / "index").exists()


# ----------------------------------------------------------------- embedding on the workers (one cluster)


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 worker processes on 127.0.0.1 and a client to it, for the tests below."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                      silence_logs=logging.ERROR) as local, Client(local) as client:
        yield local, client


@pytest.fixture(scope="module")
def to_index(tmp_path_factory):
    """A small workspace (its graph: entities and relations) and a corpus of 200 short documents: 208 texts
    to embed (the plain sample extractor gets no offline naming hook, so "Lovelace" is an entity of its own), 4 batches of 64. Returns (workspace folder, corpus folder); tests index copies of the folder."""
    base = tmp_path_factory.mktemp("index")
    ws = sample_workspace(base)
    docs = base / "corpus"
    docs.mkdir()
    for i in range(200):
        (docs / f"d{i:03d}.txt").write_text(f"Report {i} on topic {i % 7}: the board met Person{i} in Town{i % 13}. " * 3)
    return ws.root, docs


def _copy(folder: Path, dest: Path) -> Path:
    shutil.copytree(folder, dest)
    return dest


def _stored(ws: Path):
    store = IndexStore(ws / "index")
    try:
        items, vectors, meta = store.load()
    finally:
        store.close()
    return [i.id for i in items], vectors, meta


def _logging_embedder(log: Path):
    """A HashingEmbedder that leaves a file in `log` each time it is unpickled and each time it embeds a batch,
    named by process id. A class made here, so it is pickled by value (workers need not import this module)."""

    class LoggingEmbedder(HashingEmbedder):
        def __setstate__(self, state):
            self.__dict__.update(state)
            (Path(self.log) / f"unpickled-{os.getpid()}-{uuid.uuid4().hex}").touch()

        def __call__(self, texts):
            (Path(self.log) / f"batch-{os.getpid()}-{uuid.uuid4().hex}").touch()
            return super().__call__(texts)

    embedder = LoggingEmbedder()
    embedder.log = str(log)
    return embedder


def _events(log: Path, kind: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    for path in log.glob(f"{kind}-*"):
        pid = int(path.name.split("-")[1])
        counts[pid] = counts.get(pid, 0) + 1
    return counts


def test_cli_index_on_a_dask_scheduler_stores_the_serial_index(cluster, to_index, tmp_path):
    from distributed import get_task_stream

    local, client = cluster
    folder, docs = to_index
    serial, dask = _copy(folder, tmp_path / "serial"), _copy(folder, tmp_path / "dask")
    expected = index_report(serial, docs, embedder=HashingEmbedder(), embedder_name="hashing")
    with get_task_stream(client=client) as stream:
        out = CliRunner().invoke(app, ["index", str(docs), "-w", str(dask), "--embedder", "hashing",
                                       "--executor", "dask", "--scheduler", local.scheduler_address])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert {k: v for k, v in report.items() if k != "index"} == {
        k: v for k, v in expected.to_json_dict().items() if k != "index"}
    assert report["added"] == 208
    # the 4 embedding batches ran as tasks on the cluster's workers
    batches = [t for t in stream.data if t["key"].startswith("_apply")]
    assert len(batches) == 4 and {t["worker"] for t in batches} <= set(client.scheduler_info()["workers"])
    ids, vectors, meta = _stored(dask)
    serial_ids, serial_vectors, serial_meta = _stored(serial)
    assert ids == serial_ids and meta["embedder"] == serial_meta["embedder"]
    assert all(np.array_equal(a, b) for a, b in zip(vectors, serial_vectors))
    hits = search(dask, "board met Person42", embedder=HashingEmbedder())
    serial_hits = search(serial, "board met Person42", embedder=HashingEmbedder())
    assert hits[["id", "score"]].equals(serial_hits[["id", "score"]]) and len(hits)


def test_index_from_python_ships_the_embedder_once_and_reports_every_batch(cluster, to_index, tmp_path):
    _local, client = cluster
    folder, docs = to_index
    ws = _copy(folder, tmp_path / "ws")
    log = tmp_path / "log"
    log.mkdir()
    calls: list[tuple[str, int, int]] = []
    report = index_report(ws, docs, embedder=_logging_embedder(log), executor=DaskExecutor(client),
                          progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert report.added == 208
    batches, unpickled = _events(log, "batch"), _events(log, "unpickled")
    assert os.getpid() not in batches and sum(batches.values()) == 4  # every batch on a worker
    # each worker that embedded deserialised the embedder once, however many batches it ran
    assert all(unpickled.get(pid) == 1 for pid in batches), (batches, unpickled)
    assert sum(batches.values()) > len(batches)
    # one progress call per batch as it finished, in any order (then the closing one), counting up to every text
    embed = [c for c in calls if c[0] == "embed"]
    done = [0] + [d for _, d, _ in embed[:-1]]
    assert len(embed) == 4 + 1 and embed[-1] == embed[-2] == ("embed", 208, 208)
    assert sorted(b - a for a, b in zip(done, done[1:])) == [16, 64, 64, 64]  # each batch's texts, once
    assert {total for _, _, total in embed} == {208}
    ids, vectors, _ = _stored(ws)
    assert len(ids) == 208 and all(np.isclose(np.linalg.norm(v), 1.0) for v in vectors)


def test_cache_map_on_the_cluster_reports_each_batch_as_it_finishes(cluster, tmp_path):
    @stage(version="1", name="_slow_square")  # made here: pickled by value, workers need not import this module
    def _slow_square(xs: list[int]) -> list[int]:
        time.sleep(0.05 if xs[0] % 3 else 0.3)  # some batches finish out of order
        return [x * x for x in xs]

    _local, client = cluster
    cache = Cache(tmp_path / "cache")
    seen: list[int] = []
    out = cache.map(_slow_square, list(range(50)), batch_size=4, executor=DaskExecutor(client), on_batch=seen.append)
    assert out == [x * x for x in range(50)]
    assert sorted(seen) == [2] + [4] * 12 and sum(seen) == 50  # 13 batches, each reported once
    assert cache.info().entries == 50 and cache.stats.computed["_slow_square"] == 50
