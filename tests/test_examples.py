"""Every README and docs example (CLI and Python) runs, as written, on the bundled demo.

Each ```bash and ```python block of README.md and docs/*.md is one test. It runs in a fresh temporary folder
holding links to the repository's `data`, `tests` and `.venv` (so `data/demo/sotu_1934_1946`,
`tests/fixtures/siftkg` and `K=.venv/bin/kgkit` work as written, and nothing is written into the repository),
with `.venv/bin` first on PATH, `$K` set, HOME in the folder, EDITOR=true and the offline settings of
tests/conftest.py. A block that names `workspace/demo` gets a copy of the demo workspace, built once per session
as `make demo` builds it; its cache also holds the people_orgs_events extractions and the search embeddings, so
re-running those steps is cheap. A bash block runs line by line in one `bash -e` session and every line must
exit 0 (an interactive `kgkit review` gets its answers on stdin); a python block runs with the venv's python
statement by statement, like a notebook cell (each expression's repr is taken). Then a few things a user would
notice are checked (CHECKS).

Models answer from real HTTP servers on 127.0.0.1 (tests/llm_server.py): an OpenAI-compatible one
(OPENAI_BASE_URL, OPENROUTER_API_BASE; also on vLLM's usual port 8000) and Ollama's API on port 11434, with valid
extraction / discovery / narration JSON and usage. A line that needs a fixed port already taken on this machine
is not run, and says so.

The examples are subprocesses, so they run EXAMPLE_WORKERS at a time from the session's start (the demo build
alongside the examples that do not need it); each test waits for its own example and checks it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import textwrap
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from llm_server import LLMServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINKS = ("data", "tests", ".venv")  # what an example's folder links to
DEMO = "data/demo/sotu_1934_1946"
FIXED_PORTS = (11434, 8000)  # Ollama's and vLLM's usual ports, as the docs write them
EXAMPLE_WORKERS = 2  # examples run at once (each is one process at a time)
TIMEOUT = 900  # seconds, one block or one step of the demo build
DEMO_MIN = 350  # entities (and relations) the demo's graph has at least, whatever the domain (~400-500)
SERVER_SECONDS, SERVER_REQUESTS = 3600, 6000  # bounds of each local model server over the session

# Blocks that are not commands to run here: (file, start of the first line) -> why.
SKIP_BLOCKS = {
    ("README.md", "make demo"): "sets up .venv and runs the demo (the session's demo build does the same) and the suite",
    ("docs/notebooks.md", "with app.setup:"): "shows the structure of a marimo notebook file, not code to run",
}
# Lines that are not run, in any block: a substring of the line -> why.
SKIP_LINES = {
    ".venv/bin/marimo edit": "opens the interactive marimo editor",
    ".venv/bin/jupyter lab": "opens the interactive JupyterLab server",
    ".venv/bin/python notebooks/": "runs a notebook headless: tests/test_notebooks.py runs every notebook",
}
# Answers on stdin for interactive commands: a substring of the line -> its stdin.
# (the demo's first two cards: World War II / World War I, kept apart; Americans / American, merged)
STDIN = {" review ": "k\nnot the same: checked by hand\nm\none group, plural and singular\nq\n"}


# ---------------------------------------------------------------------------------------------------------------
# the blocks


@dataclass(frozen=True)
class Block:
    file: str  # relative to the repository
    line: int  # of the opening fence
    lang: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def first(self) -> str:
        return next((s.strip() for s in self.text.splitlines() if s.strip()), "")

    @property
    def needs_demo(self) -> bool:
        return "workspace/demo" in self.text


_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def doc_blocks() -> list[Block]:
    blocks = []
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            if m.group(1) in ("bash", "python"):
                blocks.append(Block(str(path.relative_to(ROOT)), text[: m.start()].count("\n") + 1, m.group(1),
                                    m.group(2)))
    return blocks


def bash_lines(text: str) -> list[str]:
    """A bash block's commands: one a line (a trailing backslash continues it); blank lines and comments dropped."""
    lines, current = [], ""
    for raw in text.splitlines():
        if not current and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        current += raw
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        lines.append(current)
        current = ""
    return [*lines, current] if current else lines


