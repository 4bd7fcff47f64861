"""The Graph: columnar tables of entities, relations, provenance and documents.

Tables (pandas DataFrames) are the public shape: cheap to build for many edges, easy to show, filter and
export. networkx views are built on demand for algorithms. A Graph is treated as immutable: methods return
new values and never change the tables in place.

>>> g = Graph.empty()
>>> len(g.entities), len(g.relations)
(0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING, Any, TypedDict

import msgspec
import numpy as np
import pandas as pd

from kgkit.core.records import canonical_json, sha256_hex

if TYPE_CHECKING:
    import networkx as nx

ENTITY_COLUMNS: dict[str, str] = {
    "id": "object",  # type + normalised name: stable across runs
    "name": "object",  # most frequent surface form
    "type": "object",
    "aliases": "object",  # list[str], other surface forms, sorted
    "mentions": "int64",  # number of mentions across the corpus
    "documents": "int64",  # number of distinct documents mentioning it
    "confidence": "float64",
    "identity": "object",  # source | derived | ephemeral
    "degree": "int64",  # relations touching it (computed at build)
    "community": "object",  # community id ("c0", ...) once kgkit.stages.communities has run; None before
}
RELATION_COLUMNS: dict[str, str] = {
    "id": "object",
    "source": "object",  # entity ids
    "target": "object",
    "type": "object",
    "predicate": "object",  # most frequent surface predicate, when the extractor gives one
    "negated": "bool",
    "confidence": "float64",  # noisy-or of mention confidences
    "support": "int64",  # distinct mentions supporting it
    "evidence": "object",  # one representative evidence sentence
    "valid_at": "object",  # ISO strings or None
    "invalid_at": "object",
    "created_at": "object",
    "expired_at": "object",
    "flags": "object",  # list[str]: low_confidence, signature_violation, review_required, negated
}
PROVENANCE_COLUMNS: dict[str, str] = {
    "item_id": "object",  # entity or relation id
    "kind": "object",  # "entity" | "relation"
    "document_id": "object",
    "chunk_id": "object",
    "start": "Int64",
    "end": "Int64",
    "evidence": "object",
    "extractor_id": "object",
    "model": "object",
    "prompt_hash": "object",
}
DOCUMENT_COLUMNS: dict[str, str] = {
    "id": "object",
    "path": "object",
    "sha256": "object",
    "media_type": "object",
    "chunks": "int64",
    "errors": "int64",  # chunks whose extraction failed
}
GRAPH_FORMAT = "kgkit.graph/1"
"""The `format` of a graph's JSON form (graph.json)."""
TABLES = {
    "entities": ENTITY_COLUMNS,
    "relations": RELATION_COLUMNS,
    "provenance": PROVENANCE_COLUMNS,
    "documents": DOCUMENT_COLUMNS,
}
LIST_COLUMNS = {"aliases", "flags"}
OPTIONAL_COLUMNS: dict[str, dict[str, Any]] = {"entities": {"community": None}}
"""Columns a table may be given without (older graph.json files, hand-built frames): filled with the default."""


class GraphMeta(TypedDict, total=False):
    """The keys `Graph.meta` may hold (a plain dict: graph.json's ``meta``, saved as it is; any key may be absent,
    and a graph read from elsewhere may carry more)."""

    builder: str  # what made the graph: "kgkit.build/1" (kgkit.stages.build), "kgkit.io.importers.siftkg/1"
    domain: str | None  # the domain's id (content hash, kgkit.core.domain.Domain.id)
    domain_name: str | None  # the domain's name (kgkit.workflows.resolve loads the domain by it)
    extractors: list[str]  # every extractor id of the input, failed chunks included
    communities: dict[str, Any]  # kgkit.stages.communities params (method, seed, resolution, weight,
    #                              weak_types, weak_factor) once assign_communities has run
    splits: list[str]  # the split-off entity ids the build made (kgkit.stages.splits), when any
    source: str  # "sift-kg" for a graph imported from sift-kg's graph_data.json (kgkit.io.importers)
    sift_kg_version: str | None
    sift_kg_created_at: str | None


