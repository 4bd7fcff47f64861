"""Atomic writes and canonical JSON: the two things every writer of kgkit needs, and nothing heavier.

Data goes to a temporary file in the target's folder, is flushed and fsync'ed, then renamed over the
target, so a reader sees the old file or the new one, never half of one. Kept apart from `kgkit.io.files`
(graphs, domains, corpora) so the workspace and the cache import without pandas; `kgkit.io` and
`kgkit.io.files` re-export every name.

>>> import tempfile
>>> target = Path(tempfile.mkdtemp()) / "x.json"
>>> atomic_write_text(target, dumps_json({"b": 1, "a": [1, 2]}))
>>> target.read_text()
'{"a":[1,2],"b":1}'
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from kgkit.core.records import canonical_json

__all__ = ["atomic_file", "atomic_write_bytes", "atomic_write_text", "dumps_json"]

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


@contextmanager
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
