"""Embedding cluster map: entities in 2-D (PCA by default, UMAP on request), coloured by type, community or
cluster, merge-candidate pairs drawn as highlighted links. The chart is self-contained HTML + SVG that
kgkit writes itself (no charting library, no script, no network), so it renders offline the same way in
marimo (``mo.iframe``/``mo.Html``), Jupyter and VS Code (``IPython.display.HTML``) and a browser. Every
document-derived string (names, types) is escaped.

>>> import numpy as np
>>> xy = project(np.eye(4, 6, dtype=np.float32))
>>> xy.shape, bool(np.allclose(xy, project(np.eye(4, 6, dtype=np.float32))))
((4, 2), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any, Literal

import numpy as np
import pandas as pd

from kgkit.core.stage import stage
from kgkit.views.graph_page import PALETTE, type_colour

CANDIDATE_COLOUR = "#d62728"


@stage(version="1")
def project(vectors: np.ndarray, *, method: Literal["pca", "umap"] = "pca", seed: int = 0) -> np.ndarray:
    """(n, d) vectors -> (n, 2) float32 coordinates. PCA is exact numpy SVD with signs fixed (deterministic);
    UMAP (umap-learn, cosine) is used only when asked for, with `seed` for reproducibility."""
    x = np.asarray(vectors, dtype=np.float64)
    n = x.shape[0]
    if n == 0:
        return np.zeros((0, 2), dtype=np.float32)
    if method == "umap" and n > 3:
        import umap  # heavy: imported only on request

        reducer = umap.UMAP(n_components=2, metric="cosine", random_state=seed, n_neighbors=min(15, n - 1))
        return np.asarray(reducer.fit_transform(x), dtype=np.float32)
    if method not in ("pca", "umap"):
        raise ValueError(f"method must be 'pca' or 'umap', not {method!r}")
    centred = x - x.mean(axis=0)
    if n == 1 or not np.any(centred):
        return np.zeros((n, 2), dtype=np.float32)
    u, s, _vt = np.linalg.svd(centred, full_matrices=False)
    xy = u[:, :2] * s[:2]
    if xy.shape[1] < 2:
        xy = np.hstack([xy, np.zeros((n, 1))])
    signs = np.sign(xy[np.argmax(np.abs(xy), axis=0), range(2)])
    return np.asarray(xy * np.where(signs == 0, 1, signs), dtype=np.float32)


def cluster_points(entities: pd.DataFrame, xy: np.ndarray, *, clusters: Sequence[Any] | None = None) -> pd.DataFrame:
    """A table of points: id, name, type, community, cluster, x, y (rows in the order of `entities`)."""
    if len(entities) != len(xy):
        raise ValueError(f"{len(entities)} entities but {len(xy)} coordinates")
    out = pd.DataFrame({"id": entities["id"].tolist(), "name": entities["name"].tolist(),
                        "type": entities["type"].tolist(),
                        "community": entities["community"].tolist() if "community" in entities else [None] * len(xy),
                        "x": np.asarray(xy)[:, 0].astype(float) if len(xy) else [],
                        "y": np.asarray(xy)[:, 1].astype(float) if len(xy) else []})
    out["cluster"] = list(clusters) if clusters is not None else out["community"]
    return out


def kmeans_clusters(xy: np.ndarray, *, k: int = 8, seed: int = 0) -> list[str]:
    """Cluster labels ("k0", ...) from k-means on the coordinates (scikit-learn), for colouring by cluster."""
    if len(xy) == 0:
        return []
    from sklearn.cluster import KMeans

    k = max(1, min(k, len(xy)))
    labels = KMeans(n_clusters=k, n_init=4, random_state=seed).fit_predict(np.asarray(xy, dtype=np.float64))
    return [f"k{int(i)}" for i in labels]


def point_colours(values: list[Any], by: str) -> dict[Any, str]:
    """Colour per value: type colours (kgkit.views.graph_page) for types, the palette in sorted order otherwise."""
    if by == "type":
        return {v: type_colour(v) for v in values}
    distinct = sorted({str(v) for v in values if v is not None})
    table = {v: PALETTE[i % len(PALETTE)] for i, v in enumerate(distinct)}
    return {v: table.get(str(v), "#bab0ac") if v is not None else "#bab0ac" for v in values}


def colour_groups(points: pd.DataFrame, colour_by: str) -> list[Any]:
    """Each point's colour group: its `colour_by` column, its type when the table has no such column."""
    return points[colour_by].tolist() if colour_by in points else points["type"].tolist()


