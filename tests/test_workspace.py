"""The Workspace's promises, proved with real processes: a kill -9 at any point of a commit leaves the
previous generation (rolled back on the next open, said in one note), one writer at a time (a second one
waits, then names the holder), readers never block and never see two generations mixed, hand edits are
read as they are, and a generation writes only inside its workspace."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgkit.io.workspace import (
    COMMUNITIES,
    DECISIONS,
    GRAPH,
    MANIFEST,
    RUN,
    VIEW,
    Workspace,
    WorkspaceBusy,
    WorkspaceError,
)

JOURNAL = "journal/0001.json"
GEN1 = {GRAPH: b'{"graph": 1}\n', RUN: b'{"run": 1}\n', VIEW: b"<html>1</html>\n", JOURNAL: b'{"journal": 1}\n',
        DECISIONS: b"decisions: []\n"}
# generation 2, in commit order: three files replaced, one added, one removed
GEN2: dict[str, bytes | None] = {GRAPH: b'{"graph": 2}\n', RUN: b'{"run": 2}\n', VIEW: b"<html>2</html>\n",
                                 COMMUNITIES: b'{"communities": 2}\n', JOURNAL: None}
TIMEOUT = 20  # seconds any one subprocess may take (a hang fails the test instead of stalling the suite)

# commits GEN2 (argv[2], JSON) on the workspace argv[1], after arranging to die or pause at argv[3]:
#   "<point>"        kill -9 itself when kgkit.io.generation._checkpoint(point) is called
#   "write:<name>"   kill -9 itself half way through writing <name> (a staged file, or manifest.json)
#   "pause:<point>"  print "paused" at the point, then wait for a line on stdin
# The hooks are replaced on kgkit.io.generation, whose Generation.commit() calls them: `patch` fails at once on a
# name that module lacks, and every test checks that the process died (or paused) where it was meant to.
COMMIT_SCRIPT = r"""
import contextlib, json, os, signal, sys
import kgkit.io.generation as G
import kgkit.io.workspace as W
root, files, point = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]

def patch(name, value):
    assert hasattr(G, name), f"kgkit.io.generation has no {name}"
    setattr(G, name, value)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if point.startswith("write:"):
    real = G.atomic_file
    @contextlib.contextmanager
    def atomic_file(path, **kw):
        with real(path, **kw) as fh:
            if os.path.basename(path) == point[6:]:
                fh.write(b"half a fi"); fh.flush(); die()
            yield fh
    def atomic_write_bytes(path, data, **kw):
        with atomic_file(path, **kw) as fh:
            fh.write(data)
    patch("atomic_file", atomic_file)
    patch("atomic_write_bytes", atomic_write_bytes)
elif point.startswith("pause:"):
    def _checkpoint(at):
        if at == point[6:]:
            print("paused", flush=True)
            sys.stdin.readline()
    patch("_checkpoint", _checkpoint)
else:
    patch("_checkpoint", lambda at: die() if at == point else None)
ws = W.Workspace(root)
with ws.writer(step="build"):
    gen = ws.begin("build", config={"generation": 2})
    for name, text in files.items():
        gen.remove(name) if text is None else gen.write_text(name, text)
    print("committed", gen.commit(), flush=True)
"""


def _python(script: str, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], text=True, **kw)


def _line(proc: subprocess.Popen, timeout: float = TIMEOUT) -> str:
    """The next line `proc` prints, waiting at most `timeout` seconds."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, f"no output from the subprocess within {timeout} s"
    return proc.stdout.readline().strip()


def _commit(ws: Workspace, files: dict[str, bytes | None], step: str = "build") -> int:
    with ws.writer(step=step):
        gen = ws.begin(step)
        for name, data in files.items():
            gen.remove(name) if data is None else gen.write_bytes(name, data)
        return gen.commit()


def _generation_1(root: Path) -> Workspace:
    ws = Workspace(root)
    assert _commit(ws, GEN1) == 1
    return ws


def _commit_2(root: Path, point: str, **kw) -> subprocess.Popen:
    files = {k: None if v is None else v.decode() for k, v in GEN2.items()}
    return _python(COMMIT_SCRIPT, root, json.dumps(files), point, stdout=subprocess.PIPE, **kw)


