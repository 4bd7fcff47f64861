"""The `load` stage: the bytes of one file (a RawFile from kgkit.io) -> a Document, or a DocumentError
saying why not. Pure: no file access, same bytes and path -> the same result.

Supported: plain text and Markdown (UTF-8, else charset-normalizer's guess), HTML (selectolax; scripts,
styles and attributes never reach the text), PDF (pypdf) and DOCX (python-docx). Anything that goes wrong
while parsing becomes a DocumentError with a `kind` and a `reason`; it never crashes the run and never
looks like an empty success.

>>> doc = load_document(RawFile(path="notes/a.txt", data=b"Ada met Charles.\\r\\n", size=18))
>>> doc.text, doc.media_type, doc.metadata["encoding"]
('Ada met Charles.\\n', 'text/plain', 'utf-8')
>>> load_document(RawFile(path="b.txt", data=b"", size=0)).kind
'empty'
>>> load_document(RawFile(path="c.exe", data=b"MZ", size=2)).kind
'unsupported'
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Sequence
from typing import Literal

from kgkit.core.constants import DEFAULT_MAX_BYTES
from kgkit.core.stage import stage
from kgkit.core.records import Document, DocumentError, RawFile, sha256_hex

DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
MEDIA_TYPES: dict[str, str] = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".docx": DOCX_MEDIA_TYPE,
}
SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(MEDIA_TYPES)  # lower case; matching is case-insensitive
DOCX_MAX_UNZIPPED_BYTES = 256 * 1024 * 1024  # zip-bomb guard for .docx

ErrorKind = Literal["too_large", "empty", "binary", "corrupt", "unsupported", "unreadable", "no_text"]


class LoadFailure(Exception):
    """Raised inside the parsers; `load_document` turns it into a DocumentError."""

    def __init__(self, kind: ErrorKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: ErrorKind = kind
        self.reason = reason


def media_type_for(path: str) -> str | None:
    """The media type kgkit gives a path by its suffix (case-insensitive), or None if unsupported.

    >>> media_type_for("a/B.HTM"), media_type_for("x.csv")
    ('text/html', None)
    """
    dot = path.rfind(".")
    if dot <= path.rfind("/"):
        return None
    return MEDIA_TYPES.get(path[dot:].lower())


# --------------------------------------------------------------------------- the stage


@stage(version="1")
def load_document(raw: RawFile, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Document | DocumentError:
    """Turn one file's bytes into a Document, or a DocumentError (kind + reason) when that is impossible."""
    path = raw.path
    media_type = media_type_for(path)
    if media_type is None:
        supported = ", ".join(SUPPORTED_SUFFIXES)
        return DocumentError(path=path, kind="unsupported", reason=f"unsupported file type; kgkit reads {supported}")
    if raw.read_error is not None:
        return DocumentError(path=path, kind="unreadable", reason=f"could not read the file: {raw.read_error}")
    size = max(raw.size, len(raw.data))
    if size > max_bytes:
        return DocumentError(
            path=path, kind="too_large", reason=f"file is {size:,} bytes, over the {max_bytes:,}-byte limit"
        )
    if not raw.data:
        return DocumentError(path=path, kind="empty", reason="file is empty (0 bytes)")
    try:
        text, metadata = _PARSERS[media_type](raw.data)
    except LoadFailure as failure:
        return DocumentError(path=path, kind=failure.kind, reason=failure.reason)
    except Exception as exc:
        name = _FORMAT_NAMES[media_type]
        return DocumentError(
            path=path, kind="corrupt", reason=f"cannot parse this {name} file (corrupt or truncated?): {_describe(exc)}"
        )
    if not text.strip():
        return DocumentError(
            path=path, kind="empty", reason="no text left after extraction (only whitespace or markup)"
        )
    digest = sha256_hex(raw.data)
    return Document(
        id=Document.make_id(digest, path), path=path, sha256=digest, media_type=media_type, text=text, metadata=metadata
    )


