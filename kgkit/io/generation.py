"""A Generation: the files of one commit to a `kgkit.io.workspace.Workspace`, staged, then made current at once;
with what every writer needs below it: atomic writes, canonical JSON, the manifest and the names kgkit keeps for
itself in a workspace (`kgkit.io.workspace` re-exports them; pandas is never imported here).

`Workspace.begin()` (inside `Workspace.writer()`) gives one; its files are staged in its own folder under
``.kgkit/staging/`` (fsync'ed as each is written) and nothing a reader sees changes until `Generation.commit()`:

1. ``.kgkit/commit.json`` (the intent: generation, step, every file it writes or removes with the sha256 it
   has before and after) is written;
2. the files it replaces are hard-linked into ``.kgkit/previous/`` (what a rollback restores);
3. the staged files are renamed into place, one by one;
4. ``manifest.json`` (generation, step, sha256 of every artefact, the run configuration, stale artefacts) is
   written, atomically, last;
5. ``commit.json``, ``previous/`` and ``staging/`` are removed.

Directories are fsync'ed between the steps. A kill anywhere in 1-4 leaves the previous generation current:
`recover` (run when the workspace is next opened, or by a writer whose commit raised) restores the backed-up
files, removes the ones the commit added, and clears staged and temporary files; after 4, it only finishes the
clean-up. `_checkpoint` marks each point of a commit, so tests can kill the process exactly there.

>>> import tempfile
>>> from kgkit.io.workspace import RUN, Workspace
>>> ws = Workspace(tempfile.mkdtemp())
>>> with ws.writer():
...     gen = ws.begin("example")
...     gen.write_text(RUN, "{}")
...     ws.exists(RUN)  # staged only
...     gen.commit()
False
1
>>> ws.exists(RUN), sorted(ws.manifest().artefacts)
(True, ['run.json'])
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any, Protocol

from kgkit.core.records import canonical_json

__all__ = ["CACHE_DIR", "INDEX_DIR", "MANIFEST", "MANIFEST_SCHEMA", "STATE_DIR", "Generation", "Manifest",
           "WorkspaceError", "atomic_file", "atomic_write_bytes", "atomic_write_text", "dumps_json", "recover"]

# names in a workspace that are not artefacts of a generation (relative to the workspace root)
MANIFEST = "manifest.json"
CACHE_DIR = "cache"
INDEX_DIR = "index"
STATE_DIR = ".kgkit"

MANIFEST_SCHEMA = "kgkit.manifest/1"


class WorkspaceError(RuntimeError):
    """A workspace that cannot be used as asked (not a folder, a damaged manifest, a foreign file)."""


@dataclass(frozen=True)
class Manifest:
    """What the current generation is made of: its number, the step that wrote it, every artefact's sha256,
    the run configuration (corpus, domain, extractor, chunk sizes, model) and the artefacts that are stale.

    >>> m = Manifest(generation=2, step="build", artefacts={"graph.json": {"sha256": "ab", "bytes": 2}})
    >>> Manifest.from_json_dict(m.to_json_dict()) == m
    True
    """

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


# ------------------------------------------------------------ atomic writes

dumps_json = canonical_json  # canonical JSON text (kgkit.core.records): sorted keys, UTF-8, stable separators


def _file_mode(target: Path) -> int:
    """Mode for a (re)written file: the old file's, else what open() would give (0o666 less the umask);
    mkstemp's 0o600 would make outputs unreadable to other users and web servers."""
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], *, durable: bool = True, text: bool = False,
                buffering: int = -1) -> Iterator[IO[Any]]:
    """A file handle whose content replaces `path` atomically when the block ends without an error (temp file
    in the same folder, fsync unless `durable=False`, rename); on an error the temp file is removed and `path`
    is untouched. For writers that stream (np.savez, tarfile, many lines); `text=True` gives UTF-8 text.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_file(target, text=True) as fh:
    ...     _ = fh.write("done\\n")
    >>> target.read_text()
    'done\\n'
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        if text:
            fh: IO[Any] = os.fdopen(fd, "w", encoding="utf-8", newline="", buffering=buffering)
        else:
            fh = os.fdopen(fd, "wb", buffering=buffering)
        with fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), _file_mode(target))
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes | bytearray, *, durable: bool = True) -> None:
    """Write bytes to path atomically (temp file in the same folder, fsync, rename).

    `durable=False` skips the fsync: readers still never see half a file (the rename is atomic), but after a
    power cut the file may be empty. For data that can be recomputed and is checked on read (cache entries)."""
    with atomic_file(path, durable=durable) as fh:
        fh.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")  # a killed atomic_file's temporary (mkstemp's names)


class Workspace(Protocol):
    """What a generation needs of the workspace it commits to (`kgkit.io.workspace.Workspace`, which builds on
    this module)."""

    root: Path

    @property
    def state_dir(self) -> Path: ...

    @property
    def writing(self) -> bool: ...

    def manifest(self) -> Manifest: ...


def _file_sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _fsync_dirs(folders: Iterable[Path]) -> None:
    """Make renames, links and unlinks in these folders durable (a power cut keeps the commit's order)."""
    for folder in set(folders):
        with contextlib.suppress(FileNotFoundError):
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _checkpoint(point: str) -> None:
    """A named point in a commit. Does nothing; tests replace it to kill the process exactly here."""


class Generation:
    """The files of one new generation, staged until `commit()` makes them current all at once."""

    def __init__(self, workspace: Workspace, step: str, config: dict[str, Any]) -> None:
        self.workspace, self.step, self.config = workspace, step, config
        self._files: dict[str, str | None] = {}  # name -> sha256 of the staged file, None = remove
        self._stale: dict[str, str] = {}
        self._fresh: set[str] = set()
        self._committed = False
        (workspace.state_dir / "staging").mkdir(parents=True, exist_ok=True)
        self._staging = Path(tempfile.mkdtemp(dir=workspace.state_dir / "staging"))  # its own: two never mix

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
        name = self._name(name)
        with atomic_file(self._staging / name) as fh:
            yield fh
        self._files[name] = _file_sha256(self._staging / name)
        self._fresh.add(name)

    def remove(self, name: str) -> None:
        """The artefact is gone in this generation (e.g. the journal an undo pops)."""
        self._files[self._name(name)] = None

    def stage(self, files: Iterable[tuple[str, bytes | None]]) -> None:
        """Stage more files: name -> bytes, None for a file this generation removes."""
        for name, data in files:
            if data is None:
                self.remove(name)
            else:
                self.write_bytes(name, data)

    def mark_stale(self, names: Mapping[str, str]) -> None:
        """Derived artefacts (index, narrative ...) this generation leaves out of date: name -> why."""
        self._stale.update(names)

    def mark_fresh(self, *names: str) -> None:
        """Artefacts brought up to date outside the staged files (the search index's own store)."""
        self._fresh.update(names)

    def _name(self, name: str) -> str:
        if self._committed:
            raise WorkspaceError("this generation is committed already: begin() another")
        return _check_name(name)

    def commit(self) -> int:
        """Make the staged files current (see the module docs for the steps); returns the new generation."""
        ws, state = self.workspace, self.workspace.state_dir
        if self._committed or not ws.writing:
            raise WorkspaceError("commit() needs an uncommitted generation and the writer lock")
        self._committed = True
        old = ws.manifest()
        number = old.generation + 1
        previous, intent = state / "previous", state / "commit.json"
        shutil.rmtree(previous, ignore_errors=True)
        before = {name: _file_sha256(ws.root / name) if (ws.root / name).is_file() else None for name in self._files}
        atomic_write_bytes(intent, dumps_json({"generation": number, "step": self.step, "files": self._files,
                                               "old": before}).encode())
        _fsync_dirs([state])
        _checkpoint("intent")
        for name in (name for name, sha in before.items() if sha is not None):
            (previous / name).parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(ws.root / name, previous / name)
            except OSError:
                shutil.copy2(ws.root / name, previous / name)  # a kill half way: the rollback checks the sha256
        _fsync_dirs({(previous / name).parent for name, sha in before.items() if sha is not None})
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
        _fsync_dirs({(ws.root / name).parent for name in self._files})
        artefacts = {k: v for k, v in old.artefacts.items() if self._files.get(k, "") is not None}
        for name, sha in self._files.items():
            if sha is not None:
                artefacts[name] = {"sha256": sha, "bytes": (ws.root / name).stat().st_size, "generation": number}
        gone = self._fresh | {k for k, v in self._files.items() if v is None}
        stale = {k: v for k, v in old.stale.items() if k not in gone}
        stale.update({k: v for k, v in self._stale.items() if k not in self._fresh})  # removed and stale: both said
        manifest = Manifest(generation=number, step=self.step, artefacts=dict(sorted(artefacts.items())),
                            config={**old.config, **self.config}, stale=dict(sorted(stale.items())))
        atomic_write_bytes(ws.root / MANIFEST, (json.dumps(manifest.to_json_dict(), indent=1, sort_keys=True)
                                               + "\n").encode())
        _fsync_dirs([ws.root])
        _checkpoint("manifest")
        intent.unlink()
        shutil.rmtree(previous, ignore_errors=True)
        shutil.rmtree(self._staging, ignore_errors=True)
        return number


def recover(workspace: Workspace) -> str:
    """Roll back a commit that did not reach its manifest; finish the clean-up of one that did; remove staged
    and temporary files a killed writer left. Runs with the writer lock held; returns what to tell the user in
    one line ("" when there is nothing to say)."""
    root, state = workspace.root, workspace.state_dir
    intent_path, previous, staging = state / "commit.json", state / "previous", state / "staging"
    said = ""
    if intent_path.exists():
        try:
            intent = json.loads(intent_path.read_bytes())
        except (OSError, ValueError):
            intent = None
        current = workspace.manifest().generation
        if intent is not None and current < int(intent["generation"]):
            for name, new in intent["files"].items():
                old, target, saved = intent["old"].get(name), root / name, previous / name
                if saved.is_file() and _file_sha256(saved) == old:  # a complete backup: restore it
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(saved, target)
                elif old is None and new is not None and target.is_file() and _file_sha256(target) == new:
                    target.unlink()  # new in the rolled-back generation
            _fsync_dirs({(root / name).parent for name in intent["files"]})
            said = (f"kgkit: an interrupted {intent.get('step') or 'write'} (generation {intent['generation']}) "
                    f"was rolled back; generation {current} is current")
        intent_path.unlink()
    elif any(p.is_file() for p in staging.rglob("*")):
        said = "kgkit: removed the files of an unfinished write (never committed); the workspace is unchanged"
    for folder in (previous, staging):
        shutil.rmtree(folder, ignore_errors=True)
    removed = _remove_temporaries(root)
    if removed and not said:
        said = f"kgkit: removed {removed} temporary file(s) a killed write left behind"
    return said


def _remove_temporaries(root: Path) -> int:
    """Temporary files of atomic writes a kill left behind (``.NAME.XXXXXXXX.tmp``), outside cache and index."""
    removed = 0
    for folder, dirnames, filenames in os.walk(root):
        if Path(folder) == root:
            dirnames[:] = [d for d in dirnames if d not in (CACHE_DIR, INDEX_DIR)]
        for name in filenames:
            if _TEMPORARY.fullmatch(name):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(folder, name))
                    removed += 1
    return removed


def _check_name(name: str) -> str:
    """`name` as a relative POSIX path inside the workspace, or WorkspaceError (absolute, ``..``, kgkit's state,
    the manifest, the cache and the index are not artefacts a generation writes)."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or path.parts[0] in (STATE_DIR, CACHE_DIR,
                                                                                      INDEX_DIR, MANIFEST):
        raise WorkspaceError(f"{name!r} is not an artefact name of a workspace")
    return path.as_posix()
