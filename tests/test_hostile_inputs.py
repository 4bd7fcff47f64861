"""Hostile inputs (issue 13: failures never look like success): a corpus generated here, every case next to
good files. Each case is checked twice: in process (read_corpus + load_document: the kind, the text) and in
one `kgkit run` of the whole corpus in a subprocess: every good file processed, every bad one reported with
its kind, the run finishes with exit code 1 (failures, listed), the terminal shows names literally (markup
escaped, no raw ESC), and the peak RSS stays bounded (resource.getrusage in the subprocess).

Cases by category: names, special files, encodings, binary/empty, HTML, PDF, DOCX, limits, unsupported.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from corpus_builders import (
    CP1252_TEXT,
    HOSTILE_HTML,
    HOSTILE_HTML_FORBIDDEN,
    make_docx_bytes,
    make_encrypted_pdf_bytes,
    make_pdf_bytes,
    png_like_bytes,
)

from kgkit.core.fingerprint import fingerprint
from kgkit.core.records import Document, DocumentError, RawFile
from kgkit.io import read_corpus
from kgkit.stages.load import DOCX_MAX_UNZIPPED_BYTES, load_document, load_documents

MAX_BYTES = 1024 * 1024  # the e2e run uses --max-size 1MB: big.txt is over it, the DOCX bomb (~0.5 MB) is not
RSS_LIMIT_MB = 1500  # the DOCX bomb alone took 1.3 GB to load + chunk before issue 13 (8.9 GB for the full run)
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
SENTENCE = "Ada Lovelace met Charles Babbage in London."


# --------------------------------------------------------------------------- builders


def docx_package(body: str, *, header: str | None = None, footer: str | None = None, dtd: str = "") -> bytes:
    """A minimal .docx written by hand: `body` is the inside of <w:body>; optional header and footer parts
    (the inside of <w:hdr> / <w:ftr>) linked from the document's relationships."""
    ns = f'xmlns:w="{W_NS}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    rels = ['<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'officeDocument" Target="word/document.xml"/>']
    doc_rels = []
    parts = {"word/document.xml": f'<?xml version="1.0"?>{dtd}<w:document {ns}><w:body>{body}</w:body></w:document>'}
    for kind, tag, content in (("header", "hdr", header), ("footer", "ftr", footer)):
        if content is not None:
            parts[f"word/{kind}1.xml"] = f'<?xml version="1.0"?><w:{tag} {ns}>{content}</w:{tag}>'
            doc_rels.append(f'<Relationship Id="r{kind}" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                            f'relationships/{kind}" Target="{kind}1.xml"/>')
    rel = '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", content_types(*(name for name in parts if name != "word/document.xml")))
        z.writestr("_rels/.rels", rel + "".join(rels) + "</Relationships>")
        z.writestr("word/_rels/document.xml.rels", rel + "".join(doc_rels) + "</Relationships>")
        for name, xml in parts.items():
            z.writestr(name, xml)
    return buffer.getvalue()


def content_types(*extra_parts: str) -> str:
    """[Content_Types].xml naming the main document (and header/footer parts), as python-docx expects."""
    kinds = {"header": "header", "footer": "footer"}
    overrides = "".join(
        f'<Override PartName="/{name}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
        f'{next(v for k, v in kinds.items() if k in name)}+xml"/>' for name in extra_parts)
    return ('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
            f"{overrides}</Types>")


def para(text: str) -> str:
    return f'<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


def docx_bomb(xml_mb: int = 126) -> bytes:
    """~0.5 MB of zip whose word/document.xml is `xml_mb` MB of ordinary paragraphs (~50 million characters)."""
    p = ('<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr><w:lang w:val="en-GB"/></w:rPr>'
         '<w:t xml:space="preserve">Ada Lovelace met Charles Babbage in London and they talked about the '
         'Analytical Engine. </w:t></w:r></w:p>')
    blocks = xml_mb * 1_000_000 // (len(p) * 1000)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", content_types())
        z.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
                   'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
        with z.open("word/document.xml", "w", force_zip64=True) as fh:
            fh.write(f'<w:document xmlns:w="{W_NS}"><w:body>'.encode())
            block = (p * 1000).encode()
            for _ in range(blocks):
                fh.write(block)
            fh.write(b"</w:body></w:document>")
    return buffer.getvalue()


def declared_size_bomb() -> bytes:
    """A small valid .docx whose central directory claims document.xml unzips to 300 MB."""
    data = bytearray(docx_package(para(SENTENCE)))
    entry = data.find(b"PK\x01\x02", data.find(b"PK\x01\x02"))
    while entry >= 0:
        name_len = int.from_bytes(data[entry + 28:entry + 30], "little")
        if data[entry + 46:entry + 46 + name_len] == b"word/document.xml":
            data[entry + 24:entry + 28] = (300 * 1024 * 1024).to_bytes(4, "little")
        entry = data.find(b"PK\x01\x02", entry + 4)
    return bytes(data)


def pdf_stream_bomb(expanded: int = 80_000_000) -> bytes:
    """A one-page PDF whose content stream is ~80 KB of flate that decompresses to `expanded` bytes."""
    content = zlib.compress(b"BT /F1 12 Tf 72 720 Td (Bomb) Tj ET\n" + b" " * expanded, 6)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def aes_pdf() -> bytes:
    """An (empty-password) PDF that declares AES encryption: reading it needs the optional `cryptography`.
    With `cryptography` installed it is really AES-encrypted; without it pypdf cannot write AES, so an RC4 file
    has its encryption dictionary rewritten to declare AES (what a reader without `cryptography` must refuse)."""
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(make_pdf_bytes("AES protected text.")))
    if has_crypto():
        writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
        buffer = io.BytesIO()
        writer.write(buffer)
        return buffer.getvalue()
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue().replace(
        b"/V 2\n/R 3\n",
        b"/V 4\n/R 4\n/CF << /StdCF << /CFM /AESV2 /Length 16 /AuthEvent /DocOpen >> >>\n/StmF /StdCF\n/StrF /StdCF\n")


