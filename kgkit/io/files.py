"""The I/O layer: every file kgkit reads or writes goes through here (stages never touch files).

Writes are atomic: data goes to a temporary file in the target's folder, is flushed and fsync'ed, then
renamed over the target, so a reader sees the old file or the new one, never half of one (`kgkit.io.generation`,
whose names this module re-exports).

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
>>> write_json(p, {"b": 1, "a": [1, 2]})
>>> read_json(p)
{'a': [1, 2], 'b': 1}
"""

from __future__ import annotations

import fnmatch
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgkit.core.constants import DEFAULT_MAX_BYTES
from kgkit.core.domain import Domain, DomainError, parse_domain
from kgkit.core.graph import Graph
from kgkit.core.records import RawFile
from kgkit.io.generation import atomic_file, atomic_write_bytes, atomic_write_text, dumps_json  # noqa: F401 (re-exported)
from kgkit.stages.load import SUPPORTED_SUFFIXES, media_type_for  # noqa: F401 (re-exported)

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
# domains/ sits at the repository root; wheels carry it inside the package (see pyproject force-include)
BUNDLED_DOMAINS = next(
    (p for p in (PACKAGE_ROOT / "domains", PACKAGE_ROOT.parent / "domains") if p.is_dir()), PACKAGE_ROOT / "domains"
)


# --------------------------------------------------------------------------- JSON files (atomic writes: kgkit.io.generation)


def write_json(path: str | os.PathLike[str], value: Any, *, indent: int | None = None) -> None:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, indent=indent, allow_nan=False) if indent else dumps_json(value)
    atomic_write_text(path, text + "\n")


def write_jsonl(path: str | os.PathLike[str], rows: list[Any]) -> None:
    """One canonical JSON value per line, written atomically."""
    atomic_write_text(path, "".join(dumps_json(r) + "\n" for r in rows))


def read_jsonl(path: str | os.PathLike[str]) -> list[Any]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_json(path: str | os.PathLike[str]) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


# --------------------------------------------------------------------------- reading a corpus


def read_corpus(
    root: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES, patterns: Iterable[str] | None = None,
    exclude: Iterable[str | os.PathLike[str]] = (),
) -> list[RawFile]:
    """The files of a corpus folder (or one file) as RawFiles, sorted by relative path (forward slashes).

    - Hidden files and folders (name starting with ".") are skipped.
    - `patterns` (None = every file) keeps only paths matching a suffix (".pdf", case-insensitive) or a
      glob on the relative path ("reports/*.md").
    - Nothing is dropped silently: files of an unsupported type are listed without their bytes (the load
      stage reports them as "unsupported"; kgkit reads SUPPORTED_SUFFIXES), files over `max_bytes` are
      listed with empty data and their size ("too_large"), and files that cannot be read (permissions,
      not a regular file, a symlink leading outside `root`) carry `read_error` ("unreadable"). A folder
      that cannot be listed, or a symbolic link to a folder (never entered), is listed as its path with a
      trailing "/" and a `read_error`.
    - Any file name works: a name that is not valid UTF-8 gets a safe name (`display_path`: its bytes
      written as \\xNN escapes), so it never reaches JSON, SQLite or a hash as a broken string.
    - Folders in `exclude` (e.g. a kgkit workspace kept inside its own corpus) are not entered.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.txt", "a/c.md", ".hidden.txt", "img.png"):
    ...     (d / name).parent.mkdir(exist_ok=True); _ = (d / name).write_bytes(b"hello")
    >>> [(r.path, r.data) for r in read_corpus(d)]
    [('a/c.md', b'hello'), ('b.txt', b'hello'), ('img.png', b'')]
    >>> [r.path for r in read_corpus(d, patterns=[".TXT"])]
    ['b.txt']
    """
    base = Path(root)
    if base.is_file():  # a single file named explicitly: follow it wherever it points
        return [read_file(base, base.parent, max_bytes=max_bytes, follow_symlinks=True)]
    if not base.is_dir():
        raise FileNotFoundError(f"{root}: no such file or folder")
    skip = {os.path.realpath(p) for p in exclude}
    raws: list[tuple[bytes, RawFile]] = []  # (the real relative name's bytes: a tie-break, RawFile)

    def add(path: Path, raw: RawFile) -> None:
        raws.append((os.fsencode(_relative(path, base)), raw))

    def folder_error(exc: OSError) -> None:  # os.walk could not list a folder
        where = Path(exc.filename) if exc.filename else base
        add(where, RawFile(path=_folder_path(where, base), data=b"", size=0, read_error=_reason(exc)))

    for folder, dirnames, filenames in os.walk(base, onerror=folder_error, followlinks=False):
        kept = []
        for d in sorted(dirnames):
            full = os.path.join(folder, d)
            if d.startswith(".") or os.path.realpath(full) in skip:
                continue
            if os.path.islink(full):  # os.walk does not enter it: say so
                if patterns is None:
                    add(Path(full), RawFile(path=_folder_path(Path(full), base), data=b"", size=0,
                                            read_error="symbolic link to a folder; not followed"))
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in filenames:
            if name.startswith("."):
                continue
            path = Path(folder) / name
            if patterns is None or _matches(_relative(path, base), patterns):
                add(path, read_file(path, base, max_bytes=max_bytes))
    return _unique([raw for _, raw in sorted(raws, key=lambda pair: (pair[1].path, pair[0]))])


