"""Plain text and Markdown for the load stage: byte-order marks, UTF-16 without one, the binary check,
UTF-8 (also when a few bytes are broken), a declared encoding checked against the bytes, otherwise
charset-normalizer's guess (`decode`, also used for HTML). Encoding names are Python's canonical codec
names (`encoding_name`): "windows-1252" and "cp1252" are both reported as "cp1252".

>>> parse_markdown(b"# Notes\\r\\n\\r\\nAda met Charles.")
('# Notes\\n\\nAda met Charles.', {'encoding': 'utf-8', 'title': 'Notes'})
>>> decode("café ".encode() * 3 + b"\\xff")
('café café café \\ufffd', {'encoding': 'utf-8', 'decode_errors': '1'})
"""

from __future__ import annotations

import codecs
import re

from kgkit.core.constants import DEFAULT_MAX_CHARS
from kgkit.stages.load.common import CONTROL_CHARS, LoadFailure, ParseResult, clean_text, too_much_text

__all__ = ["decode", "decode_text", "encoding_name", "markdown_title", "parse_markdown", "parse_text"]

_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"%PDF-": "a PDF (rename it to .pdf)",
    b"PK\x03\x04": "a zip archive (an Office file? rename it to .docx)",
    b"\x7fELF": "an executable",
    b"MZ\x90\x00": "a Windows executable",
    b"\x1f\x8b": "a gzip archive",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1": "an OLE file (a legacy Office document or a password-protected one)",
}
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
# what browsers do with these labels (WHATWG Encoding): Latin-1 and ASCII pages are read as Windows-1252,
# and a <meta> naming UTF-16/32 inside ASCII-compatible bytes cannot be true
_DECLARED_ALIASES = {"iso8859-1": "cp1252", "ascii": "cp1252", "utf-16": "utf-8", "utf-16-le": "utf-8",
                     "utf-16-be": "utf-8", "utf-32": "utf-8", "utf-32-le": "utf-8", "utf-32-be": "utf-8"}
_MD_LINE = re.compile(r"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>.*)|#[ \t]+(?P<title>.+?)[ \t#]*)$", re.MULTILINE)


def encoding_name(name: str) -> str:
    """Python's canonical name of an encoding label (lower case label when Python does not know it).

    >>> encoding_name("Windows-1252"), encoding_name("latin_1"), encoding_name("UTF8"), encoding_name("x-foo")
    ('cp1252', 'iso8859-1', 'utf-8', 'x-foo')
    """
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        return name.strip().lower()


