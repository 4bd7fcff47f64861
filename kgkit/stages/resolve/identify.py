"""Tri-state identity: which entity of a graph does a name denote? unique / ambiguous / not found.

Exact match keys (names and aliases) answer first: one (type, key) group is unique; the same key under
several types (Washington the person and the place) is ambiguous. Otherwise the name is scored against
the nodes its blocks propose (LSH, person initials, acronyms, legal form); the best is unique only when
it leads the runner-up by the configured margin and scores at least `min_score`.

>>> import pandas as pd
>>> from kgkit.core.graph import Graph
>>> from kgkit.testing.builders import entity_row
>>> g = Graph.empty().replace(entities=pd.DataFrame([entity_row("Person:jane smith", "Jane Smith", "Person", 3),
...     entity_row("Person:john smith", "John Smith", "Person", 2), entity_row("Person:washington", "Washington", "Person", 1),
...     entity_row("Location:washington", "Washington", "Location", 4)]))
>>> identify(g, "Dr. Jane Smith").verdict, identify(g, "Dr. Jane Smith").entity_id
('unique', 'Person:jane smith')
>>> identify(g, "J. Smith").verdict, identify(g, "Washington").verdict, identify(g, "Globex").verdict
('ambiguous', 'ambiguous', 'not_found')
>>> identify(g, "Washington", type="Location").entity_id
'Location:washington'
"""

from __future__ import annotations

from typing import Any

from kgkit.core.decisions import Verdict
from kgkit.core.records import Record
from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.keys import PERSON_TYPES, core_key, leading_titles, looks_like_acronym, match_key, squash_key
from kgkit.stages.resolve.name_index import NameIndex, query_lsh
from kgkit.stages.resolve.name_rules import person_parts
from kgkit.stages.resolve.scoring import score_names


class Match(Record):
    entity_id: str
    name: str
    type: str
    score: float
    reasons: tuple[str, ...]


class Identity(Record):
    """The answer: verdict, the entity when unique, and the ranked matches that led to it."""

    query: str
    verdict: Verdict
    entity_id: str | None
    matches: tuple[Match, ...]


def _index(graph_or_index: Any, config: ResolveConfig) -> NameIndex:
    if isinstance(graph_or_index, NameIndex):
        return graph_or_index
    from kgkit.stages.resolve.candidates import index_graph

    return index_graph(graph_or_index, config=config)


def _proposed(idx: NameIndex, name: str, key: str, typ: str) -> set[int]:
    nodes = set(query_lsh(idx, key, typ))
    if typ in PERSON_TYPES:
        nodes |= set(idx.by_surname.get((typ, person_parts(key)[1]), []))
    else:
        nodes |= set(idx.by_base.get((typ, squash_key(key)), [])) | set(idx.by_core.get((typ, core_key(key)), []))
        nodes |= set(idx.by_base.get((typ, squash_key(core_key(key))), []))
    if looks_like_acronym(name):
        nodes |= set(idx.by_acronym.get((typ, key), []))
    return nodes


def identify(graph_or_index: Any, name: str, type: str | None = None, *,
             config: ResolveConfig = ResolveConfig()) -> Identity:
    """Which entity `name` (optionally of `type`) denotes; pass a NameIndex to answer many lookups fast."""
    idx = _index(graph_or_index, config)
    cfg = idx.config
    types = [type] if type is not None else sorted(idx.type_code)
    exact: dict[int, str] = {}
    for typ in types:
        key = match_key(name, typ)
        for node in idx.by_key.get(key, []):
            if idx.node_types[node] == typ:
                exact[node] = f"same match key {key!r}"
        for e in idx.by_alias.get(key, []):
            if idx.types[e] == typ:
                exact.setdefault(idx.node_of[e], f"an alias has the match key {key!r}")
    if exact:
        matches = tuple(Match(entity_id=idx.node_id(n), name=idx.node_name(n), type=idx.node_types[n], score=1.0,
                              reasons=(why,)) for n, why in sorted(exact.items()))
        if len(matches) == 1:
            return Identity(query=name, verdict="unique", entity_id=matches[0].entity_id, matches=matches)
        kinds = sorted({m.type for m in matches})
        why = f"same name under {len(kinds)} types: {', '.join(kinds)}" if len(kinds) > 1 else "several entities"
        return Identity(query=name, verdict="ambiguous", entity_id=None,
                        matches=tuple(m.model_copy(update={"reasons": (*m.reasons, why)}) for m in matches))
    scored: list[Match] = []
    for typ in types:
        key = match_key(name, typ)
        for node in sorted(_proposed(idx, name, key, typ)):
            s, _f, reasons = score_names(cfg, (key, name, typ), (idx.keys[node], idx.node_name(node), typ),
                                         titles=(leading_titles(name), idx.titles[node]),
                                         counts=idx.word_counts.get(typ))
            if s >= cfg.min_score:
                scored.append(Match(entity_id=idx.node_id(node), name=idx.node_name(node), type=typ, score=s,
                                    reasons=tuple(reasons)))
    scored.sort(key=lambda m: (-m.score, m.entity_id))
    if not scored:
        return Identity(query=name, verdict="not_found", entity_id=None, matches=())
    runner_up = scored[1].score if len(scored) > 1 else 0.0
    if scored[0].score - runner_up >= cfg.margin:
        return Identity(query=name, verdict="unique", entity_id=scored[0].entity_id, matches=tuple(scored))
    return Identity(query=name, verdict="ambiguous", entity_id=None, matches=tuple(scored))
