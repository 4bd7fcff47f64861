"""HTML for the load stage (selectolax/lexbor): visible text only (scripts, styles, <head> and attributes
never reach it), a line per block element, the <title> as metadata, hostile nesting refused before parsing.

>>> parse_html(b"<title>T</title><script>x()</script><p>Ada <b>met</b></p><p>Charles.")
('Ada met\\nCharles.', {'encoding': 'utf-8', 'title': 'T'})
"""

from __future__ import annotations

import re

from kgkit.core.constants import DEFAULT_MAX_CHARS
from kgkit.stages.load.common import LoadFailure, ParseResult, clean_text, too_much_text
from kgkit.stages.load.text import decode

__all__ = ["MAX_HTML_DEPTH", "html_depth", "html_text", "parse_html"]

MAX_HTML_DEPTH = 2048  # browsers cap tree depth too (Chromium: 512); deeper nesting makes HTML5 parsing quadratic

_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_DROP_TAGS = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "head", "canvas"]
_BLOCK_TAGS = {"address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl",
               "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
               "hgroup", "hr", "html", "legend", "li", "main", "nav", "ol", "option", "p", "pre", "section", "summary",
               "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"}  # fmt: skip
_WHITESPACE = re.compile(r"\s+")
_MARKUP = re.compile(r"<(?:(!--)|[!?]|(/?)([A-Za-z][^\s/>]*))")
_TAG_END = re.compile(r"""(?:=\s*"[^"]*+"|=\s*'[^']*+'|[^>])*+>""")  # attributes, quoted values may hold ">"
_RAW_TEXT = {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"}
_FOREIGN = {"svg", "math"}  # inside them "<x/>" closes itself, except for the HTML tags that leave them
_BREAKOUT = {"b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed", "font",
             "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr",
             "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u",
             "ul", "var"}  # fmt: skip
_VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
              "wbr"}  # fmt: skip
_OPTIONAL_END_TAGS = {"p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "colgroup",
                      "caption", "rb", "rt", "rtc", "rp", "html", "head", "body"}  # fmt: skip


def html_depth(html: str, *, limit: int = MAX_HTML_DEPTH) -> int:
    """A cheap upper estimate of how deep `html` nests elements (stops counting past `limit`): an end tag
    closes everything opened after its start tag; void elements and those whose end tag may be omitted
    (p, li, td, ...) are not counted. Only real tags count, found roughly as a browser finds them:
    comments, the text of script, style, textarea ... and "<" inside attribute values or plain text
    ("a<b", "if(i<n)") never open anything.

    >>> html_depth("<div><span><b>x</span></div><p><p><br>"), html_depth("<div>" * 5000, limit=100)
    (3, 101)
    >>> html_depth("<script>" + "if(i<n){x()}" * 5000 + "</script><!--<div><div>--><p>a<b c <i>d</i>")
    1
    """
    stack: list[str] = []
    open_count: dict[str, int] = {}
    deepest = foreign = 0
    pos = 0
    while (match := _MARKUP.search(html, pos)) is not None:
        if match.group(1):  # a comment runs to "-->"
            end = html.find("-->", match.end())
            if end < 0:
                break
            pos = end + 3
            continue
        tag_end = _TAG_END.match(html, match.end())
        if tag_end is None:  # an unfinished tag runs to the end of the file
            break
        pos = tag_end.end()
        name = (match.group(3) or "").lower()
        if not name:  # <!doctype>, <?xml ...>
            continue
        if match.group(2):  # an end tag
            if open_count.get(name):
                while (top := stack.pop()) != name:
                    open_count[top] -= 1
                    foreign -= top in _FOREIGN
                open_count[name] -= 1
                foreign -= name in _FOREIGN
            continue
        if name in _VOID_TAGS or name in _OPTIONAL_END_TAGS:
            continue
        if html[pos - 2] == "/" and (name in _FOREIGN or (foreign and name not in _BREAKOUT)):
            continue  # self-closing
        stack.append(name)
        open_count[name] = open_count.get(name, 0) + 1
        foreign += name in _FOREIGN
        if len(stack) > deepest:
            deepest = len(stack)
            if deepest > limit:
                break
        if name in _RAW_TEXT and not foreign:  # their content is text up to the matching end tag
            close = re.compile(rf"</{re.escape(name)}[\s/>]", re.IGNORECASE).search(html, pos)
            if close is None:
                break
            pos = close.start()
    return deepest


def parse_html(data: bytes, *, max_chars: int = DEFAULT_MAX_CHARS) -> ParseResult:
    """An HTML file -> (visible text, {"encoding": ..., "title": ...}). The encoding is found as for text
    files (`decode`), a <meta charset> in the first 4 KiB checked against the bytes before it is used."""
    from selectolax.lexbor import LexborHTMLParser

    declared = _META_CHARSET.search(data[:4096])
    html, metadata = decode(data, declared=declared.group(1).decode("ascii") if declared else None)
    if len(html) > max_chars:
        raise too_much_text("the HTML file", max_chars)
    if html_depth(html) > MAX_HTML_DEPTH:
        raise LoadFailure(
            "corrupt", f"HTML nests elements more than {MAX_HTML_DEPTH} deep (hostile or broken markup); not parsed"
        )
    tree = LexborHTMLParser(html)
    del html
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
