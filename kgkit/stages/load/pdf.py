"""PDF for the load stage (pypdf): the text of every page, pages separated by a blank line; page count,
pages whose extraction failed and the document title as metadata. Password-locked and image-only PDFs
are reported (kind "corrupt" and "no_text"), never loaded as empty documents."""

from __future__ import annotations

import io

from kgkit.stages.load.common import LoadFailure, ParseResult, clean_text, describe_exception

__all__ = ["parse_pdf"]


def parse_pdf(data: bytes) -> ParseResult:
    """A PDF file -> (text, {"pages": ..., "failed_pages": ..., "title": ...}); anything pypdf raises
    outside a single page's extraction propagates (and becomes a "corrupt" DocumentError)."""
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
            first_error = first_error or describe_exception(exc)
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
