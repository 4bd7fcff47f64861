"""Decisions and journals on disk: a git-friendly YAML file and numbered JSON journals in the workspace.

Parsing and dumping are pure (text in, records out); reading and writing go through the Workspace
(kgkit.io.workspace), so a write is a generation of its own under the writer lock. The decisions file is one entry per decision, sorted by id, fields in a fixed order, so a
reviewer's change is a small diff. A bad entry fails the whole file with an error naming the entry
(index and id) and the field, and nothing is applied.

    workspace/decisions.yaml           every decision (policy, person, llm)
    workspace/resolve/candidates.jsonl the last resolution run's candidates (what review shows)
    workspace/journal/0001.json ...    one journal per apply; undo pops the newest

>>> from kgkit.core.decisions import person_decision
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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from kgkit.core.decisions import Decision, Journal, MergeCandidate, combine
from kgkit.core.records import safe_load_yaml
from kgkit.io.workspace import CANDIDATES as CANDIDATES_FILE
from kgkit.io.workspace import DECISIONS as DECISIONS_FILE

FORMAT = "kgkit.decisions/1"
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
        row = {k: data[k] for k in _ORDER if data[k] not in (None, "", {}, []) or k in ("id", "kind", "subjects")}
        rows.append(row)
    body = yaml.safe_dump({"format": FORMAT, "decisions": rows}, sort_keys=False, allow_unicode=True, width=120)
    return _HEADER + body


def parse_decisions(text: str, *, source: str = "<text>") -> list[Decision]:
    """Decisions from YAML text; DecisionFileError names the first bad entry and field."""
    try:
        data = safe_load_yaml(text) or {}
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


def _workspace(workspace: Any) -> Any:
    from kgkit.io.workspace import Workspace

    return workspace if isinstance(workspace, Workspace) else Workspace(workspace)


def read_decisions(workspace: Any) -> list[Decision]:
    """The workspace's decisions ([] when there is no file yet). `workspace`: a Workspace or its folder."""
    ws = _workspace(workspace)
    if not ws.exists(DECISIONS_FILE):
        return []
    return parse_decisions(ws.read_text(DECISIONS_FILE), source=str(ws.path(DECISIONS_FILE)))


def decisions_text(decisions: Sequence[Decision]) -> str:
    """The decisions file's text: one decision per subject (person over llm over policy), sorted by id."""
    return dump_decisions(combine(decisions))


def write_decisions(workspace: Any, decisions: Sequence[Decision], *, lock_timeout: float = 60.0) -> Path:
    """Commit the decisions file (a generation of its own, under the workspace's writer lock)."""
    ws = _workspace(workspace)
    with ws.writer(lock_timeout=lock_timeout, step="decisions"):
        gen = ws.begin("decisions")
        gen.write_text(DECISIONS_FILE, decisions_text(decisions))
        gen.commit()
    return ws.path(DECISIONS_FILE)


def candidates_rows(candidates: Sequence[Any]) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json") for c in candidates]


def read_candidates(workspace: Any) -> list[MergeCandidate]:
    """The last resolution run's candidates ([] before the first)."""
    ws = _workspace(workspace)
    return [MergeCandidate.model_validate(r) for r in ws.read_jsonl(CANDIDATES_FILE)] if ws.exists(CANDIDATES_FILE) else []


def read_journal(workspace: Any, name: str) -> Journal:
    """One applied journal (`name` as in Workspace.journal_names())."""
    return Journal.model_validate(_workspace(workspace).read_json(name))
