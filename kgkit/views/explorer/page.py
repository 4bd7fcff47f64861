"""The explorer as one standalone, offline HTML page, and as one ES module string for the anywidget.

The page needs no network: the renderer (sigma.js + graphology, WebGL, bundled into
``vendor/sigma-graphology.min.js``; see ``vendor/README.md``) and the explorer's ES module are inlined, and a
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

__all__ = ["explorer_esm", "explorer_html", "explorer_page", "payload_json", "renderer_js"]

_VIEWS = Path(__file__).resolve().parents[1]
_RENDERER = Path(__file__).resolve().parent / "vendor" / "sigma-graphology.min.js"
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
<script>{renderer}</script>
<script type="module">
{module}
performance.mark("kgx:module");
const payload = JSON.parse(document.getElementById("kg-data").textContent);
const explorer = mount(document.getElementById("kg-explorer"), payload, {{ height: "{height}" }});
globalThis.kgExplorer = explorer;
explorer.drawn.then(() => {{
  document.body.setAttribute("data-kg-ms", String(Math.round(performance.now())));  // time to interactive
  document.body.setAttribute("data-kg-drawn", "1");
}});
</script>"""


@cache
def renderer_js() -> str:
    """The renderer: sigma.js 3 + graphology as one minified IIFE defining `KGKIT_SIGMA` (vendored, MIT; built
    from the npm packages by vendor/src/build.sh). It holds no ``</script`` or ``<!--``, so it is inlined as is."""
    code = _RENDERER.read_text(encoding="utf-8")
    if re.search(r"</script|<!--", code, re.IGNORECASE):  # pragma: no cover - a rebuilt bundle is checked here
        raise ValueError(f"{_RENDERER} cannot be inlined in a <script> block")
    return code


_IMPORT = re.compile(r'^import \{[^}]*\} from "\./(explorer_logic|explorer_view)\.js";\n', re.MULTILINE)


def _bundle() -> str:
    """explorer_logic.js + explorer_view.js + explorer.js as one module (their relative imports dropped)."""
    logic, view, main = ((_VIEWS / f"{name}.js").read_text(encoding="utf-8")
                         for name in ("explorer_logic", "explorer_view", "explorer"))
    view, n_view = _IMPORT.subn("", view)
    main, n_main = _IMPORT.subn("", main)
    if (n_view, n_main) != (1, 2) or _IMPORT.search(logic):
        raise ValueError("explorer_view.js imports explorer_logic.js once; explorer.js imports both once")
    return "\n".join((logic, view, main))


def explorer_esm() -> str:
    """The explorer as one ES module for anywidget: the renderer's IIFE (its `var KGKIT_SIGMA` is local to the
    module: it neither needs nor touches a page-wide name, and ignores any AMD loader the notebook has), then
    the explorer."""
    return renderer_js() + "\n" + _bundle()


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
        body = _BODY.format(data=payload_json(payload), renderer=renderer_js(), module=_bundle(), height=height)
    return _PAGE.format(csp=_CSP, title=heading, body=body)
