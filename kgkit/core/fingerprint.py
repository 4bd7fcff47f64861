"""Canonical fingerprints of stage arguments, for cache keys.

`fingerprint(x)` is a hex digest that depends only on x's content: mappings are hashed independently of
insertion order, arrays by dtype + shape + bytes, pydantic records by their JSON form, objects that know
their identity (an Extractor's `id`, a Domain's content hash) by a `fingerprint()` method or `id`.
Open to new types through `functools.singledispatch`: `@fingerprint.register`.

>>> fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": [1, 2], "a": 1})
True
>>> fingerprint("1") == fingerprint(1)
False
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import singledispatch
from typing import Any

from pydantic import BaseModel


def _utf8(text: str) -> bytes:
    """UTF-8 bytes of any str, lone surrogates included: a file name that is not valid UTF-8 reaches Python
    as surrogate escapes (os.fsdecode), which plain UTF-8 refuses. "surrogatepass" gives valid strings
    their usual UTF-8 bytes (so no existing fingerprint changes) and stays injective, unlike
    "surrogateescape" (whose output can equal another string's UTF-8), and does not depend on the
    platform's file system encoding (cache keys travel between machines: kgkit cache export)."""
    return text.encode("utf-8", "surrogatepass")


def _digest(tag: str, payload: bytes) -> str:
    h = hashlib.sha256()
    h.update(_utf8(tag))
    h.update(b"\x00")
    h.update(payload)
    return h.hexdigest()


@singledispatch
def fingerprint(value: Any) -> str:
    """Content fingerprint of a value (see module docstring)."""
    method = getattr(value, "fingerprint", None)
    if callable(method):
        return _digest("obj", _utf8(str(method())))
    ident = getattr(value, "id", None)
    if isinstance(ident, str):
        return _digest("id:" + type(value).__qualname__, _utf8(ident))
    if hasattr(value, "to_json_dict"):
        return _digest("json:" + type(value).__qualname__, _utf8(json.dumps(value.to_json_dict(), sort_keys=True, default=str)))
    raise TypeError(
        f"cannot fingerprint {type(value).__qualname__}: give it a fingerprint() method or an `id` string, "
        "or register it with kgkit.core.fingerprint.fingerprint.register"
    )


@fingerprint.register(type(None))
def _(value: None) -> str:
    return _digest("none", b"")


@fingerprint.register(bool)
def _(value: bool) -> str:
    return _digest("bool", b"1" if value else b"0")


@fingerprint.register(int)
def _(value: int) -> str:
    return _digest("int", str(value).encode())


@fingerprint.register(float)
def _(value: float) -> str:
    return _digest("float", repr(value).encode())


@fingerprint.register(str)
def _(value: str) -> str:
    return _digest("str", _utf8(value))


@fingerprint.register(bytes)
def _(value: bytes) -> str:
    return _digest("bytes", value)


@fingerprint.register(list)
@fingerprint.register(tuple)
def _(value: list[Any] | tuple[Any, ...]) -> str:
    return _digest("seq", "".join(fingerprint(v) for v in value).encode())


@fingerprint.register(set)
@fingerprint.register(frozenset)
def _(value: set[Any] | frozenset[Any]) -> str:
    return _digest("set", "".join(sorted(fingerprint(v) for v in value)).encode())


@fingerprint.register(Mapping)
def _(value: Mapping[Any, Any]) -> str:
    items = sorted(fingerprint(k) + fingerprint(v) for k, v in value.items())
    return _digest("map", "".join(items).encode())


@fingerprint.register(BaseModel)
def _(value: BaseModel) -> str:
    method = getattr(value, "fingerprint", None)
    if callable(method):
        return _digest("obj", _utf8(str(method())))
    # python-mode dump: bytes fields (RawFile.data) stay bytes instead of failing JSON's UTF-8 rule
    return _digest("model:" + type(value).__qualname__, fingerprint(value.model_dump()).encode())


def _register_numpy() -> None:
    try:
        import numpy as np
    except ImportError:  # numpy is a core dependency, but keep fingerprint importable without it
        return

    @fingerprint.register(np.ndarray)
    def _(value: np.ndarray) -> str:
        arr = np.ascontiguousarray(value)
        header = f"{arr.dtype.str}{arr.shape}".encode()
        return _digest("ndarray", header + arr.tobytes())

    @fingerprint.register(np.generic)
    def _(value: np.generic) -> str:
        return fingerprint(value.item())


_register_numpy()
