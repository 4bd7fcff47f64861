"""Options and helpers every command shares, declared once: workspace, lock timeout, JSON output, the LLM
options, chunk sizes; parsing of sizes, durations and times; opening a workspace and reporting failures.

Exit codes: 0 complete, 1 finished with failures (listed), 2 usage or configuration error (nothing done).
Only typer and the standard library load here, so `kgkit --help` stays fast.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer

from kgkit.core import constants

__all__ = ["CONCURRENCY", "JSON", "LLM_FLAGS", "LOCK_TIMEOUT", "WORKSPACE", "duration", "fail", "learned_at",
           "llm_options", "open_cache", "open_workspace", "size", "with_llm_options", "workspace_errors"]

WORKSPACE = typer.Option(..., "-w", "--workspace", help="Workspace folder (graph.json, run.json, index, cache ...).")
OUTPUT = typer.Option(..., "-o", "--output", help="Workspace folder to write (graph.json, graph.html, run.json, cache).")
LOCK_TIMEOUT = typer.Option(60.0, "--lock-timeout", help="Seconds to wait while another kgkit process writes the workspace.")
JSON = typer.Option(False, "--json", help="Print the result as JSON.")
DOMAIN = typer.Option("general", "--domain", "-d", help="Bundled domain name or path to a domain YAML.")
MAX_SIZE = typer.Option("20MB", help="Files larger than this are reported, not read.")
CHUNK_CHARS = typer.Option(constants.MAX_CHUNK_CHARS, help="Maximum characters per chunk.")
OVERLAP_CHARS = typer.Option(constants.OVERLAP_CHARS, help="Characters of whole sentences repeated between chunks.")
VIEW_NODES = typer.Option(constants.VIEW_NODES, help="Most-connected entities shown in graph.html.")
NO_VIEW = typer.Option(False, "--no-view", help="Do not write graph.html.")
LEARNED_AT = typer.Option(None, "--learned-at", help="Graph time the facts were learned (ISO 8601, or 'now'): the relations' created_at. Empty by default, so re-runs give byte-identical graphs.")
SEED = typer.Option(0, help="Seed for community detection.")
EXECUTOR = typer.Option("serial", "--executor", help="Where the map runs (extraction for run, embedding for index): serial, threads:N, local:N (a Dask LocalCluster with N worker processes) or dask (a running Dask scheduler, see --scheduler).")
CACHE = typer.Option(None, "--cache", help="Cache folder or fsspec URL (file:///shared/cache, s3://bucket/cache when s3fs is installed; default: WORKSPACE/cache).")
SCHEDULER = typer.Option(None, "--scheduler", help="Dask scheduler address for --executor dask (e.g. tcp://10.0.0.5:8786); workers need the same kgkit installed.")

# the LLM options (kgkit.llm.options.LLMOptions), shared by run, extract, discover and narrate
MODEL = typer.Option(None, "--model", "-m", help="litellm model string (e.g. openai/gpt-4o-mini, ollama/llama3.1); the offline extractor without it.")
MAX_COST = typer.Option(None, "--max-cost", help="Hard budget cap in dollars for every LLM call of the command.")
PRICE_IN = typer.Option(None, "--price-in", help="Input price in dollars per 1M tokens (models litellm has no price for).")
PRICE_OUT = typer.Option(None, "--price-out", help="Output price in dollars per 1M tokens.")
FREE = typer.Option(False, "--free", help="The model is local/free (Ollama, vLLM): no price needed.")
API_BASE = typer.Option(None, "--api-base", help="Provider URL (e.g. http://localhost:11434 for Ollama).")
CONCURRENCY = typer.Option(8, "--concurrency", help="LLM requests in flight at most.")
RPM = typer.Option(None, "--rpm", help="LLM requests per minute at most.")
TPM = typer.Option(None, "--tpm", help="LLM tokens per minute at most.")
NO_CONTEXT = typer.Option(False, "--no-context", help="No shared document summary in extraction prompts.")
TIMEOUT = typer.Option(None, "--timeout", min=0.1, help="Seconds to wait for one LLM answer (default 120); a timed-out request is charged its worst case and tried once more.")

LLM_FLAGS: dict[str, tuple[Any, Any]] = {  # parameter -> (type, option): the LLM block, declared once
    "model": (str | None, MODEL), "max_cost": (float | None, MAX_COST), "price_in": (float | None, PRICE_IN),
    "price_out": (float | None, PRICE_OUT), "free": (bool, FREE), "api_base": (str | None, API_BASE),
    "concurrency": (int, CONCURRENCY), "rpm": (int | None, RPM), "tpm": (int | None, TPM),
    "no_context": (bool, NO_CONTEXT), "timeout": (float | None, TIMEOUT)}
REQUIRED_MODEL = typer.Option(..., "--model", "-m", help="litellm model string, e.g. openai/gpt-4o-mini, ollama/llama3.1.")

_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2, "g": 1024**3, "gb": 1024**3}
_DURATIONS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def size(text: str) -> int:
    """'20MB' -> bytes.

    >>> size("20MB"), size("1.5k")
    (20971520, 1536)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise typer.BadParameter(f"not a size: {text!r} (e.g. 500KB, 20MB, 1GB)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def duration(text: str) -> float:
    """'30d' -> seconds.

    >>> duration("12h")
    43200.0
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text)
    if not m:
        raise typer.BadParameter(f"not a duration: {text!r} (e.g. 12h, 30d, 2w)")
    return float(m.group(1)) * _DURATIONS[m.group(2)]


def learned_at(text: str | None) -> str | None:
    """--learned-at: an ISO 8601 time, or "now" (UTC, to the second). The clock is read here, in the driver."""
    from datetime import datetime

    if text is None:
        return None
    if text == "now":
        return now()
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(f"not an ISO 8601 time: {text!r} (e.g. 2026-01-31 or 2026-01-31T12:00:00Z, or now)") from None
    return text


def now() -> str:
    """The current UTC time, ISO 8601 to the second (decisions and --learned-at now)."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `message` on stderr (control characters from paths or documents shown as escapes) and exit with
    `code` (2: usage or configuration, nothing done)."""
    from kgkit.cli.display import plain

    typer.echo(plain(message, newlines=True), err=True)
    raise typer.Exit(code)


def llm_options(model: str | None, **fields: Any) -> Any:
    """LLMOptions for the command's LLM flags, or None without --model."""
    if model is None:
        return None
    from kgkit.llm.options import LLMOptions

    return LLMOptions(model=model, **{k: v for k, v in fields.items() if v is not None})


def with_llm_options(*flags: str, model_required: bool = False, **fixed: Any) -> Callable[[Callable[..., Any]], Any]:
    """Give a typer command the LLM options `flags` (names of LLM_FLAGS; "model" always) declared once here; the
    command receives them as one keyword, `llm`: the LLMOptions they make (`fixed` fields added, e.g.
    max_tokens), or None without --model. `model_required`: --model must be given (discover).

    >>> @with_llm_options("max_cost", max_tokens=1024)
    ... def cmd(x: int = 1, *, llm=None):
    ...     return llm
    >>> list(inspect.signature(cmd).parameters), cmd(x=1, model=None, max_cost=None)
    (['x', 'model', 'max_cost'], None)
    >>> cmd(x=1, model="m", max_cost=0.5).max_tokens
    1024
    """
    names = ["model", *(f for f in flags if f != "model")]

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command)
        kept = [p for p in signature.parameters.values() if p.name != "llm"]
        added = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=option)
                 for n, (kind, option) in LLM_FLAGS.items() if n in names]
        if model_required:
            added[0] = added[0].replace(annotation=str, default=REQUIRED_MODEL)

        @functools.wraps(command)
        def with_llm(**values: Any) -> Any:
            given = {n: values.pop(n) for n in names}
            if "no_context" in given:
                given["document_context"] = not given.pop("no_context")
            return command(**values, llm=llm_options(given.pop("model"), **given, **fixed))

        with_llm.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in kept] + added)
        return with_llm

    return wrap


