"""A Workspace: the one owner of a corpus's files, written in generations under one writer lock.

Every artefact (graph.json, run.json, graph.html, extractions.jsonl, communities.json, narrative.md,
decisions.yaml, journal/NNNN.json, ...) sits at the path the README documents, and only this module knows
those paths. A writer stages a generation's files in ``.kgkit/staging/`` and commits them all at once
(`kgkit.io.generation` has the steps): the intent ``.kgkit/commit.json`` first, then backups of the files it
replaces, the renames, and ``manifest.json`` (generation, step, sha256 of every artefact, the run
configuration, stale artefacts) last.

A kill anywhere before the manifest leaves the previous generation current: the next open rolls the half-done
commit back (and removes stray temporary files) and says so in one line (`Workspace.notes`); a writer whose
commit raises rolls it back at once. Readers never block and never see a mix of two generations: `read_bytes`
checks each file against the manifest and, while a commit is in flight, reads the copy it replaces (still in
place, or in ``.kgkit/previous/``); `read_together` reads several files of one generation.

One writer at a time: `Workspace.writer()` holds ``.kgkit/lock`` (filelock) for the duration of a step; a
second writer waits up to its `lock_timeout`, then fails with `WorkspaceBusy` naming the holder.

>>> import tempfile
>>> ws = Workspace(tempfile.mkdtemp())
>>> with ws.writer() as w:
...     gen = w.begin("example", config={"max_chars": 2000})
...     gen.write_text(RUN, '{"ok": true}')
...     gen.commit()
1
>>> ws.read_json(RUN), ws.manifest().generation, ws.manifest().config["max_chars"]
({'ok': True}, 1, 2000)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgkit.io.generation import (
    CACHE_DIR,
    INDEX_DIR,
    MANIFEST,
    STATE_DIR,
    Generation,
    Manifest,
    WorkspaceError,
    atomic_write_bytes,
    dumps_json,
    recover,
)

if TYPE_CHECKING:
    from kgkit.core.graph import Graph

__all__ = [
    "COMMUNITIES", "DECISIONS", "EXTRACTIONS", "GRAPH", "MANIFEST", "NARRATIVE", "NARRATIVE_JSON", "RUN", "VIEW",
    "Generation", "Manifest", "Workspace", "WorkspaceBusy", "WorkspaceError", "as_workspace", "read_graph",
]

# every file name of a workspace, in one place (relative to the workspace root)
GRAPH = "graph.json"
EXTRACTIONS = "extractions.jsonl"
RUN = "run.json"
EXTRACT_SUMMARY = "extract.json"
VIEW = "graph.html"
COMMUNITIES = "communities.json"
NARRATIVE = "narrative.md"
NARRATIVE_JSON = "narrative.json"
DECISIONS = "decisions.yaml"
CANDIDATES = "resolve/candidates.jsonl"
JOURNAL_DIR = "journal"
DOMAIN = "domain.yaml"
# MANIFEST, CACHE_DIR, INDEX_DIR, STATE_DIR: kgkit.io.generation (a generation needs them too)
REJECTED_RUN = ".kgkit/rejected-run.json"
REMOVED_DIR = "removed"  # corpus files `kgkit add --remove` took out of the corpus, kept (never deleted)

EDITABLE = frozenset({DECISIONS})  # a person edits these by hand: read as they are, never checked against the manifest
DERIVED = {VIEW: "view", COMMUNITIES: "communities", NARRATIVE: "narrative", INDEX_DIR: "index"}
_JOURNAL = re.compile(rf"{JOURNAL_DIR}/[0-9]{{4}}\.json")
_READ_PATIENCE = 5.0  # seconds a read retries while files move between places (a paused writer never makes it wait)


class WorkspaceBusy(WorkspaceError):
    """Another process holds the workspace's writer lock longer than this writer would wait."""


class _Moved(Exception):
    """The generation a read started from was replaced (or rolled back) while it read: read again."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _identity(path: Path | int) -> tuple[int, int, int] | None:
    """What tells a file from its replacement (inode, mtime, size); None when there is no such file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


def _read_or_none(path: Path) -> tuple[bytes | None, tuple[int, int, int] | None]:
    """A file's bytes and identity, (None, None) when there is no such file."""
    try:
        with open(path, "rb") as fh:
            return fh.read(), _identity(fh.fileno())
    except FileNotFoundError:
        return None, None