def block_skip(block: Block, taken: set[int]) -> str | None:
    for (file, start), why in SKIP_BLOCKS.items():
        if block.file == file and block.first.startswith(start):
            return why
    commands = bash_lines(block.text) if block.lang == "bash" else []
    if commands and all(line_skip(c, taken) for c in commands):
        return "; ".join(sorted({line_skip(c, taken) or "" for c in commands}))
    return None


def line_skip(command: str, taken: set[int]) -> str | None:
    for needle, why in SKIP_LINES.items():
        if needle in command:
            return why
    for port in taken:
        if re.search(rf"(localhost|127\.0\.0\.1):{port}\b", command):
            return f"port {port} is taken on this machine, so the local stand-in server could not listen there"
    return None


BLOCKS = doc_blocks()


def test_examples_found():
    """The parser sees the README's examples (a changed fence must not silently drop them)."""
    readme = [b for b in BLOCKS if b.file == "README.md"]
    assert sum(b.lang == "python" for b in readme) >= 2
    assert any("kgkit.run(" in b.text for b in readme) and any("$K query" in b.text for b in readme)
    assert all(b.lang == "bash" for b in BLOCKS if b.first.startswith("make demo"))


# ---------------------------------------------------------------------------------------------------------------
# running one example


@dataclass
class Line:
    n: int
    command: str
    rc: int | None = None  # None: not run (skipped, or an earlier line failed)
    out: str = ""
    err: str = ""
    seconds: float | None = None  # wall
    cpu: float | None = None  # user + system seconds of the line's processes
    graph_sha: str | None = None  # sha256 of workspace/demo/graph.json after the line
    skipped: str | None = None

    def json(self) -> dict:
        """The last JSON value the line printed (`a && b` prints two)."""
        decoder, values, i = json.JSONDecoder(), [], 0
        text = self.out
        while i < len(text):
            if text[i].isspace():
                i += 1
                continue
            value, i = decoder.raw_decode(text, i)
            values.append(value)
        assert values, f"no JSON printed by: {self.command}"
        return values[-1]


@dataclass
class Session:
    block: Block
    cwd: Path
    lines: list[Line] = field(default_factory=list)
    output: str = ""
    failure: str | None = None
    seconds: float = 0.0  # wall
    cpu: float = 0.0  # user + system seconds of the block's processes

    def line(self, needle: str) -> Line:
        found = [ln for ln in self.lines if needle in ln.command]
        assert found, f"no line containing {needle!r}"
        return found[0]

    def file(self, rel: str) -> Path:
        path = self.cwd / rel
        assert path.exists(), f"{rel} was not written"
        return path

    def report(self) -> str:
        rows = [f"{self.block.id}: {self.seconds:.1f} s wall, {self.cpu:.1f} s CPU"]
        for ln in self.lines:
            status = f"not run: {ln.skipped}" if ln.skipped else f"exit {ln.rc}, {ln.seconds} s wall, {ln.cpu} s CPU"
            rows.append(f"{self.block.id} line {ln.n} ({status}): {ln.command}")
        return "\n".join(rows)


class Processes:
    """The example processes running now, each in its own process group (so closing can stop exactly them)."""

    def __init__(self) -> None:
        self.running: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.closed = False

    def run(self, args: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
        with self.lock:
            if self.closed:
                raise RuntimeError("the session is over")
            proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True)
            self.running.add(proc)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self._kill(proc)
            out, err = proc.communicate()
            err += f"\n[test] stopped after {TIMEOUT} s"
        finally:
            with self.lock:
                self.running.discard(proc)
        return subprocess.CompletedProcess(args, proc.returncode, out, err)

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        with self.lock:
            self.closed = True
            running = list(self.running)
        for proc in running:
            self._kill(proc)


def example_env(home: Path, server_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OPENROUTER_", "OLLAMA_", "KGKIT_"))}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HOME": str(home),
                "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", "K": str(VENV_BIN / "kgkit"),
                "EDITOR": "true", "NO_COLOR": "1", "COLUMNS": "160", "PYTHONDONTWRITEBYTECODE": "1"})
    env.update(server_env)
    return env


