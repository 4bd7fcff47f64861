"""DOCX for the load stage, streamed: the XML parts are read through a size-checked stream into an expat
parser that keeps only the text, so a small archive whose XML expands enormously is refused while it is
read (DOCX_MAX_UNZIPPED_BYTES of XML, `max_chars` characters of text), never held whole in memory.

Text, one paragraph per line: the body in document order (paragraphs, every table cell, nested tables,
content controls (w:sdt), text boxes once, hyperlinks and fields), then the headers, footers, footnotes and
endnotes (each distinct line once); deleted text (tracked changes) and field codes are left out. The
core-properties title becomes metadata. Password-protected documents (an OLE container, not a zip) are
reported as such; DTDs (entity expansion) are refused.

>>> import io, zipfile
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as z:
...     z.writestr("word/document.xml", '<w:document xmlns:w="%s"><w:body><w:p><w:r><w:t>Ada met</w:t></w:r>'
...                '<w:r><w:t xml:space="preserve"> Charles.</w:t></w:r></w:p><w:sdt><w:sdtContent><w:p><w:r>'
...                '<w:t>In a content control.</w:t></w:r></w:p></w:sdtContent></w:sdt></w:body></w:document>' % W)
>>> parse_docx(buffer.getvalue())
('Ada met Charles.\\nIn a content control.', {})
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterator
from typing import IO, Any

from kgkit.core.constants import DEFAULT_MAX_CHARS
from kgkit.stages.load.common import LoadFailure, ParseResult, TextBudget, clean_text

__all__ = ["DOCX_MAX_UNZIPPED_BYTES", "DOCX_MEDIA_TYPE", "W", "parse_docx"]

DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
DOCX_MAX_UNZIPPED_BYTES = 256 * 1024 * 1024  # zip-bomb guard for .docx: XML read at most, all parts together
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MATH = "http://schemas.openxmlformats.org/officeDocument/2006/math"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_OFFICE_DOCUMENT = ("/officeDocument", "/relationships/officeDocument")  # relationship type endings
_EXTRA_PARTS = ("header", "footer", "footnotes", "endnotes")  # relationship type endings, in this order
_CORE_PROPERTIES = "/metadata/core-properties"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CHUNK = 1 << 16
_TEXT_TAGS = {f"{{{W}}}t", f"{{{_MATH}}}t"}
_CHAR_TAGS = {f"{{{W}}}tab": "\t", f"{{{W}}}br": "\n", f"{{{W}}}cr": "\n", f"{{{W}}}noBreakHyphen": "-"}
_PARAGRAPH = f"{{{W}}}p"
_SKIP_TAGS = {f"{{{_MC}}}Fallback"}  # a text box is written twice: once in mc:Choice, once in mc:Fallback


class _SizeCheckedStream:
    """Reads a zip member in chunks, counting the uncompressed bytes of every part read so far against
    one limit (the declared sizes in a zip can lie; these are the bytes actually produced)."""

    def __init__(self, member: IO[bytes], counter: list[int], limit: int) -> None:
        self.member, self.counter, self.limit = member, counter, limit

    def chunks(self) -> Iterator[bytes]:
        while chunk := self.member.read(_CHUNK):
            self.counter[0] += len(chunk)
            if self.counter[0] > self.limit:
                raise LoadFailure("too_large", f"DOCX unzips to more than {self.limit:,} bytes of XML, over the "
                                               "limit; not loaded")
            yield chunk


class _Target:
    """An ElementTree parser target that ignores everything and refuses DTDs (Word never writes one; a DTD
    is how entity-expansion bombs start)."""

    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise LoadFailure("corrupt", "a DOCX part declares a DTD (entity expansion, not Word's output); not parsed")

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        return None

    def end(self, tag: str) -> None:
        return None

    def data(self, text: str) -> None:
        return None

    def close(self) -> None:
        return None


class _TextTarget(_Target):
    """An ElementTree parser target that keeps paragraph text only: lines of text, counted as they come."""

    def __init__(self, budget: TextBudget) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.paragraphs: list[list[str]] = []  # open paragraphs (a text box paragraph sits inside another)
        self.in_text = 0
        self.skip = 0

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if tag in _SKIP_TAGS:
            self.skip += 1
        elif self.skip:
            return
        elif tag == _PARAGRAPH:
            self.paragraphs.append([])
        elif tag in _TEXT_TAGS:
            self.in_text += 1
        elif tag in _CHAR_TAGS and self.paragraphs:
            self.paragraphs[-1].append(self.budget.take(_CHAR_TAGS[tag]))

    def end(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self.skip -= 1
        elif self.skip:
            return
        elif tag == _PARAGRAPH and self.paragraphs:
            line = "".join(self.paragraphs.pop()).strip()
            if line:
                self.lines.append(line)
        elif tag in _TEXT_TAGS:
            self.in_text -= 1

    def data(self, text: str) -> None:
        if self.in_text and not self.skip:
            self.budget.take(text)
            if self.paragraphs:
                self.paragraphs[-1].append(text)
            else:  # text outside any paragraph (not Word's output, but keep it)
                self.lines.append(text)


def _parse_part(archive: zipfile.ZipFile, name: str, target: Any, counter: list[int]) -> None:
    """Stream one XML part of the archive into `target` (an ElementTree parser target)."""
    from xml.etree.ElementTree import XMLParser

    parser = XMLParser(target=target)
    with archive.open(name) as member:
        for chunk in _SizeCheckedStream(member, counter, DOCX_MAX_UNZIPPED_BYTES).chunks():
            parser.feed(chunk)
    parser.close()


class _Relationships(_Target):
    """Collects (type, target) of the internal relationships in a .rels part."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str]] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if tag == f"{{{_REL}}}Relationship" and attrib.get("TargetMode") != "External":
            self.found.append((attrib.get("Type", ""), attrib.get("Target", "")))