def has_crypto() -> bool:
    try:
        import cryptography  # noqa: F401
    except ImportError:
        return False
    return True


def contains(*words: str) -> Callable[[Document], None]:
    def check(doc: Document) -> None:
        for word in words:
            assert word in doc.text, (word, doc.text[:300])
    return check


def lacks(*words: str) -> Callable[[Document], None]:
    def check(doc: Document) -> None:
        for word in words:
            assert word not in doc.text, (word, doc.text[:300])
    return check


def meta(**expected: str) -> Callable[[Document], None]:
    def check(doc: Document) -> None:
        for key, value in expected.items():
            assert doc.metadata.get(key) == value, (key, doc.metadata)
    return check


def no_controls(doc: Document) -> None:
    assert not re.search(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]", doc.text), repr(doc.text[:200])


@dataclass
class Case:
    category: str
    path: str  # as written on disk (str; surrogate escapes for bytes that are not UTF-8)
    source: bytes | Callable[[], bytes]  # the bytes, or a builder (bombs are built when first used)
    expect: str  # "ok" or the DocumentError kind
    checks: tuple[Callable[[Document], None], ...] = ()
    reason: str = ""  # a word the DocumentError's reason must contain
    e2e: bool = True  # part of the `kgkit run` corpus
    options: dict[str, Any] = field(default_factory=dict)  # load_document options in process

    @property
    def data(self) -> bytes:
        return _built(self.source) if callable(self.source) else self.source

    @property
    def shown(self) -> str:
        """The path kgkit reports (io.display_path)."""
        from kgkit.io.files import display_path

        return display_path(self.path)


@cache
def _built(make: Callable[[], bytes]) -> bytes:
    return make()


def _deep_html() -> bytes:
    return ("<html><body>" + "<div>" * 50_000 + "deep" + "</div>" * 50_000 + "</body></html>").encode()


