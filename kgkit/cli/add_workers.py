"""The extraction workers of `kgkit add` (kgkit.workflows.prefork): forked as the process starts, from its
command line, before typer, pandas or spaCy is imported (`fork_for_add`, called by kgkit.cli.main), or when
the command runs (`workers_for`: CliRunner, or a command line this cannot read). Only the standard library
loads here.

>>> add_arguments(["a.txt", "b.txt", "-w", "ws", "--json"])
(['a.txt', 'b.txt'], 'ws')
>>> add_arguments(["--workspace=ws", "--remove", "c.txt", "--lock-timeout", "5", "--", "-odd.txt"])
(['-odd.txt'], 'ws')
>>> add_arguments(["-wws", "a.txt"]), add_arguments(["a.txt", "-w"])
((['a.txt'], 'ws'), None)
>>> add_arguments(["a.txt", "--help"]) is None, add_arguments(["a.txt", "--unknown", "-w", "ws"]) is None
(True, True)
"""

from __future__ import annotations

import atexit
import json
from pathlib import Path
from typing import Any

__all__ = ["MAX_WORKERS", "add_arguments", "extraction_workers", "fork_for_add", "workers_for"]

MAX_WORKERS = 8
_WITH_VALUE = {"-w": "workspace", "--workspace": "workspace", "--remove": None, "--lock-timeout": None}
_FLAGS = {"--no-index", "--json"}
_EARLY: list[tuple[Path, Any]] = []  # (workspace as named on the command line, ForkedWorkers)


def add_arguments(args: list[str]) -> tuple[list[str], str | None] | None:
    """(files, workspace) from the arguments of `kgkit add` (after "add"); None for anything this does not
    read for certain (--help, an unknown option, a missing value): typer then reads them as usual."""
    files: list[str] = []
    workspace = None
    it = iter(args)
    for arg in it:
        if arg == "--":
            files.extend(it)
            break
        if not arg.startswith("-") or arg == "-":
            files.append(arg)
            continue
        if arg.startswith("-w") and len(arg) > 2:  # -wWS: the value attached, as click reads it
            workspace = arg[2:]
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _FLAGS and not eq:
            continue
        if name not in _WITH_VALUE:
            return None
        if not eq:
            value = next(it, None)
            if value is None:
                return None
        if _WITH_VALUE[name] == "workspace":
            workspace = value
    return files, workspace


def extraction_workers(workspace: Path) -> Any:
    """Offline extraction workers forked now, while this process is small (kgkit.workflows.prefork): they import
    spaCy and load its model while this process imports pandas and reads the workspace, then parse the new
    chunks on every core. None when they cannot help: no workspace there, not extracted offline, spaCy loaded
    already, threads running, or one core only (the add then extracts in this process, as a library call does)."""
    from kgkit.workflows.prefork import ForkedWorkers, available_cores, fork_is_safe, warm_offline

    try:
        config = json.loads((workspace / "manifest.json").read_text(encoding="utf-8")).get("config") or {}
    except (OSError, ValueError, AttributeError):
        return None
    if config.get("model") or not str(config.get("extractor", "")).startswith("offline:") or not fork_is_safe():
        return None
    return ForkedWorkers.start(warm_offline(workspace / "cache"), workers=min(available_cores(), MAX_WORKERS))


def fork_for_add(args: list[str]) -> None:
    """Fork the workers for `kgkit add ARGS` now when the arguments name files and a workspace (kept for
    `workers_for`; ended at exit if the command never takes them)."""
    parsed = add_arguments(args)
    if parsed is None or not parsed[0] or parsed[1] is None:
        return
    workers = extraction_workers(Path(parsed[1]))
    if workers is not None:
        if not _EARLY:
            atexit.register(_close_early)
        _EARLY.append((Path(parsed[1]), workers))


def workers_for(workspace: Path, files: list[Path]) -> Any:
    """The workers forked for this workspace as the process started, else forked now when `files` are to be
    extracted; None when workers cannot help."""
    while _EARLY:
        path, workers = _EARLY.pop()
        if path == workspace:
            _close_early()
            return workers
        workers.close()
    return extraction_workers(workspace) if files else None


def _close_early() -> None:
    while _EARLY:
        _EARLY.pop()[1].close()