def load_documents(
    raws: Iterable[RawFile], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[list[Document], list[DocumentError]]:
    """Load many files, keeping input order: (documents, errors).

    >>> docs, errors = load_documents([RawFile(path="a.md", data=b"# Hi", size=4), RawFile(path="b.txt", data=b"", size=0)])
    >>> [d.path for d in docs], [(e.path, e.kind) for e in errors]
    (['a.md'], [('b.txt', 'empty')])
    """
    documents: list[Document] = []
    errors: list[DocumentError] = []
    for raw in raws:
        result = load_document(raw, max_bytes=max_bytes)
        (errors if isinstance(result, DocumentError) else documents).append(result)  # type: ignore[arg-type]
    return documents, errors


def _describe(exc: BaseException) -> str:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


# --------------------------------------------------------------------------- text and encodings

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")  # C0 controls except \t \n \v \f \r, plus DEL
_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"%PDF-": "a PDF (rename it to .pdf)",
    b"PK\x03\x04": "a zip archive (an Office file? rename it to .docx)",
    b"\x7fELF": "an executable",
    b"MZ\x90\x00": "a Windows executable",
    b"\x1f\x8b": "a gzip archive",
}
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)


def clean_text(text: str) -> str:
    """Normalise newlines to \\n (form feeds and vertical tabs too) and drop other control characters.

    >>> clean_text("a\\r\\nb\\rc\\x00d\\x0ce")
    'a\\nb\\ncd\\ne'
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\v", "\n")
    return _CONTROL.sub("", text)


def decode_text(data: bytes, *, declared: str | None = None) -> tuple[str, str]:
    """Decode the bytes of a text file -> (text, encoding). BOM, then UTF-8, then the `declared`
    encoding (e.g. an HTML meta charset), then charset-normalizer's best guess.
    Raises LoadFailure(kind="binary") for bytes that are not text.

    >>> decode_text("café".encode("utf-8"))
    ('café', 'utf-8')
    >>> decode_text(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00")[0]
    Traceback (most recent call last):
    kgkit.stages.load.LoadFailure: binary data (looks like a PNG image), not text
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), codec
            except UnicodeDecodeError as exc:
                raise LoadFailure(
                    "binary", f"starts with a {codec} byte-order mark but does not decode: {exc.reason}"
                ) from None
    for magic, what in _MAGIC.items():
        if data.startswith(magic):
            raise LoadFailure("binary", f"binary data (looks like {what}), not text")
    sample = data[:65536]
    if b"\x00" in sample:
        raise LoadFailure("binary", "binary data (contains NUL bytes), not text")
    if len(_CONTROL.findall(sample.decode("latin-1"))) > 0.05 * len(sample):
        raise LoadFailure("binary", "binary data (too many control characters), not text")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if declared:
        try:
            return data.decode(declared), declared.lower()
        except (LookupError, UnicodeDecodeError):
            pass
    return _guess_encoding(data)