@cache
def load_cases() -> tuple[Case, ...]:
    ok_txt = SENTENCE.encode()
    utf8_stray = ("Le café de Zoë à Noël. " * 4).encode() + b"\xff\xfe" + b" Ada \x80 met Charles."
    tbl = "<w:tbl><w:tr><w:tc>{}</w:tc></w:tr></w:tbl>"
    cases = [
        # -- names: good files under hostile names (all processed under a safe name)
        Case("names", os.fsdecode(b"caf\xe9-latin1-name.txt"), ok_txt, "ok"),
        Case("names", os.fsdecode(b"bad-\xff\xfe-bytes.md"), b"# T\n\n" + ok_txt, "ok"),
        Case("names", "new\nline.txt", ok_txt, "ok"),
        Case("names", "a[/]b.txt", ok_txt, "ok"),
        Case("names", "[bold red]loud.txt", ok_txt, "ok"),
        Case("names", "esc\x1b[31mred\x1b[0m.txt", ok_txt, "ok"),
        Case("names", "osc\x1b]0;pwned\x07title.txt", ok_txt, "ok"),
        Case("names", "bidi-\u202egnp.txt", ok_txt, "ok"),
        Case("names", ":warning: emoji code.txt", ok_txt, "ok"),
        Case("names", "tab\there\rcr.txt", ok_txt, "ok"),
        Case("names", "-rf --help.txt", ok_txt, "ok"),
        Case("names", "it's \"quoted\" $(rm).txt", ok_txt, "ok"),
        Case("names", "L" * 240 + ".txt", ok_txt, "ok"),
        Case("names", "/".join(["deep"] * 30) + "/nested.txt", ok_txt, "ok"),
        Case("names", "[bold red]empty.txt", b"", "empty"),  # a failing file: its name is printed
        Case("names", "x[/]y-empty.txt", b"", "empty"),
        Case("names", "esc\x1b[2J-empty.txt", b"", "empty"),
        Case("names", "nl\nforged: ok-empty.txt", b"", "empty"),
        Case("names", os.fsdecode(b"\xe9-empty.txt"), b"", "empty"),
        # -- empty and binary
        Case("binary", "empty.txt", b"", "empty"),
        Case("binary", "blank.md", b" \n\t\r\n ", "empty"),
        Case("binary", "png.txt", png_like_bytes(), "binary"),
        Case("binary", "elf.txt", b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4, "binary"),
        Case("binary", "random.md", bytes((i * 7919 + 13) % 256 for i in range(4096)), "binary"),
        Case("binary", "nul.txt", b"text\x00with NUL" * 50, "binary"),
        Case("binary", "zip.txt", b"PK\x03\x04" + b"\x00" * 100, "binary"),
        Case("binary", "ole.txt", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "binary"),
        Case("binary", "controls.txt", bytes(range(1, 32)) * 30, "binary"),
        Case("binary", "png.html", png_like_bytes(), "binary"),
        # -- encodings
        Case("encodings", "utf16le-nobom.txt", ("Grüße aus Köln. " + SENTENCE).encode("utf-16-le"), "ok",
             (contains("Grüße aus Köln", SENTENCE), meta(encoding="utf-16-le"))),
        Case("encodings", "utf16be-nobom.txt", ("Grüße aus Köln. " + SENTENCE).encode("utf-16-be"), "ok",
             (contains("Grüße aus Köln", SENTENCE), meta(encoding="utf-16-be"))),
        Case("encodings", "utf16-bom.md", ("# Grüße\n\n" + SENTENCE).encode("utf-16"), "ok",
             (contains("Grüße", SENTENCE), meta(encoding="utf-16", title="Grüße"))),
        Case("encodings", "utf16le-russian.txt", "Привет, мир. Это текст без BOM.".encode("utf-16-le"), "ok",
             (contains("Привет, мир"), meta(encoding="utf-16-le"))),
        Case("encodings", "utf8-stray-bytes.txt", utf8_stray, "ok",
             (contains("Le café de Zoë à Noël", "Charles"), lacks("cafÃ©"), meta(encoding="utf-8", decode_errors="3"))),
        Case("encodings", "utf8-bom.txt", b"\xef\xbb\xbf" + "Zoë. ".encode() + ok_txt, "ok",
             (contains("Zoë"), meta(encoding="utf-8-sig"))),
        Case("encodings", "cp1252.txt", CP1252_TEXT.encode("cp1252"), "ok",
             (contains("crème brûlée"), meta(encoding="cp1252"))),
        Case("encodings", "cp1251.txt", "Привет, как дела? Это русский текст, и он достаточно длинный.".encode("cp1251"),
             "ok", (contains("Привет"), meta(encoding="cp1251"))),
        Case("encodings", "md-code-title.md", b"```sh\n# not the title\n```\n\n# Real title\n\n" + ok_txt, "ok",
             (meta(title="Real title"),)),
        Case("encodings", "controls-in-text.txt", ((SENTENCE + " ") * 3 + "Ada\x1b[31m met\x07 Charles\x9b.").encode(),
             "ok", (no_controls, contains("Ada[31m met Charles."))),
        # -- HTML
        Case("html", "hostile.html", HOSTILE_HTML.encode(), "ok",
             (contains("Visible words survive."), lacks(*HOSTILE_HTML_FORBIDDEN))),
        Case("html", "deep.html", _deep_html, "corrupt", reason="deep"),
        Case("html", "script-lt.html", ("<html><head><script>" + "if(i<n){x()}\n" * 2100 + "</script></head><body><p>"
                                        + SENTENCE + "</p></body></html>").encode(), "ok", (contains(SENTENCE),)),
        Case("html", "text-lt.html", ("<p>" + "a<b " * 2100 + "</p><p>" + SENTENCE + "</p>").encode(), "ok",
             (contains(SENTENCE),)),
        Case("html", "comment-tags.html", ("<!--" + "<div>" * 3000 + "--><p>" + SENTENCE + "</p>").encode(), "ok",
             (contains(SENTENCE),)),
        Case("html", "svg-selfclosing.html", ("<svg>" + "<path d='M0 0'/>" * 3000 + "</svg><p>" + SENTENCE).encode(),
             "ok", (contains(SENTENCE),)),
        Case("html", "textarea-tags.html", ("<textarea>" + "<div>" * 3000 + "</textarea><p>" + SENTENCE).encode(), "ok",
             (contains(SENTENCE),)),
        Case("html", "meta-lies-utf8.html", '<meta charset="windows-1252"><p>Crème brûlée for Ada.</p>'.encode(), "ok",
             (contains("Crème brûlée"), meta(encoding="utf-8", declared_encoding="cp1252"))),
        Case("html", "meta-lies-stray-byte.html",
             '<meta charset="windows-1252"><p>Crème brûlée for Zoë and Ada.</p>'.encode() + b"<p>\x81</p>", "ok",
             (contains("Crème brûlée for Zoë"), lacks("CrÃ"),
              meta(encoding="utf-8", decode_errors="1", declared_encoding="cp1252"))),
        Case("html", "meta-lies-cp1252.html", '<meta charset="utf-8"><p>Crème brûlée for Ada.</p>'.encode("cp1252"),
             "ok", (contains("Crème brûlée"), meta(encoding="cp1252", declared_encoding="utf-8"))),
        Case("html", "meta-latin1.html", '<meta charset="iso-8859-1"><p>“Crème” for Ada.</p>'.encode("cp1252"), "ok",
             (contains("“Crème”"), meta(encoding="cp1252"))),
        Case("html", "meta-unknown.html", b'<meta charset="x-no-such"><p>' + ok_txt + b"</p>", "ok",
             (contains(SENTENCE),)),
        Case("html", "markup-only.html", b"<html><script>alert(1)</script><style>p{}</style></html>", "empty"),
        Case("html", "controls.html", "<p>Ada\x1b[31m met \x9bCharles.</p>".encode(), "ok", (no_controls,)),
        # -- PDF
        Case("pdf", "good.pdf", make_pdf_bytes(SENTENCE, title="Good"), "ok", (contains(SENTENCE), meta(title="Good"))),
        Case("pdf", "truncated.pdf", make_pdf_bytes(SENTENCE)[:300], "corrupt", reason="PDF"),
        Case("pdf", "garbage.pdf", b"%PDF-1.4\n" + bytes(range(256)) * 8, "corrupt"),
        Case("pdf", "text-as.pdf", b"hello, I am text", "corrupt"),
        Case("pdf", "locked.pdf", make_encrypted_pdf_bytes("Secret.", user_password="secret"), "corrupt",
             reason="password"),
        Case("pdf", "open-encrypted.pdf", make_encrypted_pdf_bytes(SENTENCE, user_password=""), "ok",
             (contains(SENTENCE),)),
        Case("pdf", "aes.pdf", aes_pdf, "ok" if has_crypto() else "unsupported",
             (contains("AES protected text."),) if has_crypto() else (),
             reason="" if has_crypto() else "cryptography"),
        Case("pdf", "scan.pdf", make_pdf_bytes("", ""), "no_text", reason="OCR"),
        Case("pdf", "stream-bomb.pdf", pdf_stream_bomb, "too_large", reason="limit"),
        Case("pdf", "many-chars.pdf", make_pdf_bytes("x" * 500, "y" * 500), "too_large", reason="characters",
             e2e=False, options={"max_chars": 600}),
        # -- DOCX
        Case("docx", "good.docx", make_docx_bytes(["Intro.", SENTENCE], [["Name"], ["Ada"]], title="Doc"), "ok",
             (contains(SENTENCE, "Ada"), meta(title="Doc"))),
        Case("docx", "content-control.docx",
             docx_package(f"<w:sdt><w:sdtContent>{para('Inside a content control.')}</w:sdtContent></w:sdt>"
                          + para(SENTENCE)), "ok", (contains("Inside a content control.", SENTENCE),)),
        Case("docx", "nested-table.docx",
             docx_package(tbl.format(para("Outer cell.") + tbl.format(para("Inner cell."))) + para(SENTENCE)), "ok",
             (contains("Outer cell.", "Inner cell.", SENTENCE),)),
        Case("docx", "header-footer.docx",
             docx_package(para(SENTENCE), header=para("Header words."), footer=para("Footer words.")), "ok",
             (contains(SENTENCE, "Header words.", "Footer words."),)),
        Case("docx", "textbox-once.docx",
             docx_package(f"<w:p><w:r><mc:AlternateContent><mc:Choice>{para('Boxed text.')}</mc:Choice>"
                          f"<mc:Fallback>{para('Boxed text.')}</mc:Fallback></mc:AlternateContent></w:r></w:p>"
                          + para(SENTENCE)), "ok",
             (contains("Boxed text.", SENTENCE), lambda d: assert_count(d.text, "Boxed text.", 1))),
        Case("docx", "tracked-deletion.docx",
             docx_package('<w:p><w:r><w:t>Kept </w:t></w:r><w:del><w:r><w:delText>deleted </w:delText></w:r></w:del>'
                          '<w:r><w:t>words.</w:t></w:r></w:p>' + para(SENTENCE)), "ok",
             (contains("Kept words.", SENTENCE), lacks("deleted"))),
        Case("docx", "garbage.docx", b"PK\x03\x04" + b"\x00garbage" * 20, "corrupt"),
        Case("docx", "truncated.docx", make_docx_bytes([SENTENCE])[:2000], "corrupt"),
        Case("docx", "text-as.docx", b"I am plain text wearing a .docx suffix.\n", "corrupt"),
        Case("docx", "not-word.docx", _zip({"hello.txt": "not a word document"}), "corrupt", reason="DOCX"),
        Case("docx", "encrypted.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2048, "corrupt",
             reason="password"),
        Case("docx", "entities.docx",
             docx_package(para("&lol9;"), dtd='<!DOCTYPE w:document [<!ENTITY lol "lol">'
                          + "".join(f'<!ENTITY lol{i} "{(f"&lol{i - 1};" if i > 1 else "&lol;") * 10}">'
                                    for i in range(1, 10)) + "]>"), "corrupt", reason="DTD"),
        Case("docx", "empty.docx", make_docx_bytes([]), "empty"),
        Case("docx", "bomb.docx", docx_bomb, "too_large", reason="characters",  # the e2e run: the default cap
             options={"max_chars": 2_000_000}),
        Case("docx", "declared-bomb.docx", declared_size_bomb(), "too_large", reason=f"{DOCX_MAX_UNZIPPED_BYTES:,}"),
        Case("docx", "small-cap.docx", docx_package(para("x" * 400) + para("y" * 400)), "too_large",
             reason="characters", e2e=False, options={"max_chars": 500}),
        # -- limits and unsupported types
        Case("limits", "big.txt", b"a " * (MAX_BYTES // 2 + 10), "too_large", reason="limit"),
        Case("limits", "long-line.txt", ((SENTENCE + " ") * 200).encode(), "ok", (contains(SENTENCE),)),
        Case("unsupported", "data.csv", b"a,b\n1,2\n", "unsupported"),
        Case("unsupported", "noext", ok_txt, "unsupported"),
        Case("unsupported", "tool.exe", b"MZ\x90\x00" + b"\x00" * 64, "unsupported"),
    ]
    return tuple(cases)


def assert_count(text: str, needle: str, n: int) -> None:
    assert text.count(needle) == n, (needle, text)


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# --------------------------------------------------------------------------- special files (file system level)


@dataclass
class Special:
    category: str
    shown: str  # the path kgkit reports
    expect: str  # "ok" or the kind
    make: Callable[[Path, Path], None]  # (corpus root, a folder outside it)
    needs: str = ""  # "unprivileged": only meaningful when permissions are enforced


def _symlink(target: str | Path, link: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _locked_folder(root: Path, _: Path) -> None:
    _write(root / "locked" / "inside.txt", SENTENCE.encode())
    (root / "locked").chmod(0)


def _locked_file(root: Path, _: Path) -> None:
    _write(root / "locked-file.txt", SENTENCE.encode())
    (root / "locked-file.txt").chmod(0)


SPECIALS = (
    Special("special", "links/alias.txt", "ok", lambda r, o: _symlink(r / "target.txt", r / "links" / "alias.txt")),
    Special("special", "target.txt", "ok", lambda r, o: _write(r / "target.txt", SENTENCE.encode())),
    Special("special", "links/outside.txt", "unreadable",
            lambda r, o: _symlink(o / "secret.txt", r / "links" / "outside.txt")),
    Special("special", "links/self-loop.txt", "unreadable",
            lambda r, o: _symlink(r / "links" / "self-loop.txt", r / "links" / "self-loop.txt")),
    Special("special", "links/dangling.txt", "unreadable",
            lambda r, o: _symlink(r / "nowhere.txt", r / "links" / "dangling.txt")),
    Special("special", "links/folder-outside/", "unreadable", lambda r, o: _symlink(o, r / "links" / "folder-outside")),
    Special("special", "links/folder-loop/", "unreadable", lambda r, o: _symlink(r, r / "links" / "folder-loop")),
    Special("special", "pipe.txt", "unreadable", lambda r, o: os.mkfifo(r / "pipe.txt")),
    Special("special", "folder.txt/inner.txt", "ok", lambda r, o: _write(r / "folder.txt" / "inner.txt", SENTENCE.encode())),
    Special("special", "locked/", "unreadable", _locked_folder, needs="unprivileged"),
    Special("special", "locked-file.txt", "unreadable", _locked_file, needs="unprivileged"),
)


def permissions_enforced() -> bool:
    return not (hasattr(os, "geteuid") and os.geteuid() == 0)


def write_corpus(root: Path, outside: Path, *, unprivileged: bool) -> dict[str, str]:
    """Every e2e case under root (and a secret file in `outside`); returns shown path -> expected outcome."""
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text("A secret outside the corpus.")
    expected: dict[str, str] = {}
    for case in load_cases():
        if case.e2e:
            _write(root / case.path, case.data)
            expected[case.shown] = case.expect
    for special in SPECIALS:
        if special.needs == "unprivileged" and not unprivileged:
            continue
        special.make(root, outside)
        expected[special.shown] = special.expect
    (root / ".hidden.txt").write_text("hidden files are skipped, by design")
    return expected


def unlock(root: Path) -> None:
    for name in ("locked", "locked-file.txt"):
        if (root / name).exists():
            (root / name).chmod(stat.S_IRWXU)


# --------------------------------------------------------------------------- in process: each case's kind


@pytest.mark.parametrize("case", load_cases(), ids=lambda c: f"{c.category}:{ascii(c.path)[1:40]}")
def test_each_case_loads_or_is_reported_with_its_kind(case: Case) -> None:
    raw = RawFile(path=case.shown, data=case.data, size=len(case.data))
    result = load_document(raw, max_bytes=MAX_BYTES, **case.options)
    if case.expect == "ok":
        assert isinstance(result, Document), result
        assert result.text.strip()
        for check in case.checks:
            check(result)
    else:
        assert isinstance(result, DocumentError), (case.path, type(result))
        assert (result.kind, case.reason.lower() in result.reason.lower()) == (case.expect, True), result


def test_the_corpus_covers_every_category() -> None:
    counts = Counter(c.category for c in load_cases()) + Counter(s.category for s in SPECIALS)
    assert sum(counts.values()) >= 60
    assert set(counts) == {"names", "binary", "encodings", "html", "pdf", "docx", "limits", "unsupported", "special"}


def test_read_corpus_reports_special_files_and_odd_names(tmp_path: Path) -> None:
    root, outside = tmp_path / "corpus", tmp_path / "outside"
    expected = write_corpus(root, outside, unprivileged=permissions_enforced())
    try:
        raws = read_corpus(root, max_bytes=MAX_BYTES)
    finally:
        unlock(root)
    docs, errors = load_documents(raws, max_bytes=MAX_BYTES, max_chars=1_000_000)  # the bomb stops sooner
    got = {d.path: "ok" for d in docs} | {e.path: e.kind for e in errors}
    assert got == expected
    for raw in raws:  # every name is valid Unicode now: JSON, SQLite and hashes take it
        raw.path.encode("utf-8")
        assert fingerprint(raw)
    assert not any(b"secret" in r.data for r in raws)


def test_a_folder_that_cannot_be_listed_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without relying on permissions (root reads everything): os.walk's listing fails for one folder."""
    _write(tmp_path / "ok.txt", SENTENCE.encode())
    _write(tmp_path / "private" / "x.txt", SENTENCE.encode())
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if str(path).endswith("private"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    docs, errors = load_documents(read_corpus(tmp_path))
    assert [d.path for d in docs] == ["ok.txt"]
    assert [(e.path, e.kind) for e in errors] == [("private/", "unreadable")]
    assert "Permission denied" in errors[0].reason


def test_surrogate_escaped_names_fingerprint_and_stay_distinct() -> None:
    a, b = os.fsdecode(b"caf\xe9.txt"), os.fsdecode(b"caf\xe8.txt")
    assert fingerprint(a) != fingerprint(b) != fingerprint("café.txt")
    assert fingerprint(RawFile(path=a, data=b"x", size=1))
    assert fingerprint("\udcc3\udca9") != fingerprint("é")  # injective, unlike surrogateescape
    assert fingerprint("café") == fingerprint("café")


def test_names_that_collide_once_made_safe_are_both_reported(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"One.")
    (tmp_path / "caf\\xe9.txt").write_bytes(b"Two.")
    raws = read_corpus(tmp_path)
    assert [r.path for r in raws] == ["caf\\xe9.txt", "caf\\xe9.txt"]
    assert [r.data for r in raws] == [b"Two.", b""] and "same safe name" in (raws[1].read_error or "")


# --------------------------------------------------------------------------- end to end: one `kgkit run`

# The peak is VmHWM, this process's own high-water mark. Not getrusage's ru_maxrss: subprocess starts the child
# with vfork, and Linux carries the parent's peak into the child's ru_maxrss across exec, so the figure was
# pytest's own size (1.76 GB on CI after the n2000 tests) rather than kgkit's.
RUNNER = """
import sys
from kgkit.cli import main
rss_file = sys.argv.pop(1)
sys.argv[0] = "kgkit"
try:
    main()
finally:
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(rss_file, "w") as fh:
        fh.write(kb)
"""


def unprivileged_prefix() -> list[str] | None:
    """The command prefix that makes permissions count: none for a normal user; for root, `setpriv` dropping
    the capabilities that let root read anything (None when that is not possible)."""
    if permissions_enforced():
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


@pytest.fixture(scope="module")
def hostile_run() -> Any:
    """`kgkit run` over the whole hostile corpus in a subprocess (as root: without the capabilities to read
    unreadable files, so permissions count): (exit code, terminal output, run.json, graph.json, expected,
    peak RSS in MB)."""
    prefix = unprivileged_prefix()
    base = Path(tempfile.mkdtemp(prefix="kgkit-hostile-"))
    root, outside, workspace = base / "corpus", base / "outside", base / "ws"
    rss_file = base / "rss.txt"
    expected = write_corpus(root, outside, unprivileged=prefix is not None)
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env.update({"COLUMNS": "400", "PYTHONIOENCODING": "utf-8"})
    command = [*(prefix or []), sys.executable, "-c", RUNNER, str(rss_file),
               "run", str(root), "-o", str(workspace), "--max-size", "1MB"]
    try:
        proc = subprocess.run(command, capture_output=True, env=env, timeout=600, cwd=base)
        output = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
        summary = json.loads((workspace / "run.json").read_text(encoding="utf-8"))
        graph = json.loads((workspace / "graph.json").read_text(encoding="utf-8"))
        rss_mb = int(rss_file.read_text()) / 1024
    finally:
        unlock(root)
        shutil.rmtree(base, ignore_errors=True)
    print(f"hostile corpus: {len(expected)} cases, exit {proc.returncode}, peak RSS {rss_mb:.0f} MB")
    return proc.returncode, output, summary, graph, expected, rss_mb


def test_run_finishes_with_failures_listed(hostile_run: Any) -> None:
    code, output, summary, graph, expected, _ = hostile_run
    assert code == 1, output[-3000:]
    assert summary["outcome"] == "failures"
    good = {path for path, outcome in expected.items() if outcome == "ok"}
    bad = {path: outcome for path, outcome in expected.items() if outcome != "ok"}
    assert {d["path"] for d in graph["documents"]} == good
    assert summary["documents_ok"] == len(good)
    assert {f["path"]: f["kind"] for f in summary["failures"]} == bad
    assert all(f["reason"].strip() for f in summary["failures"])
    assert not summary["chunk_errors"]
    reasons = {f["path"]: f["reason"] for f in summary["failures"]}
    assert "more than 20,000,000 characters" in reasons["bomb.docx"]  # the default cap, from a 0.5 MB file


def test_terminal_output_is_literal_and_has_no_escape_sequences(hostile_run: Any) -> None:
    _, output, summary, _, expected, _ = hostile_run
    assert "\x1b" not in output and "\x07" not in output and "\x9b" not in output
    assert "Traceback" not in output
    for shown in ("[bold red]empty.txt", "x[/]y-empty.txt", "esc\\x1b[2J-empty.txt", "nl\\nforged: ok-empty.txt",
                  "\\xe9-empty.txt", "locked/", "links/folder-loop/"):
        assert shown not in expected or f"failed {shown}: " in output, shown
    assert len([line for line in output.splitlines() if line.startswith("failed ")]) == len(summary["failures"])


def test_peak_memory_stays_bounded(hostile_run: Any) -> None:
    rss_mb = hostile_run[5]
    assert rss_mb < RSS_LIMIT_MB, f"peak RSS {rss_mb:.0f} MB"


def test_output_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kgkit.cli import app

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text(SENTENCE)
    (tmp_path / "out.json").write_text("{}")
    result = CliRunner().invoke(app, ["run", str(tmp_path / "docs"), "-o", str(tmp_path / "out.json")])
    assert result.exit_code == 2 and "not a workspace folder" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
