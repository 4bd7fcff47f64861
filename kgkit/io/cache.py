"""On-disk cache of stage results, keyed by the content hash of their inputs.

key = sha256(stage name, stage version, fingerprint of every argument). Change any input -> miss; change
nothing -> hit, and the stage does not run. Values are stored as JSON (pydantic records, Graphs, plain data)
or .npy (arrays, loaded with allow_pickle=False) — never pickle. Every write is atomic (temp file + rename;
not fsync'ed: an entry emptied by a power cut reads as a miss and is recomputed),
so two processes sharing one cache at worst compute the same entry twice; a reader never sees half a file.

The root is a folder, or an fsspec URL (`file:///mnt/shared/cache`, `s3://bucket/kgkit-cache`,
`dir::file:///...`; any protocol whose package is installed), so one cache can serve every machine of a
cluster. On a file system (local, `dir::`, sftp ...) an entry is written under a temporary name and renamed
into place; on an object store (s3, gcs, azure, memory) the put itself is atomic. A URL whose protocol's
package is missing raises CacheLocationError saying which package to install.

Caching happens at the call site, the same way in a script, the CLI and a notebook cell:

>>> import tempfile
>>> from kgkit.core.stage import stage
>>> @stage(version="1")
... def total(xs: list[int]) -> int:
...     return sum(xs)
>>> cache = Cache(tempfile.mkdtemp())
>>> cache.run(total, [1, 2, 3]), cache.run(total, [1, 2, 3])
(6, 6)
>>> cache.stats.hits["total"], cache.stats.misses["total"]
(1, 1)
>>> info = cache.info()
>>> info.entries, info.stages["total"].entries, info.session.to_json_dict()
(1, 1, {'total': {'hits': 1, 'misses': 1, 'computed': 1, 'writes': 1}})
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import tarfile
import time
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from kgkit.core.executor import Executor, SerialExecutor
from kgkit.core.fingerprint import fingerprint
from kgkit.core.stage import stage_identity
from kgkit.io import atomic_file, dumps_json
from kgkit.io.cache_files import LAYOUT, CacheLocationError, FsspecFiles, LocalFiles, is_url, open_files
from kgkit.io.cache_stats import CacheCounts, CacheInfo, CacheStats, StageCounts, StageUsage

__all__ = ["LAYOUT", "Cache", "CacheCounts", "CacheInfo", "CacheLocationError", "CacheStats", "StageCounts",
           "StageUsage", "is_url"]

T = TypeVar("T")


class _Codec:
    """Turns values of one annotated type into JSON-ready data and back."""

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation
        self.kind = "json"
        if isinstance(annotation, type) and hasattr(annotation, "from_json_dict"):
            self.kind = "custom"
        elif _is_ndarray(annotation):
            self.kind = "ndarray"
        else:
            from pydantic import TypeAdapter

            self.adapter = TypeAdapter(annotation)

    def encode(self, value: Any) -> Any:
        if self.kind == "custom":
            return value.to_json_dict()
        return self.adapter.dump_python(value, mode="json")

    def decode(self, data: Any) -> Any:
        if self.kind == "custom":
            return self.annotation.from_json_dict(data)
        return self.adapter.validate_python(data)


def _is_ndarray(annotation: Any) -> bool:
    try:
        import numpy as np
    except ImportError:
        return False
    return annotation is np.ndarray or typing.get_origin(annotation) is np.ndarray


def _return_type(fn: Callable[..., Any]) -> Any:
    hints = typing.get_type_hints(fn)
    if "return" not in hints:
        raise TypeError(f"{fn.__qualname__} needs a return annotation to be cached")
    return hints["return"]


def _item_type(fn: Callable[..., Any]) -> Any:
    ret = _return_type(fn)
    if typing.get_origin(ret) not in (list, Sequence, tuple):
        raise TypeError(f"{fn.__qualname__} must return list[T] to be used with Cache.map")
    return typing.get_args(ret)[0]


def _checked_key(key: str) -> str:
    """Keys become file names: hex digests only (at least 8 characters)."""
    if len(key) < 8 or any(c not in "0123456789abcdef" for c in key):
        raise ValueError(f"cache keys are lowercase hex digests, got {key!r}")
    return key


def _failed(value: Any) -> bool:
    """Results that record a failure are never cached (a re-run retries them)."""
    return getattr(value, "error", None) is not None


class _Batch:
    """One batch of a `Cache.map`: fn(items, **kwargs), checked to give one result per item. A plain object
    (fn by reference, kwargs by value), so an executor ships it to its workers once, not once per batch."""

    def __init__(self, fn: Callable[..., list[Any]], kwargs: dict[str, Any]) -> None:
        self.fn, self.kwargs = fn, kwargs

    def __call__(self, items: list[Any]) -> list[Any]:
        values = self.fn(items, **self.kwargs)
        if len(values) != len(items):
            raise ValueError(f"{stage_identity(self.fn)[0]} returned {len(values)} results for {len(items)} items")
        return values


def _as_completed(executor: Executor, fn: Callable[[Any], Any], items: list[Any]) -> Iterable[tuple[int, Any]]:
    """(position, fn(item)) as each is done: the executor's `map_unordered` when it has one (a Dask cluster
    reports each batch as it finishes), else its ordered `map`."""
    unordered = getattr(executor, "map_unordered", None)
    if unordered is not None:
        return unordered(fn, items)
    return enumerate(executor.map(fn, items))


class Cache:
    """A content-addressed store of stage results under `root` (a folder or an fsspec URL). Safe to share
    between processes and machines.

    `executor`: where `map` computes its misses when the call names none (`using(executor)` gives a view of
    this cache with one, sharing its store and counters)."""

    def __init__(self, root: str | os.PathLike[str], *, enabled: bool = True, executor: Executor | None = None) -> None:
        self.root: Path | str = str(root) if is_url(root) else Path(root)
        self._files: LocalFiles | FsspecFiles = open_files(root)
        self.enabled = enabled
        self.executor = executor
        self.stats = CacheStats()
        self._codecs: dict[Any, _Codec] = {}

    def using(self, executor: Executor | None) -> Cache:
        """This cache with `executor` computing its maps' misses: the same store and the same `stats`.

        >>> import tempfile
        >>> from kgkit.core.executor import ThreadExecutor
        >>> cache = Cache(tempfile.mkdtemp())
        >>> view = cache.using(ThreadExecutor(max_workers=2))
        >>> view.stats is cache.stats, view.root == cache.root, cache.executor is None
        (True, True, True)
        """
        view = copy.copy(self)
        view.executor = executor
        return view

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["executor"] = None  # a cluster's client stays with the caller
        state["_codecs"] = {}
        return state

    # ----------------------------------------------------------------- keys and paths

    def key(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
        """The cache key of fn(*args, **kwargs): stage name + version + argument fingerprints."""
        name, version = stage_identity(fn)
        parts = [name, version, fingerprint(list(args)), fingerprint(kwargs)]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    @staticmethod
    def _rel(stage_name: str, key: str, suffix: str = ".json") -> str:
        return f"{LAYOUT}/{stage_name}/{key[:2]}/{key}{suffix}"

    def _codec(self, annotation: Any) -> _Codec:
        codec = self._codecs.get(annotation)
        if codec is None:
            codec = self._codecs[annotation] = _Codec(annotation)
        return codec

    # ----------------------------------------------------------------- get / put

    def _get(self, stage_name: str, key: str, codec: _Codec) -> tuple[bool, Any]:
        if not self.enabled:
            return False, None
        rel = self._rel(stage_name, key, ".npy" if codec.kind == "ndarray" else ".json")
        try:
            data = self._files.read(rel)
            if codec.kind == "ndarray":
                import numpy as np

                value = np.load(io.BytesIO(data), allow_pickle=False)
            else:
                value = codec.decode(json.loads(data)["value"])
        except FileNotFoundError:
            return False, None
        except (OSError, ValueError, KeyError, TypeError, EOFError):  # damaged entry: a miss, rewritten
            return False, None
        self._files.touch(rel)
        return True, value

    def _put(self, stage_name: str, version: str, key: str, codec: _Codec, value: Any) -> None:
        if not self.enabled or _failed(value):
            return
        if codec.kind == "ndarray":
            import numpy as np

            buf = io.BytesIO()
            np.save(buf, np.asarray(value), allow_pickle=False)
            self._files.write(self._rel(stage_name, key, ".npy"), buf.getvalue())
        else:
            entry = {"stage": stage_name, "version": version, "key": key, "created": time.time(), "value": codec.encode(value)}
            self._files.write(self._rel(stage_name, key), dumps_json(entry).encode("utf-8"))
        self.stats.writes[stage_name] += 1

    # ----------------------------------------------------------------- plain values (no stage function)

    def get_value(self, namespace: str, key: str) -> tuple[bool, Any]:
        """(True, value) for a JSON value stored by `put_value` under namespace/key; (False, None) on a miss.

        For callers that key entries themselves (kgkit.llm's per-request cache). Counted in `stats` under
        `namespace`; a damaged entry reads as a miss.
        """
        hit, value = self._get(namespace, _checked_key(key), self._codec(Any))
        (self.stats.hits if hit else self.stats.misses)[namespace] += 1
        return hit, value

    def put_value(self, namespace: str, key: str, value: Any) -> None:
        """Store a JSON-ready value under namespace/key (atomic; values with `error` set are not stored)."""
        self._put(namespace, "value", _checked_key(key), self._codec(Any), value)

    # ----------------------------------------------------------------- running stages

    def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """fn(*args, **kwargs), from the cache when the same inputs were seen before."""
        name, version = stage_identity(fn)
        codec = self._codec(_return_type(fn))
        key = self.key(fn, *args, **kwargs)
        hit, value = self._get(name, key, codec)
        if hit:
            self.stats.hits[name] += 1
            return value
        self.stats.misses[name] += 1
        value = fn(*args, **kwargs)
        self.stats.computed[name] += 1
        self._put(name, version, key, codec, value)
        return value

    def map(
        self,
        fn: Callable[..., list[T]],
        items: Sequence[Any],
        *,
        batch_size: int = 16,
        executor: Executor | None = None,
        on_batch: Callable[[int], None] | None = None,
        **kwargs: Any,
    ) -> list[T]:
        """[fn([item], **kwargs)[0] for item in items], cached per item, misses computed in batches.

        `fn` takes a list of items and returns one result per item (a batch-capable stage). Each item has its
        own key, as if fn had been called on it alone, so adding one document re-runs only its items. Misses
        are computed through `executor` (this cache's own, else serial), and each batch is stored as soon as it
        is done, so an interrupted run keeps everything already computed. `on_batch(n)` reports progress: once
        per batch, as it finishes (in the order a cluster finishes them, when the executor has `map_unordered`).
        Only the batch's items and `fn` with `kwargs` go to the executor; the cache is read and written here.
        """
        name, version = stage_identity(fn)
        codec = self._codec(_item_type(fn))
        keys = [self.key(fn, [item], **kwargs) for item in items]
        results: list[Any] = [None] * len(items)
        found: dict[str, Any] = {}
        todo: dict[str, list[int]] = {}  # key -> positions (identical items are computed once)
        for i, key in enumerate(keys):
            if key in todo:
                todo[key].append(i)
            elif key in found:
                results[i] = found[key]
            else:
                hit, value = self._get(name, key, codec)
                if hit:
                    self.stats.hits[name] += 1
                    results[i] = found[key] = value
                else:
                    self.stats.misses[name] += 1
                    todo[key] = [i]
        pending = list(todo)
        batches = [pending[i : i + batch_size] for i in range(0, len(pending), batch_size)]
        inputs = [[items[todo[k][0]] for k in batch] for batch in batches]
        mapper = executor or self.executor or SerialExecutor()
        for position, values in _as_completed(mapper, _Batch(fn, kwargs), inputs):
            batch = batches[position]
            self.stats.computed[name] += len(batch)
            for key, value in zip(batch, values):
                self._put(name, version, key, codec, value)
                for i in todo[key]:
                    results[i] = value
            if on_batch is not None:
                on_batch(len(batch))
        return results

    # ----------------------------------------------------------------- inspection and upkeep

    def entries(self) -> Iterable[tuple[str, Any, Any]]:
        """(stage name, path, stat) for every stored entry: a Path and its os.stat_result in a folder; under an
        fsspec URL, the file system's path and an object with `st_size` and `st_mtime`."""
        yield from self._files.scan()

    def info(self) -> CacheInfo:
        """What is stored: entries and bytes per stage, in total, and this object's hit/miss counters."""
        per_stage: dict[str, list[int]] = {}
        for stage_name, _path, st in self.entries():
            row = per_stage.setdefault(stage_name, [0, 0])
            row[0] += 1
            row[1] += st.st_size
        return CacheInfo(root=str(self.root), stages={k: StageUsage(entries=n, bytes=b) for k, (n, b) in per_stage.items()},
                         entries=sum(n for n, _ in per_stage.values()), bytes=sum(b for _, b in per_stage.values()),
                         session=self.stats.snapshot())

    def prune(
        self,
        *,
        older_than_seconds: float | None = None,
        stage: str | None = None,
        max_bytes: int | None = None,
        now: float | None = None,
    ) -> dict[str, int]:
        """Delete entries: of one stage, not used for `older_than_seconds`, and/or least recently used ones
        until the cache fits in `max_bytes`. With no criteria, nothing is removed. Returns counts. (On an
        object store a hit does not refresh an entry's time, so "used" there means "written".)"""
        now = time.time() if now is None else now
        entries = list(self.entries())
        doomed: list[tuple[Any, int]] = []
        kept: list[tuple[float, Any, int]] = []
        for stage_name, path, st in entries:
            if (stage is not None and stage_name == stage) or (
                older_than_seconds is not None and now - st.st_mtime > older_than_seconds
            ):
                doomed.append((path, st.st_size))
            else:
                kept.append((st.st_mtime, path, st.st_size))
        if max_bytes is not None:
            total = sum(size for _, _, size in kept)
            for _mtime, path, size in sorted(kept, key=lambda e: (e[0], str(e[1]))):
                if total <= max_bytes:
                    break
                doomed.append((path, size))
                total -= size
        for path, _size in doomed:
            self._files.remove(path)
        return {"removed": len(doomed), "bytes_freed": sum(s for _, s in doomed), "kept": len(entries) - len(doomed)}

    def export(self, dest: str | os.PathLike[str]) -> Path:
        """Pack the cache into a .tar.gz that `import_archive` (or `kgkit cache import`) restores elsewhere."""
        dest = Path(dest)
        with atomic_file(dest) as fh, tarfile.open(fileobj=fh, mode="w:gz") as tar:
            for _stage, path, _st in self.entries():
                self._files.add_to_tar(tar, path)
        return dest

    def import_archive(self, archive: str | os.PathLike[str]) -> int:
        """Unpack an exported cache into this one (existing entries are kept). Returns entries added."""
        added = 0
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar.getmembers():
                parts = Path(member.name).parts
                if not member.isfile() or parts[:1] != (LAYOUT,) or ".." in parts:
                    continue  # only cache entries, never paths outside the cache
                rel = "/".join(parts)
                if self._files.exists(rel):
                    continue
                data = tar.extractfile(member)
                if data is not None:
                    self._files.write(rel, data.read())
                    added += 1
        return added
