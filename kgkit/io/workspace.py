"""A Workspace: the one owner of a corpus's files, written in generations under one writer lock.

Every artefact (graph.json, run.json, graph.html, extractions.jsonl, communities.json, narrative.md,
decisions.yaml, journal/NNNN.json, ...) sits at the path the README documents, and only this module knows
those paths. A writer stages a generation's files in ``.kgkit/staging/``, then commits it:

1. ``.kgkit/commit.json`` (the intent: generation, step, every file it replaces or removes) is written;
2. the files it replaces are hard-linked into ``.kgkit/previous/`` (what a rollback restores);
3. the staged files are renamed into place, one by one;
4. ``manifest.json`` (generation, step, sha256 of every artefact, the run configuration, stale artefacts) is
   written, atomically, last;
5. ``commit.json``, ``previous/`` and ``staging/`` are removed.

A kill anywhere in 1-4 leaves the previous generation current: the next open rolls the half-done commit back
(and removes stray temporary files) and says so in one line (`Workspace.notes`). Readers never block and never
see a mix of two generations: `read_bytes` checks each file against the manifest and, while a commit is in
flight, reads the previous generation's copy from ``.kgkit/previous/``.

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
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgkit.io.files import atomic_file, atomic_write_bytes, dumps_json

__all__ = [
    "COMMUNITIES", "DECISIONS", "EXTRACTIONS", "GRAPH", "MANIFEST", "NARRATIVE", "NARRATIVE_JSON", "RUN", "VIEW",
    "Generation", "Manifest", "Workspace", "WorkspaceBusy", "WorkspaceError",
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
MANIFEST = "manifest.json"
CACHE_DIR = "cache"
INDEX_DIR = "index"
STATE_DIR = ".kgkit"
REJECTED_RUN = ".kgkit/rejected-run.json"

MANIFEST_SCHEMA = "kgkit.manifest/1"
EDITABLE = frozenset({DECISIONS})  # a person edits these by hand: read as they are, never checked against the manifest
DERIVED = {VIEW: "view", COMMUNITIES: "communities", NARRATIVE: "narrative", INDEX_DIR: "index"}


class WorkspaceError(RuntimeError):
    """A workspace that cannot be used as asked (not a folder, a damaged manifest, a foreign file)."""


class WorkspaceBusy(WorkspaceError):
    """Another process holds the workspace's writer lock longer than this writer would wait."""