def open_workspace(path: Path, *, create: bool = False) -> Any:
    """The Workspace at `path` (exit 2 when it is not one); prints the notes opening it produced (a rolled
    back write, removed temporary files)."""
    from kgkit.cli.display import plain
    from kgkit.io.workspace import Workspace, WorkspaceError

    try:
        ws = Workspace(path, create=create)
    except WorkspaceError as exc:
        fail(f"error: {exc}")
    for note in ws.notes:
        typer.echo(plain(note, newlines=True), err=True)
    return ws


def open_cache(location: str | None, ws: Any) -> Any:
    """The Cache for --cache (a folder or an fsspec URL), else the workspace's; exit 2 when the URL cannot be
    opened (an unknown protocol, or its package missing)."""
    from kgkit.io.cache import Cache, CacheLocationError

    try:
        return Cache(location if location is not None else ws.cache_dir)
    except CacheLocationError as exc:
        fail(f"error: {exc}")


def workspace_and_graph(path: Path) -> tuple[Any, Path | None]:
    """A workspace folder, or a graph file: (Workspace or None, the graph file when it is a plain file)."""
    if path.is_dir():
        return open_workspace(path), None
    if not path.is_file():
        fail(f"no such graph or workspace: {path}")
    if path.name == "graph.json" and (path.parent / "manifest.json").is_file():
        return open_workspace(path.parent), None
    return None, path


def read_graph_arg(path: Path) -> Any:
    """The graph behind a GRAPH argument: a workspace's current graph, or a graph.json file."""
    from kgkit import io
    from kgkit.workflows.graph import read_graph

    ws, file = workspace_and_graph(path)
    try:
        return read_graph(ws) if ws is not None else io.load_graph(file)  # type: ignore[arg-type]
    except FileNotFoundError:
        fail(f"no graph in {path} (run `kgkit run DOCS -o {path}` first)")


@contextmanager
def workspace_errors() -> Iterator[None]:
    """Turn the errors a workflow raises for bad input or a busy workspace into a message and exit code 2 (a
    Dask scheduler that cannot be reached, a cache URL that cannot be opened: configuration errors too)."""
    from kgkit.io.workspace import WorkspaceError

    try:
        yield
    except WorkspaceError as exc:
        fail(f"error: {exc}")
    except FileNotFoundError as exc:
        fail(f"error: {exc}")
    except Exception as exc:
        if isinstance(exc, _configuration_errors()):
            fail(f"error: {exc}")
        raise


_CONFIGURATION_ERRORS = {  # module -> exception class: a usage or configuration error (PreflightError: the model failed its check)
    "kgkit.core.domain": "DomainError", "kgkit.llm.options": "LLMOptionError", "kgkit.llm.errors": "PreflightError",
    "kgkit.workflows.executors": "ExecutorSpecError", "kgkit.io.cache": "CacheLocationError"}


def _configuration_errors() -> tuple[type[BaseException], ...]:
    """The configuration errors' classes, from the modules already loaded: an error whose module was never
    imported cannot have been raised, so a command that uses no LLM never imports kgkit.llm for this.

    >>> from kgkit.io.cache import CacheLocationError
    >>> CacheLocationError in _configuration_errors()
    True
    """
    import sys

    return tuple(getattr(sys.modules[module], name) for module, name in _CONFIGURATION_ERRORS.items()
                 if module in sys.modules)
