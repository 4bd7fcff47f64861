"""HTML for the load stage (selectolax/lexbor): visible text only (scripts, styles, <head> and attributes
never reach it), a line per block element, the <title> as metadata, hostile nesting refused before parsing.

>>> parse_html(b"<title>T</title><script>x()</script><p>Ada <b>met</b></p><p>Charles.")
('Ada met\\nCharles.', {'encoding': 'utf-8', 'title': 'T'})
"""

from __future__ import annotations

import re

from kgkit.stages.load.common import LoadFailure, ParseResult, clean_text
from kgkit.stages.load.text import decode_text

__all__ = ["MAX_HTML_DEPTH", "html_depth", "html_text", "parse_html"]

MAX_HTML_DEPTH = 2048  # browsers cap tree depth too (Chromium: 512); deeper nesting makes HTML5 parsing quadratic

_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_DROP_TAGS = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "head", "canvas"]
_BLOCK_TAGS = {"address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl",
               "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
               "hgroup", "hr", "html", "legend", "li", "main", "nav", "ol", "option", "p", "pre", "section", "summary",
               "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"}  # fmt: skip
_WHITESPACE = re.compile(r"\s+")
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
_VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
              "wbr"}  # fmt: skip
_OPTIONAL_END_TAGS = {"p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "colgroup",
                      "caption", "rb", "rt", "rtc", "rp", "html", "head", "body"}  # fmt: skip


def html_depth(html: str, *, limit: int = MAX_HTML_DEPTH) -> int:
    """A cheap upper estimate of how deep `html` nests elements (stops counting past `limit`): an end tag
    closes everything opened after its start tag; void elements and those whose end tag may be omitted
    (p, li, td, ...) are not counted.

    >>> html_depth("<div><span><b>x</span></div><p><p><br>"), html_depth("<div>" * 5000, limit=100)
    (3, 101)
    """
    stack: list[str] = []
    open_count: dict[str, int] = {}
    deepest = 0
    for match in _TAG.finditer(html):
        name = match.group(2).lower()
        if name in _VOID_TAGS or name in _OPTIONAL_END_TAGS:
            continue
        if not match.group(1):
            stack.append(name)
            open_count[name] = open_count.get(name, 0) + 1
            if len(stack) > deepest:
                deepest = len(stack)
                if deepest > limit:
                    break
        elif open_count.get(name):
            while (top := stack.pop()) != name:
                open_count[top] -= 1
            open_count[name] -= 1
    return deepest


def parse_html(data: bytes) -> ParseResult:
    """An HTML file -> (visible text, {"encoding": ..., "title": ...}). The encoding is found as for text
    files, with a <meta charset> in the first 4 KiB tried before guessing."""
    from selectolax.lexbor import LexborHTMLParser

    declared = _META_CHARSET.search(data[:4096])
    html, encoding = decode_text(data, declared=declared.group(1).decode("ascii") if declared else None)
    if html_depth(html) > MAX_HTML_DEPTH:
        raise LoadFailure(
            "corrupt", f"HTML nests elements more than {MAX_HTML_DEPTH} deep (hostile or broken markup); not parsed"
        )
    tree = LexborHTMLParser(html)
    metadata = {"encoding": encoding}
    title_node = tree.css_first("head > title")
    title = " ".join(title_node.text(deep=True).split()) if title_node is not None else ""
    if title:
        metadata["title"] = title
    tree.strip_tags(_DROP_TAGS)
    root = tree.root
    return (html_text(root) if root is not None else ""), metadata


def html_text(root: object) -> str:
    """Visible text under a selectolax node: text nodes only (so attributes never leak), a newline around
    every block element, <br> and <pre> line, whitespace collapsed within each line, blank lines dropped.
    Iterative, so hostile nesting depth cannot overflow the stack.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> html_text(LexborHTMLParser("<p>Caf&eacute;  <b>au</b> lait</p><ul><li>one<li>two</ul>a<br>b").body)
    'Café au lait\\none\\ntwo\\na\\nb'
    """
    parts: list[str] = []
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):  # a newline marker pushed when entering a block element
            parts.append(node)
            continue
        tag = node.tag  # type: ignore[attr-defined]
        if tag == "-text":  # source newlines are just whitespace in HTML
            parts.append(_WHITESPACE.sub(" ", node.text_content or ""))  # type: ignore[attr-defined]
            continue
        if tag in ("pre", "textarea"):  # preformatted: its newlines are real
            parts.append("\n" + node.text(deep=True) + "\n")  # type: ignore[attr-defined]
            continue
        if tag.startswith(("-", "!", "_")):  # comments, doctype, processing instructions
            continue
        if tag == "br":
            parts.append("\n")
            continue
        block = tag in _BLOCK_TAGS
        if block:
            parts.append("\n")
            stack.append("\n")
        children = []
        child = node.child  # type: ignore[attr-defined]
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend(reversed(children))
    lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
    return clean_text("\n".join(line for line in lines if line))