def example_dir(base: Path) -> Path:
    base.mkdir(parents=True)
    for name in LINKS:
        (base / name).symlink_to(ROOT / name, target_is_directory=True)
    return base


def _seconds(text: str) -> float:
    minutes, _, seconds = text.rstrip("s").partition("m")
    return 60 * float(minutes) + float(seconds)


def run_bash(block: Block, cwd: Path, env: dict[str, str], procs: Processes, taken: set[int]) -> Session:
    """Every line in order in one `bash -e` session; each line's output, exit code, time and the demo graph's
    sha256 after it are kept."""
    session = Session(block, cwd)
    logs = cwd / ".example"
    logs.mkdir()
    script = ["set -e", f"__logs={shlex.quote(str(logs))}"]
    for n, command in enumerate(bash_lines(block.text), 1):
        line = Line(n, command, skipped=line_skip(command, taken))
        session.lines.append(line)
        if line.skipped:
            continue
        stdin = next((text for needle, text in STDIN.items() if needle in f" {command} "), None)
        if stdin is not None:
            (logs / f"{n}.in").write_text(stdin)
        source = f'"$__logs/{n}.in"' if stdin is not None else "/dev/null"
        script += [f'echo {n} > "$__logs/current"; __t0=$(date +%s.%N)',
                   "{ " + command,
                   f'}} < {source} > "$__logs/{n}.out" 2> "$__logs/{n}.err"',
                   f'__rc=$?; echo $__rc > "$__logs/{n}.rc"; echo "$__t0 $(date +%s.%N)" > "$__logs/{n}.time"',
                   f'times > "$__logs/{n}.cpu"',
                   '[ $__rc -eq 0 ] || exit $__rc',
                   f'if [ -f workspace/demo/graph.json ]; then sha256sum workspace/demo/graph.json > "$__logs/{n}.sha"; fi']
    (logs / "script.sh").write_text("\n".join(script) + "\n")
    started = time.monotonic()
    done = procs.run(["bash", "-e", str(logs / "script.sh")], cwd=cwd, env=env)
    session.seconds = time.monotonic() - started
    cpu_before = 0.0
    for line in session.lines:
        read = {ext: (logs / f"{line.n}.{ext}") for ext in ("out", "err", "rc", "time", "sha", "cpu")}
        line.out = read["out"].read_text(errors="replace") if read["out"].exists() else ""
        line.err = read["err"].read_text(errors="replace") if read["err"].exists() else ""
        line.rc = int(read["rc"].read_text()) if read["rc"].exists() else None
        if read["time"].exists():
            start, end = map(float, read["time"].read_text().split())
            line.seconds = round(end - start, 1)
        line.graph_sha = read["sha"].read_text().split()[0] if read["sha"].exists() else None
        if read["cpu"].exists():  # bash `times`: the children's cumulative user and system time, 2nd line
            cpu = sum(_seconds(t) for t in read["cpu"].read_text().splitlines()[1].split())
            line.cpu, cpu_before = round(cpu - cpu_before, 1), cpu
    session.cpu = cpu_before
    if done.returncode != 0:
        current = (logs / "current").read_text().strip() if (logs / "current").exists() else ""
        failed = next((ln for ln in session.lines if ln.rc not in (0, None)), None)
        if failed is None and current:  # `set -e` stopped the shell inside the line (`a ; b`)
            failed = session.lines[int(current) - 1]
            failed.rc = done.returncode
        if failed is None:
            session.failure = f"{block.id}: the shell failed outside a line:\n{done.stderr[-4000:]}"
        else:
            session.failure = (f"{block.id}: line {failed.n} exited {failed.rc}:\n$ {failed.command}\n"
                               f"--- stdout\n{failed.out[-4000:]}\n--- stderr\n{failed.err[-4000:]}{done.stderr[-2000:]}")
    return session


