"""The counters and inventory of a stage cache (kgkit.io.cache.Cache): per-stage hits, misses, items computed
and entries written in one session (`CacheStats`, snapshotted as `CacheCounts` into run.json's ``cache``), and
what a cache stores per stage (`CacheInfo`, `kgkit cache info`).

>>> stats = CacheStats()
>>> stats.hits["extract"] += 2; stats.misses["extract"] += 1
>>> stats.snapshot().to_json_dict()
{'extract': {'hits': 2, 'misses': 1, 'computed': 0, 'writes': 0}}
>>> stats.snapshot().hits, CacheCounts.from_json_dict(stats.as_dict()) == stats.snapshot()
(2, True)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from kgkit.core.records import Record

__all__ = ["CacheCounts", "CacheInfo", "CacheStats", "StageCounts", "StageUsage"]


class StageCounts(Record):
    """One stage's counters in one Cache session."""

    hits: int = 0
    misses: int = 0
    computed: int = 0  # items the stage function actually processed
    writes: int = 0


class CacheCounts(Record):
    """A snapshot of CacheStats: the counters per stage (sorted), as run.json's ``cache`` and cache info's
    ``session`` show them."""

    stages: dict[str, StageCounts] = Field(default_factory=dict)

    @property
    def hits(self) -> int:
        return sum(c.hits for c in self.stages.values())

    @property
    def misses(self) -> int:
        return sum(c.misses for c in self.stages.values())

    def to_json_dict(self) -> dict[str, dict[str, int]]:
        """Stage name -> {hits, misses, computed, writes}."""
        return {name: counts.model_dump() for name, counts in self.stages.items()}

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> CacheCounts:
        return cls(stages=data)


@dataclass
class CacheStats:
    """Per-stage counters for one Cache object: hits, misses, items computed, entries written."""

    hits: Counter[str] = field(default_factory=Counter)
    misses: Counter[str] = field(default_factory=Counter)
    computed: Counter[str] = field(default_factory=Counter)  # items the stage function actually processed
    writes: Counter[str] = field(default_factory=Counter)

    def snapshot(self) -> CacheCounts:
        """The counters now, per stage that was asked for (hit, missed or computed)."""
        stages = sorted(set(self.hits) | set(self.misses) | set(self.computed))
        return CacheCounts(stages={s: StageCounts(hits=self.hits[s], misses=self.misses[s], computed=self.computed[s],
                                                  writes=self.writes[s]) for s in stages})

    def as_dict(self) -> dict[str, dict[str, int]]:
        return self.snapshot().to_json_dict()


class StageUsage(Record):
    """What one stage has stored in a cache."""

    entries: int = 0
    bytes: int = 0


class CacheInfo(Record):
    """What a cache stores, per stage and in total (`kgkit cache info`), and one Cache object's counters."""

    root: str
    stages: dict[str, StageUsage]
    entries: int
    bytes: int
    session: CacheCounts

    def to_json_dict(self, *, session: bool = True) -> dict[str, Any]:
        """The JSON form; `session=False` leaves this process's counters out (what `kgkit cache info` prints)."""
        data: dict[str, Any] = {"root": self.root, "stages": {k: v.model_dump() for k, v in self.stages.items()},
                                "entries": self.entries, "bytes": self.bytes}
        if session:
            data["session"] = self.session.to_json_dict()
        return data
