"""The explorer as one standalone, offline HTML page, and as one ES module string for the anywidget.

The page needs no network: vis-network (the copy pyvis ships) and the explorer's ES module are inlined, and a
Content-Security-Policy forbids any fetch. The data travels as HTML-safe JSON in a
``<script type="application/json">`` block (``<``, ``>``, ``&``, ``'`` escaped as ``\\u003c``...), and the
explorer inserts every string with textContent. Same graph -> same bytes.

>>> from kgkit.core.graph import Graph
>>> "The graph is empty" in explorer_html(Graph.empty())
True
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from kgkit.core.constants import VIEW_NODES, WEAK_TYPES
from kgkit.core.graph import Graph
from kgkit.views.explorer.payload import explorer_payload

__all__ = ["explorer_esm", "explorer_html", "explorer_page", "payload_json", "vis_network_js"]

_VIEWS = Path(__file__).resolve().parents[1]
CSS_SIZE = re.compile(r"^\d+(\.\d+)?(px|%|vh|vw|em|rem)$")
_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body{{margin:0;padding:8px;background:#fff}}.kg-empty{{font:14px system-ui,sans-serif}}</style>
</head>
<body>
{body}
</body>
</html>
"""
_BODY = """<noscript>This graph view needs JavaScript.</noscript>
<div id="kg-explorer"></div>
<script type="application/json" id="kg-data">{data}</script>
<script>{vis}</script>
<script type="module">
{module}
performance.mark("kgx:module");
const payload = JSON.parse(document.getElementById("kg-data").textContent);
const explorer = mount(document.getElementById("kg-explorer"), payload, {{ height: "{height}" }});
globalThis.kgExplorer = explorer;
explorer.network.once("afterDrawing", () => {{
  document.body.setAttribute("data-kg-ms", String(Math.round(performance.now())));  // time to interactive
  document.body.setAttribute("data-kg-drawn", "1");
}});
explorer.network.redraw();
</script>"""


@cache
def vis_network_js() -> str:
    """vis-network's standalone build, as pyvis ships it (its tooltips set text with innerText)."""
    import pyvis

    path = Path(pyvis.__file__).resolve().parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"
    code = path.read_text(encoding="utf-8")
    return code.replace("//# sourceMappingURL=vis-network.min.js.map", "")


def _bundle() -> str:
    """explorer_logic.js + explorer.js as one module (the relative import inlined)."""
    from kgkit.views.widgets import bundle_esm

    return bundle_esm("explorer", _VIEWS)


def explorer_esm() -> str:
    """The explorer as one ES module for anywidget: vis-network kept in a local `KGKIT_VIS` (it neither needs
    nor touches a page-wide `vis`, and ignores any AMD loader the notebook has), then the explorer."""
    wrapped = ("const KGKIT_VIS = (function () { var exports = {}; var module = { exports: exports };\n"
               f"{vis_network_js()}\nreturn module.exports; }})();\n")
    return wrapped + _bundle()


def payload_json(payload: dict[str, Any]) -> str:
    """JSON safe inside HTML: no `<`, `>`, `&` or `'` (as in jinja2's tojson), so no `</script>` or `<!--`."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def explorer_html(
    graph: Graph,
    *,
    max_nodes: int | None = VIEW_NODES,
    color_by: str = "type",
    height: str = "800px",
    title: str | None = None,
    seed: int = 0,
    faint_types: tuple[str, ...] = WEAK_TYPES,
) -> str:
    """A complete, standalone HTML page exploring `graph` (pure: no files, no network, no randomness)."""
    if not CSS_SIZE.match(height):
        raise ValueError(f"height must be a CSS size such as '800px', not {height!r}")
    payload = explorer_payload(graph, max_nodes=max_nodes, color_by=color_by, title=title, seed=seed,
                               faint_types=faint_types)
    return explorer_page(payload, height=height)


def explorer_page(payload: dict[str, Any], *, height: str = "800px") -> str:
    """The standalone page for an explorer payload (`explorer_payload`, `overlay_payload`, ...)."""
    if not CSS_SIZE.match(height):
        raise ValueError(f"height must be a CSS size such as '800px', not {height!r}")
    heading = html.escape(payload["title"], quote=True)
    if not payload["nodes"]:
        body = f'<h1 style="font:18px system-ui,sans-serif">{heading}</h1>\n' \
               '<p class="kg-empty">The graph is empty: there are no entities to show.</p>'
    else:
        body = _BODY.format(data=payload_json(payload), vis=vis_network_js(), module=_bundle(), height=height)
    return _PAGE.format(csp=_CSP, title=heading, body=body)