# A python block runs statement by statement, as a notebook cell would: each expression is evaluated and its repr
# taken (what a notebook shows); then the block's checks run in the same namespace.
DRIVER = textwrap.dedent('''
    import ast, sys
    path, name, checks = sys.argv[1], sys.argv[2], sys.argv[3]
    source = open(path, encoding="utf-8").read()
    ns = {"__name__": "__main__"}
    for node in ast.parse(source, name).body:
        if isinstance(node, ast.Expr):
            shown = repr(eval(compile(ast.Expression(node.value), name, "eval"), ns))
            print(f">>> {ast.get_source_segment(source, node).splitlines()[0]}\\n{shown[:300]}", flush=True)
        else:
            exec(compile(ast.Module([node], []), name, "exec"), ns)
    exec(compile(open(checks, encoding="utf-8").read(), "checks", "exec"), ns)
    import resource
    usage = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    print("checks passed; cpu", sum(u.ru_utime + u.ru_stime for u in usage), flush=True)
''')


def run_python(block: Block, cwd: Path, env: dict[str, str], procs: Processes, checks: str) -> Session:
    logs = cwd / ".example"
    logs.mkdir()
    (logs / "driver.py").write_text(DRIVER)
    (logs / "example.py").write_text(block.text)
    (logs / "checks.py").write_text(f"DEMO_MIN = {DEMO_MIN}\n" + textwrap.dedent(checks))
    started = time.monotonic()
    done = procs.run([str(VENV_BIN / "python"), str(logs / "driver.py"), str(logs / "example.py"), block.id,
                      str(logs / "checks.py")], cwd=cwd, env=env)
    session = Session(block, cwd, output=done.stdout + done.stderr, seconds=time.monotonic() - started)
    cpu = re.search(r"^checks passed; cpu ([\d.]+)$", done.stdout, re.M)
    session.cpu = float(cpu.group(1)) if cpu else 0.0
    if done.returncode != 0 or cpu is None:
        session.failure = f"{block.id} failed (exit {done.returncode}):\n{session.output[-6000:]}"
    return session


# ---------------------------------------------------------------------------------------------------------------
# what a user would notice, per block: (file, a substring of the block) -> bash check or python check code


def graph_counts(path: Path) -> tuple[int, int]:
    data = json.loads(path.read_text())
    return len(data["entities"]), len(data["relations"])


def llm_run_ok(s: Session, command: str) -> None:
    """An LLM `kgkit run` line extracted every chunk through the local server."""
    line = s.line(command)
    if line.skipped:
        return
    ws = line.command.split(" -o ")[1].split()[0]
    summary = json.loads(s.file(f"{ws}/run.json").read_text())
    assert summary["outcome"] == "complete" and not summary["chunk_errors"], (command, summary["chunk_errors"][:3])
    assert summary["entities"] > 100 and summary["llm_costs"], command


def check_readme_cli(s: Session) -> None:
    run = s.line("-o workspace/demo --domain people_orgs_events")
    entities, relations = graph_counts(s.file("workspace/demo/graph.json"))
    assert entities > DEMO_MIN and relations > DEMO_MIN
    llm_run_ok(s, "-o workspace/gpt --model openai/gpt-4o-mini --max-cost 1.50")
    llm_run_ok(s, "-o workspace/local --model ollama/llama3.1")
    assert "entity_types" in s.file("workspace/gpt/domain.yaml").read_text()
    assert s.line("topology workspace/demo --json").json()["counts"]["entities"] == entities
    query = s.line('query "Winston Churchill"').json()
    assert query["status"] == "found", query
    assert "Winston Churchill" in [e["name"] for e in query["entities"]["items"]]
    applied, undone = s.line("$K apply -w workspace/demo"), s.line("undo -w workspace/demo")
    assert applied.graph_sha != run.graph_sha, "apply merged nothing on the demo"
    assert undone.graph_sha == run.graph_sha, "undo did not restore the graph bytes that apply changed"
    assert "decided_by: person" in s.file("workspace/demo/decisions.yaml").read_text()   # review's answer
    assert "## Overview" in s.file("workspace/demo/narrative.md").read_text()
    nodes = ET.parse(s.file("graph.graphml")).getroot().iter("{http://graphml.graphdrawing.org/xmlns}node")
    assert sum(1 for _ in nodes) == entities
    assert graph_counts(s.file("workspace/sift/graph.json"))[0] > 0
    assert "people_orgs_events" in s.line("domains").out
    assert s.file("cache.tar.gz").stat().st_size > 1000
    assert "var KGKIT_SIGMA=" in s.file("workspace/demo/graph.html").read_text()  # the renderer, inlined
    hits = s.line('search "war powers act"').json()["hits"]
    assert any("war powers act" in (h["title"] + " " + h["text"]).lower() for h in hits), \
        "no hit of `search \"war powers act\"` contains the phrase:\n" + "\n".join(
            f"{h['rank']} {h['kind']} {h['title'][:40]!r} {h['text'][:70]!r}" for h in hits)


