"""Headless-Chromium helpers shared by tests/test_browser.py and bench/screenshot_view.py (test tooling only).

Chromium runs offline: every host name resolves to nothing, a dead proxy catches anything else, background
services are off, and a NetLog records every URL the browser asked for so a test can prove there were none.
PNG screenshots are decoded with zlib + struct (no Pillow needed).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",  # the explorer draws with WebGL: software (SwiftShader) here, opted into explicitly
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--mute-audio",
    "--no-default-browser-check",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://127.0.0.1:9",
    "--force-device-scale-factor=1",
]


def find_chromium() -> str | None:
    """Path of a Chromium binary: $KGKIT_CHROMIUM, /usr/bin/chromium, or one on PATH; None if absent."""
    candidates = [os.environ.get("KGKIT_CHROMIUM", ""), "/usr/bin/chromium"]
    candidates += [shutil.which(n) or "" for n in ("chromium", "chromium-browser", "google-chrome", "chrome")]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    page_requests: list[str]  # URLs the page itself asked the network stack for (from the NetLog)
    png: Path | None = None


def run_chromium(
    html: str | Path,
    *,
    png: str | Path | None = None,
    dump_dom: bool = False,
    chromium: str | None = None,
    size: tuple[int, int] = (1200, 900),
    budget_ms: int = 40000,
    timeout: float = 120.0,
) -> Run:
    """Open a local HTML file in headless Chromium (network blocked); screenshot it to ``png`` or dump its DOM.

    ``budget_ms`` of virtual time lets timers (vis-network's stabilisation) run first. The whole Chromium
    process group is killed after ``timeout`` seconds (TimeoutError), so this never hangs.
    """
    binary = chromium or find_chromium()
    if binary is None:
        raise FileNotFoundError("chromium not found (Debian: apt-get install -y chromium)")
    html = Path(html).resolve()
    extra = ["--dump-dom"] if dump_dom else []
    if png is not None:
        png = Path(png).resolve()
        png.parent.mkdir(parents=True, exist_ok=True)
        png.unlink(missing_ok=True)
        extra.append(f"--screenshot={png}")
    with tempfile.TemporaryDirectory(prefix="kgkit-chromium-") as tmp:
        netlog = Path(tmp) / "netlog.json"
        cmd = [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp}/profile",
            f"--log-net-log={netlog}",
            f"--window-size={size[0]},{size[1]}",
            f"--virtual-time-budget={budget_ms}",
            *extra,
            html.as_uri(),
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, cwd=tmp)  # fmt: skip
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise TimeoutError(f"chromium did not finish within {timeout}s: {' '.join(cmd)}") from None
        finally:
            try:  # headless helpers (zygote, renderers) must not outlive the call
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        requests = page_requests(netlog)
    return Run(proc.returncode, out, err, requests, png if png is not None and png.exists() else None)


def page_requests(netlog: Path) -> list[str]:
    """URLs requested on behalf of a file:// page, from a Chromium NetLog (browser housekeeping such as
    update checks has no file:// network isolation key and is left out). Tolerates a truncated log."""
    if not netlog.exists():
        return []
    text = netlog.read_text(encoding="utf-8", errors="replace").rstrip().rstrip(",")
    for tail in ("", "]}"):
        try:
            data = json.loads(text + tail)
            break
        except json.JSONDecodeError:
            continue
    else:
        raise ValueError(f"unreadable NetLog {netlog}")
    start_job = data["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = {
        event["params"]["url"]
        for event in data.get("events", [])
        if event.get("type") == start_job and "file://" in str(event.get("params", {}).get("network_isolation_key"))
    }
    return sorted(urls)


def read_png(path: str | Path) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA, non-interlaced PNG: (width, height, rows of RGBA bytes)."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth={depth}, colour type={colour_type}, interlace={interlace})")
    bpp = 4 if colour_type == 6 else 3
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif ftype != 0:
            raise ValueError(f"bad PNG filter {ftype}")
        prev = line
        rows.append(bytes(line) if bpp == 4 else bytes(b for j in range(0, stride, 3) for b in (*line[j : j + 3], 255)))
    return width, height, rows


def colour_counts(
    png: str | Path,
    colours: list[str],
    *,
    box: tuple[int, int, int, int] | None = None,
    tolerance: int = 24,
) -> tuple[dict[str, int], int]:
    """Pixels in ``box`` (x0, y0, x1, y1; default whole image) close to each of ``colours`` (#rrggbb), and
    the number of pixels in the box."""
    width, height, rows = read_png(png)
    x0, y0, x1, y1 = box or (0, 0, width, height)
    x1, y1 = min(x1, width), min(y1, height)
    targets = [(c, *(int(c[i : i + 2], 16) for i in (1, 3, 5))) for c in colours]
    counts = dict.fromkeys(colours, 0)
    for row in rows[y0:y1]:
        for x in range(x0, x1):
            r, g, b = row[4 * x], row[4 * x + 1], row[4 * x + 2]
            if r > 235 and g > 235 and b > 235:  # background: skip fast
                continue
            for name, tr, tg, tb in targets:
                if abs(r - tr) <= tolerance and abs(g - tg) <= tolerance and abs(b - tb) <= tolerance:
                    counts[name] += 1
                    break
    return counts, max(0, x1 - x0) * max(0, y1 - y0)


def synthetic_graph(n_entities: int = 50, n_relations: int = 80, *, seed: int = 7) -> Any:
    """A deterministic kgkit Graph of ``n_entities`` entities in five types and ``n_relations`` relations,
    some negated, some flagged, one entity named like an XSS payload (for browser checks and the bench)."""
    import random

    import pandas as pd

    from kgkit.core.graph import DOCUMENT_COLUMNS, PROVENANCE_COLUMNS, Graph, empty_table

    rng = random.Random(seed)
    types = ["Person", "Organization", "Location", "Event", "Concept"]
    ents = [
        {"id": f"{types[i % 5].lower()}:e{i}", "name": f"{types[i % 5]} {i}", "type": types[i % 5],
         "aliases": [f"E{i}"], "mentions": rng.randint(1, 9), "documents": rng.randint(1, 3), "confidence": 0.9,
         "identity": "derived", "degree": 0}
        for i in range(n_entities)
    ]  # fmt: skip
    ents[0]["name"] = "<img src=x onerror=document.body.setAttribute('data-pwned',1)>"
    rels = []
    for j in range(n_relations):
        a, b = rng.sample(range(n_entities), 2)
        ents[a]["degree"] += 1
        ents[b]["degree"] += 1
        rels.append({"id": f"rel:{j:03d}", "source": ents[a]["id"], "target": ents[b]["id"],
                     "type": rng.choice(["WORKS_FOR", "LOCATED_IN", "PART_OF", "MET"]), "predicate": "relates to",
                     "negated": j % 11 == 0, "confidence": 0.8, "support": 1 + j % 3,
                     "evidence": f"Sentence {j}. </script><script>document.body.setAttribute('data-pwned',2)</script>",
                     "valid_at": None, "invalid_at": None, "created_at": None, "expired_at": None,
                     "flags": ["low_confidence"] if j % 7 == 0 else []})  # fmt: skip
    return Graph(pd.DataFrame(ents), pd.DataFrame(rels), empty_table(PROVENANCE_COLUMNS), empty_table(DOCUMENT_COLUMNS))
