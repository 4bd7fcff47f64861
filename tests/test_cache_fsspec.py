"""The content-hash cache under an fsspec URL, on real fsspec file systems: `file://` (LocalFileSystem),
`dir::file://` (DirFileSystem over it) and `memory://` (an object store's atomic put, no rename). Entries are
the same files a folder cache writes, writes are atomic (no temporary entry is ever read or left behind), two
processes writing the same keys leave whole entries, and a protocol whose package is missing is a clear error
(exit code 2 from the CLI)."""

from __future__ import annotations

import importlib.util
import json
import pickle
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.core.stage import stage
from kgkit.io.cache import Cache, CacheLocationError
from kgkit.stages.embed import HashingEmbedder, embed_rows
from kgkit.testing.workspaces import sample_workspace
from kgkit.workflows.graph import as_workspace
from kgkit.workflows.index import index_report


@stage(version="1")
def shout(texts: list[str]) -> list[str]:
    return [t.upper() for t in texts]


def _urls(tmp_path) -> dict[str, str]:
    return {"file": f"file://{tmp_path}/file-cache", "dir": f"dir::file://{tmp_path}/dir-cache",
            "memory": f"memory://kgkit-test-{tmp_path.name}"}


@pytest.mark.parametrize("kind", ["file", "dir", "memory"])
def test_a_url_cache_hits_misses_and_stores_json_and_arrays(tmp_path, kind):
    url = _urls(tmp_path)[kind]
    cache = Cache(url)
    assert cache.map(shout, ["a", "b", "a"], batch_size=1) == ["A", "B", "A"]
    vectors = cache.map(embed_rows, ["Ada", "Bob"], embedder=HashingEmbedder(dim=8))
    again = Cache(url)  # a fresh object (another process or machine): everything from the store
    assert again.map(shout, ["b", "a"]) == ["B", "A"]
    np.testing.assert_array_equal(np.stack(again.map(embed_rows, ["Ada", "Bob"], embedder=HashingEmbedder(dim=8))),
                                  np.stack(vectors))
    assert again.stats.computed == {} and again.stats.hits["shout"] == 2 and again.stats.hits["embed"] == 2
    info = again.info()
    assert info.root == url and info.entries == 4 and set(info.stages) == {"shout", "embed"} and info.bytes > 0
    paths = [str(path) for _stage, path, _st in again.entries()]
    assert sum(p.endswith(".npy") for p in paths) == 2 and not [p for p in paths if ".tmp" in p]


def test_a_file_url_and_its_folder_are_the_same_cache(tmp_path):
    Cache(f"file://{tmp_path}/c").map(shout, ["x", "y"])
    files = sorted(p for p in (tmp_path / "c").rglob("*") if p.is_file())
    assert len(files) == 2 and not [p for p in files if p.name.startswith(".")]
    assert json.loads(files[0].read_text())["stage"] == "shout"
    folder = Cache(tmp_path / "c")
    assert folder.map(shout, ["y", "x"]) == ["Y", "X"] and folder.stats.computed == {}


def test_a_damaged_entry_reads_as_a_miss_and_is_rewritten(tmp_path):
    url = f"dir::file://{tmp_path}/c"
    Cache(url).map(shout, ["a"])
    [entry] = [p for p in (tmp_path / "c").rglob("*.json")]
    entry.write_text("{half")
    cache = Cache(url)
    assert cache.map(shout, ["a"]) == ["A"] and cache.stats.computed["shout"] == 1
    assert json.loads(entry.read_text())["value"] == "A"


def test_a_failed_move_leaves_no_entry_and_no_temporary_file(tmp_path, monkeypatch):
    cache = Cache(f"file://{tmp_path}/c")
    fs = cache._files.fs

    def broken_mv(*args, **kwargs):
        raise OSError("disk went away")

    monkeypatch.setattr(fs, "mv", broken_mv)
    with pytest.raises(OSError, match="disk went away"):
        cache.map(shout, ["a"])
    assert not [p for p in (tmp_path / "c").rglob("*") if p.is_file()]


WRITER = textwrap.dedent(
    """
    import sys
    from kgkit.io.cache import Cache
    from kgkit.core.stage import stage

    @stage(version="1")
    def square(xs: list[int]) -> list[int]:
        return [x * x for x in xs]

    for _ in range(2):  # the same 200 keys, written over and over by both processes
        cache = Cache(sys.argv[1])
        cache._get = lambda *a: (False, None)  # never read: always compute and write
        assert cache.map(square, list(range(200)), batch_size=7) == [x * x for x in range(200)]
    print(cache.stats.writes["square"])
    """
)