README_RUN = """
assert result.outcome == "complete" and not result.errors, result.outcome
assert len(graph.entities) > DEMO_MIN and len(graph.relations) > DEMO_MIN
assert len(graph.entity("Person:winston churchill")["provenance"]) >= 1
"""
README_STAGES = """
assert not errors and len(documents) == 14
assert len(graph.entities) > DEMO_MIN
"""


def check_llm_cli(s: Session) -> None:
    for command in ("-o workspace/gpt --model", "openrouter/", "ollama/", "hosted_vllm/",
                    "--domain workspace/gpt/domain.yaml"):
        llm_run_ok(s, command)
    assert "discovered" in s.file("workspace/gpt/domain.yaml").read_text()


LLM_PY = """
assert result.outcome == "complete", result.outcome
assert extractor.client.ledger.summary()["spent_usd"] > 0
assert len(result.cost_report()) > 0
"""
LLM_BENCH = """
assert r.outcome == "complete" and calls / len(r.chunks) <= 1.2
assert ledger2.spent_usd <= ledger.spent_usd / 2
"""


def check_narrate_cli(s: Session) -> None:
    assert "## Overview" in s.file("workspace/demo/narrative.md").read_text()
    assert s.line("-o story.md --json").json()["format"].startswith("kgkit.narrative/")
    story = s.file("story.md").read_text()
    assert "openai/gpt-4o-mini" in story and "## Overview" in story
    for line in s.lines:  # the model's text was used everywhere
        assert "extractive fallback" not in line.out + line.err, (line.command, line.out[-2000:])


NARRATE_PY = """
assert "## Overview" in story.to_markdown()
assert not story.fallbacks(), story.fallbacks()            # the model's text was used
assert "narrate_overview" in client.ledger.summary()["stages"]
"""


def check_resolution_cli(s: Session) -> None:
    assert s.file("workspace/demo/resolve/candidates.jsonl").read_text().strip()
    assert "ana" in s.file("workspace/demo/decisions.yaml").read_text()
    assert s.line("kgkit undo").graph_sha == s.line("kgkit resolve").graph_sha


RESOLUTION_PY = """
assert candidates and len(applied.graph.entities) < len(graph.entities)
assert identify(graph, "Churchill").verdict == "unique"
"""


def check_search_cli(s: Session) -> None:
    first, again = (ln.json() for ln in s.lines if ln.command.startswith("kgkit index"))
    assert first["items"] > 1000 and again["unchanged"] == again["items"]
    pages = [ln.json() for ln in s.lines if ln.command.startswith("kgkit search")]
    assert all(p["schema"] == "kgkit.search/1" and p["hits"] for p in pages)
    assert pages[1]["hits"][0]["rank"] == 11 and "rollup" in pages[2]


SEARCH_PY = """
assert len(hits) > 0 and hits.attrs["total"] > 0
"""


def check_export_cli(s: Session) -> None:
    assert s.file("out/graph.graphml").stat().st_size > 0
    assert s.file("out/parquet/nodes.parquet").stat().st_size > 0


def check_siftkg_cli(s: Session) -> None:
    assert graph_counts(s.file("workspace/imported/graph.json"))[0] > 0
    assert graph_counts(s.file("workspace/rebuilt/graph.json"))[0] > 0


