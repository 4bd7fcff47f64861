"""Tests for the load stage (kgkit.stages.load) and corpus reading (kgkit.io.read_corpus / read_file)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from corpus_builders import (
    BAD_CORPUS_MAX_BYTES,
    CP1252_TEXT,
    HIDDEN_PATHS,
    HOSTILE_HTML,
    HOSTILE_HTML_FORBIDDEN,
    HOSTILE_HTML_VISIBLE,
    make_docx_bytes,
    make_encrypted_pdf_bytes,
    make_pdf_bytes,
    png_like_bytes,
    write_bad_corpus,
    write_good_corpus,
)

from kgkit.core.records import Document, DocumentError, RawFile, sha256_hex
from kgkit.core.stage import stage_identity
from kgkit.io import read_corpus, read_file
from kgkit.stages import load as load_module
from kgkit.stages.load import (
    DEFAULT_MAX_BYTES,
    DOCX_MEDIA_TYPE,
    MAX_HTML_DEPTH,
    SUPPORTED_SUFFIXES,
    html_depth,
    load_document,
    load_documents,
    load_files,
)


def raw(path: str, data: bytes | str, **kwargs: object) -> RawFile:
    data = data.encode("utf-8") if isinstance(data, str) else data
    return RawFile(path=path, data=data, size=len(data), **kwargs)  # type: ignore[arg-type]


def load_ok(path: str, data: bytes | str, **kwargs: object) -> Document:
    result = load_document(raw(path, data), **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, Document), result
    return result


def load_err(path: str, data: bytes | str, **kwargs: object) -> DocumentError:
    result = load_document(raw(path, data), **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, DocumentError), result
    assert result.reason.strip()
    return result


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, str | None]]:
    root = tmp_path / "corpus"
    good = write_good_corpus(root)
    bad = write_bad_corpus(root)
    return root, good, bad


# --------------------------------------------------------------------------- the corpora end to end


def test_good_and_bad_corpus_load_as_expected(corpus: tuple[Path, dict[str, str], dict[str, str | None]]) -> None:
    root, good, bad = corpus
    raws = read_corpus(root, max_bytes=BAD_CORPUS_MAX_BYTES)
    docs, errors = load_documents(raws, max_bytes=BAD_CORPUS_MAX_BYTES)
    by_path = {d.path: d for d in docs}
    kinds = {e.path: e.kind for e in errors}
    expected_docs = set(good) | {p for p, kind in bad.items() if kind is None}
    assert set(by_path) == expected_docs
    assert kinds == {p: kind for p, kind in bad.items() if kind is not None}
    assert all(e.reason for e in errors)
    for path, sentence in good.items():
        assert sentence in by_path[path].text, path
    assert not set(HIDDEN_PATHS) & {r.path for r in raws}
    assert [r.path for r in raws] == sorted(r.path for r in raws)


def test_corpus_is_deterministic(corpus: tuple[Path, dict[str, str], dict[str, str | None]]) -> None:
    root, _, _ = corpus
    first = load_documents(read_corpus(root, max_bytes=BAD_CORPUS_MAX_BYTES), max_bytes=BAD_CORPUS_MAX_BYTES)
    second = load_documents(read_corpus(root, max_bytes=BAD_CORPUS_MAX_BYTES), max_bytes=BAD_CORPUS_MAX_BYTES)
    assert first == second
    assert [d.id for d in first[0]] == [d.id for d in second[0]]
    assert len({d.id for d in first[0]}) == len(first[0])


def test_media_types_and_metadata(corpus: tuple[Path, dict[str, str], dict[str, str | None]]) -> None:
    root, _, _ = corpus
    docs, _ = load_documents(read_corpus(root / "notes") + read_corpus(root / "web") + read_corpus(root / "papers"))
    by_path = {d.path: d for d in docs}
    assert by_path["ada.txt"].media_type == "text/plain"
    assert by_path["readme.md"].media_type == "text/markdown"
    assert by_path["readme.md"].metadata["title"] == "Project notes"
    assert by_path["turing.html"].media_type == "text/html"
    assert by_path["turing.html"].metadata["title"] == "Turing"
    assert by_path["curie.pdf"].metadata == {"pages": "2", "title": "Curie"}
    [docx] = load_documents(read_corpus(root / "reports"))[0]
    assert docx.media_type == DOCX_MEDIA_TYPE and docx.metadata["title"] == "Hopper"


# --------------------------------------------------------------------------- identity


def test_ids_follow_content_and_path() -> None:
    a = load_ok("a/notes.txt", "Same words.")
    b = load_ok("b/notes.txt", "Same words.")
    changed = load_ok("a/notes.txt", "Other words.")
    assert a.id != b.id and a.sha256 == b.sha256  # same content at two paths: two documents, one content hash
    assert changed.id != a.id and changed.sha256 != a.sha256
    assert a.sha256 == sha256_hex(b"Same words.")
    assert a.id == Document.make_id(a.sha256, "a/notes.txt") == load_ok("a/notes.txt", "Same words.").id


def test_sha256_is_of_raw_bytes_not_text() -> None:
    crlf = load_ok("x.txt", b"one\r\ntwo\r\n")
    lf = load_ok("x.txt", b"one\ntwo\n")
    assert crlf.text == lf.text == "one\ntwo\n"
    assert crlf.sha256 != lf.sha256 and crlf.id != lf.id


def test_rename_keeps_sha256(tmp_path: Path) -> None:
    (tmp_path / "old.md").write_text("# Title\n\nBody text.\n")
    before = load_documents(read_corpus(tmp_path))[0][0]
    (tmp_path / "old.md").rename(tmp_path / "new.md")
    after = load_documents(read_corpus(tmp_path))[0][0]
    assert (before.path, after.path) == ("old.md", "new.md")
    assert before.sha256 == after.sha256 and before.id != after.id


def test_stage_identity() -> None:  # part of every cache key: changing these invalidates existing caches
    assert stage_identity(load_document) == ("load_document", "2")  # 2: issue 13 (encodings, DOCX, caps)
    assert stage_identity(load_files) == ("load", "2")


# --------------------------------------------------------------------------- text files


def test_text_newlines_bom_and_controls() -> None:
    doc = load_ok("a.txt", b"\xef\xbb\xbfline one\r\nline two\rline\x00three\x0cfour\n")
    assert doc.text == "line one\nline two\nlinethree\nfour\n"
    assert doc.metadata["encoding"] == "utf-8-sig"
    utf16 = load_ok("b.txt", "Grüße aus Köln\r\n".encode("utf-16"))
    assert utf16.text == "Grüße aus Köln\n"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        (CP1252_TEXT, "cp1252"),
        ("café", "cp1252"),
        ("naïve café", "latin-1"),
        ("Un café, une crème brûlée et un garçon naïve à Noël.\n", "cp1252"),
        ("Müller und Söhne – “Grüße” aus Köln", "cp1252"),
    ],
)
def test_non_utf8_western_text_decodes_correctly(text: str, encoding: str) -> None:
    doc = load_ok("legacy.txt", text.encode(encoding))
    assert doc.text == text.replace("\r\n", "\n")
    assert doc.metadata["encoding"] == "cp1252"


def test_non_utf8_non_western_text_uses_charset_normalizer() -> None:
    text = "Привет, как дела? Это русский текст, и он достаточно длинный для определения."
    doc = load_ok("ru.txt", text.encode("cp1251"))
    assert doc.text == text and doc.metadata["encoding"] == "cp1251"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("image.txt", png_like_bytes()),
        ("nul.md", b"looks like text\x00\x00\x01\x02"),
        ("controls.txt", bytes(range(1, 32)) * 20),
        ("zip.txt", b"PK\x03\x04" + b"x" * 100),
        ("image.html", png_like_bytes()),
    ],
)
def test_binary_renamed_as_text(name: str, data: bytes) -> None:
    assert load_err(name, data).kind == "binary"


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n  "])
def test_empty_and_whitespace_only(data: bytes) -> None:
    assert load_err("e.txt", data).kind == "empty"
    assert load_err("e.md", data).kind == "empty"


# --------------------------------------------------------------------------- HTML


def test_hostile_html_keeps_visible_text_only() -> None:
    doc = load_ok("h.html", HOSTILE_HTML)
    for words in HOSTILE_HTML_VISIBLE:
        assert words in doc.text
    for bad in HOSTILE_HTML_FORBIDDEN:
        assert bad not in doc.text.lower(), bad
    assert doc.metadata["title"] == "Hostile & page"
    assert "Hostile" not in doc.text  # <head> (title included) is not body text


def test_html_blocks_become_lines() -> None:
    html = "<h1>Title</h1><p>First   para\n with <em>inline</em> text.</p><ul><li>one</li><li>two</li></ul>x<br>y"
    assert load_ok("p.htm", html).text == "Title\nFirst para with inline text.\none\ntwo\nx\ny"


def test_html_meta_charset_is_honoured() -> None:
    html = '<html><head><meta charset="windows-1252"></head><body><p>Crème brûlée</p></body></html>'
    doc = load_ok("c.html", html.encode("cp1252"))
    assert doc.text == "Crème brûlée" and doc.metadata["encoding"] == "cp1252"  # canonical codec names


@pytest.mark.parametrize(
    "html",
    [
        "<script>alert(1)",
        "<<<>>><</>&#0;&#xD800;&#99999999;&amp<p<p<p>ok",
        "<div" + " a=" * 5000,
        "<table><b>" * 2000 + "x",
        "<svg><foreignObject><p>x</p></foreignObject></svg><math><mtext><p>y",
        "</p></div></body></html>" * 100,
        "<![CDATA[" + "<!--" * 1000,
        "<div>" * 1500 + "deep enough" + "</div>" * 1500,
    ],
)
def test_malformed_html_never_crashes(html: str) -> None:
    result = load_document(raw("m.html", html))
    assert isinstance(result, (Document, DocumentError))
    if isinstance(result, Document):
        assert result.text.strip() and "alert" not in result.text


def test_absurdly_deep_html_is_rejected_quickly() -> None:
    error = load_err("deep.html", "<div>" * (MAX_HTML_DEPTH * 50) + "x")
    assert error.kind == "corrupt" and "deep" in error.reason


def test_html_with_only_markup_is_empty() -> None:
    assert load_err("s.html", "<html><head><title>T</title></head><script>x</script></html>").kind == "empty"


# --------------------------------------------------------------------------- PDF


def test_pdf_builder_and_pages() -> None:
    doc = load_ok("p.pdf", make_pdf_bytes("First page (one).\nSecond line.", "Page two: café."))
    assert doc.text == "First page (one).\nSecond line.\n\nPage two: café."
    assert doc.metadata["pages"] == "2"


def test_truncated_pdf_is_corrupt() -> None:
    pdf = make_pdf_bytes("This text is cut off.")
    for cut in (20, len(pdf) // 2, len(pdf) - 30):
        error = load_err("t.pdf", pdf[:cut])
        assert error.kind == "corrupt" and "PDF" in error.reason


def test_pdf_without_text_suggests_ocr() -> None:
    error = load_err("scan.pdf", make_pdf_bytes(""))
    assert error.kind == "no_text" and "OCR" in error.reason


def test_encrypted_pdf() -> None:
    locked = load_err("l.pdf", make_encrypted_pdf_bytes("Secret.", user_password="secret"))
    assert locked.kind == "corrupt" and "password" in locked.reason
    opened = load_ok("o.pdf", make_encrypted_pdf_bytes("Open to all.", user_password=""))
    assert opened.text == "Open to all."


def test_not_a_pdf_at_all() -> None:
    assert load_err("x.pdf", b"hello, I am text").kind == "corrupt"


# --------------------------------------------------------------------------- DOCX


def test_docx_paragraphs_and_tables() -> None:
    data = make_docx_bytes(["Intro.", "", "Second para."], [["Name", "Year"], ["Ada", "1815"]], title="T")
    doc = load_ok("d.docx", data)
    assert doc.text == "Intro.\nSecond para.\nName\nYear\nAda\n1815"
    assert doc.metadata == {"title": "T"}


def test_corrupt_docx() -> None:
    good = make_docx_bytes(["Some text."])
    for data in (b"PK\x03\x04garbage", b"plain text", good[: len(good) // 2]):
        assert load_err("c.docx", data).kind == "corrupt"
    empty = make_docx_bytes([])
    assert load_err("e.docx", empty).kind == "empty"


def test_zip_that_is_not_a_docx_is_corrupt() -> None:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "not a word document")
    error = load_err("z.docx", buffer.getvalue())
    assert error.kind == "corrupt" and "DOCX" in error.reason


# --------------------------------------------------------------------------- limits, errors, robustness


def test_size_limits() -> None:
    error = load_err("big.txt", "x" * 101, max_bytes=100)
    assert error.kind == "too_large" and "101" in error.reason and "100" in error.reason
    assert load_document(RawFile(path="big.pdf", data=b"", size=DEFAULT_MAX_BYTES + 1)).kind == "too_large"
    assert isinstance(load_document(raw("ok.txt", "x" * 100), max_bytes=100), Document)


def test_unsupported_and_unreadable() -> None:
    error = load_err("data.CSV", "a,b\n1,2\n")
    assert error.kind == "unsupported" and ".docx" in error.reason
    assert load_err("noext", "text").kind == "unsupported"
    assert load_err("dir.v2/README", "text").kind == "unsupported"
    assert load_ok("UPPER.TXT", "Shouting.").media_type == "text/plain"
    unreadable = load_document(RawFile(path="a.txt", data=b"", size=10, read_error="Permission denied"))
    assert isinstance(unreadable, DocumentError) and unreadable.kind == "unreadable"
    assert "Permission denied" in unreadable.reason


def test_parser_exceptions_become_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(data: bytes, **options: object) -> tuple[str, dict[str, str]]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(load_module._PARSERS, "application/pdf", explode)
    error = load_err("r.pdf", b"%PDF-1.4")
    assert error.kind == "corrupt" and "RecursionError" in error.reason


def test_supported_suffixes() -> None:
    assert set(SUPPORTED_SUFFIXES) == {".txt", ".text", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"}


# --------------------------------------------------------------------------- read_corpus / read_file


def test_read_corpus_skips_hidden_and_sorts(tmp_path: Path) -> None:
    for rel in ("b.txt", "a/z.md", "a/b/c.txt", ".hidden.txt", ".git/x.txt", "a/.cache/y.txt", "B.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("words")
    assert [r.path for r in read_corpus(tmp_path)] == ["B.txt", "a/b/c.txt", "a/z.md", "b.txt"]
    assert [r.path for r in read_corpus(str(tmp_path / "a"))] == ["b/c.txt", "z.md"]


def test_read_corpus_patterns_and_single_file(tmp_path: Path) -> None:
    for rel in ("x.txt", "y.MD", "sub/z.pdf", "w.bin"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"data")
    assert [r.path for r in read_corpus(tmp_path, patterns=[".md", "sub/*"])] == ["sub/z.pdf", "y.MD"]
    unsupported = {r.path: r for r in read_corpus(tmp_path)}["w.bin"]
    assert unsupported.data == b"" and unsupported.size == 4  # listed, not read: load reports "unsupported"
    [single] = read_corpus(tmp_path / "sub" / "z.pdf")
    assert (single.path, single.data) == ("z.pdf", b"data")
    with pytest.raises(FileNotFoundError):
        read_corpus(tmp_path / "missing")


def test_read_corpus_does_not_read_big_files(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 1000)
    (tmp_path / "small.txt").write_bytes(b"x" * 10)
    big, small = read_corpus(tmp_path, max_bytes=100)
    assert (big.data, big.size) == (b"", 1000) and small.data == b"x" * 10
    assert load_document(big, max_bytes=100).kind == "too_large"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlinks_never_lead_out_of_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "real.txt").write_text("inside")
    os.symlink(outside / "secret.txt", root / "escape.txt")
    os.symlink(outside, root / "linked_dir")
    os.symlink(root / "sub" / "real.txt", root / "alias.txt")
    os.symlink(root / "nowhere.txt", root / "dangling.txt")
    os.symlink(root / "loop.txt", root / "loop.txt")
    raws = {r.path: r for r in read_corpus(root)}
    assert set(raws) == {"alias.txt", "dangling.txt", "escape.txt", "linked_dir/", "loop.txt", "sub/real.txt"}
    assert raws["linked_dir/"].read_error == "symbolic link to a folder; not followed"  # reported, not entered
    assert raws["escape.txt"].data == b"" and "outside" in (raws["escape.txt"].read_error or "")
    assert raws["alias.txt"].data == b"inside"  # a link that stays inside the root is fine
    assert raws["dangling.txt"].read_error and raws["loop.txt"].read_error
    assert all(b"secret" not in r.data for r in raws.values())
    [linked] = read_corpus(root / "escape.txt")  # a single file named explicitly is followed
    assert linked.data == b"secret"


def test_read_file_problems(tmp_path: Path) -> None:
    (tmp_path / "folder.txt").mkdir()
    assert read_file(tmp_path / "folder.txt", tmp_path).read_error == "not a regular file"
    missing = read_file(tmp_path / "gone.txt", tmp_path)
    assert missing.read_error and missing.data == b""
    with pytest.raises(ValueError):
        read_file(tmp_path / "x.txt", tmp_path / "elsewhere")
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root can read anything
        locked = tmp_path / "locked.txt"
        locked.write_text("no")
        locked.chmod(0)
        assert read_file(locked, tmp_path).read_error == "Permission denied"


def test_html_pre_keeps_its_lines() -> None:
    html = "<p>Code:</p><pre>line one\n  line two</pre><p>after</p>"
    assert load_ok("pre.html", html).text == "Code:\nline one\nline two\nafter"


# --------------------------------------------------------------------------- package layout

LOAD_PACKAGE = Path(load_module.__file__).parent
FORMAT_MODULES = ("common", "text", "html", "pdf", "docx")


def test_public_api_is_kept() -> None:
    import importlib

    expected = {"DEFAULT_MAX_BYTES", "DOCX_MAX_UNZIPPED_BYTES", "DOCX_MEDIA_TYPE", "MAX_HTML_DEPTH", "MEDIA_TYPES",
                "SUPPORTED_SUFFIXES", "ErrorKind", "LoadFailure", "clean_text", "decode_text", "html_depth",
                "html_text", "load_document", "load_documents", "load_files", "media_type_for"}  # fmt: skip
    assert expected <= set(load_module.__all__)
    assert all(hasattr(load_module, name) for name in load_module.__all__)
    for name in FORMAT_MODULES:
        module = importlib.import_module(f"kgkit.stages.load.{name}")
        assert module.__doc__ and module.__doc__.strip(), name
        assert module.__all__ and all(hasattr(module, n) for n in module.__all__), name
    assert set(load_module._PARSERS) == set(load_module.MEDIA_TYPES.values()) == set(load_module._FORMAT_NAMES)


def test_load_modules_import_no_privates_and_no_outer_layers() -> None:
    import ast

    forbidden = ("kgkit.io", "kgkit.cli", "kgkit.views", "kgkit.workflows")
    for path in sorted(LOAD_PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module.startswith("kgkit"):
                    assert not [a.name for a in node.names if a.name.startswith("_")], (path.name, node.module)
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                assert not any(name == f or name.startswith(f + ".") for f in forbidden), (path.name, name)


# --------------------------------------------------------------------------- issue 13: encodings, HTML depth, DOCX, caps


def test_encoding_names_are_canonical() -> None:
    from kgkit.stages.load import encoding_name

    html = '<meta charset="Windows-1252"><p>Crème</p>'.encode("cp1252")
    assert load_ok("a.html", html).metadata["encoding"] == load_ok("b.txt", "Crème brûlée.".encode("cp1252")).metadata[
        "encoding"] == encoding_name("windows-1252") == "cp1252"
    assert encoding_name("UTF8") == "utf-8" and encoding_name("latin_1") == "iso8859-1"


def test_decode_keeps_its_two_value_form_and_counts_replacements() -> None:
    from kgkit.stages.load import decode, decode_text

    assert decode_text("Zoë".encode()) == ("Zoë", "utf-8")
    text, info = decode("Zoë et Noël, ".encode() * 3 + b"\xc3(")  # a broken two-byte sequence
    assert text.startswith("Zoë et Noël") and info == {"encoding": "utf-8", "decode_errors": "1"}
    assert decode(b"caf\xe9 cr\xe8me")[1]["encoding"] == "cp1252"  # no valid multi-byte sequence: a legacy encoding
    assert decode("\ufffd is a real character".encode())[1] == {"encoding": "utf-8"}


def test_utf16_without_bom_is_text_but_binary_stays_binary() -> None:
    assert load_ok("w.txt", "Notes from Windows.\r\n".encode("utf-16-le")).text == "Notes from Windows.\n"
    assert load_err("b.txt", bytes([65, 0, 0, 0] * 200)).kind == "binary"  # UTF-32 / NUL runs: no guess
    assert load_err("o.txt", b"A\x00" * 100 + b"\x00\xd8" * 50).kind == "binary"  # lone surrogates


@pytest.mark.parametrize(
    ("html", "depth"),
    [
        ("<script>" + "if(a<b){c()}\n" * 3000 + "</script><div><p>x</div>", 1),
        ("<style>" + "a<b " * 3000 + "</style>", 1),
        ("<p>" + "a<b " * 3000 + "</p>", 1),  # browsers read "<b a<b ..." as one tag up to the next ">"
        ("<!--" + "<div>" * 3000 + "-->", 0),
        ("<div title='<div><div>'>" + "<span>x</span>" * 3000 + "</div>", 2),  # a quoted value holds no tags
        ("<svg>" + "<g/>" * 3000 + "</svg>", 1),
        ("<svg>" + "<div/>" * 3000, 3001),  # HTML tags leave SVG: "/>" does not close them
        ("<textarea>" + "<div>" * 3000, 1),  # unclosed raw text runs to the end
        ("<div " + "x" * 100, 0),  # an unfinished tag runs to the end
    ],
)
def test_html_depth_counts_only_real_tags(html: str, depth: int) -> None:
    assert html_depth(html, limit=10_000) == depth


def test_markdown_title_skips_code_blocks() -> None:
    doc = load_ok("r.md", "~~~\n# comment in code\n~~~\n```\n# also code\n````\n# Title\n")
    assert doc.metadata["title"] == "Title"
    assert "title" not in load_ok("c.md", "```\n# only code\n").metadata


def test_docx_text_from_content_controls_tables_and_headers() -> None:
    from test_hostile_inputs import docx_package, para

    body = ("<w:sdt><w:sdtContent>" + para("In a control.") + "</w:sdtContent></w:sdt>"
            "<w:tbl><w:tr><w:tc>" + para("Outer.") + "<w:tbl><w:tr><w:tc>" + para("Inner.")
            + "</w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>" + para("Body."))
    doc = load_ok("d.docx", docx_package(body, header=para("Head.") + para("Body."), footer=para("Foot.")))
    assert doc.text == "In a control.\nOuter.\nInner.\nBody.\nHead.\nFoot."  # body first; each extra line once


def test_text_caps_are_checked_while_extracting() -> None:
    assert load_err("a.txt", "x" * 101, max_chars=100).kind == "too_large"
    assert load_err("a.html", "<p>" + "x" * 101, max_chars=100).kind == "too_large"
    error = load_err("a.docx", make_docx_bytes(["x" * 60, "y" * 60]), max_chars=100)
    assert error.kind == "too_large" and "100 characters" in error.reason
    assert load_err("a.pdf", make_pdf_bytes("x" * 60, "y" * 60), max_chars=100).kind == "too_large"
    assert isinstance(load_document(raw("ok.txt", "x" * 100), max_chars=100), Document)


def test_pdf_needing_a_missing_crypto_package_is_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    def needs_crypto(self: object, password: str) -> None:
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(PdfReader, "decrypt", needs_crypto)
    error = load_err("aes.pdf", make_encrypted_pdf_bytes("Text.", user_password=""))
    assert error.kind == "unsupported" and "cryptography" in error.reason
