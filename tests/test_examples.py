"""Every README and docs example (CLI and Python) runs, as written, on the bundled demo.

Each ```bash and ```python block of README.md and docs/*.md is one test. It runs in a fresh temporary folder
holding links to the repository's `data`, `tests` and `.venv` (so `data/demo/sotu_1934_1946`,
`tests/fixtures/siftkg` and `K=.venv/bin/kgkit` work, and nothing is written into the repository), with
`.venv/bin` first on PATH, HOME in the folder, and the offline settings of tests/conftest.py. A block that
names `workspace/demo` gets a copy of the demo workspace, built once per session as `make demo` builds it
(its cache also holds the people_orgs_events extractions and the search embeddings, so re-running those steps
is cheap). A bash block runs line by line in one `bash -e` session; each line must exit 0 (an interactive
`kgkit review` gets its answers on stdin). A python block runs with the venv's python statement by statement,
like a notebook cell (each expression's repr is taken). Then a few things a user would notice are checked.

Models are real HTTP servers on 127.0.0.1 (tests/llm_server.py): an OpenAI-compatible one (OPENAI_BASE_URL,
OPENROUTER_API_BASE) and Ollama's API on port 11434, answering with valid extraction / discovery / narration
JSON and usage; a line that needs a port already taken is skipped and says so.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
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
OLLAMA_PORT, VLLM_PORT = 11434, 8000
BLOCK_TIMEOUT = 900  # seconds, a whole block

# Blocks that are not commands to run here, by (file, first line's start) -> why.
SKIP_BLOCKS = {
    ("README.md", "make demo"): "sets up .venv and runs the demo (what the session fixture below does) and the suite",
    ("docs/notebooks.md", "with app.setup:"): "shows the structure of a marimo notebook file, not code to run",
}
# Lines that are not run, wherever they are: start of the command -> why.
SKIP_LINES = {
    ".venv/bin/marimo edit": "opens the interactive marimo editor",
    "KGKIT_WORKSPACE=~/kg/ws .venv/bin/marimo edit": "opens the interactive marimo editor",
    ".venv/bin/jupyter lab": "opens the interactive JupyterLab server",
    ".venv/bin/python notebooks/": "runs a notebook headless: tests/test_notebooks.py runs every notebook",
}
# Answers on stdin for interactive lines: command substring -> text.
STDIN = {"kgkit review": "k\nnot the same: checked by hand\nq\n", "$K review": "k\nnot the same: checked by hand\nq\n"}


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


def skip_reason(block: Block) -> str | None:
    for (file, start), why in SKIP_BLOCKS.items():
        if block.file == file and block.first.startswith(start):
            return why
    return None


def needs_demo(block: Block) -> bool:
    return "workspace/demo" in block.text


BLOCKS = doc_blocks()


def test_examples_found():
    """The parser sees the README's examples (a changed fence must not silently drop them)."""
    readme = [b for b in BLOCKS if b.file == "README.md"]
    assert sum(b.lang == "python" for b in readme) >= 2
    assert any("kgkit.run(" in b.text for b in readme) and any("$K query" in b.text for b in readme)


# ---------------------------------------------------------------------------------------------------------------
# fixtures: servers, the demo workspace


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass
class Servers:
    openai: LLMServer
    fixed: dict[int, LLMServer | None]  # port -> server (None: the port was taken)

    def env(self) -> dict[str, str]:
        base = self.openai.url + "/v1"
        return {"OPENAI_BASE_URL": base, "OPENAI_API_BASE": base, "OPENAI_API_KEY": "sk-local-test",
                "OPENROUTER_API_BASE": base, "OPENROUTER_API_KEY": "sk-or-local-test"}

    def requests(self) -> dict[str, int]:
        out = {"openai": self.openai.requests}
        out.update({str(p): s.requests for p, s in self.fixed.items() if s is not None})
        return out

    def errors(self) -> list[str]:
        return [e for s in (self.openai, *self.fixed.values()) if s is not None for e in s.errors]