def decode(data: bytes, *, declared: str | None = None) -> tuple[str, dict[str, str]]:
    """Decode the bytes of a text file -> (text, metadata). Tried in order: a byte-order mark; UTF-16
    without one; UTF-8; UTF-8 with replacement characters when valid multi-byte sequences outnumber the
    broken bytes; the `declared` encoding (e.g. an HTML meta charset); charset-normalizer's best guess.

    metadata: "encoding" (canonical name); "decode_errors" (broken byte sequences replaced by U+FFFD);
    "declared_encoding" when the bytes overruled the declared encoding (valid UTF-8 whose non-ASCII
    characters the declared one would read differently, or bytes it cannot decode).
    Raises LoadFailure(kind="binary") for bytes that are not text.

    >>> decode("Grüße".encode("utf-16-le"))
    ('Grüße', {'encoding': 'utf-16-le'})
    >>> decode("Crème".encode(), declared="windows-1252")
    ('Crème', {'encoding': 'utf-8', 'declared_encoding': 'cp1252'})
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), {"encoding": codec}
            except UnicodeDecodeError as exc:
                raise LoadFailure(
                    "binary", f"starts with a {codec} byte-order mark but does not decode: {exc.reason}"
                ) from None
    for magic, what in _MAGIC.items():
        if data.startswith(magic):
            raise LoadFailure("binary", f"binary data (looks like {what}), not text")
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        return utf16
    sample = data[:65536]
    if b"\x00" in sample:
        raise LoadFailure("binary", "binary data (contains NUL bytes), not text")
    if len(CONTROL_CHARS.findall(sample.decode("latin-1"))) > 0.05 * len(sample):
        raise LoadFailure("binary", "binary data (too many control characters), not text")
    wanted = _declared_codec(declared)
    metadata: dict[str, str] = {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if wanted not in (None, "utf-8") and not text.isascii() and _reads_differently(data, text, wanted):
            metadata["declared_encoding"] = wanted  # the bytes are UTF-8 whatever the page says
        return text, {"encoding": "utf-8", **metadata}
    text = data.decode("utf-8", errors="replace")
    broken = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")  # U+FFFD written in the file is not an error
    valid = len(text) - len(text.encode("ascii", "ignore")) - broken  # non-ASCII characters decoded fine
    if valid > broken:  # mostly UTF-8 with a few stray bytes: not a legacy encoding
        if wanted not in (None, "utf-8"):
            metadata["declared_encoding"] = wanted
        return text, {"encoding": "utf-8", "decode_errors": str(broken), **metadata}
    if wanted is not None:
        try:
            return data.decode(wanted), {"encoding": wanted}
        except (LookupError, UnicodeDecodeError):
            metadata["declared_encoding"] = wanted
    text, encoding = _guess_encoding(data)
    return text, {"encoding": encoding, **metadata}


def decode_text(data: bytes, *, declared: str | None = None) -> tuple[str, str]:
    """`decode` without its details: (text, encoding).

    >>> decode_text("café".encode("utf-8"))
    ('café', 'utf-8')
    >>> decode_text(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00")[0]
    Traceback (most recent call last):
    kgkit.stages.load.common.LoadFailure: binary data (looks like a PNG image), not text
    """
    text, metadata = decode(data, declared=declared)
    return text, metadata["encoding"]


def _declared_codec(declared: str | None) -> str | None:
    if not declared:
        return None
    name = encoding_name(declared)
    return _DECLARED_ALIASES.get(name, name)


def _reads_differently(data: bytes, text: str, codec: str) -> bool:
    try:
        return data.decode(codec) != text
    except (LookupError, UnicodeDecodeError):
        return True


def _utf16_without_bom(data: bytes) -> tuple[str, dict[str, str]] | None:
    """UTF-16 text without a byte-order mark (Windows tools write it), recognised before the NUL-byte check
    calls it binary: zero bytes almost only on one side of each 16-bit unit, and a strict decode that
    gives readable text."""
    sample = data[:65536]
    units = len(sample) // 2
    if units < 2 or len(data) % 2:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd >= max(2, units // 10) and even * 4 <= odd:
        codec = "utf-16-le"
    elif even >= max(2, units // 10) and odd * 4 <= even:
        codec = "utf-16-be"
    else:
        return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    head = text[:32768]
    unreadable = sum(1 for c in head if not (c.isprintable() or c in "\t\n\r\f\v"))
    if "\x00" in head or unreadable > 0.01 * len(head):
        return None
    return text, {"encoding": codec}


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
        raise LoadFailure("binary", f"decodes only as garbage (best guess {encoding_name(best.encoding)})")
    return text, encoding_name(best.encoding)


def parse_text(data: bytes, *, max_chars: int = DEFAULT_MAX_CHARS) -> ParseResult:
    """A plain text file -> (text with \\n newlines, {"encoding": ..., "decode_errors": ...}).

    >>> parse_text(b"one\\r\\ntwo")
    ('one\\ntwo', {'encoding': 'utf-8'})
    """
    text, metadata = decode(data)
    if len(text) > max_chars:
        raise too_much_text("the text file", max_chars)
    return clean_text(text), metadata


def markdown_title(text: str) -> str | None:
    """The first ATX heading (`# Title`) outside fenced code blocks, or None.

    >>> markdown_title("```sh\\n# not a title\\n```\\n\\n# Real title #\\n")
    'Real title'
    """
    fence = ""
    for line in _MD_LINE.finditer(text):
        marker = line.group("fence")
        if marker:
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.group("info").strip():
                fence = ""
        elif not fence and line.group("title"):
            return line.group("title")
    return None


def parse_markdown(data: bytes, *, max_chars: int = DEFAULT_MAX_CHARS) -> ParseResult:
    """A Markdown file: read as plain text (markup kept); the first `# heading` outside code blocks becomes
    the title."""
    text, metadata = parse_text(data, max_chars=max_chars)
    title = markdown_title(text)
    if title:
        metadata["title"] = title
    return text, metadata
