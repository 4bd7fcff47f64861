"""Storage for a search index: one SQLite file (WAL journal, synchronous=FULL), the only I/O in kgkit.stages.search.

Every write is one transaction: a batch of added, replaced or removed items commits whole or not at all, and
a process killed mid-write leaves the previous index readable (SQLite rolls the unfinished transaction back
on the next open). `synchronous=FULL` fsyncs the log at each commit, so a committed write survives a power
cut, not just a crash. Writers in several threads share commits (group commit: whoever takes the commit lock
writes every queued write in one transaction), so concurrent single writes cost one fsync per group, not one
each; a write returns only once its transaction is durable (each commit then costs one fsync: ~5 ms on a disk whose fsync takes that long).
`synchronous="NORMAL"` syncs at checkpoints only: still atomic and crash-safe for the process, but the last
commits can be lost on power failure. Rows keep insertion order (AUTOINCREMENT), so loading rebuilds the same row order.

Beside the database, `keyword.npz` is a snapshot of the in-memory keyword index (numpy arrays, no pickle)
stamped with the item ids it was built from; opening uses it when those ids are still the first stored rows
(rows appended since are added on top), so it is a cache: a missing, torn or foreign snapshot, or one whose
rows were replaced or removed since, just means the index is rebuilt from the rows. It is written atomically
(temporary file, then rename) and not fsynced, since the database alone is the durable state.

>>> import tempfile, pathlib, numpy as np
>>> from kgkit.stages.search.items import SearchItem
>>> store = IndexStore(pathlib.Path(tempfile.mkdtemp()) / "index")
>>> store.write([(SearchItem(id="c1", kind="chunk", title="", body="Ada met Bob."), np.ones(2, np.float32))])
>>> items, vectors, meta = store.load()
>>> [i.id for i in items], vectors[0].tolist(), meta["format"]
(['c1'], [1.0, 1.0], 'kgkit.search/1')
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgkit.io import atomic_file
from kgkit.stages.search.items import SearchItem

FORMAT = "kgkit.search/1"
DB_NAME = "search.db"
SNAPSHOT_NAME = "keyword.npz"
SNAPSHOT_FORMAT = "kgkit.stages.search.keyword/1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    row INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    data TEXT NOT NULL,
    vector BLOB
);
"""


@dataclass
class _Pending:
    upserts: Sequence[tuple[SearchItem, np.ndarray | None]]
    remove: Sequence[str]
    meta: dict[str, Any] | None
    done: bool = False
    error: BaseException | None = None


