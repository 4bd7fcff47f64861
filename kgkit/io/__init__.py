"""The I/O layer: every file kgkit reads or writes goes through here; stages never touch files.

`kgkit.io.workspace.Workspace` owns a workspace's files; the functions below are the plain file helpers
(atomic writes, JSON, corpus reading, domains, graphs) it and the importers/exports are built on.

Importing the package is light: each name loads its module on first use (`kgkit.io.generation` for atomic writes
and canonical JSON; `kgkit.io.files`, which brings pandas, for the rest), so `kgkit.io.workspace` and
`kgkit.io.cache` start without pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgkit.io.files import (
        BUNDLED_DOMAINS,
        bundled_domains,
        load_domain,
        load_graph,
        read_corpus,
        read_file,
        read_json,
        read_jsonl,
        save_domain,
        save_graph,
        write_json,
        write_jsonl,
    )
    from kgkit.io.generation import atomic_file, atomic_write_bytes, atomic_write_text, dumps_json

__all__ = ["BUNDLED_DOMAINS", "atomic_file", "atomic_write_bytes", "atomic_write_text", "bundled_domains",
           "dumps_json", "load_domain", "load_graph", "read_corpus", "read_file", "read_json", "read_jsonl",
           "save_domain", "save_graph", "write_json", "write_jsonl"]

_ATOMIC = frozenset({"atomic_file", "atomic_write_bytes", "atomic_write_text", "dumps_json"})


def __getattr__(name: str) -> Any:
    """Load the module behind a name of `__all__` on first use, and keep the name here from then on."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module("kgkit.io.generation" if name in _ATOMIC else "kgkit.io.files"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
