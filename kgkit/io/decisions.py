"""Decisions and journals on disk: a git-friendly YAML file and numbered JSON journals in the workspace.

Parsing and dumping are pure (text in, records out); reading and writing go through kgkit.io's atomic
writes. The decisions file is one entry per decision, sorted by id, fields in a fixed order, so a
reviewer's change is a small diff. A bad entry fails the whole file with an error naming the entry
(index and id) and the field, and nothing is applied.

    workspace/decisions.yaml           every decision (policy, person, llm)
    workspace/resolve/candidates.jsonl the last resolution run's candidates (what review shows)
    workspace/journal/0001.json ...    one journal per apply; undo pops the newest

>>> from kgkit.stages.resolve.decisions import person_decision
>>> d = person_decision("merge", ("P:j smith", "P:jane smith"), why="same author", who="ana", at="2026-01-01")
>>> parse_decisions(dump_decisions([d])) == [d]
True
>>> try:
...     parse_decisions("format: kgkit.decisions/1\\ndecisions:\\n- {kind: merge, subjects: [a], decided_by: person}")
... except DecisionFileError as exc:
...     print(exc)
<text>: entry 1 (no id): subjects.1: Field required
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from kgkit.stages.resolve.decisions import Decision

FORMAT = "kgkit.decisions/1"
DECISIONS_FILE = "decisions.yaml"
JOURNAL_DIR = "journal"
CANDIDATES_FILE = "resolve/candidates.jsonl"
_ORDER = list(Decision.model_fields)
_HEADER = ("# kgkit entity-resolution decisions. One entry per decision, sorted by id; edit by hand or with\n"
           "# `kgkit review`. decided_by: person entries are never changed by `kgkit resolve`.\n")


class DecisionFileError(ValueError):
    """A decisions file that cannot be used; the message names the file, the entry and the field."""


def dump_decisions(decisions: Sequence[Decision]) -> str:
    """YAML text for decisions (sorted by id; empty and default fields left out)."""
    rows = []
    for d in sorted(decisions, key=lambda d: d.id):
        data = d.model_dump(mode="json")
        row = {k: data[k] for k in _ORDER if data[k] not in (None, "", {}) or k in ("id", "kind", "subjects")}
        rows.append(row)
    body = yaml.safe_dump({"format": FORMAT, "decisions": rows}, sort_keys=False, allow_unicode=True, width=120)
    return _HEADER + body


def parse_decisions(text: str, *, source: str = "<text>") -> list[Decision]:
    """Decisions from YAML text; DecisionFileError names the first bad entry and field."""
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise DecisionFileError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or data.get("format", FORMAT) != FORMAT:
        raise DecisionFileError(f"{source}: not a kgkit decisions file (want format: {FORMAT})")
    rows = data.get("decisions") or []
    if not isinstance(rows, list):
        raise DecisionFileError(f"{source}: 'decisions' must be a list")
    out, seen = [], {}
    for n, row in enumerate(rows, 1):
        label = f"entry {n} ({row.get('id') or 'no id'})" if isinstance(row, dict) else f"entry {n}"
        if not isinstance(row, dict):
            raise DecisionFileError(f"{source}: {label}: not a mapping")
        try:
            d = Decision.model_validate(_timestamps_as_text(row))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "entry"
            raise DecisionFileError(f"{source}: {label}: {where}: {err['msg'].removeprefix('Value error, ')}") from None
        if d.id in seen:
            raise DecisionFileError(f"{source}: {label}: a second decision about the same subjects as entry {seen[d.id]}")
        seen[d.id] = n
        out.append(d)
    return out


def _timestamps_as_text(row: dict[str, Any]) -> dict[str, Any]:
    """YAML turns unquoted dates into date objects; decisions keep ISO text."""
    at = row.get("at")
    return {**row, "at": at.isoformat()} if hasattr(at, "isoformat") else row


def read_decisions(workspace: str | os.PathLike[str]) -> list[Decision]:
    """The workspace's decisions ([] when there is no file yet)."""
    path = Path(workspace) / DECISIONS_FILE
    if not path.exists():
        return []
    return parse_decisions(path.read_text(encoding="utf-8"), source=str(path))


def write_decisions(workspace: str | os.PathLike[str], decisions: Sequence[Decision]) -> Path:
    """Write the decisions file atomically (one decision per subject: person over llm over policy)."""
    from kgkit.io import atomic_write_text
    from kgkit.stages.resolve.decisions import combine

    path = Path(workspace) / DECISIONS_FILE
    atomic_write_text(path, dump_decisions(combine(decisions)))
    return path


def write_candidates(workspace: str | os.PathLike[str], candidates: Sequence[Any]) -> Path:
    from kgkit.io import write_jsonl

    path = Path(workspace) / CANDIDATES_FILE
    write_jsonl(path, [c.model_dump(mode="json") for c in candidates])
    return path


def read_candidates(workspace: str | os.PathLike[str]) -> list[Any]:
    from kgkit.io import read_jsonl
    from kgkit.stages.resolve.scoring import MergeCandidate

    path = Path(workspace) / CANDIDATES_FILE
    return [MergeCandidate.model_validate(r) for r in read_jsonl(path)] if path.exists() else []


def journal_paths(workspace: str | os.PathLike[str]) -> list[Path]:
    """Applied journals, oldest first."""
    return sorted((Path(workspace) / JOURNAL_DIR).glob("[0-9][0-9][0-9][0-9].json"))


def write_journal(workspace: str | os.PathLike[str], journal: Any) -> Path:
    from kgkit.io import write_json

    existing = journal_paths(workspace)
    number = int(existing[-1].stem) + 1 if existing else 1
    path = Path(workspace) / JOURNAL_DIR / f"{number:04d}.json"
    write_json(path, journal.model_dump(mode="json"))
    return path


def read_journal(path: str | os.PathLike[str]) -> Any:
    from kgkit.io import read_json
    from kgkit.stages.resolve.apply import Journal

    return Journal.model_validate(read_json(path))
