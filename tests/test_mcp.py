"""`kgkit mcp` with a real MCP client session (the SDK's ClientSession): over stdio, spawning `python -m kgkit mcp`,
and once over streamable HTTP on 127.0.0.1. Every read tool is called with valid arguments (bounded, versioned
JSON) and with bad ones (an error with a clear text, never an empty answer); a read-only server has no write
tool and refuses one by name; a write-mode server waits for, or names, a CLI writer holding the workspace lock.
Uses a copy of the session's demo workspace, indexed with the hashing embedder (fast, no model).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from kgkit.mcp.server import READ_TOOLS, WRITE_TOOLS

pytestmark = pytest.mark.slow
MAX_ANSWER = 200_000  # characters: a bounded page of the demo graph is far below this


@pytest.fixture(scope="module")
def demo_ws(demo_run, tmp_path_factory) -> Path:
    """A copy of the demo workspace with a search index (hashing embedder)."""
    from kgkit.stages.search.minilm import search_embedder
    from kgkit.workflows.index import index

    ws = tmp_path_factory.mktemp("mcp") / "ws"
    shutil.copytree(demo_run[0], ws)
    index(ws, embedder=search_embedder("hashing"), embedder_name="hashing")
    return ws


def _session(ws: Path, *args: str, check: Callable[[ClientSession], Awaitable[None]]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "kgkit", "mcp", "-w", str(ws), *args],
                                   env={k: v for k, v in os.environ.items() if k.isupper()})

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await check(session)

    anyio.run(main)


def _json(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    assert len(text) < MAX_ANSWER
    return json.loads(text)


def _error(result: Any) -> str:
    assert result.is_error, f"expected an error, got {result.content[0].text[:200]}"
    return result.content[0].text


GOOD = {  # tool -> (valid arguments, the schema field it answers with)
    "search": ({"query": "Congress", "limit": 5}, "kgkit.search/1"),
    "entity": ({"entity": "Congress", "limit": 3}, "kgkit.entity/1"),
    "neighbourhood": ({"entity": "Congress", "depth": 2, "limit": 5}, "kgkit.neighbourhood/1"),
    "topology": ({"limit": 3}, "kgkit.topology/1"),
    "documents": ({"limit": 5, "offset": 10}, "kgkit.documents/1"),
    "facts": ({"entity": "Congress", "limit": 4}, "kgkit.facts/1"),
    "pending": ({"limit": 5}, "kgkit.pending/1"),
}
BAD = {  # tool -> (bad arguments, words the error must contain)
    "search": ({"query": "x", "as_of": "yesterday"}, "ISO 8601"),
    "entity": ({"entity": "Nobody Atall"}, "no entity matches"),
    "neighbourhood": ({"entity": "Congress", "depth": 9}, "depth"),
    "path": ({"source": "Congress", "target": "Nobody Atall"}, "no entity matches"),
    "topology": ({"limit": 5000}, "limit"),
    "documents": ({"offset": -1}, "offset"),
    "facts": ({"as_of": "not a time"}, "ISO 8601"),
    "pending": ({"limit": 0}, "limit"),
}


def test_stdio_read_only_session(demo_ws: Path) -> None:
    async def check(session: ClientSession) -> None:
        init = await session.initialize()
        assert "read-only" in init.instructions and "cannot change" in init.instructions
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools == set(READ_TOOLS)  # no write tool at all
        for name, (args, schema) in GOOD.items():
            out = _json(await session.call_tool(name, args))
            assert out.get("schema", out.get("format")) == schema, name
            pages = [out] if "items" in out or "hits" in out else [v for v in out.values() if isinstance(v, dict) and "items" in v]
            for page in pages:
                rows = page.get("items", page.get("hits"))
                assert len(rows) <= args.get("limit", 100), name
        # paging: the second page starts where the first ended
        first = _json(await session.call_tool("documents", {"limit": 5}))
        second = _json(await session.call_tool("documents", {"limit": 5, "offset": first["next_offset"]}))
        assert first["total"] == 14 and {d["id"] for d in first["items"]}.isdisjoint(d["id"] for d in second["items"])
        hood = _json(await session.call_tool("neighbourhood", {"entity": "Congress", "limit": 5}))
        far = next(e["id"] for e in hood["entities"]["items"] if e["hop"] == 1)
        chain = _json(await session.call_tool("path", {"source": "Congress", "target": far}))
        assert chain["schema"] == "kgkit.path/1" and chain["hops"] == 1 and chain["relations"][0]["evidence"]
        ent = _json(await session.call_tool("entity", {"entity": "Congress", "limit": 3}))
        assert ent["provenance"]["total"] > 3 and ent["provenance"]["items"][0]["document_id"]
        assert ent["relations"]["items"][0]["evidence"]
        hits = _json(await session.call_tool("search", {"query": "Congress", "kind": ["entity"], "limit": 3}))
        assert hits["hits"] and all(h["kind"] == "entity" for h in hits["hits"])
        for name, (args, words) in BAD.items():
            assert words in _error(await session.call_tool(name, args)), name
        for name in WRITE_TOOLS:
            text = _error(await session.call_tool(name, {}))
            assert "read-only" in text and f"--allow {name}" in text
        guide = await session.read_resource("kgkit://guide")
        assert "topology" in guide.contents[0].text and "needs a person" in guide.contents[0].text.lower()
        prompt = await session.get_prompt("kgkit_guide")
        assert "What costs money" in prompt.messages[0].content.text

    _session(demo_ws, check=check)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_session(demo_ws: Path) -> None:
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "kgkit", "mcp", "-w", str(demo_ws), "--http", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read().decode()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            time.sleep(0.2)
        else:
            pytest.fail("the HTTP server did not listen within 60 s")

        async def main() -> None:
            with anyio.fail_after(60):
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
                        ClientSession(read, write) as session:
                    await session.initialize()
                    assert {t.name for t in (await session.list_tools()).tools} == set(READ_TOOLS)
                    out = _json(await session.call_tool("topology", {"limit": 2}))
                    assert out["format"] == "kgkit.topology/1" and len(out["communities"]["items"]) <= 2
                    assert "no entity matches" in _error(await session.call_tool("entity", {"entity": "Nobody Atall"}))

        anyio.run(main)
    finally:
        server.terminate()
        server.wait(timeout=20)


HOLD_LOCK = """
import sys
from kgkit.io.workspace import Workspace
with Workspace(sys.argv[1]).writer(step="cli writer"):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_write_mode_is_serialised_with_a_cli_writer(demo_ws: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(demo_ws, ws, ignore=shutil.ignore_patterns("cache"))
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(ws)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"

        async def check(session: ClientSession) -> None:
            init = await session.initialize()
            assert "read-write for apply, decide only" in init.instructions
            assert {t.name for t in (await session.list_tools()).tools} == set(READ_TOOLS) | {"decide", "apply"}
            hood = _json(await session.call_tool("neighbourhood", {"entity": "Congress", "limit": 3}))
            other = hood["entities"]["items"][1]["id"]
            decision = {"kind": "keep_apart", "source": "Organization:congress", "target": other, "why": "test"}
            busy = _error(await session.call_tool("decide", decision))  # the CLI writer holds the lock
            assert "WorkspaceBusy" in busy and "cli writer" in busy
            assert "read-only" in _error(await session.call_tool("add", {"paths": ["x.txt"]}))
            holder.stdin.close()  # the CLI writer finishes
            assert holder.wait(timeout=20) == 0
            made = _json(await session.call_tool("decide", decision))
            assert made["decision"]["kind"] == "keep_apart" and made["decisions"] == 1
            assert made["decision"]["decided_by"] == "llm"  # an agent's decision, which a person can override
            assert "no entity with id" in _error(await session.call_tool("decide", {**decision, "target": "X:none"}))
            assert "split" not in {t.name for t in (await session.list_tools()).tools}  # not allowed: absent
            assert _json(await session.call_tool("apply", {}))["schema"] == "kgkit.apply/1"

        _session(ws, "--allow", "decide,apply", "--lock-timeout", "1", check=check)

        async def split(session: ClientSession) -> None:
            await session.initialize()
            args = {"entity": "Organization:congress", "documents": ["1934-Roosevelt-1.txt"], "label": "73rd",
                    "why": "the 73rd Congress"}
            made = _json(await session.call_tool("split", args))
            assert made["decision"]["subjects"][1] == "Organization:congress~73rd"
            assert made["decision"]["decided_by"] == "llm"
            assert "not a document" in _error(await session.call_tool("split", {**args, "documents": ["none.txt"]}))
            applied = _json(await session.call_tool("apply", {}))
            assert applied["changed"] is True and "graph.html" in applied["stale"]  # the agent is told: out of date

        _session(ws, "--allow", "split,apply", check=split)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)
    assert "keep_apart" in (ws / "decisions.yaml").read_text()
    assert "Organization:congress~73rd" in (ws / "graph.json").read_text()


def test_cli_usage_errors(tmp_path: Path, demo_ws: Path) -> None:
    from typer.testing import CliRunner

    from kgkit.cli import app

    runner = CliRunner()
    missing = runner.invoke(app, ["mcp", "-w", str(tmp_path / "nothing")])
    assert missing.exit_code == 2 and "not a kgkit workspace" in missing.output
    bad = runner.invoke(app, ["mcp", "-w", str(demo_ws), "--allow", "add,delete"])
    assert bad.exit_code == 2 and "unknown write tool(s) delete" in bad.output


def test_the_wheel_ships_the_agent_guide(tmp_path: Path) -> None:
    import zipfile

    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(root)], check=True, timeout=300, capture_output=True)
    (wheel,) = tmp_path.glob("kgkit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "kgkit/agent_guide.md" in names and "kgkit/mcp/server.py" in names
