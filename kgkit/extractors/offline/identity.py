"""The offline extractor's code version: a hash of its source and data files (as Hamilton's hash_source_code),
so editing a rule or a word list changes the extractor's id, and with it every cache key, with no hand bump."""

from __future__ import annotations

import functools
import hashlib
import inspect
from pathlib import Path
from typing import Any

__all__ = ["PACKAGE", "code_version", "hash_files", "settings"]

PACKAGE = Path(__file__).resolve().parent
_SUFFIXES = frozenset({".py", ".txt", ".yaml", ".yml", ".json"})


@functools.cache
def code_version() -> str:
    """The hash of this package's files (`hash_files(PACKAGE)`), computed once per process.

    >>> code_version() == hash_files(PACKAGE) and len(code_version())
    12
    """
    return hash_files(PACKAGE)


def hash_files(folder: Path) -> str:
    """Twelve hex digits of a SHA-256 over every source and data file under `folder` (relative path and bytes),
    every file of a `models` folder whatever its name (a trained model's weights: `ner/model`), stable across runs
    and machines."""
    sha = hashlib.sha256()
    folder = Path(folder)
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and (p.suffix in _SUFFIXES or "models" in p.relative_to(folder).parts[:-1])):
        sha.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()[:12]


def settings(obj: Any, *, skip: tuple[str, ...] = ()) -> str:
    """`name=value` for every keyword of `type(obj).__init__` (read from the instance, scikit-learn get_params
    style), so a new keyword cannot be missed by the id.

    >>> class A:
    ...     def __init__(self, x: int = 1, *, y: bool = True) -> None:
    ...         self.x, self.y = x, y
    >>> settings(A(2), skip=("x",))
    'y=True'
    """
    names = [n for n, p in inspect.signature(type(obj).__init__).parameters.items()
             if n != "self" and n not in skip and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return ",".join(f"{n}={getattr(obj, n)!r}" for n in names)
