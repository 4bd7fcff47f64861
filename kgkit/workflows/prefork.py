"""Extraction workers forked when a command starts, before its heavy imports (an Executor for `Cache.map`).

A fresh `kgkit add` spends about a second importing pandas and kgkit's stack and another importing spaCy and
loading its model, then parses the new chunks on one core. `ForkedWorkers.start(warm, workers=N)` forks one
process at once, while the command is still small and has no threads; it runs `warm()` (spaCy's import, the
model and the gazetteer: `warm_offline`) while the command imports its own stack and reads the workspace, then
forks the other N-1 workers from itself, so the loaded model is shared copy-on-write and loaded once. Batches
sent to it (`map`, `map_unordered`) go to whichever worker is free; each worker runs the batch function the
command would have run itself, so the results are the same objects, computed in another process.

Nothing is lost when a worker fails: a worker that dies has its batch computed again by another, and when none
is left (or a batch takes longer than `timeout`) the rest is computed in the calling process. `close()` ends
the workers (at once when no batch was ever sent: an add with nothing new to extract does not wait for spaCy).
Only for a cold process: `fork_is_safe()` is False when spaCy is already loaded (nothing to overlap), when
threads run (a fork copies one), on a single core (nothing to run side by side) and off Linux. The workers'
output goes nowhere (their stderr stays, for warnings), so a reader of the command's output sees it end with
the command.

The one-off form, a function computed in a child forked later in the command, is kgkit.workflows.forked_call.

>>> with ForkedWorkers.start(lambda: None, workers=2) as pool:
...     list(pool.map(sorted, [[2, 1], [3], [5, 4]])), list(pool.map(len, [[1, 2], [3]]))
([[1, 2], [3], [4, 5]], [2, 1])
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["ForkedWorkers", "available_cores", "fork_is_safe", "warm_offline"]

A = TypeVar("A")
B = TypeVar("B")


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform tells it, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def fork_is_safe() -> bool:
    """True when forking extraction workers can only help: on Linux (where a fork after numpy's import is
    safe), this process runs one thread, spaCy is not loaded yet (a warm process parses in place) and it may
    use two cores or more."""
    import threading

    return (sys.platform.startswith("linux") and threading.active_count() == 1 and "spacy" not in sys.modules
            and available_cores() >= 2)


def warm_offline(cache_dir: str | os.PathLike[str] | None) -> Callable[[], None]:
    """The warm-up of an offline extraction worker process (not for an ordinary process: it stands spaCy's
    command line aside, `_without_spacy_cli`): spaCy's import, the default model and the gazetteer (read from
    the workspace's cache at `cache_dir`, as the extraction itself would), and the extraction stage."""

    def warm() -> None:
        _without_spacy_cli()
        _entry_points_looked_up_once()
        from kgkit.extractors.offline import OfflineExtractor, load_model
        from kgkit.extractors.offline.gazetteer import load_places
        from kgkit.io.cache import Cache
        from kgkit.stages import extract  # noqa: F401  # the batches' function

        extractor = OfflineExtractor()
        if cache_dir is not None:
            extractor.use_cache(Cache(cache_dir))
        load_model(extractor.model)
        load_places()

    return warm


