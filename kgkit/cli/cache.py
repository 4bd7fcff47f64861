"""`kgkit cache info | prune | export | import`: look after the content-hash cache of a workspace (or any folder).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kgkit.cli import options as o

__all__ = ["cache_export", "cache_import", "cache_info", "cache_prune"]


def cache_root(cache: Path | None, workspace: Path | None) -> Path:
    """--cache DIR, or the cache of --workspace DIR."""
    if cache is not None:
        return cache
    if workspace is not None:
        from kgkit.io.workspace import Workspace

        return Workspace(workspace, create=False).cache_dir if workspace.is_dir() else workspace / "cache"
    raise typer.BadParameter("give --cache DIR or --workspace DIR")


def cache_info(
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace", help="Workspace whose cache to use."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Entries and bytes per stage."""
    from kgkit.io.cache import Cache

    info = Cache(cache_root(cache, workspace)).info()
    if as_json:
        typer.echo(json.dumps(info.to_json_dict(session=False), indent=2, sort_keys=True))
        return
    typer.echo(f"cache {info.root}: {info.entries} entries, {info.bytes / 1e6:.2f} MB")
    for stage_name, row in sorted(info.stages.items()):
        typer.echo(f"  {stage_name:20s} {row.entries:8d} entries {row.bytes / 1e6:10.2f} MB")


def cache_prune(
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
    older_than: str | None = typer.Option(None, help="Remove entries unused for this long (e.g. 30d, 12h)."),
    stage: str | None = typer.Option(None, help="Remove every entry of this stage (e.g. extract_texts)."),
    max_size: str | None = typer.Option(None, help="Then remove least recently used entries down to this size."),
) -> None:
    """Remove entries by age, stage or total size. With no option, removes nothing."""
    from kgkit.io.cache import Cache

    report = Cache(cache_root(cache, workspace)).prune(
        older_than_seconds=o.duration(older_than) if older_than else None, stage=stage,
        max_bytes=o.size(max_size) if max_size else None)
    typer.echo(f"removed {report['removed']} entries ({report['bytes_freed'] / 1e6:.2f} MB), kept {report['kept']}")


def cache_export(
    archive: Path = typer.Argument(..., help="Archive to write (.tar.gz)."),
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
) -> None:
    """Pack the cache so others can re-run the same pipeline at zero cost."""
    from kgkit.io.cache import Cache

    typer.echo(str(Cache(cache_root(cache, workspace)).export(archive)))


def cache_import(
    archive: Path = typer.Argument(..., help="Archive written by `kgkit cache export`."),
    cache: Path | None = typer.Option(None, help="Cache folder."),
    workspace: Path | None = typer.Option(None, "-w", "--workspace"),
) -> None:
    """Unpack an exported cache into this one."""
    from kgkit.io.cache import Cache

    added = Cache(cache_root(cache, workspace)).import_archive(archive)
    typer.echo(f"added {added} entries")
