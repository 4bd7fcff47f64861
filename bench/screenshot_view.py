"""Screenshot a kgkit graph page in headless Chromium with the network blocked.

    python bench/screenshot_view.py workspace/demo/graph.html bench/out/graph.png
    python bench/screenshot_view.py --demo bench/out/demo.html bench/out/demo.png   # write a 50-entity page first

Prints the PNG path, the share of non-background pixels and any URL the page asked the network for; exits 1
if the page made a network request or Chromium failed. The helpers live in tests/browser_tools.py (shared
with tests/test_browser.py; test tooling, not part of the kgkit package).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import browser_tools as bt  # noqa: E402  (needs the path above)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path, help="the HTML page to open (written first with --demo)")
    parser.add_argument("png", type=Path, help="where to save the screenshot")
    parser.add_argument("--demo", action="store_true", help="write a synthetic 50-entity / 80-relation page first")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--budget-ms", type=int, default=15000, help="virtual time for the layout to settle")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)

    if args.demo:
        from kgkit.views.graph_page import graph_html

        args.html.parent.mkdir(parents=True, exist_ok=True)
        args.html.write_text(graph_html(bt.synthetic_graph(50, 80), title="kgkit demo graph"), encoding="utf-8")
    if bt.find_chromium() is None:
        print("chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 2
    run = bt.run_chromium(args.html, png=args.png, size=(args.width, args.height), budget_ms=args.budget_ms,
                          timeout=args.timeout)  # fmt: skip
    if run.returncode != 0 or run.png is None:
        print(f"chromium failed ({run.returncode}):\n{run.stderr[-3000:]}", file=sys.stderr)
        return 1
    width, height, rows = bt.read_png(run.png)
    inked = sum(1 for row in rows for x in range(0, 4 * width, 4) if min(row[x : x + 3]) < 235)
    print(f"screenshot: {run.png} ({width}x{height}, {inked / (width * height):.1%} non-background pixels)")
    for url in run.page_requests:
        print(f"NETWORK REQUEST: {url}", file=sys.stderr)
    return 1 if run.page_requests else 0


if __name__ == "__main__":
    sys.exit(main())