class IndexStore:
    """The items (JSON) and their vectors (float32 bytes) of one index, in `folder`/search.db."""

    def __init__(self, folder: str | os.PathLike[str], *, synchronous: str = "FULL") -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_NAME
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError("synchronous is FULL, NORMAL or EXTRA")
        self.conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self.conn.execute("PRAGMA busy_timeout=10000")
        self.conn.executescript(_SCHEMA)
        self._queue: list[_Pending] = []
        self._queue_lock = threading.Lock()
        self._commit_lock = threading.Lock()
        if self.meta().get("format") is None:
            self.set_meta({"format": FORMAT})
        elif self.meta()["format"] != FORMAT:
            raise ValueError(f"{self.path}: unknown index format {self.meta()['format']!r}")

    def close(self) -> None:
        self.conn.close()

    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.conn.execute("SELECT key, value FROM meta")}

    def set_meta(self, values: dict[str, Any]) -> None:
        self.write([], meta=values)

    def load(self) -> tuple[list[SearchItem], list[np.ndarray | None], dict[str, Any]]:
        """Every stored item in insertion order, its vector (None if it has none), and the metadata, read in
        one transaction (so the metadata is that of these rows)."""
        items, vectors = [], []
        with self._commit_lock:
            self.conn.execute("BEGIN")
            try:
                for data, blob, digest in self.conn.execute("SELECT data, vector, hash FROM items ORDER BY row"):
                    fields = json.loads(data)
                    for key in ("documents", "entities"):
                        fields[key] = tuple(fields[key])
                    items.append(SearchItem(**fields, hash=digest))
                    vectors.append(None if blob is None else np.frombuffer(blob, dtype=np.float32))
                meta = self.meta()
            finally:
                self.conn.execute("COMMIT")
        return items, vectors, meta

    def ids(self) -> list[str]:
        """The stored item ids in row order (under the commit lock: the connection is shared by the writers)."""
        with self._commit_lock:
            return [i for (i,) in self.conn.execute("SELECT id FROM items ORDER BY row")]

    @property
    def snapshot_path(self) -> Path:
        return self.folder / SNAPSHOT_NAME

    def save_snapshot(self, arrays: dict[str, np.ndarray], *, ids: Sequence[str]) -> None:
        """Write the keyword snapshot for these ids (atomic rename; a cache, not fsynced)."""
        stamp = json.dumps({"format": SNAPSHOT_FORMAT, "ids": list(ids)})
        with atomic_file(self.snapshot_path, durable=False) as fh:
            np.savez(fh, _stamp=np.frombuffer(stamp.encode(), dtype=np.uint8), **arrays)

    def load_snapshot(self, ids: Sequence[str]) -> tuple[dict[str, np.ndarray], int] | None:
        """The snapshot's arrays and how many rows it holds, if the rows it was made from are the first rows of
        `ids` (the stored ids in row order), else None (also when the file is missing or unreadable). A prefix
        is enough: a replaced item is deleted and appended, so any change to a snapshotted row moves its id."""
        try:
            with np.load(self.snapshot_path, allow_pickle=False) as data:
                stamp = json.loads(bytes(data["_stamp"]).decode())
                made_from = stamp.get("ids")
                if (stamp.get("format") != SNAPSHOT_FORMAT or not isinstance(made_from, list)
                        or made_from != list(ids[: len(made_from)])):
                    return None
                return {k: data[k] for k in data.files if k != "_stamp"}, len(made_from)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None

    def write(self, upserts: Sequence[tuple[SearchItem, np.ndarray | None]], *, remove: Sequence[str] = (),
              meta: dict[str, Any] | None = None, _between_rows: Callable[[int], None] | None = None) -> None:
        """Atomically and durably: delete `remove` ids, replace-or-insert `upserts` (a replaced item moves to
        the end), update `meta`. Returns once committed; concurrent calls may share one transaction (if a shared
        one fails, each write is retried alone, so one bad write never sinks another). `_between_rows(i)` is a
        test seam called before each row is written (raise or kill the process there to simulate a crash)."""
        pending = _Pending(upserts, remove, meta)
        if _between_rows is not None:
            with self._commit_lock:
                self._commit([pending], _between_rows)
            return
        with self._queue_lock:
            self._queue.append(pending)
        with self._commit_lock:
            if not pending.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                try:
                    self._commit(batch)
                except BaseException as exc:  # isolate: each write of the failed group on its own
                    if len(batch) == 1:
                        batch[0].error = exc
                    for p in batch if len(batch) > 1 else ():
                        try:
                            self._commit([p])
                        except BaseException as one:
                            p.error = one
                for p in batch:
                    p.done = True
        if pending.error is not None:
            raise pending.error

    def _commit(self, batch: Sequence[_Pending], between_rows: Callable[[int], None] | None = None) -> None:
        cur = self.conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for pending in batch:
                self._apply(cur, pending, between_rows)
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise

    @staticmethod
    def _apply(cur: sqlite3.Cursor, pending: _Pending, between_rows: Callable[[int], None] | None) -> None:
        for item_id in pending.remove:
            cur.execute("DELETE FROM items WHERE id = ?", (item_id,))
        for i, (item, vector) in enumerate(pending.upserts):
            if between_rows is not None:
                between_rows(i)
            data = {k: v for k, v in item.as_dict().items() if k != "hash"}
            blob = None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()
            cur.execute("DELETE FROM items WHERE id = ?", (item.id,))
            cur.execute("INSERT INTO items (id, hash, data, vector) VALUES (?, ?, ?, ?)",
                        (item.id, item.hash, json.dumps(data, ensure_ascii=False), blob))
        for key, value in (pending.meta or {}).items():
            cur.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))


def open_index(folder: str | os.PathLike[str], *, embedder: Any = None, cache: Any = None, config: Any = None,
               synchronous: str = "FULL", progress: Any = None) -> Any:
    """The SearchIndex stored in `folder` (created if absent). `synchronous` is SQLite's: FULL (default)
    survives power loss, NORMAL only a process crash. `progress(stage, done, total)`: items re-embedded when
    the embedder changed."""
    from kgkit.stages.search.search_index import SearchIndex

    return SearchIndex.from_store(IndexStore(folder, synchronous=synchronous), embedder=embedder, cache=cache,
                                  config=config, progress=progress)