def empty_table(columns: dict[str, str]) -> pd.DataFrame:
    """An empty DataFrame with the given columns and dtypes."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in columns.items()})


def _conform(df: pd.DataFrame, columns: dict[str, str], optional: dict[str, Any] | None = None) -> pd.DataFrame:
    """Exactly these columns, in this order, with these dtypes (missing columns are an error, except
    optional ones, which get their default)."""
    absent = {c: v for c, v in (optional or {}).items() if c not in df.columns}
    if absent:
        df = df.assign(**absent)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"table is missing columns {missing}")
    out = df[list(columns)].reset_index(drop=True)
    return out.astype(columns)


def json_cell(value: Any) -> Any:
    """A table cell as a JSON value: NA / NaN -> None, numpy scalars -> Python, tuples and 1-d arrays -> lists
    (their items converted too). The one converter for every JSON form of table rows (graph, topology,
    communities, exports, search hits).

    >>> [json_cell(v) for v in (pd.NA, float("nan"), np.int64(3), ("a", np.float64(0.5)), np.array(["x"]))]
    [None, None, 3, ['a', 0.5], ['x']]
    """
    if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and getattr(value, "ndim", 0) == 1):
        return [v if type(v) is str else json_cell(v) for v in value]
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def _column_cells(column: pd.Series) -> list[Any]:
    """A column as JSON-ready cells, column at a time (same values as `json_cell` on each, much faster)."""
    if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and column.hasnans:
        return [None if v is pd.NA or v != v else json_cell(v) for v in column.astype(object).tolist()]
    kind = column.dtype.kind
    if kind in "iub":
        return column.tolist()
    if kind == "f":
        return [None if v != v else v for v in column.tolist()]
    return [v if v is None or type(v) is str else json_cell(v) for v in column.tolist()]


def _canonical(value: Any) -> bytes:
    """The canonical JSON of one value (kgkit.core.records.canonical_json), as UTF-8 bytes."""
    return canonical_json(value).encode("utf-8")


def _column_json(column: pd.Series) -> list[Any]:
    """A column as cells msgspec encodes to exactly the bytes `_canonical` gives for `_column_cells`: None, str,
    int, bool and lists of str as they are (msgspec writes them as json.dumps does), floats as they are when
    every one is 0 or in [1e-4, 1e16) (where msgspec and float.__repr__ agree), else through float.__repr__
    (msgspec would write 1e-05 as 0.00001), anything else through json itself."""
    if column.dtype.kind == "f" and not isinstance(column.dtype, pd.api.extensions.ExtensionDtype):
        values = column.to_numpy()
        if np.isinf(values).any():
            raise ValueError("Out of range float values are not JSON compliant")
        size = np.abs(values[~np.isnan(values)])
        if ((size == 0) | ((size >= 1e-4) & (size < 1e16))).all():  # here msgspec writes what float.__repr__ does
            return [None if v != v else v for v in values.tolist()]
        text = float.__repr__
        return [None if v != v else msgspec.Raw(text(v).encode()) for v in values.tolist()]
    if column.dtype != object:
        return _column_cells(column)
    infer = pd.api.types.infer_dtype
    if infer(column, skipna=False) == "string":  # every cell a str: no Python loop
        return column.tolist()
    kind = infer(column, skipna=True)
    if kind == "empty":  # every cell missing
        return [None] * len(column)
    if kind == "string":  # str or missing
        cells = column.tolist()
        for i in np.flatnonzero(column.isna().to_numpy()).tolist():
            cells[i] = None
        return cells
    cells = column.tolist()
    if set(map(type, cells)) == {list} and set(map(type, chain.from_iterable(cells))) <= {str}:
        return cells  # lists of str (aliases, flags): checked without a Python step per cell
    return [v if v is None or type(v) is str or (type(v) is list and all(type(x) is str for x in v))
            else msgspec.Raw(_canonical(json_cell(v))) for v in cells]


@cache
def _row_struct(columns: tuple[str, ...]) -> type[msgspec.Struct]:
    """A msgspec row type whose fields are the columns in sorted order (= json.dumps(sort_keys=True))."""
    return msgspec.defstruct("Row", [(c, Any) for c in sorted(columns)], gc=False)  # acyclic: no GC walks


_ENCODER = msgspec.json.Encoder()


@dataclass(frozen=True, eq=False)
class Graph:
    """A knowledge graph as four tables plus metadata (`meta`: its keys are documented by GraphMeta)."""

    entities: pd.DataFrame
    relations: pd.DataFrame
    provenance: pd.DataFrame
    documents: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)  # the keys: GraphMeta

    def __post_init__(self) -> None:
        for name, columns in TABLES.items():
            object.__setattr__(self, name, _conform(getattr(self, name), columns, OPTIONAL_COLUMNS.get(name)))

    @classmethod
    def empty(cls, meta: dict[str, Any] | None = None) -> Graph:
        return cls(**{name: empty_table(cols) for name, cols in TABLES.items()}, meta=dict(meta or {}))

    # ----------------------------------------------------------------- serialisation

    def to_json_dict(self) -> dict[str, Any]:
        """A plain, deterministic JSON-ready dict (tables as lists of row dicts)."""
        out: dict[str, Any] = {"format": GRAPH_FORMAT, "meta": self.meta}
        for name, columns in TABLES.items():
            df = getattr(self, name)
            cols = list(columns)
            values = [_column_cells(df[c]) for c in cols]
            out[name] = [dict(zip(cols, row)) for row in zip(*values)]
        return out

    def to_json_bytes(self, end: bytes = b"") -> bytes | bytearray:
        """The canonical JSON of `to_json_dict()` (kgkit.io.dumps_json, UTF-8), byte for byte, written column
        at a time: one msgspec row struct per row instead of a dict, floats formatted as json does, meta
        through json itself, then `end`. What kgkit.io.save_graph writes (with end=b"\\n")."""
        out: dict[str, Any] = {"format": GRAPH_FORMAT, "meta": msgspec.Raw(_canonical(self.meta))}
        for name, columns in TABLES.items():
            df = getattr(self, name)
            ordered = sorted(columns)
            out[name] = list(map(_row_struct(tuple(columns)), *(_column_json(df[c]) for c in ordered)))
        if not end:
            return _ENCODER.encode(dict(sorted(out.items())))
        buffer = bytearray()
        _ENCODER.encode_into(dict(sorted(out.items())), buffer)
        buffer += end  # no copy of the whole document for a trailing newline
        return buffer

    def sha256(self) -> str:
        """The graph's content hash: hex sha256 of `to_json_bytes()` (what save_graph writes, up to the newline).
        Journals record it before and after an apply; undo checks it.

        >>> Graph.empty().sha256() == Graph.from_json_dict(Graph.empty().to_json_dict()).sha256()
        True
        """
        return sha256_hex(self.to_json_bytes())

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Graph:
        if data.get("format") != GRAPH_FORMAT:
            raise ValueError(f"not a kgkit graph (format={data.get('format')!r})")
        tables = {}
        for name, columns in TABLES.items():
            rows = data.get(name) or []
            tables[name] = pd.DataFrame(rows, columns=list(columns)) if rows else empty_table(columns)
        return cls(**tables, meta=dict(data.get("meta") or {}))

    # ----------------------------------------------------------------- views

    def to_networkx(self) -> nx.MultiDiGraph:
        """A networkx MultiDiGraph view: entity rows as node attributes, relation rows as edge attributes."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for row in self.entities.to_dict("records"):
            g.add_node(row["id"], **row)
        for row in self.relations.to_dict("records"):
            g.add_edge(row["source"], row["target"], key=row["id"], **row)
        return g

    def replace(self, **tables: Any) -> Graph:
        """A new Graph with some tables (or meta) replaced; the others are shared, never copied or changed."""
        fields = {"entities": self.entities, "relations": self.relations, "provenance": self.provenance,
                  "documents": self.documents, "meta": self.meta}
        unknown = set(tables) - set(fields)
        if unknown:
            raise TypeError(f"unknown Graph fields {sorted(unknown)}")
        return Graph(**{**fields, **tables})

    # ----------------------------------------------------------------- time

    def as_of(self, t: str | datetime) -> Graph:
        """The graph as it was believed at graph time `t` (ISO 8601 text or datetime): relations with
        created_at <= t and (expired_at is None or expired_at > t). A relation without created_at counts as
        always known. Entities carry no graph time, so all are kept (degree is recounted); provenance rows
        of relations not believed at t are dropped. Times compare as ISO text: use one format (UTC).

        >>> from kgkit.testing.builders import relation_row
        >>> g = Graph.empty().replace(relations=pd.DataFrame([relation_row("r1", "2024-01-01", "2024-06-01"),
        ...     relation_row("r2", "2024-06-01"), relation_row("r3")]))
        >>> [list(g.as_of(t).relations["id"]) for t in ("2023-12-31", "2024-03-01", "2024-07-01")]
        [['r3'], ['r1', 'r3'], ['r2', 'r3']]
        """
        t = _iso(t)
        rel = self.relations
        created, expired = rel["created_at"], rel["expired_at"]
        known = created.isna() | (created.fillna("") <= t)
        alive = expired.isna() | (expired.fillna("") > t)
        return self._keep_relations((known & alive).to_numpy())

    def valid_at(self, t: str | datetime) -> Graph:
        """The relations that held in the world at `t` by what the graph knows now: (valid_at is None or
        valid_at <= t) and (invalid_at is None or invalid_at > t). Unknown world times count as always.

        >>> from kgkit.testing.builders import relation_row
        >>> g = Graph.empty().replace(relations=pd.DataFrame([relation_row("r1", valid="2001", invalid="2005"),
        ...     relation_row("r2", valid="2005")]))
        >>> list(g.valid_at("2003").relations["id"]), list(g.valid_at("2010").relations["id"])
        (['r1'], ['r2'])
        """
        t = _iso(t)
        rel = self.relations
        start, end = rel["valid_at"], rel["invalid_at"]
        held = (start.isna() | (start.fillna("") <= t)) & (end.isna() | (end.fillna("") > t))
        return self._keep_relations(held.to_numpy())

    def _keep_relations(self, mask: Any) -> Graph:
        relations = self.relations[mask].reset_index(drop=True)
        if len(relations) == len(self.relations):
            return self
        dropped = set(self.relations["id"][~mask])
        prov = self.provenance
        prov = prov[~((prov["kind"] == "relation") & prov["item_id"].isin(dropped))]
        degree = pd.concat([relations["source"], relations["target"]]).value_counts()
        entities = self.entities.assign(degree=self.entities["id"].map(degree).fillna(0).astype("int64"))
        return self.replace(entities=entities, relations=relations, provenance=prov)

    # ----------------------------------------------------------------- lookups

    def entity(self, entity_id: str) -> dict[str, Any]:
        """One entity row as a dict, with its provenance rows under "provenance"; KeyError if absent."""
        rows = self.entities[self.entities["id"] == entity_id]
        if rows.empty:
            raise KeyError(entity_id)
        record = {k: json_cell(v) for k, v in rows.iloc[0].items()}
        prov = self.provenance[self.provenance["item_id"] == entity_id]
        record["provenance"] = [{k: json_cell(v) for k, v in r.items()} for r in prov.to_dict("records")]
        return record

    def summary(self) -> dict[str, int]:
        return {
            "documents": len(self.documents),
            "entities": len(self.entities),
            "relations": len(self.relations),
            "provenance": len(self.provenance),
        }

    def __repr__(self) -> str:
        s = self.summary()
        return f"Graph(entities={s['entities']}, relations={s['relations']}, documents={s['documents']})"


def _iso(t: str | datetime) -> str:
    return t.isoformat() if isinstance(t, datetime) else str(t)
