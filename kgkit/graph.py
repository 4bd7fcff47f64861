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
from typing import TYPE_CHECKING, Any

import pandas as pd

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
TABLES = {
    "entities": ENTITY_COLUMNS,
    "relations": RELATION_COLUMNS,
    "provenance": PROVENANCE_COLUMNS,
    "documents": DOCUMENT_COLUMNS,
}
LIST_COLUMNS = {"aliases", "flags"}


def empty_table(columns: dict[str, str]) -> pd.DataFrame:
    """An empty DataFrame with the given columns and dtypes."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in columns.items()})


def _conform(df: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """Exactly these columns, in this order, with these dtypes (missing columns are an error)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"table is missing columns {missing}")
    out = df[list(columns)].reset_index(drop=True)
    return out.astype(columns)


def _cell(value: Any) -> Any:
    """A JSON-ready cell: NA -> None, numpy scalars -> Python, tuples -> lists."""
    if isinstance(value, (list, tuple)):
        return [_cell(v) for v in value]
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


@dataclass(frozen=True, eq=False)
class Graph:
    """A knowledge graph as four tables plus metadata (domain id, extractor ids, counts)."""

    entities: pd.DataFrame
    relations: pd.DataFrame
    provenance: pd.DataFrame
    documents: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, columns in TABLES.items():
            object.__setattr__(self, name, _conform(getattr(self, name), columns))

    @classmethod
    def empty(cls, meta: dict[str, Any] | None = None) -> Graph:
        return cls(**{name: empty_table(cols) for name, cols in TABLES.items()}, meta=dict(meta or {}))

    # ----------------------------------------------------------------- serialisation

    def to_json_dict(self) -> dict[str, Any]:
        """A plain, deterministic JSON-ready dict (tables as lists of row dicts)."""
        out: dict[str, Any] = {"format": "kgkit.graph/1", "meta": self.meta}
        for name, columns in TABLES.items():
            df = getattr(self, name)
            cols = list(columns)
            out[name] = [dict(zip(cols, (_cell(v) for v in row))) for row in df.itertuples(index=False, name=None)]
        return out

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Graph:
        if data.get("format") != "kgkit.graph/1":
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

    def entity(self, entity_id: str) -> dict[str, Any]:
        """One entity row as a dict, with its provenance rows under "provenance"; KeyError if absent."""
        rows = self.entities[self.entities["id"] == entity_id]
        if rows.empty:
            raise KeyError(entity_id)
        record = {k: _cell(v) for k, v in rows.iloc[0].items()}
        prov = self.provenance[self.provenance["item_id"] == entity_id]
        record["provenance"] = [{k: _cell(v) for k, v in r.items()} for r in prov.to_dict("records")]
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