@pytest.fixture(scope="session")
def servers():
    started = [LLMServer().start()]
    fixed: dict[int, LLMServer | None] = {}
    for port in (OLLAMA_PORT, VLLM_PORT):
        fixed[port] = LLMServer(port).start() if _port_free(port) else None
        if fixed[port] is not None:
            started.append(fixed[port])
    try:
        yield Servers(started[0], fixed)
    finally:
        for s in started:
            s.stop()


def example_env(home: Path, servers: Servers) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OPENROUTER_", "OLLAMA_", "KGKIT_"))}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HOME": str(home),
                "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}", "K": str(VENV_BIN / "kgkit"),
                "EDITOR": "true", "NO_COLOR": "1", "COLUMNS": "160", "PYTHONDONTWRITEBYTECODE": "1"})
    env.update(servers.env())
    return env


def example_dir(base: Path) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    for name in LINKS:
        (base / name).symlink_to(ROOT / name, target_is_directory=True)
    return base


@pytest.fixture(scope="session")
def demo_workspace(tmp_path_factory, servers) -> Path:
    """workspace/demo as `make demo` leaves it, with a cache that also holds the people_orgs_events extractions
    (the README's first line) and the embeddings of `kgkit index`."""
    if os.environ.get("DEV_DEMO"):  # TEMPORARY (development only)
        return Path(os.environ["DEV_DEMO"])
    where = example_dir(tmp_path_factory.mktemp("demo-build"))
    env = example_env(where, servers)
    for cmd in (["run", DEMO, "-o", "workspace/demo", "--domain", "people_orgs_events"],
                ["run", DEMO, "-o", "workspace/demo"], ["narrate", "workspace/demo"], ["index", "-w", "workspace/demo"]):
        done = subprocess.run([str(VENV_BIN / "kgkit"), *cmd], cwd=where, env=env, capture_output=True, text=True,
                              timeout=BLOCK_TIMEOUT)
        assert done.returncode == 0, f"kgkit {' '.join(cmd)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return where / "workspace" / "demo"


# ---------------------------------------------------------------------------------------------------------------
# running a block


@dataclass
class Line:
    n: int
    command: str
    rc: int | None = None  # None: not reached
    out: str = ""
    err: str = ""
    graph_sha: str | None = None  # sha256 of workspace/demo/graph.json after the line
    skipped: str | None = None

    def json(self) -> dict:
        return json.loads(self.out)


@dataclass
class Session:
    block: Block
    cwd: Path
    lines: list[Line] = field(default_factory=list)
    output: str = ""  # python: stdout + stderr

    def line(self, needle: str) -> Line:
        found = [ln for ln in self.lines if needle in ln.command]
        assert found, f"no line containing {needle!r}"
        return found[0]

    def file(self, rel: str) -> Path:
        path = self.cwd / rel
        assert path.exists(), f"{rel} was not written"
        return path


def bash_lines(text: str) -> list[str]:
    """The block's commands: one per line (a trailing backslash continues it), blank lines and comments dropped."""
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
    if current:
        lines.append(current)
    return lines


def line_skip(command: str, servers: Servers) -> str | None:
    for start, why in SKIP_LINES.items():
        if command.lstrip().startswith(start):
            return why
    for port, server in servers.fixed.items():
        if server is None and re.search(rf"(localhost|127\.0\.0\.1):{port}\b", command):
            return f"port {port} is already taken on this machine: the local stand-in server could not start"
    return None


