"""Screenshot the graph explorer with an entity's details panel open (the README's picture), in headless
Chromium with the network blocked.

    .venv/bin/python bench/screenshot_explorer.py workspace/demo/graph.html docs/explorer.png --find Churchill

Opens the page, types `--find` into the search box, picks the first suggestion (the details panel opens with
its evidence), with --focus N shows only its N-hop neighbourhood, and saves the PNG. Prints the PNG path and any URL the page asked for (exit 1 if any).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from cdp_tools import Browser  # noqa: E402  (test tooling: one headless Chromium over DevTools)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--find", default="Churchill", help="what to type into the search box")
    parser.add_argument("--focus", type=int, default=0, help="then focus on its N-hop neighbourhood (0: no focus)")
    parser.add_argument("--width", type=int, default=1500)
    parser.add_argument("--height", type=int, default=950)
    args = parser.parse_args(argv)
    with Browser(size=(args.width, args.height)) as browser:
        page = browser.open(args.html.resolve().as_uri())
        page.wait_for("document.body.dataset.kgDrawn === '1'")
        page.click("[data-role=search]")
        page.type_text(args.find)
        page.click("[data-role=suggestions] button")
        if args.focus:
            page.eval(f"document.querySelector('[data-role=hops]').value = '{args.focus}'")
            page.click("[data-action=focus]")
        page.eval("document.activeElement.blur()")
        time.sleep(0.3)
        args.png.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(args.png)
        requests = page.eval("performance.getEntriesByType('resource').map((r) => r.name)")
    print(args.png, requests or "")
    return 1 if requests else 0


if __name__ == "__main__":
    raise SystemExit(main())