def candidate_pairs(points: pd.DataFrame, candidates: Sequence[Any]) -> list[tuple[int, int, float]]:
    """(source row, target row, score) of each candidate (a MergeCandidate or a (source, target) pair of ids)
    whose two entities are both points; a pair's score is 1.0."""
    pos = {eid: i for i, eid in enumerate(points["id"].tolist())}
    pairs = []
    for c in candidates:
        s, t = (c.source, c.target) if hasattr(c, "source") else (c[0], c[1])
        if s in pos and t in pos:
            pairs.append((pos[s], pos[t], float(getattr(c, "score", 1.0))))
    return pairs


def cluster_html(points: pd.DataFrame, *, candidates: Sequence[Any] = (), colour_by: str = "type",
                 title: str = "Entity embeddings", width: int = 760, height: int = 520, labels: int = 25,
                 fragment: bool = False) -> str:
    """The cluster map as HTML with an inline SVG. `candidates` (MergeCandidate or (source, target) pairs)
    are drawn as red links between their two points and their points get a red ring; the `labels` most
    connected / first points carry a text label; every point has a tooltip (name, type, colour group)."""
    pad = 24
    xs, ys = points["x"].to_numpy(dtype=float), points["y"].to_numpy(dtype=float)

    def scale(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
        if len(v) == 0:
            return v
        span = float(v.max() - v.min()) or 1.0
        return lo + (v - v.min()) / span * (hi - lo)

    px, py = scale(xs, pad, width - pad - 120), scale(ys, height - pad, pad)  # room for labels on the right
    groups = colour_groups(points, colour_by)
    colour = point_colours(groups, colour_by)
    pairs = candidate_pairs(points, candidates)
    marked = {i for a, b, _ in pairs for i in (a, b)}
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'role="img" style="background:#fff;border:1px solid #ddd">']
    for a, b, score in pairs:
        svg.append(f'<line x1="{px[a]:.1f}" y1="{py[a]:.1f}" x2="{px[b]:.1f}" y2="{py[b]:.1f}" stroke="{CANDIDATE_COLOUR}" '
                   f'stroke-width="1.5" stroke-opacity="0.8"><title>candidate {score:.2f}</title></line>')
    names, types = points["name"].tolist(), points["type"].tolist()
    for i in range(len(points)):
        ring = f' stroke="{CANDIDATE_COLOUR}" stroke-width="2"' if i in marked else ' stroke="#fff" stroke-width="0.5"'
        tip = escape(f"{names[i]} ({types[i]}) · {colour_by}: {groups[i]}")
        svg.append(f'<circle cx="{px[i]:.1f}" cy="{py[i]:.1f}" r="{5 if i in marked else 4}" fill="{colour[groups[i]]}"'
                   f'{ring}><title>{tip}</title></circle>')
    shown = sorted(marked)[:labels] + [i for i in range(len(points)) if i not in marked][: max(0, labels - len(marked))]
    for i in shown:
        svg.append(f'<text x="{px[i] + 6:.1f}" y="{py[i] + 3:.1f}" font-size="10" fill="#333">'
                   f"{escape(str(names[i])[:40])}</text>")
    svg.append("</svg>")
    counts = pd.Series([str(g) for g in groups]).value_counts() if len(groups) else pd.Series(dtype=int)
    legend = "".join(f'<li><span style="background:{colour[next(g for g in groups if str(g) == name)]}"></span>'
                     f"{escape(name)} ({int(n)})</li>" for name, n in sorted(counts.items()))
    body = (f'<div class="kc"><style>.kc{{font:12px system-ui,sans-serif;color:#222}}.kc ul{{list-style:none;padding:0;'
            "display:flex;flex-wrap:wrap;gap:2px 12px;margin:2px 0 6px}.kc li span{display:inline-block;width:10px;"
            "height:10px;border-radius:50%;margin-right:4px}</style>"
            f"<b>{escape(title)}</b> · {len(points)} entities · {len(pairs)} candidate pairs (red) · colour: "
            f"{escape(colour_by)}<ul>{legend}</ul>{''.join(svg)}</div>")
    if fragment:
        return body
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">'
            f"<title>{escape(title)}</title></head><body>{body}</body></html>")