class _Title(_Target):
    """Collects the text of dc:title (core properties), 10,000 characters at most."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.inside = False

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self.inside = tag == _DC_TITLE

    def end(self, tag: str) -> None:
        self.inside = False

    def data(self, text: str) -> None:
        if self.inside and sum(map(len, self.parts)) < 10_000:
            self.parts.append(text)


def _relationships(archive: zipfile.ZipFile, part: str, counter: list[int]) -> list[tuple[str, str]]:
    """(type, part name) of the internal relationships of `part` ("" = the package), in file order."""
    folder, base = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", base + ".rels")
    if rels not in set(archive.namelist()):
        return []
    target = _Relationships()
    _parse_part(archive, rels, target, counter)
    out = []
    for kind, where in target.found:
        name = where.lstrip("/") if where.startswith("/") else posixpath.normpath(posixpath.join(folder, where))
        out.append((kind, name))
    return out


def parse_docx(data: bytes, *, max_chars: int = DEFAULT_MAX_CHARS) -> ParseResult:
    """A DOCX file -> (text, {"title": ...}); a broken zip or package raises (a "corrupt" DocumentError);
    more than `max_chars` characters of text, or more than DOCX_MAX_UNZIPPED_BYTES of XML, is "too_large"."""
    if data.startswith(_OLE):
        raise LoadFailure("corrupt", "not a DOCX zip package but an OLE container: a password-protected "
                                     "document or a legacy .doc; save it as an unprotected .docx first")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:  # BadZipFile -> corrupt
        declared = sum(info.file_size for info in archive.infolist())
        if declared > DOCX_MAX_UNZIPPED_BYTES:
            raise LoadFailure(
                "too_large", f"DOCX unzips to {declared:,} bytes, over the {DOCX_MAX_UNZIPPED_BYTES:,}-byte limit"
            )
        if any(info.flag_bits & 0x1 for info in archive.infolist()):
            raise LoadFailure("corrupt", "DOCX archive members are encrypted (zip password); not readable")
        names = set(archive.namelist())
        counter = [0]
        package = _relationships(archive, "", counter)
        main = next((name for kind, name in package if kind.endswith(_OFFICE_DOCUMENT)), None)
        if main is None and "word/document.xml" in names:
            main = "word/document.xml"  # no package relationships: take Word's usual part name
        if main is None or main not in names:
            raise LoadFailure("corrupt", "not a DOCX package: no main document part (word/document.xml)")
        budget = TextBudget(max_chars, "DOCX")
        body = _TextTarget(budget)
        _parse_part(archive, main, body, counter)
        extra = _TextTarget(budget)
        linked = _relationships(archive, main, counter)
        for wanted in _EXTRA_PARTS:
            for kind, name in linked:
                if kind.endswith("/" + wanted) and name in names:
                    _parse_part(archive, name, extra, counter)
        seen = set(body.lines)
        lines = body.lines + [line for line in extra.lines if not (line in seen or seen.add(line))]
        metadata: dict[str, str] = {}
        core = next((name for kind, name in package if kind.endswith(_CORE_PROPERTIES)), "docProps/core.xml")
        if core in names:
            title = _Title()
            _parse_part(archive, core, title, counter)
            text = " ".join("".join(title.parts).split())
            if text:
                metadata["title"] = text
    return clean_text("\n".join(lines)), metadata
