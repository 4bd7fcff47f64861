"""The demo known-item queries (demo_known_items.csv): entity and relation look-ups on the graph `kgkit run
data/demo/sotu_1934_1946` builds, with gold answers written as names, resolved to ids against the graph at hand
(so the set survives a better extractor: an entity by its name or an alias, a relation by its two entities'
names in either order, any type; words compare case-folded, accents and stopwords ignored).

Used by tests/test_search_known_items.py and bench/bench_search.py.

    gold column: alternatives separated by " | ", each "entity: NAME" or "relation: NAME ; NAME"
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgkit.stages.search.text import STOPWORDS, tokens

CSV = Path(__file__).with_suffix(".csv")


def _key(name: str) -> tuple[str, ...]:
    words = tokens(name)
    return tuple(w for w in words if w not in STOPWORDS) or tuple(words)


def load(path: Path = CSV) -> list[dict[str, Any]]:
    """Rows of the CSV: query and gold alternatives as (kind, names) pairs."""
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            golds = []
            for alternative in row["gold"].split(" | "):
                kind, _, names = alternative.partition(":")
                golds.append((kind.strip(), tuple(n.strip() for n in names.split(" ; "))))
            out.append({"query": row["query"], "golds": golds})
    return out


def resolve(graph: Any, rows: Sequence[dict[str, Any]] | None = None) -> tuple[list[tuple[str, set[str]]], list[str]]:
    """(query, gold ids) for every query with a gold found in `graph`, and the queries with none."""
    by_name: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for entity_id, name, aliases in zip(graph.entities["id"], graph.entities["name"], graph.entities["aliases"]):
        for n in [name, *(aliases if aliases is not None else [])]:
            by_name[_key(n)].add(entity_id)
    by_pair: dict[frozenset[str], set[str]] = defaultdict(set)
    for relation_id, source, target in zip(graph.relations["id"], graph.relations["source"], graph.relations["target"]):
        by_pair[frozenset((source, target))].add(relation_id)
    resolved, missing = [], []
    for row in rows if rows is not None else load():
        ids: set[str] = set()
        for kind, names in row["golds"]:
            if kind == "entity":
                ids |= by_name.get(_key(names[0]), set())
            elif kind == "relation" and len(names) == 2:
                for a in by_name.get(_key(names[0]), ()):
                    for b in by_name.get(_key(names[1]), ()):
                        ids |= by_pair.get(frozenset((a, b)), set())
        (resolved.append((row["query"], ids)) if ids else missing.append(row["query"]))
    return resolved, missing


def reciprocal_ranks(search: Callable[[str], Sequence[str]], resolved: Sequence[tuple[str, set[str]]]) -> list[float]:
    """1 / rank of the first gold id in `search(query)` (the hit ids, best first), 0 when absent."""
    out = []
    for query, gold in resolved:
        ids = list(search(query))
        out.append(next((1.0 / (i + 1) for i, x in enumerate(ids) if x in gold), 0.0))
    return out
