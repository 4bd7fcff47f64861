"""Where a Cache keeps its entries: a folder (`LocalFiles`) or an fsspec URL (`FsspecFiles`), behind one small
interface (read, atomic write, touch, exists, scan, remove, add to a tar). `open_files(root)` picks one.

Writes are atomic either way: in a folder, a temp file renamed over the entry; under a URL, an object store's
put (s3, gcs, azure, memory: an object appears whole or not at all) or, on a file system (`file://`, `dir::`,
sftp ...), a uniquely named temporary entry moved into place. Two writers of one key leave one whole entry.

>>> import tempfile
>>> files = open_files(f"file://{tempfile.mkdtemp()}/cache")
>>> files.write("v1/s/ab/abcdef01.json", b"{}")
>>> files.read("v1/s/ab/abcdef01.json"), [(stage, st.st_size) for stage, _, st in files.scan()]
(b'{}', [('s', 2)])
"""

from __future__ import annotations

import io
import os
import tarfile
import typing
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgkit.io.generation import atomic_write_bytes

__all__ = ["ENTRY_SUFFIXES", "LAYOUT", "OBJECT_STORES", "CacheLocationError", "FsspecFiles", "LocalFiles", "is_url",
           "open_files"]

LAYOUT = "v1"
ENTRY_SUFFIXES = (".json", ".npy")
# fsspec protocols whose put is atomic (an object appears whole or not at all): written directly, no rename
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oci", "oss", "memory"})


class CacheLocationError(ValueError):
    """A cache URL that cannot be opened: fsspec missing, an unknown protocol, or a protocol whose package is
    not installed (a configuration error: the CLI exits with code 2)."""


def is_url(root: str | os.PathLike[str]) -> bool:
    """True for an fsspec URL (`s3://b/c`, `file:///x`, `dir::file:///x`), False for a plain path.

    >>> is_url("s3://bucket/cache"), is_url("dir::file:///tmp/c"), is_url("ws/cache")
    (True, True, False)
    """
    return isinstance(root, str) and ("://" in root or "::" in root)


class EntryStat(typing.NamedTuple):
    """What `Cache.entries` reports of an entry on an fsspec file system (the fields of os.stat_result used)."""

    st_size: int
    st_mtime: float


