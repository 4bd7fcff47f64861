"""The workflows' reports as typed records, each with one JSON form: `RunSummary` (run.json, `kgkit run --json`)
and `IndexReport` (`kgkit index`).

>>> s = RunSummary(documents_ok=1, chunks=1, entities=2, relations=1, communities=1, extractor_calls=1,
...                outcome="complete", generation=1, domain="domain:x", extractors=["x:1"])
>>> d = s.to_json_dict()
>>> d["cache_hits"], d["documents_failed"], "llm" in d, "seconds" in d, RunSummary.from_json_dict(d) == s
(0, 0, False, False, True)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from kgkit.core.records import DocumentError, Record
from kgkit.io.cache import CacheCounts
from kgkit.stages.search import IndexChanges

__all__ = ["IndexReport", "Outcome", "RunSummary"]

Outcome = Literal["complete", "failures", "rejected"]
"""complete; failures: written, but some files or chunks failed; rejected: nothing replaced the current generation."""

_DERIVED = ("documents_failed", "cache_hits", "cache_misses")  # in the JSON form, computed from other fields


class RunSummary(Record):
    """What a run did: counts, failures, cache use, timings, outputs, outcome. Its JSON form is run.json (and
    .kgkit/rejected-run.json); `kgkit run --json` prints it with `seconds`, the command's wall time."""

    llm: dict[str, Any] | None = None  # kgkit.llm.BudgetLedger.summary(), with an LLM extractor only
    llm_costs: list[dict[str, Any]] | None = None  # kgkit.llm.report.cost_report rows, idem
    documents_ok: int = 0
    failures: list[DocumentError] = Field(default_factory=list)  # files that gave no document
    chunks: int = 0
    chunk_errors: list[str] = Field(default_factory=list)  # "chunk id: error" per failed chunk
    error_groups: list[dict[str, Any]] = Field(default_factory=list)  # chunk errors by cause: {cause, count, fix}
    entities: int = 0
    relations: int = 0
    communities: int = 0
    extractor_calls: int = 0  # texts the extractor processed in this run (0 on a fully cached re-run)
    cache: CacheCounts = Field(default_factory=CacheCounts)
    timings: dict[str, float] = Field(default_factory=dict)  # seconds per step, rounded to ms
    outputs: dict[str, str] = Field(default_factory=dict)  # artefact -> path
    outcome: Outcome = "complete"
    generation: int = 0
    notes: list[str] = Field(default_factory=list)
    domain: str | None = None
    extractors: list[str] = Field(default_factory=list)
    seconds: float | None = None  # set by the CLI; never in run.json

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON form: the fields, `documents_failed`, `cache_hits` and `cache_misses`; llm, llm_costs and
        seconds only when set."""
        data = self.model_dump(exclude={"cache"})
        for key in ("llm", "llm_costs", "seconds"):
            if data[key] is None:
                del data[key]
        data.update(documents_failed=len(self.failures), cache=self.cache.to_json_dict(), cache_hits=self.cache.hits,
                    cache_misses=self.cache.misses)
        return data

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> RunSummary:
        """Read a summary back (run.json); the derived counts are recomputed."""
        fields = {k: v for k, v in data.items() if k not in _DERIVED}
        return cls.model_validate({**fields, "cache": CacheCounts.from_json_dict(data.get("cache") or {})})


class IndexReport(IndexChanges):
    """What `kgkit index` did: the changes (added, replaced, unchanged, removed), the items now in the index,
    the corpus files that could not be read, and the index folder."""

    items: int
    documents_unreadable: int = 0
    index: str
