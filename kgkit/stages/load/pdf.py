"""PDF for the load stage (pypdf): the text of every page, pages separated by a blank line; page count,
pages whose extraction failed and the document title as metadata. Password-locked and image-only PDFs
are reported (kind "corrupt" and "no_text"), never loaded as empty documents; a PDF that needs an
optional crypto package pypdf lacks is "unsupported" (saying which package), not "corrupt". The text is
counted page by page against `max_chars`, so a small PDF that expands to a huge text stops early, and a
stream that decompresses past pypdf's own limits (75 MB) is "too_large"."""

from __future__ import annotations

import io

from kgkit.core.constants import DEFAULT_MAX_CHARS
from kgkit.stages.load.common import LoadFailure, ParseResult, TextBudget, clean_text, describe_exception

__all__ = ["parse_pdf"]


def _missing_crypto(exc: BaseException) -> LoadFailure:
    return LoadFailure("unsupported", "PDF is encrypted with an algorithm that needs an optional package "
                                      f"({describe_exception(exc)}); install it (pip install cryptography) "
                                      "and run again")


def _bomb(exc: BaseException) -> LoadFailure:
    return LoadFailure("too_large", f"PDF stream expands past pypdf's safety limit ({describe_exception(exc)}); "
                                    "not loaded")


def parse_pdf(data: bytes, *, max_chars: int = DEFAULT_MAX_CHARS) -> ParseResult:
    """A PDF file -> (text, {"pages": ..., "failed_pages": ..., "title": ...}); anything pypdf raises
    outside a single page's extraction propagates (and becomes a "corrupt" DocumentError)."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, LimitReachedError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadFailure("corrupt", "PDF is encrypted with a password; decrypt it first")
        page_count = len(reader.pages)
    except DependencyError as exc:
        raise _missing_crypto(exc) from None
    except LimitReachedError as exc:
        raise _bomb(exc) from None
    budget = TextBudget(max_chars, "PDF")
    pages: list[str] = []
    failed: list[str] = []
    first_error = ""
    for number, page in enumerate(reader.pages, start=1):
        try:
            text = page.extract_text() or ""
        except DependencyError as exc:
            raise _missing_crypto(exc) from None
        except LimitReachedError as exc:  # a decompression bomb: refuse the file, not just the page
            raise _bomb(exc) from None
        except Exception as exc:
            failed.append(str(number))
            first_error = first_error or describe_exception(exc)
            continue
        pages.append(budget.take(clean_text(text).strip()))
    if failed and len(failed) == page_count:
        raise LoadFailure("corrupt", f"text extraction failed on every page ({len(failed)}): {first_error}")
    metadata = {"pages": str(page_count)}
    if failed:
        metadata["failed_pages"] = ",".join(failed)
    try:
        info = reader.metadata
    except DependencyError as exc:
        raise _missing_crypto(exc) from None
    if info is not None and info.title and str(info.title).strip():
        metadata["title"] = " ".join(str(info.title).split())
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise LoadFailure(
            "no_text",
            f"PDF has {page_count} page(s) but no extractable text "
            "(scanned images?); run OCR on it first (e.g. ocrmypdf)",
        )
    return text, metadata
