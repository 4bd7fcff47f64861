"""Executors from a name: serial, threads, a Dask LocalCluster on this machine, or a running Dask scheduler.

The maps over chunks (extraction, `kgkit run`) and over texts to embed (`kgkit index`) go through an executor
(`kgkit.core.executor.Executor`: anything with an ordered `map`). `DaskExecutor` sends each batch to a Dask
cluster: the function (with its extractor or embedder) is shipped to the cluster once, as a task of its own
that every batch depends on, so each worker deserialises it once and loads a model once, and a worker that dies
with it is rebuilt rather than lost. `Cache.map` takes the batches back as each finishes (`map_unordered`), so
progress and cache writes follow the cluster. The cache stays with the caller: workers compute, the caller
reads and writes the content-hash cache (atomically; a folder or an fsspec URL), so workers need no access to
it. A worker that dies mid-run has its tasks re-run elsewhere by the scheduler (Dask's `allowed-failures`); a
task that raises is retried `retries` times.

    kgkit run DOCS -o WS --executor local:4                          4 worker processes on this machine
    kgkit run DOCS -o WS --executor dask --scheduler tcp://host:8786  a running cluster (same kgkit on workers)
    kgkit index -w WS --executor local:2 --embedder minilm           embedding on 2 worker processes
    kgkit.run(DOCS, WS, executor="local:4")  /  executor="tcp://host:8786"  /  executor=any Executor object
    kgkit.index(WS, executor="local:2", progress=callback)

>>> with open_executor("serial") as ex:
...     list(ex.map(lambda x: x * 2, [1, 2, 3]))
[2, 4, 6]
>>> with open_executor("threads:2") as ex:
...     list(ex.map(lambda x: x + 1, [1, 2, 3]))
[2, 3, 4]
>>> parse_spec("local:3")
('local', 3)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from kgkit.core.executor import Executor, SerialExecutor, ThreadExecutor

__all__ = ["DaskExecutor", "ExecutorSpecError", "executor_name", "open_executor", "parse_spec"]

A = TypeVar("A")
B = TypeVar("B")
CONNECT_TIMEOUT = "20s"  # to reach a running scheduler
SPECS = "serial, threads:N, local:N (a Dask LocalCluster with N worker processes) or dask (with a scheduler address)"


class ExecutorSpecError(ValueError):
    """An executor name that does not parse, `dask` without a scheduler address, or a scheduler that cannot be
    reached (a usage or configuration error: the CLI exits with code 2)."""


def parse_spec(spec: str) -> tuple[str, int]:
    """(kind, workers) from "serial", "threads:N", "local:N" or "dask" (workers 0 where it does not apply).

    >>> parse_spec("dask"), parse_spec("threads:8")
    (('dask', 0), ('threads', 8))
    """
    kind, _, count = spec.strip().partition(":")
    if kind in ("serial", "dask") and not count:
        return kind, 0
    if kind in ("threads", "local"):
        try:
            workers = int(count) if count else 2
        except ValueError:
            workers = 0
        if workers >= 1:
            return kind, workers
    raise ExecutorSpecError(f"unknown executor {spec!r}: use {SPECS}")


def executor_name(spec: str, scheduler: str | None = None) -> str:
    """What `run(executor=...)` takes for the CLI's --executor and --scheduler: the spec itself, or for `dask`
    the scheduler's address (tcp:// added when it has no scheme). Raises ExecutorSpecError on a bad pair.

    >>> executor_name("local:2"), executor_name("dask", "10.0.0.5:8786")
    ('local:2', 'tcp://10.0.0.5:8786')
    """
    kind, _ = parse_spec(spec)
    if kind != "dask":
        if scheduler:
            raise ExecutorSpecError(f"--scheduler is for --executor dask, not {spec!r}")
        return spec
    if not scheduler:
        raise ExecutorSpecError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    return scheduler if "://" in scheduler else f"tcp://{scheduler}"


def _identity(value: Any) -> Any:
    return value


def _apply(fn: Callable[[A], B], item: A) -> B:
    return fn(item)


class DaskExecutor:
    """Maps over a `distributed.Client`'s cluster. `map_unordered` yields (position, result) as each task
    finishes (what `Cache.map` uses, so progress and cache writes follow the cluster); `map` yields results in
    input order, each as soon as it and every earlier one are done."""

    def __init__(self, client: Any, *, retries: int = 1) -> None:
        self.client = client
        self.retries = retries

    def map_unordered(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[tuple[int, B]]:
        """(position of the item, fn(item)) for every item, in the order the cluster finishes them. `fn` is
        sent once (a task of its own that every batch depends on, so each worker deserialises it once and a
        worker that dies with it is rebuilt); a result is released on the cluster once it is read."""
        from distributed import as_completed

        items = list(items)
        if not items:
            return
        shipped = self.client.submit(_identity, fn, pure=False)
        futures: list[Any] = self.client.map(_apply, [shipped] * len(items), items, pure=False, retries=self.retries)
        position = {f.key: i for i, f in enumerate(futures)}
        try:
            for future in as_completed(futures):
                i = position[future.key]
                result = future.result()
                futures[i] = None  # the cluster forgets a result once it is read
                yield i, result
        finally:
            for future in futures:
                if future is not None:
                    future.cancel()
            shipped.release()

    def map(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[B]:
        ready: dict[int, B] = {}
        following = 0
        for i, result in self.map_unordered(fn, items):
            ready[i] = result
            while following in ready:
                yield ready.pop(following)
                following += 1

    def __repr__(self) -> str:
        return f"DaskExecutor({self.client.scheduler.address!r})"


@contextmanager
def open_executor(spec: str | Executor | None = None, *, scheduler: str | None = None) -> Iterator[Executor]:
    """The executor a name asks for, closed afterwards (a LocalCluster is shut down; a client disconnects).
    An Executor object is passed through as it is; None means serial, or `dask` when a scheduler is given; a
    scheduler address alone (`"tcp://host:8786"`) means `dask` there."""
    if spec is not None and not isinstance(spec, str):
        yield spec
        return
    if spec and "://" in spec:  # a scheduler's address alone: executor="tcp://host:8786"
        spec, scheduler = "dask", spec
    kind, workers = parse_spec(spec or ("dask" if scheduler else "serial"))
    if kind == "serial":
        yield SerialExecutor()
    elif kind == "threads":
        yield ThreadExecutor(max_workers=workers)
    elif kind == "dask" and not scheduler:
        raise ExecutorSpecError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    else:
        from distributed import Client, LocalCluster

        cluster = None
        if kind == "local":
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None, silence_logs=logging.ERROR)
        try:
            client = Client(cluster if cluster is not None else scheduler, timeout=CONNECT_TIMEOUT)
        except OSError as exc:  # no scheduler there (TimeoutError is an OSError)
            if cluster is not None:
                cluster.close()
            raise ExecutorSpecError(f"no Dask scheduler reachable at {scheduler}: {exc}") from exc
        try:
            yield DaskExecutor(client)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
