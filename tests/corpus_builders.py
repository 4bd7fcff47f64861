"""Builders for test corpora: good files of every supported type and a gallery of bad inputs.

Shared by the load tests and the end-to-end tests. Everything is generated in the given folder, from
fixed bytes (no randomness), with no extra packages beyond kgkit's own (pypdf, python-docx).

>>> pdf = make_pdf_bytes("Hello (PDF) world.", "Page two.")
>>> import io, pypdf
>>> [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages]
['Hello (PDF) world.', 'Page two.']
"""

from __future__ import annotations

import io
import os
import random
from pathlib import Path

BAD_CORPUS_MAX_BYTES = 100_000
"""Load the bad corpus with max_bytes=BAD_CORPUS_MAX_BYTES: only big.txt is over it (good-corpus files are
all under it too, so both corpora can share one folder)."""

HIDDEN_PATHS = (".hidden.txt", ".cache/notes.md")
"""Hidden files written by write_bad_corpus: read_corpus must skip them (they are not in its result)."""

GOOD_CORPUS: dict[str, str] = {
    "notes/ada.txt": "Ada Lovelace worked with Charles Babbage on the Analytical Engine.",
    "notes/readme.md": "Grace Hopper wrote the first compiler.",
    "web/turing.html": "Alan Turing was born in London.",
    "papers/curie.pdf": "Marie Curie won the Nobel Prize in Physics.",
    "reports/hopper.docx": "Grace Hopper joined the Navy in 1943.",
}
"""Relative path -> a sentence that must appear in the loaded Document's text."""

CP1252_TEXT = "Le café était naïve; la crème brûlée coûte 5 €.\r\nÀ bientôt, garçon!\r\n"
HOSTILE_HTML = """<!DOCTYPE html><html><head><title>Hostile &amp; page</title>
<style>body { color: red } .alert { }</style><script>alert(1)</script>
<meta http-equiv="refresh" content="0;url=javascript:alert(1)"></head>
<body onload="alert(1)"><p>Visible words survive.</p>
<img src=x onerror=alert(1)><a href="javascript:alert(1)">Click here</a>
<noscript>alert(1) noscript</noscript><svg><script>alert(1)</script><text>alert svg</text></svg>
<iframe srcdoc="<script>alert(1)</script>">alert iframe</iframe><template><p>alert template</p></template>
<p>Fish &amp; chips &lt;b&gt; caf&eacute;&nbsp;&#x2014; done</p>
<div><p>unclosed <b>bold <i>italic</div></p></b>
<object data="x">alert object</object><embed src="javascript:alert(1)">
<!-- alert comment --><![CDATA[ alert cdata ]]><p style="background:url(javascript:alert(1))">styled</p>
<table><tr><td>cell one<td>cell two</table><SCRIPT type="text/javascript">alert(1)</SCRIPT>
<math><mi xlink:href="javascript:alert(1)">x</mi></math><script src="javascript:alert(1)"></script>
"""
HOSTILE_HTML_VISIBLE = (
    "Visible words survive.",
    "Click here",
    "Fish & chips <b> café — done",
    "unclosed bold italic",
    "styled",
    "cell one",
    "cell two",
)
HOSTILE_HTML_FORBIDDEN = ("alert", "onerror", "onload", "javascript", "color: red", "<script")


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def make_pdf_bytes(*pages: str, title: str | None = None) -> bytes:
    """A minimal valid PDF (Helvetica, WinAnsi) with one page per argument; "\\n" starts a new line and an
    empty string makes a page with a drawing but no text (like a scanned page)."""
    page_ids = [5 + 2 * i for i in range(len(pages))]  # objects: 1 catalog, 2 pages, 3 font, 4 info
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % i for i in page_ids) + b"] /Count %d >>" % len(pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Producer (kgkit tests)" + (b" /Title " + _pdf_string(title) if title else b"") + b" >>",
    ]
    for page_id, text in zip(page_ids, pages):
        if text:
            lines = b" T* ".join(_pdf_string(line) + b" Tj" for line in text.split("\n"))
            stream = b"BT /F1 12 Tf 14 TL 72 720 Td " + lines + b" ET"
        else:
            stream = b"0 0 m 200 200 l S"
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % (page_id + 1)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def make_encrypted_pdf_bytes(text: str, *, user_password: str) -> bytes:
    """A PDF encrypted with RC4 (no extra crypto package needed); an empty user password opens freely."""
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(make_pdf_bytes(text)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def make_docx_bytes(paragraphs: list[str], table: list[list[str]] | None = None, *, title: str | None = None) -> bytes:
    """A .docx built with python-docx: paragraphs, then an optional table (rows of cell texts)."""
    import docx

    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=max(len(row) for row in table))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    if title:
        document.core_properties.title = title
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def png_like_bytes(n: int = 2048) -> bytes:
    """A PNG signature and header followed by fixed pseudo-random bytes."""
    header = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    return header + random.Random(7).randbytes(n)