def run_bash(block: Block, cwd: Path, env: dict[str, str], servers: Servers) -> Session:
    session = Session(block, cwd)
    logs = cwd / ".example"
    logs.mkdir()
    script = ["set -e", f"__logs={shlex.quote(str(logs))}"]
    for n, command in enumerate(bash_lines(block.text), 1):
        line = Line(n, command)
        session.lines.append(line)
        line.skipped = line_skip(command, servers)
        if line.skipped:
            continue
        stdin = next((text for needle, text in STDIN.items() if needle in command), None)
        if stdin is not None:
            (logs / f"{n}.in").write_text(stdin)
        source = f'"$__logs/{n}.in"' if stdin is not None else "/dev/null"
        script += [f'echo {n} > "$__logs/current"',
                   "{ " + command,
                   f'}} < {source} > "$__logs/{n}.out" 2> "$__logs/{n}.err"',
                   f'__rc=$?; echo $__rc > "$__logs/{n}.rc"; [ $__rc -eq 0 ] || exit $__rc',
                   f'if [ -f workspace/demo/graph.json ]; then sha256sum workspace/demo/graph.json > "$__logs/{n}.sha"; fi']
    (logs / "script.sh").write_text("\n".join(script) + "\n")
    done = subprocess.run(["bash", "-e", str(logs / "script.sh")], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
    for line in session.lines:
        rc = logs / f"{line.n}.rc"
        if (logs / f"{line.n}.out").exists():
            line.out = (logs / f"{line.n}.out").read_text(errors="replace")
            line.err = (logs / f"{line.n}.err").read_text(errors="replace")
        line.rc = int(rc.read_text()) if rc.exists() else None
        sha = logs / f"{line.n}.sha"
        line.graph_sha = sha.read_text().split()[0] if sha.exists() else None
    current = (logs / "current").read_text().strip() if (logs / "current").exists() else None
    failing = [ln for ln in session.lines if ln.rc not in (0, None)]
    if done.returncode != 0 and not failing and current:  # `set -e` stopped inside the line (e.g. `a ; b`)
        line = session.lines[int(current) - 1]
        line.rc = done.returncode
        failing = [line]
    for line in failing:
        pytest.fail(f"{block.id}: line {line.n} exited {line.rc}:\n$ {line.command}\n--- stdout\n"
                    f"{line.out[-4000:]}\n--- stderr\n{line.err[-4000:]}\n{done.stderr[-2000:]}", pytrace=False)
    assert done.returncode == 0, f"{block.id}: the script failed outside a line:\n{done.stderr[-4000:]}"
    return session


# Runs a python block statement by statement, as a notebook cell would: each expression is evaluated and its
# repr taken (what a notebook shows); then the test's checks run in the same namespace.
DRIVER = textwrap.dedent('''
    import ast, sys
    path, name, checks = sys.argv[1], sys.argv[2], sys.argv[3]
    source = open(path, encoding="utf-8").read()
    ns = {"__name__": "__main__"}
    for node in ast.parse(source, name).body:
        text = ast.get_source_segment(source, node).splitlines()[0]
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), name, "eval"), ns)
            shown = repr(value)
            print(f">>> {text}\\n{shown[:300]}", flush=True)
        else:
            exec(compile(ast.Module([node], []), name, "exec"), ns)
    exec(compile(open(checks, encoding="utf-8").read(), "checks", "exec"), ns)
    print("checks passed", flush=True)
''')


def run_python(block: Block, cwd: Path, env: dict[str, str], checks: str) -> Session:
    logs = cwd / ".example"
    logs.mkdir()
    (logs / "driver.py").write_text(DRIVER)
    (logs / "example.py").write_text(block.text)
    (logs / "checks.py").write_text(textwrap.dedent(checks))
    done = subprocess.run([str(VENV_BIN / "python"), str(logs / "driver.py"), str(logs / "example.py"), block.id,
                           str(logs / "checks.py")], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.id} failed (exit {done.returncode}):\n{output[-6000:]}"
    assert "checks passed" in done.stdout, output[-6000:]
    session = Session(block, cwd)
    session.output = output
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
    assert entities > 400 and relations > 400
    llm_run_ok(s, "-o workspace/gpt --model openai/gpt-4o-mini --max-cost 1.50")
    llm_run_ok(s, "-o workspace/local --model ollama/llama3.1")
    assert "entity_types" in s.file("workspace/gpt/domain.yaml").read_text()
    assert s.line("topology workspace/demo --json").json()["counts"]["entities"] > 400
    query = s.line('query "Winston Churchill"').json()
    assert query["status"] == "found", query
    assert "Winston Churchill" in [e["name"] for e in query["entities"]["items"]]
    applied, undone = s.line("&& $K apply -w workspace/demo"), s.line("undo -w workspace/demo")
    assert applied.graph_sha != run.graph_sha, "apply merged nothing on the demo"
    assert undone.graph_sha == run.graph_sha, "undo did not restore the graph bytes that apply changed"
    hits = s.line('search "war powers act"').json()["hits"]
    assert any("war powers act" in (h["title"] + " " + h["text"]).lower() for h in hits), \
        "no hit of `search \"war powers act\"` contains the phrase:\n" + "\n".join(
            f"{h['rank']} {h['kind']} {h['title'][:40]!r} {h['text'][:70]!r}" for h in hits)
    assert "## Overview" in s.file("workspace/demo/narrative.md").read_text()
    nodes = ET.parse(s.file("graph.graphml")).getroot().iter("{http://graphml.graphdrawing.org/xmlns}node")
    assert sum(1 for _ in nodes) > 400
    assert graph_counts(s.file("workspace/sift/graph.json"))[0] > 0
    assert "people_orgs_events" in s.line("domains").out
    assert s.file("cache.tar.gz").stat().st_size > 1000
    assert s.file("workspace/demo/graph.html").stat().st_mtime >= s.file("graph.graphml").stat().st_mtime


README_RUN = """
assert result.outcome == "complete" and not result.errors, result.outcome
assert len(graph.entities) > 400 and len(graph.relations) > 400
assert len(graph.entity("Person:winston churchill")["provenance"]) >= 1
"""
README_STAGES = """
assert not errors and len(documents) == 14
assert len(graph.entities) > 400
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
    for line in s.lines:
        assert "fell back" not in line.out + line.err, line.command


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
    assert graph_counts(s.file("workspace/rebuilt/graph.json"))[0] > 400
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


def checks_for(block: Block) -> list[Callable[[Session, Servers], None] | str]:
    return [check for file, needle, check in CHECKS if file == block.file and needle in block.text]


def test_every_check_has_its_block():
    """A check whose block was edited away fails here rather than silently checking nothing."""
    for file, needle, _ in CHECKS:
        assert any(b.file == file and needle in b.text for b in BLOCKS), f"{file}: no example contains {needle!r}"


# ---------------------------------------------------------------------------------------------------------------
# the tests: blocks without the demo workspace first, so the session's demo build comes once it is needed


@pytest.mark.parametrize("block", sorted(BLOCKS, key=needs_demo), ids=lambda b: b.id)
def test_example(block: Block, request, servers: Servers, tmp_path: Path):
    why = skip_reason(block)
    if why:
        pytest.skip(why)
    commands = bash_lines(block.text) if block.lang == "bash" else []
    if commands and all(line_skip(c, servers) for c in commands):
        pytest.skip("; ".join(sorted({line_skip(c, servers) or "" for c in commands})))
    cwd = example_dir(tmp_path / "example")
    if needs_demo(block):
        shutil.copytree(request.getfixturevalue("demo_workspace"), cwd / "workspace" / "demo", symlinks=True)
    env = example_env(cwd, servers)
    checks = checks_for(block)
    before = servers.requests()
    if block.lang == "bash":
        session = run_bash(block, cwd, env, servers)
        for line in session.lines:
            if line.skipped:
                print(f"{block.id} line {line.n} not run ({line.skipped}): {line.command}")
        for check in checks:
            assert callable(check)
            check(session)
    else:
        run_python(block, cwd, env, "\n".join(c for c in checks if isinstance(c, str)))
    assert not servers.errors(), servers.errors()
    sent = sum(n - before.get(k, 0) for k, n in servers.requests().items())
    if re.search(r"\b(openai|openrouter|ollama|hosted_vllm)/", block.text):
        assert sent > 0, f"{block.id} names a model but sent no request to the local servers"