def _leftovers(root: Path) -> list[str]:
    state = root / ".kgkit"
    left = [str(p.relative_to(root)) for p in root.rglob(".*.tmp")]
    return left + [n for n in ("staging", "previous", "commit.json") if (state / n).exists()]


def _assert_generation(ws: Workspace, number: int, files: dict[str, bytes | None]) -> None:
    assert ws.manifest().generation == number
    for name, data in files.items():
        if data is None:
            assert not ws.exists(name) and not ws.path(name).exists()
            with pytest.raises(FileNotFoundError):
                ws.read_bytes(name)
        else:
            assert ws.read_bytes(name) == data
            assert ws.path(name).read_bytes() == data  # on disk too, not only through the fallback


# ---------------------------------------------------------------------------- 1. kill -9 at every write point

BEFORE_MANIFEST = ["write:graph.json", "intent", "backup", *(f"swap:{name}" for name in GEN2), "write:manifest.json"]


@pytest.mark.parametrize("point", BEFORE_MANIFEST)
def test_a_kill_before_the_manifest_leaves_generation_1(tmp_path: Path, point: str) -> None:
    _generation_1(tmp_path)
    proc = _commit_2(tmp_path, point)
    assert proc.wait(TIMEOUT) == -9
    if point.startswith("write:"):
        assert any(tmp_path.rglob(".*.tmp")), "the kill was meant to leave a temporary file"

    ws = Workspace(tmp_path)
    assert len(ws.notes) == 1, ws.notes
    if point == "write:graph.json":  # staged, never committed
        assert "unfinished write" in ws.notes[0] and "unchanged" in ws.notes[0]
    else:
        assert "interrupted build (generation 2) was rolled back; generation 1 is current" in ws.notes[0]
    assert _leftovers(tmp_path) == []
    _assert_generation(ws, 1, {**GEN1, COMMUNITIES: None})
    assert ws.journal_names() == [JOURNAL]

    # the workspace works on: the next commit is generation 2, and a second open has nothing to say
    assert _commit(ws, {GRAPH: b"next\n"}) == 2
    again = Workspace(tmp_path)
    assert again.read_bytes(GRAPH) == b"next\n" and again.read_bytes(RUN) == GEN1[RUN] and again.notes == []


def test_a_kill_after_the_manifest_keeps_generation_2(tmp_path: Path) -> None:
    _generation_1(tmp_path)
    proc = _commit_2(tmp_path, "manifest")
    assert proc.wait(TIMEOUT) == -9
    assert (tmp_path / ".kgkit" / "commit.json").exists()  # killed before its clean-up

    ws = Workspace(tmp_path)
    assert ws.notes == []  # nothing was undone: the commit was complete
    assert _leftovers(tmp_path) == []
    _assert_generation(ws, 2, {**GEN1, **GEN2})
    assert ws.journal_names() == [] and ws.next_journal_name() == JOURNAL
    assert ws.manifest().config == {"generation": 2}
    assert _commit(ws, {JOURNAL: b"again\n"}) == 3
    assert Workspace(tmp_path).journal_names() == [JOURNAL]


def test_a_commit_that_raises_is_rolled_back_by_its_writer(tmp_path: Path, monkeypatch) -> None:
    import kgkit.io.generation as G

    ws = _generation_1(tmp_path)

    def fail(point: str) -> None:
        if point == "swap:run.json":
            raise OSError("disk full")

    monkeypatch.setattr(G, "_checkpoint", fail)  # raising=True: fails if the hook is not there
    with pytest.raises(OSError, match="disk full"):
        _commit(ws, GEN2)
    assert _leftovers(tmp_path) == [] and len(ws.notes) == 1
    _assert_generation(ws, 1, {**GEN1, COMMUNITIES: None})
    with ws.writer():  # a generation begun and never committed leaves nothing behind, and says nothing
        ws.begin("view").write_bytes(VIEW, b"dropped\n")
    assert _leftovers(tmp_path) == [] and Workspace(tmp_path).notes == []
    assert ws.read_bytes(VIEW) == GEN1[VIEW]


# ---------------------------------------------------------------------------- 2. one writer at a time

HOLD_SCRIPT = r"""
import sys
from kgkit.io.workspace import Workspace
with Workspace(sys.argv[1]).writer(step="hold-step"):
    print("holding", flush=True)
    sys.stdin.readline()
"""


