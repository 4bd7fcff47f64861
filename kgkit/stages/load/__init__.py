"""The `load` stage: the bytes of one file (a RawFile from kgkit.io) -> a Document, or a DocumentError
saying why not. Pure: no file access, same bytes and path -> the same result.

Supported: plain text and Markdown (BOM, UTF-16, UTF-8 (a few broken bytes are replaced and counted in
metadata "decode_errors"), else charset-normalizer's guess), HTML (selectolax; scripts, styles and
attributes never reach the text), PDF (pypdf) and DOCX (streamed XML). Anything that goes wrong while
parsing becomes a DocumentError with a `kind` and a `reason`; it never crashes the run and never looks
like an empty success.

Two limits: `max_bytes` for the file and `max_chars` (DEFAULT_MAX_CHARS) for the text it expands to, counted
while the text is extracted (a 462 KB DOCX can hold 126 MB of XML), both reported as kind "too_large".

One module per format, each with a `parse_*(data, *, max_chars) -> (text, metadata)` function: `text`
(plain text, Markdown, encodings), `html`, `pdf`, `docx`; `common` holds what they share (LoadFailure,
TextBudget, clean_text). This module checks what applies to every file (type, size, read errors,
emptiness) and dispatches by media type. A new format is a new module plus a line in MEDIA_TYPES,
_FORMAT_NAMES and _PARSERS.

>>> doc = load_document(RawFile(path="notes/a.txt", data=b"Ada met Charles.\\r\\n", size=18))
>>> doc.text, doc.media_type, doc.metadata["encoding"]
('Ada met Charles.\\n', 'text/plain', 'utf-8')
>>> load_document(RawFile(path="b.txt", data=b"", size=0)).kind
'empty'
>>> load_document(RawFile(path="c.exe", data=b"MZ", size=2)).kind
'unsupported'
>>> load_document(RawFile(path="private/", data=b"", size=0, read_error="Permission denied")).reason
'folder not read (none of its files are listed): Permission denied'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kgkit.core.constants import DEFAULT_MAX_BYTES, DEFAULT_MAX_CHARS
from kgkit.core.records import Document, DocumentError, RawFile, sha256_hex
from kgkit.core.stage import stage
from kgkit.stages.load.common import ErrorKind, LoadFailure, Parser, clean_text, describe_exception
from kgkit.stages.load.docx import DOCX_MAX_UNZIPPED_BYTES, DOCX_MEDIA_TYPE, parse_docx
from kgkit.stages.load.html import MAX_HTML_DEPTH, html_depth, html_text, parse_html
from kgkit.stages.load.pdf import parse_pdf
from kgkit.stages.load.text import decode, decode_text, encoding_name, parse_markdown, parse_text

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_CHARS", "DOCX_MAX_UNZIPPED_BYTES", "DOCX_MEDIA_TYPE", "MAX_HTML_DEPTH",
           "MEDIA_TYPES", "SUPPORTED_SUFFIXES", "ErrorKind", "LoadFailure", "clean_text", "decode", "decode_text",
           "encoding_name", "html_depth", "html_text", "load_document", "load_documents", "load_files",
           "media_type_for"]  # fmt: skip

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

_FORMAT_NAMES: dict[str, str] = {  # for "cannot parse this ... file"
    "text/plain": "text",
    "text/markdown": "Markdown",
    "text/html": "HTML",
    "application/pdf": "PDF",
    DOCX_MEDIA_TYPE: "DOCX",
}
_PARSERS: dict[str, Parser] = {  # looked up on every call (tests swap entries)
    "text/plain": parse_text,
    "text/markdown": parse_markdown,
    "text/html": parse_html,
    "application/pdf": parse_pdf,
    DOCX_MEDIA_TYPE: parse_docx,
}


def media_type_for(path: str) -> str | None:
    """The media type kgkit gives a path by its suffix (case-insensitive), or None if unsupported.

    >>> media_type_for("a/B.HTM"), media_type_for("x.csv")
    ('text/html', None)
    """
    dot = path.rfind(".")
    if dot <= path.rfind("/"):
        return None
    return MEDIA_TYPES.get(path[dot:].lower())


@stage(version="2")
def load_document(
    raw: RawFile, *, max_bytes: int = DEFAULT_MAX_BYTES, max_chars: int = DEFAULT_MAX_CHARS
) -> Document | DocumentError:
    """Turn one file's bytes into a Document, or a DocumentError (kind + reason) when that is impossible.
    A RawFile whose path ends with "/" is a folder kgkit.io could not list (reported "unreadable")."""
    path = raw.path
    if raw.read_error is not None and path.endswith("/"):
        return DocumentError(
            path=path, kind="unreadable", reason=f"folder not read (none of its files are listed): {raw.read_error}"
        )
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
        text, metadata = _PARSERS[media_type](raw.data, max_chars=max_chars)
    except LoadFailure as failure:
        return DocumentError(path=path, kind=failure.kind, reason=failure.reason)
    except Exception as exc:
        name = _FORMAT_NAMES[media_type]
        return DocumentError(
            path=path,
            kind="corrupt",
            reason=f"cannot parse this {name} file (corrupt or truncated?): {describe_exception(exc)}",
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
    raws: Iterable[RawFile], *, max_bytes: int = DEFAULT_MAX_BYTES, max_chars: int = DEFAULT_MAX_CHARS
) -> tuple[list[Document], list[DocumentError]]:
    """Load many files, keeping input order: (documents, errors).

    >>> docs, errors = load_documents([RawFile(path="a.md", data=b"# Hi", size=4), RawFile(path="b.txt", data=b"", size=0)])
    >>> [d.path for d in docs], [(e.path, e.kind) for e in errors]
    (['a.md'], [('b.txt', 'empty')])
    """
    documents: list[Document] = []
    errors: list[DocumentError] = []
    for raw in raws:
        result = load_document(raw, max_bytes=max_bytes, max_chars=max_chars)
        (errors if isinstance(result, DocumentError) else documents).append(result)  # type: ignore[arg-type]
    return documents, errors


@stage(name="load", version=getattr(load_document, "stage_version", "1"))
def load_files(
    raws: Sequence[RawFile], *, max_bytes: int = DEFAULT_MAX_BYTES, max_chars: int = DEFAULT_MAX_CHARS
) -> list[Document | DocumentError]:
    """Batch form of `load_document` for Cache.map."""
    return [load_document(raw, max_bytes=max_bytes, max_chars=max_chars) for raw in raws]