class LocalFiles:
    """Entries in a local (or network-mounted) folder: atomic writes by temp file + rename."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, rel: str) -> Path:
        return self.root / rel

    def read(self, rel: str) -> bytes:
        return (self.root / rel).read_bytes()

    def write(self, rel: str, data: bytes) -> None:
        atomic_write_bytes(self.root / rel, data, durable=False)

    def touch(self, rel: str) -> None:
        try:
            os.utime(self.root / rel)  # recency for `prune --max-size`
        except OSError:
            pass

    def exists(self, rel: str) -> bool:
        return (self.root / rel).exists()

    def scan(self) -> Iterable[tuple[str, Path, Any]]:
        base = self.root / LAYOUT
        if not base.is_dir():
            return
        for stage_dir in sorted(p for p in base.iterdir() if p.is_dir()):
            for path in sorted(stage_dir.glob("*/*")):
                if path.suffix in ENTRY_SUFFIXES and not path.name.startswith("."):
                    try:
                        yield stage_dir.name, path, path.stat()
                    except FileNotFoundError:  # pruned by another process meanwhile
                        continue

    def remove(self, path: Any) -> None:
        try:
            Path(path).unlink()
        except FileNotFoundError:
            pass

    def add_to_tar(self, tar: tarfile.TarFile, path: Any) -> None:
        tar.add(path, arcname=Path(path).relative_to(self.root).as_posix())


class FsspecFiles:
    """Entries under an fsspec URL. On an object store the put is atomic; elsewhere an entry is written under a
    unique temporary name and moved into place (a rename on local, `dir::` and most remote file systems), so
    two writers of one key leave one whole entry."""

    def __init__(self, url: str) -> None:
        try:
            from fsspec.core import url_to_fs
            from fsspec.implementations.dirfs import DirFileSystem
            from fsspec.implementations.local import LocalFileSystem
        except ImportError as exc:
            raise CacheLocationError(f"cache {url}: a cache URL needs fsspec (pip install 'kgkit[dask]')") from exc
        protocol = url.split("::")[-1].split("://")[0] if "://" in url else url.split("::")[0]
        try:
            fs, base = url_to_fs(url)
        except ImportError as exc:  # fsspec knows the protocol; its package is missing ("Install s3fs to access S3")
            raise CacheLocationError(f"cache {url}: the {protocol}:// protocol needs a package that is not installed "
                                     f"({exc}); install it beside kgkit on every machine that uses this cache") from None
        except (ValueError, OSError) as exc:  # "Protocol not known: x", a library the protocol needs
            raise CacheLocationError(f"cache {url}: {str(exc).splitlines()[0]}") from None
        if isinstance(fs, DirFileSystem):
            base = ""  # a dir:: file system is rooted at the URL's path already
        inner = fs
        while isinstance(inner, DirFileSystem):
            inner = inner.fs
        protocols = {inner.protocol} if isinstance(inner.protocol, str) else set(inner.protocol)
        self.url, self.fs, self.base = url, fs, base.rstrip("/")
        self.atomic_put = bool(protocols & OBJECT_STORES)
        self.local = isinstance(inner, LocalFileSystem)

    def path(self, rel: str) -> str:
        return f"{self.base}/{rel}" if self.base else rel

    def read(self, rel: str) -> bytes:
        return self.fs.cat_file(self.path(rel))

    def write(self, rel: str, data: bytes) -> None:
        target = self.path(rel)
        if self.atomic_put:
            self.fs.pipe_file(target, data)
            return
        folder, _, name = target.rpartition("/")
        if folder:
            self.fs.makedirs(folder, exist_ok=True)
        temp = f"{folder}/.{name}.{uuid.uuid4().hex}.tmp" if folder else f".{name}.{uuid.uuid4().hex}.tmp"
        self.fs.pipe_file(temp, data)
        try:
            self.fs.mv(temp, target)
        except BaseException:
            self.remove(temp)
            raise

    def touch(self, rel: str) -> None:
        if self.local:  # recency for `prune --max-size`; an object store would rewrite the object, so not there
            try:
                self.fs.touch(self.path(rel), truncate=False)
            except (OSError, NotImplementedError, ValueError):
                pass

    def exists(self, rel: str) -> bool:
        return bool(self.fs.exists(self.path(rel)))

    def scan(self) -> Iterable[tuple[str, str, Any]]:
        top = self.path(LAYOUT)
        try:
            found = self.fs.find(top, detail=True)
        except FileNotFoundError:
            return
        prefix = top.rstrip("/") + "/"
        for path, info in sorted(found.items()):
            rel = path[path.find(prefix) + len(prefix):] if prefix in path else None
            parts = rel.split("/") if rel else []
            if (len(parts) != 3 or info.get("type", "file") != "file" or parts[2].startswith(".")
                    or os.path.splitext(parts[2])[1] not in ENTRY_SUFFIXES):
                continue
            yield parts[0], path, EntryStat(int(info.get("size") or 0), modified_time(info))

    def remove(self, path: Any) -> None:
        try:
            self.fs.rm_file(path)
        except FileNotFoundError:
            pass

    def add_to_tar(self, tar: tarfile.TarFile, path: Any) -> None:
        data = self.fs.cat_file(path)
        rel = path[len(self.base) + 1:] if self.base else path
        member = tarfile.TarInfo(rel.lstrip("/"))
        member.size, member.mtime = len(data), int(modified_time(self.fs.info(path)))
        tar.addfile(member, io.BytesIO(data))


def modified_time(info: dict[str, Any]) -> float:
    """An fsspec info dict's modification time in seconds (local: mtime; s3: LastModified; memory: created)."""
    for name in ("mtime", "LastModified", "last_modified", "updated", "created"):
        value = info.get(name)
        if value is None:
            continue
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        try:
            return float(value)
        except (TypeError, ValueError):
            continue
    return 0.0


def open_files(root: str | os.PathLike[str]) -> LocalFiles | FsspecFiles:
    """The store for a cache root: FsspecFiles for a URL (CacheLocationError when it cannot be opened), else
    LocalFiles for the folder."""
    return FsspecFiles(str(root)) if is_url(root) else LocalFiles(Path(root))