def test_a_second_writer_waits_then_names_the_holder(tmp_path: Path) -> None:
    ws = _generation_1(tmp_path)
    holder = _python(HOLD_SCRIPT, tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert _line(holder) == "holding"
        start = time.monotonic()
        with pytest.raises(WorkspaceBusy) as busy, ws.writer(lock_timeout=0.5, step="mine"):
            pass
        assert 0.5 <= time.monotonic() - start < 5
        assert f"pid {holder.pid}" in str(busy.value) and "hold-step" in str(busy.value)

        told: list[str] = []
        asked, result = threading.Event(), []

        def waiting(message: str) -> None:
            told.append(message)
            asked.set()

        def second_writer() -> None:
            with ws.writer(lock_timeout=TIMEOUT, step="mine", waiting=waiting):
                result.append(ws.begin("mine").commit())

        thread = threading.Thread(target=second_writer)
        thread.start()
        assert asked.wait(TIMEOUT)  # it is waiting: now let the holder go
        assert result == []
        holder.stdin.write("\n")
        holder.stdin.flush()
        thread.join(TIMEOUT)
        assert result == [2] and len(told) == 1 and f"pid {holder.pid}" in told[0]
        assert holder.wait(TIMEOUT) == 0
    finally:
        holder.kill()
        holder.wait(TIMEOUT)


COUNT_SCRIPT = r"""
import json, sys
from kgkit.io.workspace import GRAPH, RUN, Workspace
ws, tag, n = Workspace(sys.argv[1]), sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()
got = []
for _ in range(n):
    with ws.writer(lock_timeout=30, step=tag):
        current = ws.manifest().generation
        assert current == 0 or ws.read_json(GRAPH)["generation"] == current == ws.read_json(RUN)["generation"]
        gen = ws.begin(tag)
        for name in (GRAPH, RUN, ws.next_journal_name()):
            gen.write_json(name, {"generation": current + 1, "by": tag})
        got.append(gen.commit())
print(json.dumps(got), flush=True)
"""


def test_concurrent_writers_are_serialised(tmp_path: Path) -> None:
    n = 8
    writers = [_python(COUNT_SCRIPT, tmp_path, tag, n, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
               for tag in ("a", "b")]
    try:
        assert [_line(w) for w in writers] == ["ready", "ready"]
        for w in writers:  # both start together
            w.stdin.write("go\n")
            w.stdin.flush()
        got = [json.loads(_line(w)) for w in writers]
        assert [w.wait(TIMEOUT) for w in writers] == [0, 0]
    finally:
        for w in writers:
            w.kill()
            w.wait(TIMEOUT)
    assert sorted(got[0] + got[1]) == list(range(1, 2 * n + 1))  # every number once: no commit lost or doubled
    assert all(g == sorted(g) for g in got)
    ws = Workspace(tmp_path)
    assert ws.manifest().generation == 2 * n and ws.notes == []
    assert ws.read_json(GRAPH)["generation"] == ws.read_json(RUN)["generation"] == 2 * n
    journals = ws.journal_names()
    assert journals == [f"journal/{i:04d}.json" for i in range(1, 2 * n + 1)]
    assert [ws.read_json(name)["generation"] for name in journals] == list(range(1, 2 * n + 1))
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------------------- 3. readers

LOOP_SCRIPT = r"""
import os, sys
from kgkit.io.workspace import GRAPH, RUN, Workspace
ws, stop = Workspace(sys.argv[1]), sys.argv[2]
for i in range(5000):
    with ws.writer(step="loop"):
        number = ws.manifest().generation + 1
        gen = ws.begin("loop")
        gen.write_json(GRAPH, {"generation": number, "pad": "x" * (number % 7) * 1000})
        if number % 3:
            gen.write_json("communities.json", {"generation": number})
        else:
            gen.remove("communities.json")
        gen.write_json(RUN, {"generation": number})
        gen.commit()
    if i == 0:
        print("started", flush=True)
    if os.path.exists(stop):
        break
"""


def test_readers_never_see_two_generations_mixed(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    _commit(ws, {GRAPH: b'{"generation": 1}\n', RUN: b'{"generation": 1}\n'})
    stop = tmp_path / "stop"
    writer = _python(LOOP_SCRIPT, tmp_path, stop, stdout=subprocess.PIPE)
    seen: set[int] = set()
    try:
        assert _line(writer) == "started"
        deadline, reads = time.monotonic() + 3, 0
        while time.monotonic() < deadline and reads < 3000 and len(seen) < 40:
            reader = Workspace(tmp_path) if reads % 10 == 0 else ws  # opening never rolls back the live writer
            both = reader.read_together(GRAPH, RUN)
            numbers = {json.loads(data)["generation"] for data in both.values()}
            assert len(numbers) == 1, both
            try:  # communities.json comes and goes (generations 3, 6, 9 ... remove it)
                pair = reader.read_together(GRAPH, COMMUNITIES)
            except FileNotFoundError:
                pass
            else:
                number = json.loads(pair[COMMUNITIES])["generation"]
                assert number % 3 and json.loads(pair[GRAPH])["generation"] == number, pair
            single = reader.read_json(RUN)["generation"]  # one file alone: whole, and never older than before
            assert single >= max(numbers)
            assert reader.notes == []
            seen |= numbers
            reads += 1
        stop.touch()
        assert writer.wait(TIMEOUT) == 0
    finally:
        writer.kill()
        writer.wait(TIMEOUT)
    assert len(seen) > 5, f"the writer committed too little while we read ({sorted(seen)})"
    final = Workspace(tmp_path)
    assert final.notes == [] and _leftovers(tmp_path) == []
    assert final.read_json(GRAPH)["generation"] == final.read_json(RUN)["generation"] == final.manifest().generation


@pytest.mark.parametrize("point", ["backup", f"swap:{JOURNAL}"])
def test_a_reader_does_not_wait_for_a_paused_writer(tmp_path: Path, point: str) -> None:
    _generation_1(tmp_path)
    writer = _commit_2(tmp_path, f"pause:{point}", stdin=subprocess.PIPE)
    try:
        assert _line(writer) == "paused"
        start = time.monotonic()
        ws = Workspace(tmp_path)
        assert ws.notes == [] and (tmp_path / ".kgkit" / "commit.json").exists()  # not rolled back
        for name, data in {**GEN1, COMMUNITIES: None}.items():
            if data is None:
                assert not ws.exists(name)
                with pytest.raises(FileNotFoundError):
                    ws.read_bytes(name)
            else:
                assert ws.exists(name) and ws.read_bytes(name) == data
        assert ws.read_together(GRAPH, RUN) == {GRAPH: GEN1[GRAPH], RUN: GEN1[RUN]}
        assert ws.journal_names() == [JOURNAL] and ws.manifest().generation == 1
        assert time.monotonic() - start < 3  # no waiting for the writer (paused until we say)
        if point.startswith("swap:"):  # the disk already holds generation 2's files
            assert (tmp_path / GRAPH).read_bytes() == GEN2[GRAPH] and not (tmp_path / JOURNAL).exists()
        writer.stdin.write("\n")
        writer.stdin.flush()
        assert _line(writer) == "committed 2"
        assert writer.wait(TIMEOUT) == 0
    finally:
        writer.kill()
        writer.wait(TIMEOUT)
    _assert_generation(ws, 2, {**GEN1, **GEN2})
    assert ws.notes == [] and _leftovers(tmp_path) == []


# ---------------------------------------------------------------------------- 4. editing by hand


def test_an_editable_file_is_read_as_a_person_left_it(tmp_path: Path) -> None:
    ws = _generation_1(tmp_path)
    (tmp_path / DECISIONS).write_text("decisions:\n- by hand\n")
    assert Workspace(tmp_path).read_text(DECISIONS) == "decisions:\n- by hand\n"
    assert ws.read_text(DECISIONS) == "decisions:\n- by hand\n" and ws.notes == []


def test_an_artefact_changed_outside_kgkit_is_used_with_one_note(tmp_path: Path) -> None:
    """Decided: a graph.json someone fixed by hand (or another tool rewrote) is what the workspace holds now.
    kgkit reads it as it is rather than refuse to work or silently prefer a copy it no longer has, and says
    once that it differs from what generation N recorded; the next commit of graph.json ends the note."""
    ws = _generation_1(tmp_path)
    (tmp_path / GRAPH).write_bytes(b'{"graph": "fixed by hand"}\n')
    assert ws.read_json(GRAPH) == {"graph": "fixed by hand"}
    assert ws.read_json(GRAPH) == {"graph": "fixed by hand"}
    assert ws.notes == ["graph.json was changed outside kgkit since generation 1; using it as it is"]
    assert ws.read_bytes(RUN) == GEN1[RUN] and len(ws.notes) == 1

    (tmp_path / VIEW).unlink()
    with pytest.raises(FileNotFoundError, match="listed in the manifest but missing"):
        ws.read_bytes(VIEW)

    assert _commit(ws, {GRAPH: b'{"graph": 2}\n'}) == 2
    fresh = Workspace(tmp_path)
    assert fresh.read_bytes(GRAPH) == b'{"graph": 2}\n' and fresh.notes == []


def test_files_kgkit_never_recorded_are_read_as_they_are(tmp_path: Path) -> None:
    (tmp_path / GRAPH).write_bytes(b"{}\n")  # a workspace from before manifests
    ws = Workspace(tmp_path)
    assert ws.manifest().generation == 0 and ws.read_bytes(GRAPH) == b"{}\n" and ws.notes == []
    with pytest.raises(FileNotFoundError, match="not in this workspace"):
        ws.read_bytes(RUN)


# ---------------------------------------------------------------------------- 5. names


@pytest.mark.parametrize("name", ["../x", "journal/../../x", "/tmp/x", ".kgkit/commit.json", ".kgkit", MANIFEST,
                                  "", ".", "cache/entry", "index/vectors"])
def test_a_generation_writes_only_artefacts_inside_the_workspace(tmp_path: Path, name: str) -> None:
    ws = Workspace(tmp_path / "ws")
    with ws.writer():
        gen = ws.begin("names")
        with pytest.raises(WorkspaceError, match="not an artefact name"):
            gen.write_bytes(name, b"x")
        with pytest.raises(WorkspaceError, match="not an artefact name"):
            gen.remove(name)
        gen.write_bytes("./journal//0001.json", b"ok\n")  # spelled loosely, stored under its plain name
        assert gen.commit() == 1
    assert list(ws.manifest().artefacts) == ["journal/0001.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


def test_a_generation_is_committed_once_and_only_under_the_lock(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    with pytest.raises(WorkspaceError, match="writer lock"):
        ws.begin("no lock")
    with ws.writer():
        gen = ws.begin("once")
        gen.write_bytes(RUN, b"1\n")
        assert gen.commit() == 1
        with pytest.raises(WorkspaceError, match="committed already"):
            gen.write_bytes(RUN, b"2\n")
        with pytest.raises(WorkspaceError):
            gen.commit()
        late = ws.begin("late")
    with pytest.raises(WorkspaceError, match="writer lock"):
        late.commit()
    assert ws.manifest().generation == 1 and ws.read_bytes(RUN) == b"1\n"


def test_two_generations_open_in_one_step_do_not_mix(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    with ws.writer():
        first = ws.begin("build")
        first.write_bytes(GRAPH, b"graph\n")
        ws.set_stale({VIEW: "drawn from an older graph"}, step="mark")  # a generation of its own, committed first
        assert first.commit() == 2
    assert ws.read_bytes(GRAPH) == b"graph\n" and ws.manifest().stale == {VIEW: "drawn from an older graph"}


def test_the_manifest_is_parsed_once_per_version_and_a_replaced_one_is_read_anew(tmp_path, monkeypatch):
    import kgkit.io.workspace as W

    ws = Workspace(tmp_path)
    with ws.writer():
        gen = ws.begin("one", config={"seed": 1})
        gen.write_text(RUN, "{}")
        gen.commit()
    parsed = []
    real = W.Manifest.from_json_dict.__func__
    monkeypatch.setattr(W.Manifest, "from_json_dict",
                        classmethod(lambda cls, data, **kw: parsed.append(1) or real(cls, data, **kw)))
    assert [ws.manifest().generation for _ in range(5)] == [1] * 5 and len(parsed) <= 1
    with ws.writer():
        gen = ws.begin("two", config={"seed": 2})
        gen.mark_stale({VIEW: "drawn from an older graph"})
        gen.commit()
    assert ws.manifest().config["seed"] == 2 and ws.manifest().stale == {VIEW: "drawn from an older graph"}
    edited = json.loads((tmp_path / MANIFEST).read_text())  # changed outside this object: seen at once
    edited["config"]["seed"] = 3
    (tmp_path / MANIFEST).write_text(json.dumps(edited, indent=2))
    assert ws.manifest().config["seed"] == 3 and len(parsed) <= 3
