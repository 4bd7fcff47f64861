"""The agent-facing JSON form of a search (schema `kgkit.search/1`, documented in docs/search.md): bounded
(at most MAX_LIMIT hits a page, texts cut to MAX_TEXT characters) and paginated (`next_offset`).

>>> import pandas as pd
>>> from kgkit.stages.search.search_index import HIT_COLUMNS
>>> frame = pd.DataFrame(columns=HIT_COLUMNS)
>>> frame.attrs.update(total=0, timings_ms={"total": 0.1}, terms=[], channels=[])
>>> out = search_json(frame, query="x", filters={}, limit=10, offset=0)
>>> out["schema"], out["hits"], out["next_offset"]
('kgkit.search/1', [], None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgkit.core.graph import json_cell
from kgkit.stages.search.text import snippet

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = "kgkit.search/1"
MAX_LIMIT = 100
MAX_TEXT = 500
HIT_FIELDS = ("rank", "id", "kind", "score", "title", "type", "text", "provenance", "channels", "entities", "match")


def hit_json(row: dict[str, Any]) -> dict[str, Any]:
    """One hit: identity, score, text (cut), provenance, per-channel rank/score, the entities it is about."""
    return {
        "rank": int(row["rank"]), "id": row["id"], "kind": row["kind"], "score": json_cell(row["score"]),
        "title": snippet(row["title"] or "", 200), "type": json_cell(row["type"]),
        "text": snippet(row["text"] or "", MAX_TEXT),
        "provenance": {"document_id": json_cell(row["document_id"]), "chunk_id": json_cell(row["chunk_id"]),
                       "start": json_cell(row["start"]), "end": json_cell(row["end"]),
                       "evidence": None if json_cell(row["evidence"]) is None else snippet(row["evidence"], MAX_TEXT),
                       "documents": list(row["documents"])[:20]},
        "channels": {c: {"rank": json_cell(row[f"{c}_rank"]), "score": json_cell(row[f"{c}_score"])}
                     for c in ("keyword", "dense", "graph") if json_cell(row[f"{c}_rank"]) is not None},
        "entities": list(row["entities"])[:20],
        "match": json_cell(row.get("match")),
    }


def search_json(frame: pd.DataFrame, *, query: str, filters: dict[str, Any], limit: int, offset: int) -> dict[str, Any]:
    """The whole response for one page of hits."""
    total = int(frame.attrs.get("total", len(frame)))
    end = offset + len(frame)
    return {
        "schema": SCHEMA,
        "query": snippet(query, MAX_TEXT),
        "terms": frame.attrs.get("terms", []),
        "filters": {k: v for k, v in filters.items() if v},
        "channels": frame.attrs.get("channels", []),
        "lookup": bool(frame.attrs.get("lookup", False)),
        "weights": frame.attrs.get("weights", {}),
        "named_entities": list(frame.attrs.get("named", []))[:20],
        "limit": limit,
        "offset": offset,
        "total": total,
        "next_offset": end if end < total else None,
        "timings_ms": frame.attrs.get("timings_ms", {}),
        "hits": [hit_json(r) for r in frame.to_dict("records")],
    }


def rollup_json(frame: pd.DataFrame, *, by: str) -> dict[str, Any]:
    """The page's hits grouped by document or entity (kgkit.stages.search.fusion.rollup) as JSON."""
    from kgkit.stages.search.fusion import rollup

    groups = rollup(frame, by=by)
    return {"by": by, "groups": [{"key": r["key"], "score": json_cell(r["score"]), "total": json_cell(r["total"]),
                                  "hits": int(r["hits"]), "best_id": r["best_id"]} for r in groups.to_dict("records")]}
