"""DOCX for the load stage (python-docx): body paragraphs and table cells in document order, one per line,
the core-properties title as metadata; archives that would unzip to more than DOCX_MAX_UNZIPPED_BYTES are
refused before python-docx opens them (zip-bomb guard)."""

from __future__ import annotations

import io
import zipfile

from kgkit.stages.load.common import LoadFailure, ParseResult, clean_text

__all__ = ["DOCX_MAX_UNZIPPED_BYTES", "DOCX_MEDIA_TYPE", "parse_docx"]

DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
DOCX_MAX_UNZIPPED_BYTES = 256 * 1024 * 1024  # zip-bomb guard for .docx


def parse_docx(data: bytes) -> ParseResult:
    """A DOCX file -> (text, {"title": ...}); a broken zip or package raises (a "corrupt" DocumentError)."""
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