EXPORT_PY = """
assert len(same.entities) == len(graph.entities) and len(same.relations) == len(graph.relations)
"""


def check_graph_cli(s: Session) -> None:
    demo = graph_counts(s.file("workspace/demo/graph.json"))
    assert graph_counts(s.file("workspace/rebuilt/graph.json"))[0] == demo[0]   # the same extractions, rebuilt
    assert graph_counts(s.file("workspace/from-siftkg/graph.json"))[0] > 0
    assert json.loads(s.lines[-1].out)["learned_at"].startswith("2026-01-31")


CHECKS: list[tuple[str, str, Callable[[Session], None] | str]] = [
    ("README.md", "$K query", check_readme_cli),
    ("README.md", "result = kgkit.run(", README_RUN),
    ("README.md", "cache.map(extract_texts", README_STAGES),
    ("docs/llm.md", "kgkit discover", check_llm_cli),
    ("docs/llm.md", "LLMExtractor.from_options(options, cache=kgkit.Cache", LLM_PY),
    ("docs/llm.md", "register_fake_provider(latency", LLM_BENCH),
    ("docs/narrate.md", "kgkit narrate workspace/demo", check_narrate_cli),
    ("docs/narrate.md", "story = narrate(graph", NARRATE_PY),
    ("docs/resolution.md", "kgkit resolve", check_resolution_cli),
    ("docs/resolution.md", "merge_candidates(graph)", RESOLUTION_PY),
    ("docs/search.md", "kgkit index", check_search_cli),
    ("docs/search.md", "index.search(", SEARCH_PY),
    ("docs/export.md", "kgkit export", check_export_cli),
    ("docs/export.md", "kgkit import-siftkg", check_siftkg_cli),
    ("docs/export.md", "export_graph(graph", EXPORT_PY),
    ("docs/graph.md", "kgkit build", check_graph_cli),
]


def python_checks(block: Block) -> str:
    return "\n".join(c for f, needle, c in CHECKS if isinstance(c, str) and f == block.file and needle in block.text)


def test_every_check_has_its_block():
    """A check whose example was edited away fails here rather than silently checking nothing."""
    for file, needle, _ in CHECKS:
        assert any(b.file == file and needle in b.text for b in BLOCKS), f"{file}: no example contains {needle!r}"


