"""Bi-temporal relations: a newer fact invalidates an older one; nothing is ever deleted.

Every relation has two time axes (ISO 8601 text, compared as text: use one format, e.g. UTC dates):

- world time: ``valid_at`` / ``invalid_at`` — when the fact held, when the text says so;
- graph time: ``created_at`` / ``expired_at`` — when the graph learned it and when it stopped believing it.

`resolve_conflicts` (pure; `build_graph` calls it by default) finds contradictions only where the design
allows one:

1. **Same subject, single-valued type** (``single_valued: true`` in the domain, e.g. a person's current
   employer): among the positive relations with one source and one such type, each fact is superseded by the
   next newer one. "Newer" = later ``valid_at``, falling back to ``created_at`` when a relation has no world
   time; relations with neither cannot be ordered and are left alone, as are ties.
2. **Same endpoints, opposite polarity** (any type): "A works for B" and "A does not work for B" — the
   newer statement supersedes the older.

A superseded relation gets ``invalid_at`` = the newer fact's ``valid_at`` (when known, and only if earlier
than an invalid_at it already had) and ``expired_at`` = when the graph knew both facts: the later of its own
``created_at`` and the earliest ``created_at`` of a newer fact (left empty when neither is known). Rows are
never removed and relations of other subjects or types are never touched. `Graph.as_of(t)` then shows what
the graph believed at t, and `Graph.valid_at(t)` what held in the world at t.

>>> import pandas as pd
>>> from kgkit.core.domain import parse_domain
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import relation_row
>>> dom = parse_domain("name: d\\nentity_types: {Person: a, Organization: b, Other: c}\\n"
...                    "relation_types: {T: {description: employer, single_valued: true}}")
>>> old = {**relation_row("r1", "2024-01-01", valid="2019"), "target": "acme"}
>>> new = {**relation_row("r2", "2024-06-01", valid="2022"), "target": "globex"}
>>> g = resolve_conflicts(Graph.empty().replace(relations=pd.DataFrame([old, new])), domain=dom)
>>> g.relations[["id", "invalid_at", "expired_at"]].values.tolist()
[['r1', '2022', '2024-06-01'], ['r2', None, None]]
>>> list(g.as_of("2024-03-01").relations["id"]), list(g.as_of("2024-07-01").relations["id"])
(['r1'], ['r2'])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kgkit.core.domain import Domain
from kgkit.core.graph import Graph
from kgkit.core.stage import stage


def _supersede(rels: pd.DataFrame, mask: np.ndarray, group: list[str]) -> pd.DataFrame:
    """For rows in `mask`, grouped by `group`: (new invalid_at, new expired_at) from the next newer fact.
    Returns a frame indexed like `rels` (only rows that are superseded), columns invalid_at, expired_at."""
    c = rels.loc[mask, [*group, "valid_at", "created_at"]]
    c = c.assign(key=c["valid_at"].where(c["valid_at"].notna(), c["created_at"]))
    c = c[c["key"].notna()]
    if c.empty:
        return pd.DataFrame(columns=["invalid_at", "expired_at"])
    c = c.assign(g=c.groupby(group, sort=False).ngroup(), valid=c["valid_at"].fillna(""),
                 created=c["created_at"].fillna(""))
    # one row per (group, time key): the earliest learned time and world time of the facts at that key
    k = c.groupby(["g", "key"], sort=True).agg(created=("created", "min"), valid=("valid", "min")).reset_index()
    codes, times = pd.factorize(k["created"], sort=True)  # ISO text -> ordered integer codes ("" first)
    k["code"] = codes
    by = k.groupby("g", sort=False)
    k["next_key"] = by["key"].shift(-1)
    k["next_valid"] = by["valid"].shift(-1)
    # earliest learned time among strictly newer facts: reverse cumulative min, then one step on
    k["newer_code"] = k.iloc[::-1].groupby("g", sort=False)["code"].cummin().iloc[::-1]
    k["newer_code"] = k.groupby("g", sort=False)["newer_code"].shift(-1)
    k = k[k["next_key"].notna()]
    if k.empty:
        return pd.DataFrame(columns=["invalid_at", "expired_at"])
    rows = c.reset_index().merge(k[["g", "key", "next_valid", "newer_code"]], on=["g", "key"]).set_index("index")
    newer = np.asarray(times)[rows["newer_code"].astype(int).to_numpy()]
    expired = np.where(rows["created"].to_numpy() > newer, rows["created"].to_numpy(), newer)
    out = pd.DataFrame(index=rows.index)
    out["invalid_at"] = rows["next_valid"].where(rows["next_valid"] != "", None)
    out["expired_at"] = pd.Series(expired, index=rows.index).where(lambda s: s != "", None)
    return out


def _earliest(old: pd.Series, new: pd.Series) -> pd.Series:
    """Element-wise earliest of two optional ISO columns (None = unknown)."""
    both = old.notna() & new.notna()
    out = old.where(old.notna(), new)
    return out.where(~both, np.where(both, np.minimum(old.fillna("").astype(str), new.fillna("").astype(str)), None))


@stage(version="1")
def resolve_conflicts(graph: Graph, *, domain: Domain) -> Graph:
    """Invalidate superseded relations (see the module docstring); returns a new Graph, rows unchanged in
    number and order, only invalid_at / expired_at of superseded relations set."""
    rels = graph.relations
    if rels.empty:
        return graph
    single = [name for name, spec in domain.relation_types.items() if spec.single_valued]
    positive = ~rels["negated"].to_numpy(dtype=bool)
    updates = [_supersede(rels, rels["type"].isin(single).to_numpy() & positive, ["source", "type"])]
    pair = rels.groupby(["source", "type", "target"], sort=False)["negated"].transform("nunique").to_numpy() > 1
    if pair.any():
        updates.append(_supersede(rels, pair, ["source", "type", "target"]))
    updates = [u for u in updates if len(u)]
    if not updates:
        return graph
    invalid, expired = rels["invalid_at"].copy(), rels["expired_at"].copy()
    for u in updates:
        invalid = _earliest(invalid, u["invalid_at"].reindex(rels.index))
        expired = _earliest(expired, u["expired_at"].reindex(rels.index))
    def clean(s: pd.Series) -> pd.Series:
        s = s.astype(object)
        return s.where(s.notna(), None)

    return graph.replace(relations=rels.assign(invalid_at=clean(invalid), expired_at=clean(expired)))