def display_path(path: str) -> str:
    """A relative path as kgkit shows and stores it: itself when it is valid Unicode, else (a file name
    whose bytes are not UTF-8 arrives as surrogate escapes, os.fsdecode) its bytes (os.fsencode) decoded
    as UTF-8 with the broken bytes written as \\xNN.

    >>> display_path("caf\\udce9.txt"), display_path("café.txt")
    ('caf\\\\xe9.txt', 'café.txt')
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


def read_file(
    path: str | os.PathLike[str],
    root: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    follow_symlinks: bool = False,
) -> RawFile:
    """Read one file as a RawFile whose `path` is relative to `root` (`display_path`). Never raises for a
    bad file: problems go into `read_error`. Bytes are read only for supported types and at most
    `max_bytes` (a bigger file comes back with empty data and its size). Unless `follow_symlinks`, a file
    whose real location is outside `root` is not read."""
    file, base = Path(path), Path(root)
    raw_rel = _relative(file, base)
    if raw_rel.startswith("../"):
        raise ValueError(f"{display_path(str(path))} is not inside {display_path(str(root))}")
    rel = display_path(raw_rel)
    try:
        if not follow_symlinks and not file.resolve(strict=True).is_relative_to(base.resolve()):
            return RawFile(path=rel, data=b"", size=0, read_error="symbolic link to outside the corpus folder; not followed")
        info = os.stat(file)
        if not stat.S_ISREG(info.st_mode):
            return RawFile(path=rel, data=b"", size=0, read_error="not a regular file")
        if media_type_for(rel) is None or info.st_size > max_bytes:
            return RawFile(path=rel, data=b"", size=info.st_size)
        with open(file, "rb") as fh:
            data = fh.read(max_bytes + 1)  # the file may have grown since stat
    except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop (Python < 3.13)
        return RawFile(path=rel, data=b"", size=0, read_error=_reason(exc))
    size = max(info.st_size, len(data))
    return RawFile(path=rel, data=b"" if size > max_bytes else data, size=size)


def _reason(exc: BaseException) -> str:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return reason or type(exc).__name__


def _folder_path(folder: Path, root: Path) -> str:
    rel = _relative(folder, root)
    return "./" if rel == "." else display_path(rel) + "/"


def _unique(raws: list[RawFile]) -> list[RawFile]:
    """Two files whose safe names are equal (a non-UTF-8 name and one spelling its escapes): the second is
    reported instead of silently standing for the first."""
    out: list[RawFile] = []
    for raw in raws:
        if out and out[-1].path == raw.path:
            raw = RawFile(path=raw.path, data=b"", size=0,
                          read_error="another file has the same safe name (one is not valid UTF-8); rename one")
        out.append(raw)
    return out


def _relative(path: Path, root: Path) -> str:
    return os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")


def _matches(rel: str, patterns: Iterable[str]) -> bool:
    return any(
        rel.lower().endswith(p.lower()) if p.startswith(".") else fnmatch.fnmatch(rel, p) for p in patterns
    )


# --------------------------------------------------------------------------- domains


def bundled_domains() -> dict[str, Path]:
    """Names of the domains shipped with kgkit -> their YAML files."""
    return {p.stem: p for p in sorted(BUNDLED_DOMAINS.glob("*.yaml"))}


def load_domain(name_or_path: str | os.PathLike[str] = "general") -> Domain:
    """Load a domain by bundled name ("general") or by path to a YAML file."""
    path = Path(name_or_path)
    if not path.suffix:
        bundled = bundled_domains()
        if str(name_or_path) not in bundled:
            raise DomainError(f"no bundled domain named {name_or_path!r}; bundled: {sorted(bundled)}")
        path = bundled[str(name_or_path)]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DomainError(f"{path}: cannot read domain file: {exc.strerror or exc}") from exc
    return parse_domain(text, source=str(path))


def save_domain(domain: Domain, path: str | os.PathLike[str]) -> None:
    """Write a domain as editable YAML (atomic) that `load_domain(path)` reads back with the same content id.

    >>> import tempfile, pathlib
    >>> d = load_domain("general")
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "mine.yaml"
    >>> save_domain(d, p)
    >>> load_domain(p).id == d.id
    True
    """
    import yaml

    data = domain.model_dump(mode="json")
    header = f"# kgkit domain {domain.name!r} ({domain.id}); edit freely: the id follows the content.\n"
    atomic_write_text(path, header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


# --------------------------------------------------------------------------- graphs


def save_graph(graph: Graph, path: str | os.PathLike[str]) -> None:
    """Write a graph as deterministic JSON (same graph -> byte-identical file): the bytes of
    ``write_json(path, graph.to_json_dict())``, encoded column-wise (Graph.to_json_bytes)."""
    atomic_write_bytes(path, graph.to_json_bytes(end=b"\n"))


def load_graph(path: str | os.PathLike[str]) -> Graph:
    return Graph.from_json_dict(read_json(path))
