"""The content-hash cache: hits, misses, failures never cached, atomic and concurrent writes, upkeep
(`kgkit cache info | prune` are tested end to end in test_cli.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from kgkit.core.records import TextExtraction
from kgkit.core.stage import stage
from kgkit.io.cache import Cache

CALLS: list[list[str]] = []


@stage(version="1")
def upper(texts: list[str]) -> list[str]:
    CALLS.append(list(texts))
    return [t.upper() for t in texts]


@stage(version="2")
def upper_v2(texts: list[str]) -> list[str]:
    return [t.upper() + "!" for t in texts]


upper_v2.stage_name = "upper"  # same stage, new version


@stage(version="1")
def maybe_fail(texts: list[str]) -> list[TextExtraction]:
    CALLS.append(list(texts))
    return [TextExtraction(extractor_id="t", error="boom" if "bad" in t else None) for t in texts]


@stage(version="1")
def embed(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.float32) / 3


@pytest.fixture(autouse=True)
def _reset_calls():
    CALLS.clear()


def test_second_run_is_served_from_cache(tmp_path):
    cache = Cache(tmp_path)
    assert cache.map(upper, ["a", "b"]) == ["A", "B"]
    assert cache.map(upper, ["a", "b"]) == ["A", "B"]
    assert CALLS == [["a", "b"]]
    assert (cache.stats.hits["upper"], cache.stats.misses["upper"], cache.stats.computed["upper"]) == (2, 2, 2)


def test_only_new_items_are_computed_and_duplicates_once(tmp_path):
    cache = Cache(tmp_path)
    cache.map(upper, ["a", "b"])
    assert cache.map(upper, ["b", "c", "c", "a"]) == ["B", "C", "C", "A"]
    assert CALLS == [["a", "b"], ["c"]]


def test_a_fresh_cache_object_reads_what_another_wrote(tmp_path):
    Cache(tmp_path).map(upper, ["a"])
    again = Cache(tmp_path)
    assert again.map(upper, ["a"]) == ["A"]
    assert again.stats.computed["upper"] == 0


def test_version_or_keyword_change_is_a_miss(tmp_path):
    cache = Cache(tmp_path)
    cache.map(upper, ["a"])
    assert cache.map(upper_v2, ["a"]) == ["A!"]
    assert cache.key(upper, ["a"]) != cache.key(upper_v2, ["a"])
    assert cache.key(upper, ["a"], flag=True) != cache.key(upper, ["a"], flag=False)


def test_failures_are_never_cached_and_retried(tmp_path):
    cache = Cache(tmp_path)
    first = cache.map(maybe_fail, ["good", "bad"])
    assert [r.error for r in first] == [None, "boom"]
    cache.map(maybe_fail, ["good", "bad"])
    assert CALLS == [["good", "bad"], ["bad"]]


def test_damaged_entry_is_a_miss_and_is_rewritten(tmp_path):
    cache = Cache(tmp_path)
    cache.map(upper, ["a"])
    [(_, path, _)] = list(cache.entries())
    path.write_text("{not json")
    assert cache.map(upper, ["a"]) == ["A"]
    assert json.loads(path.read_text())["value"] == "A"


def test_arrays_are_stored_as_npy_without_pickle(tmp_path):
    cache = Cache(tmp_path)
    first = cache.run(embed, 5)
    second = cache.run(embed, 5)
    np.testing.assert_array_equal(first, second)
    assert second.dtype == np.float32
    [(_, path, _)] = list(cache.entries())
    assert path.suffix == ".npy"
    np.load(path, allow_pickle=False)


def test_entries_are_json_with_no_temp_files_left(tmp_path):
    cache = Cache(tmp_path)
    cache.map(upper, [str(i) for i in range(50)], batch_size=7)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 50
    assert not [p for p in files if p.name.startswith(".") or p.suffix == ".tmp"]
    for p in files:
        entry = json.loads(p.read_text())
        assert entry["stage"] == "upper" and entry["version"] == "1"


WORKER = textwrap.dedent(
    """
    import sys, time
    from kgkit.io.cache import Cache
    from kgkit.core.stage import stage

    @stage(version="1")
    def slow_square(xs: list[int]) -> list[int]:
        time.sleep(0.002)
        return [x * x for x in xs]

    cache = Cache(sys.argv[1])
    out = cache.map(slow_square, list(range(300)), batch_size=5)
    assert out == [x * x for x in range(300)], "wrong results"
    print(cache.stats.computed["slow_square"])
    """
)


def test_two_processes_share_one_cache_safely(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    root = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, str(script), str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    cache = Cache(root)
    assert cache.info().entries == 300
    for _stage, path, _st in cache.entries():
        json.loads(path.read_text())  # every entry whole
    computed = [int(out.strip()) for out, _err in outs]
    assert sum(computed) >= 300  # both did work; duplicates are allowed, damage is not


def test_prune_by_stage_age_and_size(tmp_path):
    cache = Cache(tmp_path)
    cache.map(upper, ["a", "b", "c"])
    cache.run(embed, 3)
    assert set(cache.info().stages) == {"upper", "embed"}
    assert cache.prune()["removed"] == 0
    assert cache.prune(stage="embed")["removed"] == 1
    old = time.time() - 10 * 86400
    entries = list(cache.entries())
    os.utime(entries[0][1], (old, old))
    assert cache.prune(older_than_seconds=86400)["removed"] == 1
    report = cache.prune(max_bytes=0)
    assert report["removed"] == 2 and cache.info().entries == 0


def test_export_then_import_elsewhere_gives_hits(tmp_path):
    src = Cache(tmp_path / "a")
    src.map(upper, ["x", "y"])
    archive = src.export(tmp_path / "cache.tar.gz")
    dst = Cache(tmp_path / "b")
    assert dst.import_archive(archive) == 2
    assert dst.map(upper, ["x", "y"]) == ["X", "Y"] and dst.stats.computed["upper"] == 0


def test_uncached_function_needs_return_annotation(tmp_path):
    def no_hint(x):
        return x

    with pytest.raises(TypeError, match="return annotation"):
        Cache(tmp_path).run(no_hint, 1)


def test_disabled_cache_always_computes(tmp_path):
    cache = Cache(tmp_path, enabled=False)
    cache.map(upper, ["a"])
    cache.map(upper, ["a"])
    assert len(CALLS) == 2 and not list(Path(tmp_path).rglob("*.json"))


def test_written_files_are_readable_by_others_like_a_plain_open(tmp_path):
    from kgkit.io import atomic_write_text

    target = tmp_path / "out.html"
    atomic_write_text(target, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(target, 0o640)
    atomic_write_text(target, "y")  # a rewrite keeps the file's mode
    assert target.stat().st_mode & 0o777 == 0o640


def test_an_emptied_entry_reads_as_a_miss(tmp_path):
    # cache writes are atomic but not fsync'ed: after a power cut an entry may be empty; it is recomputed
    cache = Cache(tmp_path)
    cache.run(embed, 4)
    cache.map(upper, ["a"])
    for _stage, path, _st in list(cache.entries()):
        path.write_bytes(b"")
    again = Cache(tmp_path)
    assert again.run(embed, 4).shape == (4,) and again.map(upper, ["a"]) == ["A"]
    assert again.stats.computed["embed"] == 1 and again.stats.computed["upper"] == 1
