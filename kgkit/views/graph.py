"""Graph views: a Graph as one standalone, offline HTML page (pyvis + vis-network, inlined).

The page needs no network: vis-network's JS and CSS are inlined and a Content-Security-Policy forbids
any fetch. Every string that comes from a document is escaped: HTML text is autoescaped, node/edge data
is embedded as HTML-safe JSON (``<``, ``>``, ``&``, ``'`` become ``\\u003c``...), and tooltips are plain
text (vis-network 9 sets string titles with ``innerText``, never ``innerHTML``). Same graph -> same bytes.

>>> import pandas as pd
>>> from kgkit.core.graph import ENTITY_COLUMNS, RELATION_COLUMNS, Graph, empty_table
>>> ents = pd.DataFrame({"id": ["person:ada", "person:charles"], "name": ["Ada", "Charles <b>"],
...     "type": ["Person", "Person"], "aliases": [[], []], "mentions": [2, 1], "documents": [1, 1],
...     "confidence": [1.0, 1.0], "identity": ["derived", "derived"], "degree": [1, 1]})
>>> g = Graph.empty()
>>> g = Graph(ents, empty_table(RELATION_COLUMNS), g.provenance, g.documents)
>>> page = graph_html(g, title="Demo")
>>> page.startswith("<!DOCTYPE html>"), "Charles <b>" in page, "Charles \\\\u003cb\\\\u003e" in page
(True, False, True)
>>> page == graph_html(g, title="Demo")
True
>>> "The graph is empty" in graph_html(Graph.empty())
True
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import pandas as pd

from kgkit.core.constants import VIEW_NODES, WEAK_TYPES
from kgkit.core.graph import Graph
from kgkit.stages.postprocess import REVIEW_FLAGS

# Tableau-20-like palette; common types are pinned, any other value hashes (sha256) into the palette,
# so a type gets the same colour in every graph and every run.
PALETTE: tuple[str, ...] = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#86bcb6", "#d37295", "#8cd17d", "#b6992d", "#499894", "#f1ce63", "#a0cbe8", "#ffbe7d", "#fabfd2",
    "#d4a6c8", "#79706e",
)  # fmt: skip
PINNED: dict[str, str] = {
    "Person": PALETTE[0], "Organization": PALETTE[1], "Location": PALETTE[2], "Event": PALETTE[3],
    "Date": PALETTE[5], "Concept": PALETTE[6], "Other": "#bab0ac",
}  # fmt: skip
EDGE_COLOUR, FLAGGED_COLOUR = "#9aa0a6", "#d62728"
FAINT_COLOUR = "#d3d7db"  # co-occurrence edges: context, not claims
_CSS_SIZE = re.compile(r"^\d+(\.\d+)?(px|%|vh|vw|em|rem)$")

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; \
style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ heading.title }}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:8px;color:#222;background:#fff}
.kg-header{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 16px;margin:0 0 4px}
.kg-header h1{font-size:18px;margin:0}
.kg-note{font-size:13px;color:#555}
.kg-legend{display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;margin:0 0 6px;padding:0;list-style:none}
.kg-swatch{display:inline-block;width:11px;height:11px;border-radius:50%;margin-right:4px;vertical-align:-1px}
#mynetwork{width:{{ width }};height:{{ height }};border:1px solid #ddd;background:{{ bgcolor }}}
div.vis-tooltip{white-space:pre-wrap;max-width:440px;font-size:12px}
</style>
{% if not heading.empty %}<style>{% include 'lib/vis-9.1.2/vis-network.css' %}</style>
<script>{% include 'lib/vis-9.1.2/vis-network.min.js' %}</script>
{% endif %}</head>
<body>
<header class="kg-header"><h1>{{ heading.title }}</h1><span class="kg-note">{{ heading.note }}</span></header>
{% if heading.empty %}<p class="kg-empty">The graph is empty: there are no entities to show.</p>
{% else %}<ul class="kg-legend">{% for name, colour, count in heading.legend %}
<li><span class="kg-swatch" style="background:{{ colour }}"></span>{{ name }} ({{ count }})</li>{% endfor %}
</ul>
<div id="mynetwork"></div>
<script>
var nodes = new vis.DataSet({{ nodes|tojson }});
var edges = new vis.DataSet({{ edges|tojson }});
var network = new vis.Network(document.getElementById("mynetwork"), {nodes: nodes, edges: edges}, {{ options|safe }});
network.once("afterDrawing", function () { document.body.setAttribute("data-kg-drawn", "1"); });
</script>
{% endif %}</body>
</html>
"""


def type_colour(value: Any) -> str:
    """The colour of a type (or any colour_by value): pinned for common types, else hashed into PALETTE.

    >>> type_colour("Person"), type_colour("Spaceship") == type_colour("Spaceship")
    ('#4e79a7', True)
    """
    key = _text(value) or "Other"
    if key in PINNED:
        return PINNED[key]
    return PALETTE[int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % len(PALETTE)]