def _guess_encoding(data: bytes) -> tuple[str, str]:
    """charset-normalizer's ranking, biased towards Windows-1252 (a superset of Latin-1) when that reads
    as well as the top guess: on short Western text the top guess is often a wrong cousin (cp1250,
    mac_latin2) that turns "crème" into "crčme"."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise LoadFailure("binary", "not UTF-8 and no text encoding fits these bytes")
    best = matches[0]
    western = next((m for m in matches if "cp1252" in m.could_be_from_charset), None)
    if western is not None and western.chaos <= best.chaos + 0.1:
        text = data.decode("cp1252", errors="replace")
        letters = [c for c in text if c.isalpha()]
        if sum(not c.isascii() for c in letters) <= len(letters) / 3:  # Western text is mostly ASCII letters
            return text, "cp1252"
    text = str(best)
    if len(_CONTROL.findall(text)) + text.count("\ufffd") > 0.05 * max(len(text), 1):
        raise LoadFailure("binary", f"decodes only as garbage (best guess {best.encoding})")
    return text, best.encoding


def _parse_text(data: bytes) -> tuple[str, dict[str, str]]:
    text, encoding = decode_text(data)
    return clean_text(text), {"encoding": encoding}


def _parse_markdown(data: bytes) -> tuple[str, dict[str, str]]:
    text, metadata = _parse_text(data)
    heading = re.search(r"^#[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE)
    if heading:
        metadata["title"] = heading.group(1)
    return text, metadata


# --------------------------------------------------------------------------- HTML

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
MAX_HTML_DEPTH = 2048  # browsers cap tree depth too (Chromium: 512); deeper nesting makes HTML5 parsing quadratic


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


def _parse_html(data: bytes) -> tuple[str, dict[str, str]]:
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


# --------------------------------------------------------------------------- PDF and DOCX


def _parse_pdf(data: bytes) -> tuple[str, dict[str, str]]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise LoadFailure("corrupt", "PDF is encrypted with a password; decrypt it first")
    pages: list[str] = []
    failed: list[str] = []
    first_error = ""
    for number, page in enumerate(reader.pages, start=1):
        try:
            pages.append(clean_text(page.extract_text() or "").strip())
        except Exception as exc:
            failed.append(str(number))
            first_error = first_error or _describe(exc)
    if failed and len(failed) == len(reader.pages):
        raise LoadFailure("corrupt", f"text extraction failed on every page ({len(failed)}): {first_error}")
    metadata = {"pages": str(len(reader.pages))}
    if failed:
        metadata["failed_pages"] = ",".join(failed)
    info = reader.metadata
    if info is not None and info.title and str(info.title).strip():
        metadata["title"] = " ".join(str(info.title).split())
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise LoadFailure(
            "no_text",
            f"PDF has {len(reader.pages)} page(s) but no extractable text "
            "(scanned images?); run OCR on it first (e.g. ocrmypdf)",
        )
    return text, metadata


def _parse_docx(data: bytes) -> tuple[str, dict[str, str]]:
    import docx
    from docx.table import Table

    with zipfile.ZipFile(io.BytesIO(data)) as archive:  # BadZipFile -> corrupt
        unzipped = sum(info.file_size for info in archive.infolist())
    if unzipped > DOCX_MAX_UNZIPPED_BYTES:
        raise LoadFailure(
            "too_large", f"DOCX unzips to {unzipped:,} bytes, over the {DOCX_MAX_UNZIPPED_BYTES:,}-byte limit"
        )
    document = docx.Document(io.BytesIO(data))
    lines: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            seen: dict[int, object] = {}  # holds the elements, so their ids stay unique
            for row in block.rows:
                for cell in row.cells:
                    if id(cell._tc) not in seen:  # merged cells repeat the same cell
                        seen[id(cell._tc)] = cell._tc
                        lines.append(cell.text)
        else:
            lines.append(block.text)
    text = clean_text("\n".join(line.strip() for line in lines if line.strip()))
    metadata: dict[str, str] = {}
    title = (document.core_properties.title or "").strip()
    if title:
        metadata["title"] = title
    return text, metadata


_FORMAT_NAMES = {
    "text/plain": "text",
    "text/markdown": "Markdown",
    "text/html": "HTML",
    "application/pdf": "PDF",
    DOCX_MEDIA_TYPE: "DOCX",
}
_PARSERS = {
    "text/plain": _parse_text,
    "text/markdown": _parse_markdown,
    "text/html": _parse_html,
    "application/pdf": _parse_pdf,
    DOCX_MEDIA_TYPE: _parse_docx,
}


@stage(name="load", version=getattr(load_document, "stage_version", "1"))
def load_files(raws: Sequence[RawFile], *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Document | DocumentError]:
    """Batch form of `load_document` for Cache.map."""
    return [load_document(raw, max_bytes=max_bytes) for raw in raws]
