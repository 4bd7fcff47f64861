"""Table exports: CSV, Parquet and SQLite (one table per graph table), plus Parquet and SQLite readers.

File names: ``nodes`` (entities), ``edges`` (relations), ``provenance``, ``documents``. List columns are
native lists in Parquet and JSON arrays in CSV and SQLite. CSV is RFC 4180 (fields with commas, quotes or
newlines are quoted, quotes doubled). Every file is written atomically (temp file + rename).

>>> import tempfile
>>> from kgkit.core.graph import Graph
>>> d = tempfile.mkdtemp()
>>> sorted(p.name for p in write_csv(Graph.empty(), d))
['documents.csv', 'edges.csv', 'meta.json', 'nodes.csv', 'provenance.csv']
>>> read_sqlite(write_sqlite(Graph.empty(), d + "/g.sqlite")).summary()["relations"]
0
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pandas as pd

from kgkit.core.graph import Graph, json_cell
from kgkit.io import atomic_write_text, dumps_json
from kgkit.io.export._common import atomic_dir_file, column_kinds, dumps_list, graph_from_tables, loads_list

FILE_NAMES = {"entities": "nodes", "relations": "edges", "provenance": "provenance", "documents": "documents"}
_INDEXES = {"entities": ("type", "name"), "relations": ("source", "target", "type"),
            "provenance": ("item_id", "document_id"), "documents": ("path",)}


def _flat(df: pd.DataFrame) -> pd.DataFrame:
    """List columns as JSON arrays, everything else unchanged (a copy)."""
    out = df.copy()
    for col, kind in column_kinds(df).items():
        if kind == "list":
            out[col] = [dumps_list(v) for v in df[col]]
    return out


def table_csv(df: pd.DataFrame) -> str:
    """One table as CSV text (header row, list columns as JSON arrays, nulls as empty fields)."""
    return _flat(df).to_csv(index=False, lineterminator="\n")


def write_csv(graph: Graph, dest: str | os.PathLike[str]) -> list[Path]:
    """nodes.csv, edges.csv, provenance.csv, documents.csv and meta.json in folder ``dest``."""
    folder = Path(dest)
    paths = []
    for table, stem in FILE_NAMES.items():
        path = folder / f"{stem}.csv"
        atomic_write_text(path, table_csv(getattr(graph, table)))
        paths.append(path)
    atomic_write_text(folder / "meta.json", dumps_json(graph.meta) + "\n")
    return [*paths, folder / "meta.json"]


# --------------------------------------------------------------------------- Parquet


def write_parquet(graph: Graph, dest: str | os.PathLike[str]) -> list[Path]:
    """nodes.parquet, edges.parquet, provenance.parquet, documents.parquet in folder ``dest``; the graph's
    meta is in each file's schema metadata (``kgkit.meta``). Needs pyarrow (extra ``[export]``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = []
    for table, stem in FILE_NAMES.items():
        df = getattr(graph, table)
        arrow = pa.Table.from_pandas(df, preserve_index=False)
        arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), b"kgkit.meta": dumps_json(graph.meta).encode(),
                                               b"kgkit.table": table.encode()})
        final, tmp = atomic_dir_file(dest, f"{stem}.parquet")
        try:
            pq.write_table(arrow, tmp)
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)
        paths.append(final)
    return paths


def read_parquet(folder: str | os.PathLike[str]) -> Graph:
    """A Graph from a folder written by :func:`write_parquet` (all four tables and meta)."""
    import pyarrow.parquet as pq

    tables, meta = {}, {}
    for table, stem in FILE_NAMES.items():
        arrow = pq.read_table(Path(folder) / f"{stem}.parquet")
        meta = json.loads((arrow.schema.metadata or {}).get(b"kgkit.meta", b"{}"))
        tables[table] = arrow.to_pandas()
    return graph_from_tables(tables, meta)


# --------------------------------------------------------------------------- SQLite

_SQL_TYPES = {"str": "TEXT", "int": "INTEGER", "float": "REAL", "bool": "INTEGER", "list": "TEXT"}


def _ident(name: str) -> str:
    """A quoted SQL identifier (double quotes doubled)."""
    return '"' + str(name).replace('"', '""') + '"'


def write_sqlite(graph: Graph, dest: str | os.PathLike[str]) -> Path:
    """One SQLite file with tables entities, relations, provenance, documents, plus ``kgkit_meta`` and
    ``kgkit_columns`` (column kinds, so lists and booleans read back). Indexes on ids and endpoints.
    Values are bound as parameters (never spliced into SQL)."""
    final, tmp = atomic_dir_file(dest, "")
    tmp.unlink(missing_ok=True)
    try:
        con = sqlite3.connect(tmp)
        with con:
            con.execute("CREATE TABLE kgkit_meta (key TEXT PRIMARY KEY, value TEXT)")
            con.execute("INSERT INTO kgkit_meta VALUES ('meta', ?)", (dumps_json(graph.meta),))
            con.execute('CREATE TABLE kgkit_columns ("table" TEXT, "column" TEXT, kind TEXT, position INTEGER)')
            for table in FILE_NAMES:
                df = getattr(graph, table)
                kinds = column_kinds(df)
                cols = list(df.columns)
                con.executemany("INSERT INTO kgkit_columns VALUES (?, ?, ?, ?)",
                                [(table, c, kinds[c], i) for i, c in enumerate(cols)])
                decl = ", ".join(f"{_ident(c)} {_SQL_TYPES[kinds[c]]}" for c in cols)
                con.execute(f"CREATE TABLE {_ident(table)} ({decl})")
                rows = ([_sql_value(kinds[c], json_cell(v)) for c, v in zip(cols, row)]
                        for row in df.itertuples(index=False, name=None))
                marks = ", ".join("?" for _ in cols)
                con.executemany(f"INSERT INTO {_ident(table)} VALUES ({marks})", rows)
                if "id" in cols:
                    con.execute(f"CREATE UNIQUE INDEX {_ident(f'{table}_id')} ON {_ident(table)} (id)")
                for col in _INDEXES[table]:
                    if col in cols:
                        con.execute(f"CREATE INDEX {_ident(f'{table}_{col}')} ON {_ident(table)} ({_ident(col)})")
        con.close()
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return final


def _sql_value(kind: str, value: object) -> object:
    if value is None:
        return None
    if kind == "list":
        return dumps_list(value)
    if kind == "bool":
        return int(bool(value))
    return value


def read_sqlite(path: str | os.PathLike[str]) -> Graph:
    """A Graph from a file written by :func:`write_sqlite` (all four tables and meta)."""
    con = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    try:
        meta = json.loads(con.execute("SELECT value FROM kgkit_meta WHERE key = 'meta'").fetchone()[0])
        kinds: dict[str, list[tuple[str, str]]] = {}
        for table, col, kind, _ in con.execute('SELECT * FROM kgkit_columns ORDER BY "table", position'):
            kinds.setdefault(table, []).append((col, kind))
        tables = {}
        for table, cols in kinds.items():
            rows = con.execute(f"SELECT {', '.join(_ident(c) for c, _ in cols)} FROM {_ident(table)} ORDER BY rowid").fetchall()
            df = pd.DataFrame(rows, columns=[c for c, _ in cols])
            for col, kind in cols:
                if kind == "bool":
                    df[col] = df[col].astype(bool)
                elif kind == "list":
                    df[col] = [loads_list(v) for v in df[col]]
            tables[table] = df
    finally:
        con.close()
    return graph_from_tables(tables, meta)