def _text(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _items(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        return [_text(v) for v in list(value) if _text(v)]
    return [_text(value)] if _text(value) else []


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


@cache
def _environment(template_dir: str) -> Any:
    """One Jinja environment per process (so the inlined vis-network is parsed once), autoescaping on."""
    from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader

    loader = ChoiceLoader([DictLoader({"kgkit_graph.html": _TEMPLATE}), FileSystemLoader(template_dir)])
    return Environment(loader=loader, autoescape=True)


def _node_title(row: dict[str, Any]) -> str:
    lines = [_text(row["name"]), f"type: {_text(row['type'])}"]
    aliases = _items(row["aliases"])
    if aliases:
        more = f" (+{len(aliases) - 10} more)" if len(aliases) > 10 else ""
        lines.append("aliases: " + ", ".join(_clip(a, 60) for a in aliases[:10]) + more)
    lines.append(f"mentions: {int(row['mentions'])} \u00b7 documents: {int(row['documents'])}"
                 f" \u00b7 relations: {int(row['degree'])}")  # fmt: skip
    return "\n".join(lines)


def _edge_title(row: dict[str, Any], names: dict[str, str]) -> str:
    lines = [f"{names[row['source']]} \u2014{_text(row['type'])}\u2192 {names[row['target']]}"]
    if _text(row["predicate"]):
        lines.append(f"predicate: \u201c{_clip(_text(row['predicate']), 120)}\u201d")
    lines.append(f"support: {int(row['support'])} \u00b7 confidence: {float(row['confidence']):.2f}")
    if bool(row["negated"]):
        lines.append("NEGATED")
    flags = _items(row["flags"])
    if flags:
        lines.append("flags: " + ", ".join(flags))
    if _text(row["evidence"]):
        lines.append(f"evidence: \u201c{_clip(_text(row['evidence']), 400)}\u201d")
    return "\n".join(lines)


def graph_html(
    graph: Graph,
    *,
    max_nodes: int = VIEW_NODES,
    color_by: str = "type",
    height: str = "800px",
    title: str | None = None,
    physics: bool = True,
    seed: int = 0,
    faint_types: Sequence[str] = WEAK_TYPES,
) -> str:
    """A complete, standalone HTML page showing ``graph`` (pure: no files, no network, no randomness).

    Nodes are coloured by ``color_by`` (an entity column; legend at the top), sized by degree and
    tooltipped with name, type, aliases and counts. Edges show the relation type; tooltips add predicate,
    support, confidence, flags and evidence. Negated relations are dashed, flagged ones red and thicker.
    Above ``max_nodes`` entities only the top ones by degree, then mentions, then id are kept, and the
    header says "showing N of M entities". ``seed`` fixes vis-network's layout.
    """
    from pyvis.network import Network

    if color_by not in graph.entities.columns:
        raise ValueError(f"color_by must be an entity column, not {color_by!r}")
    if not _CSS_SIZE.match(height):
        raise ValueError(f"height must be a CSS size such as '800px', not {height!r}")
    if max_nodes < 1:
        raise ValueError("max_nodes must be at least 1")

    ents = graph.entities.drop_duplicates("id")
    total = len(ents)
    ents = ents.sort_values(["degree", "mentions", "id"], ascending=[False, False, True], kind="mergesort")
    ents = ents.head(max_nodes)
    keep = set(ents["id"])
    rels = graph.relations.drop_duplicates("id")
    rels = rels[rels["source"].isin(keep) & rels["target"].isin(keep)].sort_values("id", kind="mergesort")

    net = Network(height=height, width="100%", directed=True, cdn_resources="in_line")
    names: dict[str, str] = {}
    legend: dict[str, list[Any]] = {}
    for row in ents.to_dict("records"):
        group = _text(row[color_by]) or "(none)"
        colour = type_colour(group)
        legend.setdefault(group, [colour, 0])[1] += 1
        names[row["id"]] = _text(row["name"]) or _text(row["id"])
        net.add_node(
            row["id"],
            label=_clip(names[row["id"]], 40),
            color=colour,
            title=_node_title(row),
            size=round(10 + 4 * math.sqrt(max(int(row["degree"]), 0)), 2),
        )
    for row in rels.to_dict("records"):
        # red = needs a person's look (signature violation, review required); low confidence alone is not
        # alarming for offline extraction, it is shown by a thinner line (width follows support)
        negated, flagged = bool(row["negated"]), [f for f in _items(row["flags"]) if f in REVIEW_FLAGS]
        label = ("not " if negated else "") + _clip(_text(row["type"]), 40)
        faint = row["type"] in faint_types and not flagged
        net.add_edge(
            row["source"],
            row["target"],
            id=row["id"],
            label="" if faint else ("\u26a0 " + label) if flagged else label,
            title=_edge_title(row, names),
            dashes=negated,
            arrows="" if faint else "to",
            color=FLAGGED_COLOUR if flagged else FAINT_COLOUR if faint else EDGE_COLOUR,
            width=3 if flagged else (0.5 if faint else 1) + min(int(row["support"]), 5) * 0.5,
        )

    shown_rel, total_rel = len(rels), len(graph.relations)
    if total > len(ents):
        note = f"showing {len(ents)} of {total} entities (top by degree) \u00b7 {shown_rel} of {total_rel} relations"
    else:
        note = f"{total} entities \u00b7 {total_rel} relations"
    net.heading = {  # pyvis hands `heading` to the template untouched; the template escapes every field
        "title": title if title is not None else "Knowledge graph",
        "note": note,
        "legend": [(name, colour, count) for name, (colour, count) in sorted(legend.items())],
        "empty": total == 0,
    }
    net.options = {
        "layout": {"randomSeed": int(seed), "improvedLayout": len(ents) <= 150},
        "physics": {
            "enabled": bool(physics),
            "solver": "forceAtlas2Based",
            "forceAtlas2Based": {"gravitationalConstant": -60, "springLength": 110, "avoidOverlap": 0.4},
            "stabilization": {"enabled": True, "iterations": 400, "fit": True},
        },
        "interaction": {"hover": True, "tooltipDelay": 120},
        "nodes": {"shape": "dot", "borderWidth": 1, "font": {"size": 14, "strokeWidth": 3, "strokeColor": "#ffffff"}},
        "edges": {
            "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}},
            "font": {"size": 10, "align": "middle", "color": "#555555"},
            "smooth": {"enabled": True, "type": "continuous", "roundness": 0.4},
        },
    }
    net.templateEnv = _environment(net.template_dir)
    net.path = "kgkit_graph.html"
    return net.generate_html()
