"""kgkit command line: a thin layer over the workflows (kgkit.workflows); every command is registered below.

Imports stay inside commands so `kgkit --help` starts fast (no pandas, numpy, torch, spaCy or litellm); `app`
itself (typer and the commands' modules) is built on first use (`main`).
Exit codes: 0 complete, 1 finished with failures (listed), 2 usage or configuration error (nothing done).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["app", "main"]

_APP: list[Any] = []


def _build() -> Any:
    """The typer app with every command registered (once per process)."""
    if _APP:
        return _APP[0]
    import typer

    from kgkit.cli import add, cache, export, graphdb, mcp, narrate, resolve, run, search, split, topology

    app = typer.Typer(add_completion=False, no_args_is_help=True,
                      help="kgkit: documents -> a knowledge graph you can see, question, correct and reproduce.")
    cache_app = typer.Typer(no_args_is_help=True, help="Inspect, prune, export and import the content-hash cache.")
    app.add_typer(cache_app, name="cache")
    commands = {
        app: [("run", run.run), ("add", add.add_command), ("extract", run.extract), ("discover", run.discover),
              ("build", run.build), ("view", run.view), ("domains", run.domains),
              ("topology", topology.topology_command), ("query", topology.query_command),
              ("index", search.index_command), ("search", search.search_command),
              ("resolve", resolve.resolve_cmd), ("review", resolve.review_cmd), ("apply", resolve.apply_cmd),
              ("undo", resolve.undo_cmd), ("split", split.split_command),
              ("narrate", narrate.narrate_command), ("mcp", mcp.mcp_command),
              ("export", export.export), ("import-siftkg", export.import_siftkg),
              ("push", graphdb.push_command), ("pull", graphdb.pull_command)],
        cache_app: [("info", cache.cache_info), ("prune", cache.cache_prune), ("export", cache.cache_export),
                    ("import", cache.cache_import)],
    }
    for group, entries in commands.items():
        for name, function in entries:
            group.command(name)(function)
    _APP.append(app)
    return app


def __getattr__(name: str) -> Any:
    """`kgkit.cli.app`: the typer app, built on first use."""
    if name == "app":
        return _build()
    raise AttributeError(f"module 'kgkit.cli' has no attribute {name!r}")


def main() -> None:
    import os

    # spaCy without torch behind it (kgkit.extractors.offline.extractor.WITHOUT_TORCH): 1-2 s off every command
    # that extracts offline; inherited by its worker processes
    os.environ.setdefault("KGKIT_SPACY_WITHOUT_TORCH", "1")
    if sys.argv[1:2] == ["add"]:
        import gc

        # no automatic cyclic garbage collection in this short process (ended without teardown) nor its
        # workers: it walked every object over and over (0.3 CPU s of an add, 0.07 s in a worker) and freed
        # next to nothing. A threshold of 0, not gc.disable(): srsly turns collection back on after each load.
        gc.set_threshold(0)
        _exit_without_teardown(_build())
    _build()()


def _exit_without_teardown(app: Any) -> None:
    """Run `app`, then end the process without the interpreter's teardown: freeing every module and object
    (pandas, networkx, the graph ...) takes about 0.3 s after `kgkit add` is done, longer than some of its
    steps. The exit handlers still run (atexit: the workers, logging, temporary files) and the output is
    flushed first; the exit code is the command's. An exception other than SystemExit ends it as usual."""
    import atexit
    import os

    try:
        app()
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # pragma: no cover - not CPython
        raise SystemExit(code)
    if code is None:
        code = 0
    elif not isinstance(code, int):  # SystemExit("message"): printed, status 1, as Python does
        print(code, file=sys.stderr)
        code = 1
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: Python's own exit would say 120
            code = code or 120
    os._exit(code)
