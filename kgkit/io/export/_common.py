"""Shared helpers for the exporters: column kinds, cells, escaping, atomic writes, rebuilding a Graph.

Exporters work over whatever columns a table has (another stage may add e.g. ``community``), so every
column is classified by its dtype and values into one of five kinds: ``str``, ``int``, ``float``,
``bool`` or ``list`` (lists of strings such as ``aliases`` and ``flags``).

>>> import pandas as pd
>>> column_kinds(pd.DataFrame({"a": ["x"], "n": [1], "f": [0.5], "b": [True], "l": [["p"]]}))
{'a': 'str', 'n': 'int', 'f': 'float', 'b': 'bool', 'l': 'list'}
>>> xml_escape('a<b & "c"\\n\\x00')
'a&lt;b &amp; &quot;c&quot;&#10;\\ufffd'
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from kgkit.core.graph import LIST_COLUMNS, TABLES, Graph, empty_table, json_cell
from kgkit.io import atomic_file

Kind = str  # "str" | "int" | "float" | "bool" | "list"

# XML 1.0 forbids most C0 controls, lone surrogates and U+FFFE/U+FFFF: they become U+FFFD. Markup
# characters become entities, and whitespace controls become character references so attribute-value
# normalisation cannot turn a newline into a space.
_XML_TABLE: dict[int, str] = {c: "\ufffd" for c in range(0x20) if c not in (0x9, 0xA, 0xD)}
_XML_TABLE.update({0xFFFE: "\ufffd", 0xFFFF: "\ufffd"})
_XML_TABLE.update({c: "\ufffd" for c in range(0xD800, 0xE000)})
_XML_TABLE.update({ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;",
                   ord("'"): "&apos;", 0x9: "&#9;", 0xA: "&#10;", 0xD: "&#13;"})
_XML_TABLE[ord("'")] = "&apos;"


def xml_escape(text: str) -> str:
    """Escape a string for XML element text or a double-quoted attribute value."""
    return text.translate(_XML_TABLE)


def column_kinds(df: pd.DataFrame) -> dict[str, Kind]:
    """The kind of every column, from its dtype (object columns: list if a list column or holds lists)."""
    kinds: dict[str, Kind] = {}
    for col in df.columns:
        dtype = df[col].dtype
        if pd.api.types.is_bool_dtype(dtype):
            kinds[col] = "bool"
        elif pd.api.types.is_integer_dtype(dtype):
            kinds[col] = "int"
        elif pd.api.types.is_float_dtype(dtype):
            kinds[col] = "float"
        elif col in LIST_COLUMNS or any(isinstance(v, (list, tuple)) for v in df[col].head(50)):
            kinds[col] = "list"
        else:
            kinds[col] = "str"
    return kinds


def records(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
    """Rows as dicts of plain cells (kgkit.core.graph.json_cell), every column of the table (nulls kept as None)."""
    cols = list(df.columns)
    for row in df.itertuples(index=False, name=None):
        yield dict(zip(cols, (json_cell(v) for v in row)))


def text_of(value: Any) -> str:
    """A non-list, non-null cell as text (JSON for anything that is not a scalar)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def dumps_list(value: Any) -> str:
    """A list cell as a JSON array (None -> "[]")."""
    return json.dumps(list(value or []), ensure_ascii=False)


def loads_list(value: Any) -> list[Any]:
    """Inverse of dumps_list; accepts lists, arrays and None as well."""
    if value is None or (isinstance(value, float) and value != value):
        return []
    if isinstance(value, str):
        return list(json.loads(value)) if value else []
    return [json_cell(v) for v in value]


def graph_from_tables(tables: dict[str, pd.DataFrame], meta: dict[str, Any] | None = None) -> Graph:
    """Rebuild a Graph from re-imported tables: list columns decoded, nulls as None, dtypes restored."""
    out: dict[str, pd.DataFrame] = {}
    for name, columns in TABLES.items():
        df = tables.get(name)
        if df is None or df.empty:
            out[name] = empty_table(columns)
            continue
        df = df.copy()
        for col in columns:  # a column null in every row may be absent from the file (XML omits nulls)
            if col not in df.columns:
                df[col] = None
        for col in df.columns:
            if col in LIST_COLUMNS:
                df[col] = [loads_list(v) for v in df[col]]
            elif columns.get(col, "object") == "object":
                df[col] = pd.Series([json_cell(v) for v in df[col]], index=df.index, dtype="object")
        out[name] = df
    return Graph(**out, meta=dict(meta or {}))


def atomic_write_lines(path: str | os.PathLike[str], lines: Iterable[str], *, chunk: int = 1 << 20) -> Path:
    """Stream text to ``path`` atomically: UTF-8 into a temp file beside it, fsync, rename."""
    with atomic_file(path, text=True, buffering=chunk) as fh:
        fh.writelines(lines)
    return Path(path)


def atomic_dir_file(dest: str | os.PathLike[str], name: str) -> tuple[Path, Path]:
    """(final path, temporary path beside it) for writers that need a real file (sqlite, parquet)."""
    final = Path(dest) / name if name else Path(dest)
    final.parent.mkdir(parents=True, exist_ok=True)
    return final, final.with_name(f".{final.name}.{os.getpid()}.tmp")
