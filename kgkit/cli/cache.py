"""`kgkit cache info | prune | export | import`: look after the content-hash cache of a workspace (or any folder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from kgkit.cli import options as o

__all__ = ["cache_export", "cache_import", "cache_info", "cache_prune"]


CACHE = typer.Option(None, "--cache", help="Cache folder or fsspec URL (e.g. file:///shared/cache).")


def cache_root(cache: str | None, workspace: Path | None) -> str | Path:
    """--cache DIR or URL, or the cache of --workspace DIR."""
    if cache is not None:
        return cache
    if workspace is not None:
        from kgkit.io.workspace import Workspace

        return Workspace(workspace, create=False).cache_dir if workspace.is_dir() else workspace / "cache"
    raise typer.BadParameter("give --cache DIR or --workspace DIR")


def open_cache(cache: str | None, workspace: Path | None) -> Any:
    """The Cache named by --cache or --workspace; exit 2 when a URL cannot be opened."""
    return o.open_cache(str(cache_root(cache, workspace)), None)


def cache_info(
    cache: str | None = CACHE,
    workspace: Path | None = typer.Option(None, "-w", "--workspace", help="Workspace whose cache to use."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Entries and bytes per stage."""
    info = open_cache(cache, workspace).info()
    if as_json:
        typer.echo(json.dumps(info.to_json_dict(session=False), indent=2, sort_keys=True))
        return
    typer.echo(f"cache {info.root}: {info.entries} entries, {info.bytes / 1e6:.2f} MB")
    for stage_name, row in sorted(info.stages.items()):
        typer.echo(f"  {stage_name:20s} {row.entries:8d} entries {row.bytes / 1e6:10.2f} MB")


def cache_prune(
    cache: str | None = CACHE,
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
    older_than: str | None = typer.Option(None, help="Remove entries unused for this long (e.g. 30d, 12h)."),
    stage: str | None = typer.Option(None, help="Remove every entry of this stage (e.g. extract_texts)."),
    max_size: str | None = typer.Option(None, help="Then remove least recently used entries down to this size."),
) -> None:
    """Remove entries by age, stage or total size. With no option, removes nothing."""
    report = open_cache(cache, workspace).prune(
        older_than_seconds=o.duration(older_than) if older_than else None, stage=stage,
        max_bytes=o.size(max_size) if max_size else None)
    typer.echo(f"removed {report['removed']} entries ({report['bytes_freed'] / 1e6:.2f} MB), kept {report['kept']}")


def cache_export(
    archive: Path = typer.Argument(..., help="Archive to write (.tar.gz)."),
    cache: str | None = CACHE,
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
) -> None:
    """Pack the cache so others can re-run the same pipeline at zero cost."""
    typer.echo(str(open_cache(cache, workspace).export(archive)))


def cache_import(
    archive: Path = typer.Argument(..., help="Archive written by `kgkit cache export`."),
    cache: str | None = CACHE,
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
) -> None:
    """Unpack an exported cache into this one."""
    added = open_cache(cache, workspace).import_archive(archive)
    typer.echo(f"added {added} entries")
