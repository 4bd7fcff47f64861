"""The extraction diff as one standalone HTML page (or fragment): summary counts and agreement, then per
document and chunk the two runs side by side, chunk text with each run's entity spans highlighted, and the
entities and relations added / removed / changed. Every document-derived string is escaped; the page loads
nothing (no script at all) and renders offline.

>>> from kgkit.stages.diff import ExtractionDiff, Counts
>>> page = diff_html(ExtractionDiff(label_a="<a>", label_b="b", documents=(), entities=Counts(), relations=Counts()))
>>> "&lt;a&gt;" in page and "<a>" not in page
True
"""

from __future__ import annotations

from html import escape

from kgkit.stages.diff import ChunkDiff, Counts, ExtractionDiff, ItemDiff, Mark

COLOURS = {"same": "#dbe7f3", "added": "#cdebc8", "removed": "#f6c9c9", "changed": "#fbe3b5"}
_CSS = """
body{font:13px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:8px}
h1{font-size:18px;margin:0 0 6px}h2{font-size:15px;margin:14px 0 4px}h3{font-size:13px;margin:8px 0 4px;color:#555}
table.kd-sum{border-collapse:collapse;margin:4px 0 10px}table.kd-sum td,table.kd-sum th{border:1px solid #ddd;padding:2px 8px}
.kd-cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.kd-text{white-space:pre-wrap;border:1px solid #ddd;border-radius:4px;padding:6px;line-height:1.5;background:#fff}
mark{border-radius:3px;padding:0 1px}
.kd-same{background:#dbe7f3}.kd-added{background:#cdebc8}.kd-removed{background:#f6c9c9}.kd-changed{background:#fbe3b5}
ul.kd-items{margin:4px 0;padding-left:18px}.kd-err{color:#b00}.kd-note{color:#666}
.kd-badge{display:inline-block;border-radius:3px;padding:0 5px;margin-right:4px;font-size:11px}
"""


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def highlight(text: str, marks: tuple[Mark, ...]) -> str:
    """Chunk text with non-overlapping marks as <mark> elements (overlaps: the earlier, longer mark wins);
    text and labels escaped.

    >>> highlight("Ada <b> Lovelace", (Mark(start=0, end=3, label="Ada (Person)", status="added"),))
    '<mark class="kd-added" title="Ada (Person) [added]">Ada</mark> &lt;b&gt; Lovelace'
    """
    out, pos = [], 0
    for m in sorted(marks, key=lambda m: (m.start, -m.end)):
        start, end = max(m.start, 0), min(m.end, len(text))
        if start < pos or start >= end:
            continue
        out.append(escape(text[pos:start]))
        out.append(f'<mark class="kd-{m.status}" title="{escape(m.label)} [{m.status}]">{escape(text[start:end])}</mark>')
        pos = end
    out.append(escape(text[pos:]))
    return "".join(out)


def _items(items: tuple[ItemDiff, ...], side: str) -> str:
    rows = []
    for i in items:
        if i.status == "same":
            continue
        value = i.a if side == "a" else i.b
        if value is None:
            continue
        detail = f' <span class="kd-note">({escape(i.detail)})</span>' if i.detail and side == "b" else ""
        rows.append(f'<li><span class="kd-badge kd-{i.status}">{i.status}</span>{escape(value)}{detail}</li>')
    return f'<ul class="kd-items">{"".join(rows)}</ul>' if rows else '<p class="kd-note">no differences</p>'


def _side(c: ChunkDiff, side: str, label: str) -> str:
    text, marks = (c.text_a, c.marks_a) if side == "a" else (c.text_b, c.marks_b)
    error = c.error_a if side == "a" else c.error_b
    cid = c.chunk_id_a if side == "a" else c.chunk_id_b
    if cid is None:
        return f'<div><h3>{escape(label)}</h3><p class="kd-note">no such chunk in this run</p></div>'
    body = f'<p class="kd-err">extraction failed: {escape(error)}</p>' if error else ""
    body += f'<div class="kd-text">{highlight(text, marks)}</div>' if text else '<p class="kd-note">(chunk text not given)</p>'
    ents = tuple(i for i in c.entities if i.status != "same")
    rels = tuple(i for i in c.relations if i.status != "same")
    return (f'<div><h3>{escape(label)} · chunk {c.index}</h3>{body}<b>entities</b>{_items(ents, side)}'
            f'<b>relations</b>{_items(rels, side)}</div>')


def _counts_row(name: str, c: Counts) -> str:
    cells = "".join(f'<td class="kd-{s}">{getattr(c, s)}</td>' for s in ("same", "added", "removed", "changed"))
    return f"<tr><th>{name}</th>{cells}<td>{_pct(c.agreement())}</td></tr>"


def diff_html(diff: ExtractionDiff, *, title: str = "Extraction diff", only_changes: bool = True, max_chunks: int = 200,
              fragment: bool = False) -> str:
    """The diff as HTML. `only_changes` hides chunks where the runs agree; at most `max_chunks` chunks are
    shown (the rest are counted). `fragment` gives the body only (to embed in a notebook cell)."""
    a, b = escape(diff.label_a), escape(diff.label_b)
    parts = [f"<h1>{escape(title)}</h1>",
             f'<p>run A = <b>{a}</b>, run B = <b>{b}</b> · {len(diff.documents)} documents</p>',
             '<table class="kd-sum"><tr><th></th><th>same</th><th>added</th><th>removed</th><th>changed</th>'
             "<th>agreement</th></tr>", _counts_row("entities", diff.entities),
             _counts_row("relations", diff.relations), "</table>"]
    shown = hidden = 0
    for d in diff.documents:
        chunks = [c for c in d.chunks if c.differs or not only_changes]
        note = {"both": "", "only_a": " · only in run A", "only_b": " · only in run B"}[d.presence]
        note += " · document text changed" if d.changed_text else ""
        parts.append(f'<h2>{escape(d.path)}<span class="kd-note">{escape(note)} · {len(chunks)} of {len(d.chunks)} '
                     f"chunks differ</span></h2>" if only_changes else f"<h2>{escape(d.path)}{escape(note)}</h2>")
        for c in chunks:
            if shown >= max_chunks:
                hidden += 1
                continue
            shown += 1
            parts.append(f'<div class="kd-cols">{_side(c, "a", diff.label_a)}{_side(c, "b", diff.label_b)}</div>')
    if hidden:
        parts.append(f'<p class="kd-note">{hidden} more chunks not shown</p>')
    body = "\n".join(parts)
    if fragment:
        return f'<div class="kd"><style>{_CSS}</style>{body}</div>'
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">'
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>{body}</body></html>")