def _without_spacy_cli() -> None:
    """Let spaCy's import skip its command line: `spacy/__init__` imports spacy.cli (requests, its typer app and
    every command's module: about 0.3 s) only to export `spacy.info`. A worker parses and never calls it, so
    the two modules are stand-ins here whose `info` says so; the pipeline, its loading and its parses are
    spaCy's own. Only in a worker forked for this, before spaCy is imported."""
    import types

    if "spacy" in sys.modules or "spacy.cli" in sys.modules:
        return

    def info(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("spacy.info is not available in a kgkit extraction worker")

    cli = types.ModuleType("spacy.cli", "stand-in: a kgkit extraction worker runs no spaCy command")
    cli.__path__ = []  # a package, so that `from .cli.info import info` finds spacy.cli.info below
    cli_info = types.ModuleType("spacy.cli.info", cli.__doc__)
    cli_info.info = info  # type: ignore[attr-defined]
    cli.info = cli_info  # type: ignore[attr-defined]
    sys.modules.update({"spacy.cli": cli, "spacy.cli.info": cli_info})


def _entry_points_looked_up_once() -> None:
    """Let catalogue (the registries of spaCy, thinc and confection) look each entry-point group up once: it
    selects a group from every installed package's entry points on each registry lookup, about 250 times
    while spaCy's model loads (0.06 s). The groups and what they hold are the same; only the repeated scans go.
    Only in a worker forked for this (no package is installed while it runs), before spaCy is imported."""
    import functools

    if "spacy" in sys.modules:
        return
    import catalogue

    found = catalogue.AVAILABLE_ENTRY_POINTS
    if not hasattr(found, "select") or isinstance(found, _EntryPointsOnce):
        return
    catalogue.AVAILABLE_ENTRY_POINTS = _EntryPointsOnce(found, functools.lru_cache(maxsize=None)(found.select))


class _EntryPointsOnce:
    """importlib.metadata's EntryPoints whose `select(group=...)` is answered once per group."""

    def __init__(self, found: Any, select_once: Callable[..., Any]) -> None:
        self.found, self._select_once = found, select_once

    def select(self, **params: Any) -> Any:
        return self._select_once(**params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.found, name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.found)

    def __len__(self) -> int:
        return len(self.found)


class _Worker:
    def __init__(self, conn: Any) -> None:
        self.conn, self.fn = conn, None
        self.sent: list[tuple[int, Any, int]] = []  # (position, item, bytes) sent, not answered yet, oldest first


class ForkedWorkers:
    """Worker processes forked from this one (see the module's doc); `start` forks them.

    `batch_size`: chunks per batch that suits them (small, so that the batches spread over the workers; the
    add takes it). A worker may hold a second batch, so that it has the next one at hand when it finishes one,
    only while what it holds unread fits in ROOM bytes (below what a pipe buffers): then this process never
    waits writing to a worker that is itself waiting to write its answer."""

    batch_size = 4
    IN_FLIGHT = 2
    ROOM = 64 * 1024

    def __init__(self, pid: int, conns: list[Any], timeout: float) -> None:
        self.pid: int | None = pid
        self.timeout, self.used = timeout, False  # used: a batch was sent
        self.workers = [_Worker(c) for c in conns]
        self.processes = len(conns)
        self._idle: list[Callable[[], None]] = []

    @classmethod
    def start(cls, warm: Callable[[], None], *, workers: int = 2, timeout: float = 600.0) -> ForkedWorkers:
        """Fork the first worker now (it runs `warm`, then forks the others); returns at once."""
        from multiprocessing import Pipe

        pairs = [Pipe() for _ in range(max(1, workers))]
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            code = 1
            try:
                for ours, _ in pairs:
                    ours.close()
                devnull = os.open(os.devnull, os.O_WRONLY)  # whoever reads this process's output is not kept
                os.dup2(devnull, 1)                          # waiting by a worker (stderr stays, for warnings)
                os.close(devnull)
                _first_worker(warm, [theirs for _, theirs in pairs])
                code = 0
            finally:
                os._exit(code)
        for _, theirs in pairs:
            theirs.close()
        return cls(pid, [ours for ours, _ in pairs], timeout)

    def __enter__(self) -> ForkedWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def while_waiting(self, fn: Callable[[], None]) -> None:
        """Run `fn` once, the first time a map has sent the workers their batches and would wait for them (the
        caller's own work, done while the workers parse); never if no map waits."""
        self._idle.append(fn)

    def map(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[B]:
        """fn(item) for each item, in order (map_unordered's answers put in order, as the Dask executor does)."""
        from kgkit.workflows.executors import DaskExecutor  # imported here: nothing before the fork but this module

        return DaskExecutor.map(self, fn, items)  # type: ignore[arg-type]

    def map_unordered(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[tuple[int, B]]:
        """(position, fn(item)) for every item, as the workers finish them."""
        from multiprocessing.connection import wait

        queue = list(enumerate(items))
        queue.reverse()  # popped from the end: first items first
        if not queue:
            return
        self.used = True
        try:
            shipped = pickle.dumps(fn)
        except (pickle.PicklingError, TypeError, AttributeError):  # a function only this process knows
            while queue:
                position, item = queue.pop()
                yield position, fn(item)
            return
        while True:
            for w in list(self.workers):
                while queue and w in self.workers and self._send(w, shipped, queue):
                    pass
            busy = [w for w in self.workers if w.sent]
            if not busy:  # every worker gone (or nothing left): the rest is computed here
                while queue:
                    position, item = queue.pop()
                    yield position, fn(item)
                return
            while self._idle:
                self._idle.pop(0)()
            ready = wait([w.conn for w in busy], timeout=self.timeout)
            if not ready:  # stuck: drop the workers, compute what they held here
                for w in busy:
                    self._drop(w, queue)
                continue
            for w in busy:
                if w.conn not in ready:
                    continue
                try:
                    position, ok, value = pickle.loads(w.conn.recv_bytes())
                except (EOFError, OSError, pickle.UnpicklingError):  # the worker died: its batches go to another
                    self._drop(w, queue)
                    continue
                w.sent = [sent for sent in w.sent if sent[0] != position]
                if not ok:
                    raise value
                yield position, value

    def _send(self, w: _Worker, shipped: bytes, queue: list[tuple[int, Any]]) -> bool:
        """Send the next batch to `w` if it may take it now (see the class's doc); whether one was sent."""
        if len(w.sent) >= self.IN_FLIGHT:
            return False
        position, item = queue[-1]
        message = pickle.dumps((position, shipped if w.fn is not shipped else None, item))
        if w.sent and sum(s[2] for s in w.sent) + len(message) > self.ROOM:
            return False
        queue.pop()
        w.sent.append((position, item, len(message)))
        try:
            w.conn.send_bytes(message)
        except OSError:
            self._drop(w, queue)
            return False
        w.fn = shipped
        return True

    def _drop(self, w: _Worker, queue: list[tuple[int, Any]]) -> None:
        """Give up on a worker: what it held goes back to the queue (first items first)."""
        queue.extend((position, item) for position, item, _ in w.sent)
        queue.sort(key=lambda s: -s[0])
        w.conn.close()
        self.workers.remove(w)

    def close(self) -> None:
        """End the workers: each sees its pipe close and exits; killed at once when no batch was ever sent."""
        if self.pid is None:
            return
        if not self.used:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
        for w in self.workers:
            w.conn.close()
        self.workers = []
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:  # pragma: no cover - reaped already (SIGCHLD ignored)
            pass
        self.pid = None


def _first_worker(warm: Callable[[], None], conns: list[Any]) -> None:  # pragma: no cover - a child process
    """Warm up, fork the other workers (sharing what `warm` loaded), serve the first pipe, reap the others."""
    try:
        warm()
    except Exception:  # a batch will raise the same error where it can be reported
        pass
    children = []
    for conn in conns[1:]:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                for other in conns:
                    if other is not conn:
                        other.close()
                _serve(conn)
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
        conn.close()
    _serve(conns[0])
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _serve(conn: Any) -> None:  # pragma: no cover - a child process
    """Run each batch received: (position, pickled function or None for the last one, item) -> (position, ok,
    result or exception); until the pipe closes."""
    fn = None
    while True:
        try:
            position, shipped, item = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if shipped is not None:
            fn = pickle.loads(shipped)
        try:
            answer = (position, True, fn(item))  # type: ignore[misc]
        except Exception as exc:
            answer = (position, False, exc)
        try:
            conn.send_bytes(pickle.dumps(answer))
        except (pickle.PicklingError, TypeError, AttributeError):
            conn.send_bytes(pickle.dumps((position, False, RuntimeError(repr(answer[2])[:2000]))))
        except OSError:
            return