def test_two_processes_writing_the_same_keys_leave_whole_entries(tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    url = f"file://{tmp_path}/shared"
    procs = [subprocess.Popen([sys.executable, str(script), url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert [int(out.strip()) for out, _ in outs] == [200, 200]  # every key written by both, each time
    cache = Cache(url)
    assert cache.info().entries == 200
    files = [p for p in (tmp_path / "shared").rglob("*") if p.is_file()]
    assert len(files) == 200 and not [p for p in files if p.name.endswith(".tmp")]
    squares = {x * x for x in range(200)}
    for path in files:
        entry = json.loads(path.read_text())
        assert entry["stage"] == "square" and entry["value"] in squares
    assert cache.map(_square_stage(), list(range(200))) == [x * x for x in range(200)]
    assert cache.stats.computed == {}


def _square_stage():
    """The writers' stage (same name and version: same keys), made here."""

    @stage(version="1", name="square")
    def square(xs: list[int]) -> list[int]:
        return [x * x for x in xs]

    return square


def test_prune_export_and_import_through_a_url(tmp_path):
    src = Cache(f"dir::file://{tmp_path}/a")
    src.map(shout, ["x", "y", "z"])
    src.map(embed_rows, ["Ada"], embedder=HashingEmbedder(dim=4))
    archive = src.export(tmp_path / "cache.tar.gz")
    dst = Cache(f"memory://kgkit-import-{tmp_path.name}")
    assert dst.import_archive(archive) == 4 and dst.import_archive(archive) == 0
    assert dst.map(shout, ["z", "x"]) == ["Z", "X"] and dst.stats.computed == {}
    assert src.prune(stage="embed")["removed"] == 1
    report = src.prune(max_bytes=0)
    assert report["removed"] == 3 and report["kept"] == 0 and report["bytes_freed"] > 0
    assert src.info().entries == 0 and not [p for p in (tmp_path / "a").rglob("*") if p.is_file()]


def test_a_url_cache_pickles_for_a_worker(tmp_path):
    cache = Cache(f"file://{tmp_path}/c")
    cache.map(shout, ["a"])
    copy = pickle.loads(pickle.dumps(cache))
    assert copy.map(shout, ["a"]) == ["A"] and copy.stats.hits["shout"] == 1 and copy.stats.computed["shout"] == 1


def test_an_unknown_or_uninstalled_protocol_is_a_clear_error(tmp_path):
    with pytest.raises(CacheLocationError, match="Protocol not known"):
        Cache("nosuchprotocol://bucket/cache")
    if importlib.util.find_spec("s3fs") is None:
        with pytest.raises(CacheLocationError, match=r"s3:// protocol needs a package.*s3fs"):
            Cache("s3://bucket/kgkit-cache")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Ada Lovelace met Charles Babbage.")
    for command in (["run", str(docs), "-o", str(tmp_path / "ws")], ["index", str(docs), "-w", str(tmp_path / "ws")]):
        out = CliRunner().invoke(app, [*command, "--cache", "nosuchprotocol://bucket/cache"])
        assert out.exit_code == 2 and "Protocol not known" in out.output, out.output
    assert not (tmp_path / "ws" / "graph.json").exists()


def test_two_workspaces_share_one_url_cache(tmp_path):
    url = f"file://{tmp_path}/shared-cache"
    first = sample_workspace(tmp_path / "one")
    second, third = (as_workspace(shutil.copytree(first.root, tmp_path / name)) for name in ("two", "three"))
    out = CliRunner().invoke(app, ["index", "-w", str(first.root), "--embedder", "hashing", "--cache", url])
    assert out.exit_code == 0, out.output
    embedded = Cache(url).info().stages["embed"].entries
    assert 0 < embedded <= json.loads(out.stdout)["added"]  # one entry per distinct text
    shared = Cache(url)
    report = index_report(second, embedder=HashingEmbedder(), cache=shared)
    assert report.added > 0 and shared.stats.computed == {} and shared.stats.hits["embed"] == embedded
    assert not (second.root / "cache" / "v1" / "embed").exists()  # nothing went to the workspace's own cache
    index_report(third, embedder=HashingEmbedder(), cache=f"dir::{url}")  # the same folder, seen through dir::
    assert Cache(url).info().stages["embed"].entries == embedded
