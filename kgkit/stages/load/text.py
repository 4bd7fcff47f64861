"""Plain text and Markdown for the load stage: byte-order marks, the binary check, UTF-8 and otherwise
charset-normalizer's guess of the encoding (`decode_text`, also used for HTML).

>>> parse_markdown(b"# Notes\\r\\n\\r\\nAda met Charles.")
('# Notes\\n\\nAda met Charles.', {'encoding': 'utf-8', 'title': 'Notes'})
"""

from __future__ import annotations

import re

from kgkit.stages.load.common import CONTROL_CHARS, LoadFailure, ParseResult, clean_text

__all__ = ["decode_text", "parse_markdown", "parse_text"]

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
_MARKDOWN_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def decode_text(data: bytes, *, declared: str | None = None) -> tuple[str, str]:
    """Decode the bytes of a text file -> (text, encoding). BOM, then UTF-8, then the `declared`
    encoding (e.g. an HTML meta charset), then charset-normalizer's best guess.
    Raises LoadFailure(kind="binary") for bytes that are not text.

    >>> decode_text("café".encode("utf-8"))
    ('café', 'utf-8')
    >>> decode_text(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00")[0]
    Traceback (most recent call last):
    kgkit.stages.load.common.LoadFailure: binary data (looks like a PNG image), not text
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
    if len(CONTROL_CHARS.findall(sample.decode("latin-1"))) > 0.05 * len(sample):
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
    if len(CONTROL_CHARS.findall(text)) + text.count("\ufffd") > 0.05 * max(len(text), 1):
        raise LoadFailure("binary", f"decodes only as garbage (best guess {best.encoding})")
    return text, best.encoding


def parse_text(data: bytes) -> ParseResult:
    """A plain text file -> (text with \\n newlines, {"encoding": ...}).

    >>> parse_text(b"one\\r\\ntwo")
    ('one\\ntwo', {'encoding': 'utf-8'})
    """
    text, encoding = decode_text(data)
    return clean_text(text), {"encoding": encoding}


def parse_markdown(data: bytes) -> ParseResult:
    """A Markdown file: read as plain text (markup kept); the first `# heading` becomes the title."""
    text, metadata = parse_text(data)
    heading = _MARKDOWN_TITLE.search(text)
    if heading:
        metadata["title"] = heading.group(1)
    return text, metadata