# ---------------------------------------------------------------------------------------------------------------
# the session: local model servers, the demo workspace, the examples running in the background


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Examples:
    """Starts the local model servers and runs the given examples, EXAMPLE_WORKERS at a time, the demo build
    first; `result(block)` waits for one."""

    def __init__(self, blocks: list[Block], base: Path, seed_caches: tuple[Path, ...] = ()) -> None:
        self.base, self.procs, self.seed_caches = base, Processes(), seed_caches
        self.servers = [LLMServer(max_requests=SERVER_REQUESTS, max_seconds=SERVER_SECONDS).start()]
        self.taken: set[int] = set()
        for port in FIXED_PORTS:
            if port_free(port):
                self.servers.append(LLMServer(port, max_requests=SERVER_REQUESTS, max_seconds=SERVER_SECONDS).start())
            else:
                self.taken.add(port)
        api = self.servers[0].url + "/v1"
        self.server_env = {"OPENAI_BASE_URL": api, "OPENAI_API_KEY": "sk-local-test", "OPENROUTER_API_BASE": api,
                           "OPENROUTER_API_KEY": "sk-or-local-test"}
        self.pool = ThreadPoolExecutor(EXAMPLE_WORKERS, thread_name_prefix="example")
        todo = sorted((b for b in blocks if block_skip(b, self.taken) is None), key=lambda b: b.needs_demo)
        self.demo: Future[Path] | None = self.pool.submit(self._build_demo) if any(b.needs_demo for b in todo) else None
        self.futures = {b.id: self.pool.submit(self._run, b) for b in todo}

    def _build_demo(self) -> Path:
        """workspace/demo as `make demo` leaves it; its cache also holds the people_orgs_events extractions (the
        README's first line) and the embeddings of `kgkit index`. It starts from a copy of the session's offline
        demo runs' caches (the same commands' extractions), so it extracts nothing again."""
        where = example_dir(self.base / "demo-build")
        for cache in self.seed_caches:  # the session's offline runs of the demo: their extractions are cache hits
            shutil.copytree(cache, where / "workspace" / "demo" / "cache", dirs_exist_ok=True)
        env = example_env(where, self.server_env)
        self._kgkit(["run", DEMO, "-o", "workspace/demo", "--domain", "people_orgs_events"], where, env)
        for step in make_demo_steps():
            self._kgkit(step, where, env)
        return where / "workspace" / "demo"

    def _kgkit(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        done = self.procs.run([str(VENV_BIN / "kgkit"), *args], cwd=cwd, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"demo build: kgkit {' '.join(args)} exited {done.returncode}:\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")

    def _run(self, block: Block) -> Session:
        cwd = example_dir(self.base / re.sub(r"\W+", "-", block.id))
        if block.needs_demo:
            assert self.demo is not None
            shutil.copytree(self.demo.result(), cwd / "workspace" / "demo", symlinks=True)
        env = example_env(cwd, self.server_env)
        if block.lang == "bash":
            return run_bash(block, cwd, env, self.procs, self.taken)
        return run_python(block, cwd, env, self.procs, python_checks(block))

    def result(self, block: Block) -> Session:
        return self.futures[block.id].result()

    def server_errors(self) -> list[str]:
        return [e for s in self.servers for e in s.errors]

    def close(self) -> None:
        self.procs.close()
        self.pool.shutdown(wait=True, cancel_futures=True)
        for server in self.servers:
            server.stop()


def make_demo_steps() -> list[list[str]]:
    """The kgkit commands of the Makefile's `demo` recipe, in order (so the session's demo is what `make demo` makes)."""
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert recipe, "Makefile has no demo recipe"
    lines = [shlex.split(line) for line in recipe.group(1).splitlines()]
    steps = [words[1:] for words in lines if words and words[0] == "$(BIN)/kgkit"]
    assert steps and steps[0][0] == "run", f"the demo recipe should start with kgkit run: {recipe.group(1)}"
    return steps


@pytest.fixture(scope="session")
def examples(request, tmp_path_factory):
    selected = [item.callspec.params["block"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_example"]
    seeds = ()
    if any(block.needs_demo for block in selected):  # conftest's offline demo runs, shared with other tests
        seeds = (request.getfixturevalue("demo_run")[0] / "cache", request.getfixturevalue("demo_people_cache"))
    running = Examples(selected, tmp_path_factory.mktemp("examples"), seeds)
    try:
        yield running
    finally:
        running.close()


@pytest.mark.timeout(4 * TIMEOUT)  # waits for its example, which may wait for the demo build and a free worker
@pytest.mark.parametrize("block", sorted(BLOCKS, key=lambda b: b.needs_demo), ids=lambda b: b.id)
def test_example(block: Block, examples: Examples):
    why = block_skip(block, examples.taken)
    if why:
        pytest.skip(why)
    session = examples.result(block)
    print(session.report())  # each line's exit code and time: shown with -rP, or when the test fails
    if session.failure:
        pytest.fail(session.failure, pytrace=False)
    for file, needle, check in CHECKS:
        if callable(check) and file == block.file and needle in block.text:
            check(session)
    assert not examples.server_errors(), examples.server_errors()


def test_make_demo_leaves_a_searchable_workspace(examples: Examples, tmp_path: Path):
    """README: after `make demo`, `kgkit search -w workspace/demo` (and so the MCP server's search) answers at once."""
    if examples.demo is None:
        pytest.skip("no selected example needs the demo workspace, so it was not built")
    demo = examples.demo.result()
    env = example_env(example_dir(tmp_path / "search"), {})
    done = examples.procs.run([str(VENV_BIN / "kgkit"), "search", "-w", str(demo), "Pearl Harbor attack",
                               "--kind", "chunk", "--limit", "3", "--json"], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    hits = json.loads(done.stdout)["hits"]
    assert hits and all(h["kind"] == "chunk" for h in hits) and "pearl harbor" in json.dumps(hits).lower(), hits
