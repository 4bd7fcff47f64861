"""Everything a kgkit notebook needs, through one import: ``import kgkit.notebook as kn``.

A marimo notebook's setup is marimo plus this module; its one configuration cell opens a Workspace and
names the corpus, the domain and the model::

    with app.setup:
        import marimo as mo

        import kgkit.notebook as kn

    @app.cell
    def config():
        workspace = kn.open_workspace("tour")  # --workspace DIR | $KGKIT_WORKSPACE | ~/.cache/kgkit/notebooks/tour
        corpus_dir = kn.corpus_dir(workspace)  # --corpus DIR | $KGKIT_CORPUS | the workspace's last corpus | demo
        domain = kn.load_domain(kn.setting("domain", "general", workspace=workspace))
        model = kn.setting("model", workspace=workspace)  # an LLM (litellm name) or None: the offline extractor
        cache = kn.Cache(workspace.cache_dir)
        extractor = kn.make_extractor(model, cache=cache)
        return cache, corpus_dir, domain, extractor, model, workspace

Settings come from the notebook's command line (``marimo edit nb.py -- --workspace DIR``, or
``python nb.py --workspace DIR``), else from ``KGKIT_<NAME>`` environment variables, else from what the
workspace's last run used (its manifest), else the default; nothing is written inside the repository.

Re-exported (loaded on first use, so ``import kgkit.notebook`` stays light):

- workspace and files: `Workspace`, `WorkspaceError`, `DECISIONS`, `Cache`, `Graph`, `load_domain`, `read_corpus`
- workflows over a Workspace (the way the CLI runs a step): `run`, `extract`, `build`, `communities`, `view`,
  `read_graph`, `index`, `search`, `resolve`, `decisions`, `record`, `apply`, `undo`, `narrate`, and the
  compositions they are made of, `load_corpus` and `extract_documents`; `open_graph` (below) runs `run` only
  when the workspace's graph is not of the notebook's corpus
- stages (to show their inner values): `load_documents`, `chunk_document`, `extract_texts`, `locate`,
  `merge_document`, `build_graph`, `communities_of`, `detect_communities`, `assign_communities`,
  `HashingEmbedder`, `MiniLMEmbedder`, `embed_rows`, `merge_candidates`, `decide`, `pending`,
  `apply_decisions`, `undo_journal` (the stage `kgkit.stages.resolve.undo`), `SearchIndex`, `items_from_graph`,
  `items_from_chunks`, `entities_by_chunk`, `topology`, `neighbourhood`, `diff_extractions`, `OfflineExtractor`
- views and widgets: `graph_html`, `diff_html`, `cluster_html`, `cluster_points`, `kmeans_clusters`, `project`,
  `ClusterMap`, `Explorer` (the graph explorer as a widget), `MergeReview`, `actions_to_decisions`
- tables a person reads (`kgkit.notebook.tables`: names and document paths first, hash ids last):
  `hits_table`, `entity_details`, `topology_tables`, `community_colours`, `document_names`

>>> import kgkit.notebook as kn
>>> kn.setting("domain", "general", args={}, environ={"KGKIT_DOMAIN": "people_orgs_events"})
'people_orgs_events'
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    import numpy as np
    import pandas as pd

    from kgkit.core.graph import Graph
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.io.cache import Cache
    from kgkit.io.files import load_domain, read_corpus
    from kgkit.io.workspace import DECISIONS, Workspace, WorkspaceError
    from kgkit.notebook.tables import community_colours, document_names, entity_details, hits_table, topology_tables
    from kgkit.stages.build import build_graph
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.communities import assign_communities, communities_of, detect_communities
    from kgkit.stages.diff import diff_extractions
    from kgkit.stages.embed import HashingEmbedder, MiniLMEmbedder, embed_rows
    from kgkit.stages.extract import Extractor, extract_texts, locate, merge_document
    from kgkit.stages.load import load_documents
    from kgkit.stages.resolve import apply_decisions, decide, merge_candidates, pending
    from kgkit.stages.resolve import undo as undo_journal
    from kgkit.stages.search import SearchIndex, entities_by_chunk, items_from_chunks, items_from_graph
    from kgkit.stages.topology import neighbourhood, topology
    from kgkit.views.cluster import cluster_html, cluster_points, kmeans_clusters, project
    from kgkit.views.diff import diff_html
    from kgkit.views.graph_page import graph_html
    from kgkit.views.widgets import ClusterMap, Explorer, MergeReview, actions_to_decisions
    from kgkit.workflows.corpus import extract_documents, load_corpus
    from kgkit.workflows.graph import build, communities, read_graph, view
    from kgkit.workflows.index import index, search
    from kgkit.workflows.narrate import narrate
    from kgkit.workflows.resolve import apply, decisions, record, resolve, undo
    from kgkit.workflows.run import extract, run

# name -> (module, attribute): loaded on first use
_LAZY: dict[str, tuple[str, str]] = {
    **{n: ("kgkit.io.workspace", n) for n in ("Workspace", "WorkspaceError", "DECISIONS")},
    "Cache": ("kgkit.io.cache", "Cache"),
    "Graph": ("kgkit.core.graph", "Graph"),
    "load_domain": ("kgkit.io.files", "load_domain"),
    "read_corpus": ("kgkit.io.files", "read_corpus"),
    # workflows
    **{n: ("kgkit.workflows.run", n) for n in ("run", "extract")},
    **{n: ("kgkit.workflows.graph", n) for n in ("build", "communities", "view", "read_graph", "import_graph")},
    **{n: ("kgkit.workflows.index", n) for n in ("index", "search")},
    **{n: ("kgkit.workflows.resolve", n) for n in ("resolve", "decisions", "record", "apply", "undo")},
    "narrate": ("kgkit.workflows.narrate", "narrate"),
    **{n: ("kgkit.workflows.corpus", n) for n in ("load_corpus", "extract_documents")},
    # stages
    "load_documents": ("kgkit.stages.load", "load_documents"),
    "chunk_document": ("kgkit.stages.chunk", "chunk_document"),
    **{n: ("kgkit.stages.extract", n) for n in ("extract_texts", "locate", "merge_document")},
    "build_graph": ("kgkit.stages.build", "build_graph"),
    **{n: ("kgkit.stages.communities", n) for n in ("communities_of", "detect_communities", "assign_communities")},
    **{n: ("kgkit.stages.embed", n) for n in ("HashingEmbedder", "MiniLMEmbedder", "embed_rows")},
    **{n: ("kgkit.stages.resolve", n) for n in ("merge_candidates", "decide", "pending", "apply_decisions")},
    "undo_journal": ("kgkit.stages.resolve", "undo"),
    **{n: ("kgkit.stages.search", n) for n in ("SearchIndex", "items_from_graph", "items_from_chunks",
                                               "entities_by_chunk")},
    **{n: ("kgkit.stages.topology", n) for n in ("topology", "neighbourhood")},
    "diff_extractions": ("kgkit.stages.diff", "diff_extractions"),
    "OfflineExtractor": ("kgkit.extractors.offline", "OfflineExtractor"),
    # views and widgets
    "graph_html": ("kgkit.views.graph_page", "graph_html"),
    "diff_html": ("kgkit.views.diff", "diff_html"),
    **{n: ("kgkit.views.cluster", n) for n in ("cluster_html", "cluster_points", "kmeans_clusters", "project")},
    **{n: ("kgkit.views.widgets", n) for n in ("ClusterMap", "Explorer", "MergeReview", "actions_to_decisions")},
    # tables a person reads (names and document paths first, hash ids last)
    **{n: ("kgkit.notebook.tables", n) for n in ("community_colours", "document_names", "entity_details",
                                                 "hits_table", "topology_tables")},
}

__all__ = [
    "DECISIONS", "DEMO_CORPUS", "Cache", "ClusterMap", "Explorer", "Graph", "HashingEmbedder", "MergeReview",
    "MiniLMEmbedder", "OfflineExtractor", "SearchIndex", "Workspace", "WorkspaceError", "actions_to_decisions", "apply",
    "apply_decisions", "assign_communities", "build", "build_graph", "chunk_document", "cli_args", "cluster_html",
    "cluster_points", "communities", "communities_of", "community_colours", "corpus_dir", "decide", "decisions",
    "default_workspace_dir", "demo_corpus", "detect_communities", "diff_extractions", "diff_html", "document_names",
    "embed_names", "embed_rows", "entities_by_chunk", "entity_details", "extract", "extract_documents",
    "extract_texts", "frame", "graph_html", "hits_table", "index", "items_from_chunks", "items_from_graph",
    "kmeans_clusters", "load_corpus", "load_documents", "load_domain", "locate", "make_extractor", "merge_candidates",
    "merge_document", "narrate", "neighbourhood", "now", "open_graph", "open_workspace", "pending", "project",
    "read_corpus", "read_graph", "record", "resolve", "run", "search", "setting", "table", "topology",
    "topology_tables", "undo", "undo_journal", "view"
]

DEMO_CORPUS = Path(__file__).resolve().parents[2] / "data" / "demo" / "sotu_1934_1946"
"""The bundled demo corpus (State of the Union addresses 1934-1946) in a checkout of the repository."""

# a setting's key in the manifest's run configuration, where it differs from the setting's name
_MANIFEST_KEYS = {"domain": "domain_source"}


def __getattr__(name: str) -> Any:
    """Load a re-exported name's module on first use."""
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(import_module(module), attribute)
        globals()[name] = value  # next time: a plain attribute
        return value
    raise AttributeError(f"module 'kgkit.notebook' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


# --------------------------------------------------------------------------- settings and the workspace


def cli_args() -> dict[str, Any]:
    """The notebook's command-line arguments (`mo.cli_args()`), {} outside a running marimo notebook (Jupyter,
    a plain script): ``marimo edit nb.py -- --workspace DIR`` and ``python nb.py --workspace DIR`` both give
    {"workspace": "DIR"}."""
    mo = sys.modules.get("marimo")  # a marimo notebook has imported it; never import it here
    if mo is None:
        return {}
    try:
        args = mo.cli_args()
    except Exception:  # no marimo runtime (marimo imported in Jupyter or a script)
        return {}
    return {key: args.get(key) for key in args}


def setting(name: str, default: str | None = None, *, workspace: Any = None,
            args: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """A notebook setting: ``--NAME VALUE`` on the notebook's command line, else the ``KGKIT_NAME``
    environment variable, else what the `workspace`'s last run used (its manifest: corpus, domain, model),
    else `default`. `args` / `environ` replace the command line / the environment (tests).

    >>> setting("model", args={"model": "openai/gpt-4o-mini"}, environ={"KGKIT_MODEL": "other"})
    'openai/gpt-4o-mini'
    >>> setting("model", args={}, environ={}) is None
    True
    """
    given = (cli_args() if args is None else args).get(name)
    if isinstance(given, list):  # given twice: the last one counts
        given = given[-1]
    if given is not None and given is not True and given != "":  # `--name` alone is no value
        return str(given)
    value = (os.environ if environ is None else environ).get(f"KGKIT_{name.upper()}")
    if value:
        return value
    if workspace is not None:
        recorded = workspace.manifest().config.get(_MANIFEST_KEYS.get(name, name))
        if recorded:
            return str(recorded)
    return default


def _user_cache_dir(environ: Mapping[str, str]) -> Path:
    """The platform's per-user cache folder (XDG on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows)."""
    if sys.platform == "win32":
        return Path(environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def default_workspace_dir(notebook: str, *, environ: Mapping[str, str] | None = None) -> Path:
    """Where a notebook's workspace goes when none is given: ``<user cache>/kgkit/notebooks/<notebook>``
    (e.g. ``~/.cache/kgkit/notebooks/tour``), or ``<system temp>/kgkit-notebooks/<notebook>`` when the user
    cache cannot be written. Never a folder inside the repository."""
    env = os.environ if environ is None else environ
    for base in (_user_cache_dir(env) / "kgkit" / "notebooks", Path(tempfile.gettempdir()) / "kgkit-notebooks"):
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(base, os.W_OK):
            return base / notebook
    raise OSError(f"no writable folder for the {notebook!r} workspace: pass --workspace DIR or set KGKIT_WORKSPACE")


def open_workspace(notebook: str, folder: str | os.PathLike[str] | None = None, *,
                   args: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Workspace:
    """The Workspace a notebook reads and writes, created if absent: `folder` when given, else
    ``--workspace DIR`` on the notebook's command line, else ``$KGKIT_WORKSPACE``, else
    `default_workspace_dir(notebook)`. Its cache is ``workspace.cache_dir``.

    >>> import tempfile
    >>> ws = open_workspace("tour", args={"workspace": tempfile.mkdtemp()})
    >>> ws.cache_dir.name
    'cache'
    """
    from kgkit.io.workspace import Workspace

    chosen = folder or setting("workspace", args=args, environ=environ)
    root = Path(chosen).expanduser() if chosen else default_workspace_dir(notebook, environ=environ)
    return Workspace(root)


def demo_corpus() -> Path:
    """The demo corpus of a repository checkout (FileNotFoundError elsewhere: give --corpus DIR)."""
    if not DEMO_CORPUS.is_dir():
        raise FileNotFoundError(f"{DEMO_CORPUS}: no demo corpus here (an installed kgkit): pass --corpus DIR "
                                "or set KGKIT_CORPUS")
    return DEMO_CORPUS


def corpus_dir(workspace: Any = None, *, args: Mapping[str, Any] | None = None,
               environ: Mapping[str, str] | None = None) -> Path:
    """The corpus folder: ``--corpus DIR``, else ``$KGKIT_CORPUS``, else the corpus the `workspace`'s last run
    read (so a notebook opened on a CLI workspace works on that workspace's documents), else the demo corpus."""
    chosen = setting("corpus", workspace=workspace, args=args, environ=environ)
    return Path(chosen).expanduser() if chosen else demo_corpus()


def open_graph(workspace: Workspace, corpus: str | os.PathLike[str], *, domain: Any, extractor: Extractor,
               cache: Cache | None = None, **run_options: Any) -> Graph:
    """The workspace's graph of `corpus`, made by the `run` workflow only when needed.

    The current graph is kept (with the merges applied to it since) when the workspace's last run read this
    corpus with this domain and extractor and the corpus still holds the same documents, or when the graph
    came from elsewhere (an import: no corpus recorded); otherwise `run` makes it, with the chunk sizes the
    workspace recorded (`run_options` go to `kgkit.workflows.run.run`)."""
    from kgkit.core.constants import DEFAULT_MAX_BYTES
    from kgkit.io.cache import Cache
    from kgkit.io.workspace import GRAPH
    from kgkit.workflows.corpus import load_corpus
    from kgkit.workflows.graph import read_graph
    from kgkit.workflows.run import run

    config = workspace.manifest().config
    cache = cache if cache is not None else Cache(workspace.cache_dir)
    sizes = {k: config[k] for k in ("max_bytes", "max_chars", "overlap_chars") if config.get(k) is not None}
    if workspace.exists(GRAPH):
        recorded = config.get("corpus")
        if recorded is None:
            return read_graph(workspace)
        if (recorded == os.path.abspath(corpus) and config.get("domain") == domain.id
                and config.get("extractor") == extractor.id):
            graph = read_graph(workspace)
            documents, _ = load_corpus(corpus, cache=cache, max_bytes=sizes.get("max_bytes", DEFAULT_MAX_BYTES),
                                       exclude=[workspace.root])
            if {d.id for d in documents} == set(graph.documents["id"]):
                return graph
    return run(workspace, corpus, domain=domain, extractor=extractor, cache=cache, **{**sizes, **run_options}).graph


# --------------------------------------------------------------------------- small helpers for cells


def make_extractor(model: str | None = None, *, max_cost: float = 0.5, cache: Any = None, **options: Any) -> Extractor:
    """The extractor for `model`: the offline one (spaCy + rules) when `model` is None, else an LLM extractor
    under the CLI's budget policy (a hard `max_cost` in dollars; `options`: kgkit.llm.options.LLMOptions
    fields, e.g. free=True for a local model), its requests cached in `cache`."""
    if not model:
        from kgkit.extractors.offline import OfflineExtractor

        return OfflineExtractor()
    from kgkit.extractors.llm import LLMExtractor
    from kgkit.llm.options import LLMOptions

    return LLMExtractor.from_options(LLMOptions(model=model, max_cost=max_cost, **options), cache=cache)


def embed_names(cache: Any, texts: Sequence[str], *, embedder: Any) -> np.ndarray:
    """One vector per text (a float32 matrix), each through the cache (the `embed` stage), so a re-run embeds
    nothing again."""
    from kgkit.stages.embed import CachedEmbedder

    return CachedEmbedder(embedder, cache)(texts)


def now() -> str:
    """The time now, UTC, to the second, as ISO text (what a decision records in `at`)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def table(rows: Sequence[Mapping[str, Any]] = (), columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows (dicts) as a DataFrame, for Jupyter to show (marimo's `mo.ui.table` takes the rows themselves)."""
    import pandas as pd

    return pd.DataFrame(list(rows), columns=list(columns) if columns is not None else None)


def frame(page: str, height: int = 600) -> Any:
    """A standalone kgkit HTML page (graph_html, diff_html, cluster_html) in an iframe, for Jupyter: its scripts
    run inside it, offline. (marimo: ``mo.iframe(page, height=...)``.)"""
    import html

    from IPython.display import HTML

    return HTML(f'<iframe srcdoc="{html.escape(page)}" style="width:100%;height:{int(height)}px;border:0"></iframe>')