class Workspace:
    """The folder that holds one corpus's artefacts; the only code that knows their paths.

    Opening a workspace never blocks; it rolls back a commit a killed writer left half done (when no writer
    is active) and records what it did in `notes` (one line each)."""

    def __init__(self, root: str | os.PathLike[str], *, create: bool = True) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise WorkspaceError(f"{self.root} is a file, not a workspace folder")
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        elif not self.root.is_dir():
            raise WorkspaceError(f"{self.root}: no such workspace folder")
        self.notes: list[str] = []
        self._held = 0
        self._manifest: tuple[tuple[int, int, int] | None, Manifest] | None = None  # (file identity, parsed)
        if self.state_dir.is_dir():
            self._recover_if_idle()

    # ------------------------------------------------------------------ paths

    def path(self, name: str) -> Path:
        """Absolute path of an artefact (`GRAPH`, `VIEW`, a journal file ...)."""
        return self.root / name

    @property
    def cache_dir(self) -> Path:
        return self.root / CACHE_DIR

    @property
    def index_dir(self) -> Path:
        return self.root / INDEX_DIR

    @property
    def state_dir(self) -> Path:
        """kgkit's own files (``.kgkit/``): the writer lock, a commit's intent, backups and staged files."""
        return self.root / STATE_DIR

    @property
    def writing(self) -> bool:
        """Whether this object holds the writer lock (inside `writer()`): a generation commits only then."""
        return self._held > 0

    def journal_names(self) -> list[str]:
        """Applied journals (relative names), oldest first, as of the current generation."""
        names = {f"{JOURNAL_DIR}/{p.name}" for p in (self.root / JOURNAL_DIR).glob("[0-9][0-9][0-9][0-9].json")}
        intent = self._in_flight(self.manifest()) or {"old": {}}
        for name, old in intent["old"].items():  # a commit in flight adds or removes nothing yet
            if _JOURNAL.fullmatch(name):
                (names.discard if old is None else names.add)(name)
        return sorted(names)

    def next_journal_name(self) -> str:
        names = self.journal_names()
        number = int(Path(names[-1]).stem) + 1 if names else 1
        return f"{JOURNAL_DIR}/{number:04d}.json"

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # ------------------------------------------------------------------ reading

    def manifest(self) -> Manifest:
        """The current generation's manifest (generation 0, nothing recorded, for a workspace kgkit never
        committed to, e.g. one written before manifests existed). Parsed once per version of manifest.json:
        a call costs one `stat` while the file is the one parsed last (same inode, mtime and size; every
        commit replaces the file, so a new generation is always read anew)."""
        path = self.root / MANIFEST
        identity = _identity(path)
        if identity is not None and self._manifest is not None and self._manifest[0] == identity:
            return self._manifest[1]
        try:
            data, identity = _read_or_none(path)
            if data is None:
                self._manifest = None
                return Manifest()
            manifest = Manifest.from_json_dict(json.loads(data), source=str(path))
        except (OSError, ValueError) as exc:
            raise WorkspaceError(f"{path}: cannot read the manifest: {exc}") from None
        self._manifest = (identity, manifest)
        return manifest

    def exists(self, name: str) -> bool:
        """Whether the current generation has `name` (what a commit in flight adds or removes does not count)."""
        intent = self._in_flight(self.manifest())
        if intent is not None and name in intent["old"]:
            return intent["old"][name] is not None
        return (self.root / name).exists()

    def holds(self, name: str, data: bytes) -> bool:
        """Whether the current generation's `name` has exactly these bytes (by the manifest's sha256)."""
        entry = self.manifest().artefacts.get(name)
        return entry is not None and entry["sha256"] == _sha256(data)

    def read_bytes(self, name: str) -> bytes:
        """An artefact's bytes as of the current generation, never a half-committed one. Raises
        FileNotFoundError when the workspace has no such artefact."""
        return self.read_together(name)[name]

    def read_together(self, *names: str) -> dict[str, bytes]:
        """Several artefacts as of one and the same generation (two `read_bytes` calls may straddle a commit)."""
        deadline = time.monotonic() + _READ_PATIENCE
        while True:
            manifest = self.manifest()
            try:
                return {name: self._read_as_of(name, manifest) for name in names}
            except _Moved:
                if time.monotonic() > deadline:
                    raise WorkspaceError(f"{self.root}: files kept changing while being read; try again") from None
                time.sleep(0.005)

    def _read_as_of(self, name: str, manifest: Manifest) -> bytes:
        entry = manifest.artefacts.get(name)
        data, identity = _read_or_none(self.root / name)
        digest = None if data is None else _sha256(data)
        if data is not None and entry is not None and digest == entry["sha256"]:
            return data  # the bytes the manifest names: nothing else to check
        intent = self._in_flight(manifest)
        if intent is not None and name in intent["old"]:  # being replaced: the copy the commit replaces
            old = intent["old"][name]
            if old is None:
                raise FileNotFoundError(f"{self.root / name}: not in this workspace")
            if data is not None and digest == old:
                return data
            saved, _ = _read_or_none(self.state_dir / "previous" / name)
            if saved is not None and _sha256(saved) == old:
                return saved
            raise _Moved  # between its two places (backed up and swapped, or rolled back, as we read)
        if self.manifest().generation != manifest.generation or _identity(self.root / name) != identity:
            raise _Moved
        if data is None:
            raise FileNotFoundError(f"{self.root / name}: " + ("listed in the manifest but missing" if entry
                                                               else "not in this workspace"))
        if entry is not None and name not in EDITABLE:
            self._note(f"{name} was changed outside kgkit since generation {manifest.generation}; using it as it is")
        return data

    def read_text(self, name: str) -> str:
        return self.read_bytes(name).decode("utf-8")

    def read_json(self, name: str) -> Any:
        return json.loads(self.read_bytes(name))

    def read_jsonl(self, name: str) -> list[Any]:
        return [json.loads(line) for line in self.read_bytes(name).splitlines() if line.strip()]

    def _in_flight(self, manifest: Manifest) -> dict[str, Any] | None:
        """The intent of a commit making the generation after `manifest` (a live writer's, or a killed one's)."""
        try:
            intent = json.loads((self.state_dir / "commit.json").read_bytes())
        except (OSError, ValueError):
            return None
        return intent if intent.get("generation") == manifest.generation + 1 else None

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # ------------------------------------------------------------------ writing

    @contextlib.contextmanager
    def writer(self, *, lock_timeout: float = 60.0, step: str = "",
               waiting: Callable[[str], None] | None = None) -> Iterator[Workspace]:
        """Hold the workspace's writer lock for a step (re-entrant in one process). A second writer waits
        up to `lock_timeout` seconds (`waiting(message)` is told once, when it has to wait), then raises
        WorkspaceBusy naming the process that holds the lock. Generations begun but not committed are dropped
        when the step ends; a commit that raised is rolled back."""
        from filelock import FileLock, Timeout

        if self._held:
            self._held += 1
            try:
                yield self
            finally:
                self._held -= 1
            return
        self.state_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.state_dir / "lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            if waiting is not None:
                waiting(f"waiting for the workspace lock ({self._holder()}) ...")
            try:
                lock.acquire(timeout=max(lock_timeout, 0))
            except Timeout:
                raise WorkspaceBusy(f"{self.root} is being written by another kgkit process ({self._holder()}); "
                                    f"waited {lock_timeout:g} s (--lock-timeout)") from None
        try:
            self._held = 1
            atomic_write_bytes(self.state_dir / "writer.json",
                               dumps_json({"pid": os.getpid(), "step": step, "since": time.time()}).encode(),
                               durable=False)
            self._recover()
            yield self
        finally:
            self._held = 0
            try:
                if (self.state_dir / "commit.json").exists():
                    self._recover()  # a commit that raised half way (the next open retries if this fails too)
                shutil.rmtree(self.state_dir / "staging", ignore_errors=True)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    (self.state_dir / "writer.json").unlink()
                lock.release()

    def _holder(self) -> str:
        try:
            info = json.loads((self.state_dir / "writer.json").read_bytes())
        except (OSError, ValueError):
            return "holder unknown"
        since = time.strftime("%H:%M:%S", time.localtime(info.get("since", 0)))
        return f"pid {info.get('pid')}, step {info.get('step') or '?'}, since {since}"

    def begin(self, step: str, *, config: Mapping[str, Any] | None = None) -> Generation:
        """Start a new generation (inside `writer()`). `config` updates the run configuration kept in the
        manifest (keys given replace the old values; the rest is kept)."""
        if not self._held:
            raise WorkspaceError("begin() needs the writer lock: use `with workspace.writer(): ...`")
        return Generation(self, step, dict(config or {}))

    def set_stale(self, names: Mapping[str, str], *, step: str) -> None:
        """Record artefacts as stale (name -> why) in a manifest-only generation."""
        gen = self.begin(step)
        gen.mark_stale(names)
        gen.commit()

    # ------------------------------------------------------------------ recovery

    def _recover_if_idle(self) -> None:
        """On open: if a killed writer left a half-done commit (or staged files) and nobody writes now,
        roll it back. Never blocks: with an active writer, its commit is simply in flight."""
        if not any((self.state_dir / n).exists() for n in ("commit.json", "staging", "previous")):
            return
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.state_dir / "lock"))
        try:
            lock.acquire(timeout=0)
        except (Timeout, OSError):  # a writer is at work, or the folder is read-only: leave it to the next writer
            return
        try:
            self._recover()
        finally:
            lock.release()

    def _recover(self) -> None:
        """Roll back what a killed (or failed) writer left half done; say so in one note at most. Runs with the
        writer lock held."""
        said = recover(self)
        if said:
            self._note(said)


def as_workspace(workspace: Workspace | str | os.PathLike[str]) -> Workspace:
    """A Workspace for a path (created if absent), or the Workspace given."""
    return workspace if isinstance(workspace, Workspace) else Workspace(workspace)


def read_graph(workspace: Workspace | str | os.PathLike[str]) -> Graph:
    """The workspace's current graph (FileNotFoundError when it has none yet)."""
    from kgkit.core.graph import Graph  # pandas: only for a reader of the graph

    return Graph.from_json_dict(json.loads(as_workspace(workspace).read_bytes(GRAPH)))