@dataclass(frozen=True)
class Manifest:
    """What the current generation is made of: its number, the step that wrote it, every artefact's sha256,
    the run configuration (corpus, domain, extractor, chunk sizes, model) and the artefacts that are stale."""

    generation: int = 0
    step: str = ""
    artefacts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)
    stale: Mapping[str, str] = field(default_factory=dict)

    def to_json_dict(self) -> dict[str, Any]:
        return {"schema": MANIFEST_SCHEMA, "generation": self.generation, "step": self.step,
                "artefacts": dict(self.artefacts), "config": dict(self.config), "stale": dict(self.stale)}

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any], *, source: str = MANIFEST) -> Manifest:
        if data.get("schema") != MANIFEST_SCHEMA:
            raise WorkspaceError(f"{source}: not a kgkit manifest (want schema {MANIFEST_SCHEMA!r})")
        return cls(generation=int(data["generation"]), step=str(data.get("step", "")),
                   artefacts=dict(data.get("artefacts") or {}), config=dict(data.get("config") or {}),
                   stale=dict(data.get("stale") or {}))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _checkpoint(point: str) -> None:
    """A named point in a commit. Does nothing; tests replace it to kill the process exactly here."""


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
        if self._state.is_dir():
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
    def _state(self) -> Path:
        return self.root / STATE_DIR

    def journal_names(self) -> list[str]:
        """Applied journals (relative names), oldest first."""
        folder = self.root / JOURNAL_DIR
        return [f"{JOURNAL_DIR}/{p.name}" for p in sorted(folder.glob("[0-9][0-9][0-9][0-9].json"))]

    def next_journal_name(self) -> str:
        names = self.journal_names()
        number = int(Path(names[-1]).stem) + 1 if names else 1
        return f"{JOURNAL_DIR}/{number:04d}.json"

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # ------------------------------------------------------------------ reading

    def manifest(self) -> Manifest:
        """The current generation's manifest (generation 0, nothing recorded, for a workspace kgkit never
        committed to, e.g. one written before manifests existed)."""
        path = self.root / MANIFEST
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            return Manifest()
        except (OSError, ValueError) as exc:
            raise WorkspaceError(f"{path}: cannot read the manifest: {exc}") from None
        return Manifest.from_json_dict(data, source=str(path))

    def exists(self, name: str) -> bool:
        return (self.root / name).exists()

    def read_bytes(self, name: str, *, attempts: int = 50) -> bytes:
        """An artefact's bytes as of the current generation, never a half-committed one. Raises
        FileNotFoundError when the workspace has no such artefact."""
        for _ in range(attempts):
            manifest = self.manifest()
            entry = manifest.artefacts.get(name)
            try:
                data = (self.root / name).read_bytes()
            except FileNotFoundError:
                if entry is None:
                    raise FileNotFoundError(f"{self.root / name}: not in this workspace") from None
                data = None
            if entry is None or name in EDITABLE or (data is not None and _sha256(data) == entry["sha256"]):
                if data is not None:
                    return data
            previous = self._state / "previous" / name
            if entry is not None and previous.is_file():
                with contextlib.suppress(FileNotFoundError):
                    old = previous.read_bytes()
                    if _sha256(old) == entry["sha256"]:
                        return old
            if not (self._state / "commit.json").exists():
                if data is None:
                    raise FileNotFoundError(f"{self.root / name}: listed in the manifest but missing")
                self._note(f"{name} was changed outside kgkit since generation {manifest.generation}; using it as it is")
                return data
            time.sleep(0.02)  # a writer is between renaming files and writing the manifest
        raise WorkspaceError(f"{self.root / name}: a write has been in progress for too long; try again")

    def read_text(self, name: str) -> str:
        return self.read_bytes(name).decode("utf-8")

    def read_json(self, name: str) -> Any:
        return json.loads(self.read_bytes(name))

    def read_jsonl(self, name: str) -> list[Any]:
        return [json.loads(line) for line in self.read_bytes(name).splitlines() if line.strip()]

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # ------------------------------------------------------------------ writing

    @contextlib.contextmanager
    def writer(self, *, lock_timeout: float = 60.0, step: str = "",
               waiting: Callable[[str], None] | None = None) -> Iterator[Workspace]:
        """Hold the workspace's writer lock for a step (re-entrant in one process). A second writer waits
        up to `lock_timeout` seconds (`waiting(message)` is told once, when it has to wait), then raises
        WorkspaceBusy naming the process that holds the lock."""
        from filelock import FileLock, Timeout

        if self._held:
            self._held += 1
            try:
                yield self
            finally:
                self._held -= 1
            return
        self._state.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self._state / "lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            holder = self._holder()
            if waiting is not None:
                waiting(f"waiting for the workspace lock ({holder}) ...")
            try:
                lock.acquire(timeout=max(lock_timeout, 0))
            except Timeout:
                raise WorkspaceBusy(f"{self.root} is being written by another kgkit process ({holder}); "
                                    f"waited {lock_timeout:g} s (--lock-timeout)") from None
        try:
            self._held = 1
            atomic_write_bytes(self._state / "writer.json",
                               dumps_json({"pid": os.getpid(), "step": step, "since": time.time()}).encode(),
                               durable=False)
            self._recover()
            yield self
        finally:
            self._held = 0
            with contextlib.suppress(FileNotFoundError):
                (self._state / "writer.json").unlink()
            lock.release()

    def _holder(self) -> str:
        try:
            info = json.loads((self._state / "writer.json").read_bytes())
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
        if not any((self._state / n).exists() for n in ("commit.json", "staging", "previous")):
            return
        from filelock import FileLock, Timeout

        lock = FileLock(str(self._state / "lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return
        try:
            self._recover()
        finally:
            lock.release()

    def _recover(self) -> None:
        """Roll back a commit that did not reach its manifest; finish the clean-up of one that did; remove
        staged and temporary files a killed writer left. Runs with the writer lock held."""
        intent_path = self._state / "commit.json"
        previous, staging = self._state / "previous", self._state / "staging"
        if intent_path.exists():
            try:
                intent = json.loads(intent_path.read_bytes())
            except (OSError, ValueError):
                intent = None
            current = self.manifest().generation
            if intent is not None and current < int(intent["generation"]):
                for name, sha in intent["files"].items():
                    target, saved = self.root / name, previous / name
                    if saved.is_file():
                        target.parent.mkdir(parents=True, exist_ok=True)
                        os.replace(saved, target)
                    elif target.is_file() and sha is not None and _file_sha256(target) == sha:
                        target.unlink()  # new in the rolled-back generation
                self._note(f"kgkit: an interrupted {intent.get('step') or 'write'} (generation {intent['generation']}) "
                           f"was rolled back; generation {current} is current")
            intent_path.unlink()
        elif staging.exists() and any(staging.rglob("*")):
            self._note("kgkit: removed the files of an unfinished write (never committed); the workspace is unchanged")
        for folder in (previous, staging):
            shutil.rmtree(folder, ignore_errors=True)
        self._remove_temporaries()

    def _remove_temporaries(self) -> None:
        """Temporary files of atomic writes a kill left behind (``.NAME.*.tmp``), outside cache and index."""
        removed = 0
        for folder, dirnames, filenames in os.walk(self.root):
            rel = Path(folder).relative_to(self.root).parts
            if rel and rel[0] in (CACHE_DIR, INDEX_DIR):
                dirnames[:] = []
                continue
            for name in filenames:
                if name.startswith(".") and name.endswith(".tmp"):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.path.join(folder, name))
                        removed += 1
        if removed:
            self._note(f"kgkit: removed {removed} temporary file(s) a killed write left behind")


class Generation:
    """The files of one new generation, staged until `commit()` makes them current all at once."""

    def __init__(self, workspace: Workspace, step: str, config: dict[str, Any]) -> None:
        self.workspace, self.step, self.config = workspace, step, config
        self._files: dict[str, str | None] = {}  # name -> sha256 of the staged file, None = remove
        self._stale: dict[str, str] = {}
        self._fresh: set[str] = set()
        self._staging = workspace._state / "staging"
        if self._staging.exists():
            shutil.rmtree(self._staging)
        self._staging.mkdir(parents=True)

    # what the generation holds
    def write_bytes(self, name: str, data: bytes) -> None:
        with self.open(name) as fh:
            fh.write(data)

    def write_text(self, name: str, text: str) -> None:
        self.write_bytes(name, text.encode("utf-8"))

    def write_json(self, name: str, value: Any, *, indent: int | None = None) -> None:
        text = (json.dumps(value, sort_keys=True, ensure_ascii=False, indent=indent, allow_nan=False)
                if indent else dumps_json(value))
        self.write_text(name, text + "\n")

    def write_jsonl(self, name: str, rows: list[Any]) -> None:
        self.write_text(name, "".join(dumps_json(r) + "\n" for r in rows))

    @contextlib.contextmanager
    def open(self, name: str) -> Iterator[Any]:
        """A binary handle for a streamed artefact; staged (fsync'ed) when the block ends."""
        _check_name(name)
        with atomic_file(self._staging / name) as fh:
            yield fh
        self._files[name] = _file_sha256(self._staging / name)
        self._fresh.add(name)

    def remove(self, name: str) -> None:
        """The artefact is gone in this generation (e.g. the journal an undo pops)."""
        _check_name(name)
        self._files[name] = None

    def mark_stale(self, names: Mapping[str, str]) -> None:
        """Derived artefacts (index, narrative ...) this generation leaves out of date: name -> why."""
        self._stale.update(names)

    def mark_fresh(self, *names: str) -> None:
        """Artefacts brought up to date outside the staged files (the search index's own store)."""
        self._fresh.update(names)

    def commit(self) -> int:
        """Make the staged files current (see the module docs for the steps); returns the new generation."""
        ws, state = self.workspace, self.workspace._state
        old = ws.manifest()
        number = old.generation + 1
        previous = state / "previous"
        shutil.rmtree(previous, ignore_errors=True)
        atomic_write_bytes(state / "commit.json", dumps_json(
            {"generation": number, "step": self.step, "files": self._files}).encode())
        _checkpoint("intent")
        for name in self._files:
            target = ws.root / name
            if target.is_file():
                (previous / name).parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(target, previous / name)
                except OSError:
                    shutil.copy2(target, previous / name)
        _checkpoint("backup")
        for name, sha in self._files.items():
            target = ws.root / name
            if sha is None:
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(self._staging / name, target)
            _checkpoint(f"swap:{name}")
        artefacts = {k: v for k, v in old.artefacts.items() if k not in self._files or self._files[k] is not None}
        for name, sha in self._files.items():
            if sha is not None:
                artefacts[name] = {"sha256": sha, "bytes": (ws.root / name).stat().st_size, "generation": number}
        stale = {k: v for k, v in old.stale.items() if k not in self._fresh}
        stale.update({k: v for k, v in self._stale.items() if k not in self._fresh})
        manifest = Manifest(generation=number, step=self.step, artefacts=dict(sorted(artefacts.items())),
                            config={**old.config, **self.config}, stale=dict(sorted(stale.items())))
        atomic_write_bytes(ws.root / MANIFEST, (json.dumps(manifest.to_json_dict(), indent=1, sort_keys=True)
                                               + "\n").encode())
        _checkpoint("manifest")
        (state / "commit.json").unlink()
        shutil.rmtree(previous, ignore_errors=True)
        shutil.rmtree(self._staging, ignore_errors=True)
        return number


def _check_name(name: str) -> None:
    parts = Path(name).parts
    if Path(name).is_absolute() or ".." in parts or not parts or parts[0] in (STATE_DIR, CACHE_DIR, INDEX_DIR, MANIFEST):
        raise WorkspaceError(f"{name!r} is not an artefact name of a workspace")