def _write(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_good_corpus(root: str | os.PathLike[str]) -> dict[str, str]:
    """Write one good file of each supported type under root; returns GOOD_CORPUS (path -> expected sentence)."""
    base = Path(root)
    s = GOOD_CORPUS
    _write(base, "notes/ada.txt", (s["notes/ada.txt"] + "\nShe wrote the first program.\n").encode())
    _write(base, "notes/readme.md", f"# Project notes\n\n{s['notes/readme.md']}\n".encode())
    html = (
        f"<html><head><title>Turing</title></head><body><h1>Alan Turing</h1><p>{s['web/turing.html']}</p></body></html>"
    )
    _write(base, "web/turing.html", html.encode())
    pdf = make_pdf_bytes(s["papers/curie.pdf"], "She later won the Nobel Prize in Chemistry.", title="Curie")
    _write(base, "papers/curie.pdf", pdf)
    docx_bytes = make_docx_bytes(
        ["Admiral Hopper", s["reports/hopper.docx"]], [["Name", "Born"], ["Grace Hopper", "1906"]], title="Hopper"
    )
    _write(base, "reports/hopper.docx", docx_bytes)
    return dict(GOOD_CORPUS)


def write_bad_corpus(
    root: str | os.PathLike[str], *, max_bytes: int = BAD_CORPUS_MAX_BYTES, special_files: bool = True
) -> dict[str, str | None]:
    """Write hostile and broken inputs under root; returns relative path -> expected DocumentError kind,
    or None for tricky files that must still load as Documents (latin1.txt, hostile.html).

    Load it with max_bytes=`max_bytes` (only big.txt is over it). The hidden HIDDEN_PATHS are written too
    and are not in the result. With `special_files`, also a FIFO (pipe.txt: never open it for reading,
    it would block, so do not copytree this folder) and a symlink to a file outside root (escape.txt).
    """
    base = Path(root)
    expected: dict[str, str | None] = {}

    def put(rel: str, data: bytes, kind: str | None) -> None:
        _write(base, rel, data)
        expected[rel] = kind

    put("empty.txt", b"", "empty")
    put("blank.md", b"  \n\t \r\n", "empty")
    put("image.txt", png_like_bytes(), "binary")
    put("zeros.md", b"text\x00\x00\x00" + random.Random(3).randbytes(512), "binary")
    put("broken.pdf", make_pdf_bytes("This text is cut off.")[:300], "corrupt")
    put("locked.pdf", make_encrypted_pdf_bytes("Secret text.", user_password="secret"), "corrupt")
    put("scan.pdf", make_pdf_bytes("", ""), "no_text")
    put("broken.docx", b"PK\x03\x04" + b"\x00garbage" * 20, "corrupt")
    put("fake.docx", b"I am plain text wearing a .docx suffix.\n", "corrupt")
    put("scripts-only.html", b"<html><script>alert(1)</script><style>p{}</style><!-- nothing --></html>", "empty")
    put("big.txt", b"a" * (max_bytes + 1), "too_large")
    put("data.xyz", b"some data in a format kgkit does not read", "unsupported")
    put("latin1.txt", CP1252_TEXT.encode("cp1252"), None)
    put("hostile.html", HOSTILE_HTML.encode("utf-8"), None)
    for rel in HIDDEN_PATHS:
        _write(base, rel, b"hidden text must be skipped")
    if special_files and hasattr(os, "mkfifo"):
        os.mkfifo(base / "pipe.txt")
        expected["pipe.txt"] = "unreadable"
    if special_files and hasattr(os, "symlink"):
        os.symlink(Path(__file__).resolve(), base / "escape.txt")
        expected["escape.txt"] = "unreadable"
    return dict(sorted(expected.items()))
