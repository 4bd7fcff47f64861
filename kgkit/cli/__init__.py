"""kgkit command line: a thin layer over the workflows (kgkit.workflows); every command is registered below.

Imports stay inside commands so `kgkit --help` starts fast (no pandas, numpy, torch, spaCy or litellm).
Exit codes: 0 complete, 1 finished with failures (listed), 2 usage or configuration error (nothing done).
"""

from __future__ import annotations

import typer

from kgkit.cli import add, cache, export, graph, graphdb, mcp, narrate, resolve, run, search, split

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="kgkit: documents -> a knowledge graph you can see, question, correct and reproduce.")
cache_app = typer.Typer(no_args_is_help=True, help="Inspect, prune, export and import the content-hash cache.")
app.add_typer(cache_app, name="cache")

COMMANDS = {
    app: [("run", run.run), ("add", add.add_command), ("extract", run.extract), ("discover", run.discover), ("build", run.build),
          ("view", run.view), ("domains", run.domains),
          ("topology", graph.topology_command), ("query", graph.query_command),
          ("index", search.index_command), ("search", search.search_command),
          ("resolve", resolve.resolve_cmd), ("review", resolve.review_cmd), ("apply", resolve.apply_cmd),
          ("undo", resolve.undo_cmd), ("split", split.split_command),
          ("narrate", narrate.narrate_command), ("mcp", mcp.mcp_command),
          ("export", export.export), ("import-siftkg", export.import_siftkg),
          ("push", graphdb.push_command), ("pull", graphdb.pull_command)],
    cache_app: [("info", cache.cache_info), ("prune", cache.cache_prune), ("export", cache.cache_export),
                ("import", cache.cache_import)],
}
for _group, _commands in COMMANDS.items():
    for _name, _function in _commands:
        _group.command(_name)(_function)


def main() -> None:
    import os

    # spaCy without torch behind it (kgkit.extractors.offline.extractor.WITHOUT_TORCH): 1-2 s off every command
    # that extracts offline; inherited by its worker processes
    os.environ.setdefault("KGKIT_SPACY_WITHOUT_TORCH", "1")
    app()
