"""The extraction-diff page: every document string is shown as text, the page has no script and loads nothing."""

from __future__ import annotations

import re

from kgkit.core.records import (
    Chunk,
    ChunkExtraction,
    DocumentExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Span,
    TextExtraction,
)
from kgkit.stages.diff import diff_extractions
from kgkit.views.diff import diff_html, highlight

XSS = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
TEXT = f"Ada {XSS} met {IMG} in \"London\" & 'Paris'."


def _run(types: dict[str, str], path: str = f"{IMG}.txt", error: str | None = None) -> list[DocumentExtraction]:
    ents = tuple(ExtractedEntity(name=n, type=t, span=Span(start=TEXT.find(n), end=TEXT.find(n) + len(n)))
                 for n, t in types.items())
    rels = (ExtractedRelation(source=XSS, source_type="Person", target=IMG, target_type="Person", type="MET",
                              evidence=TEXT),)
    t = TextExtraction(extractor_id="x", entities=ents, relations=rels if error is None else (), error=error)
    return [DocumentExtraction(document_id="d", path=path, chunks=(ChunkExtraction(chunk_id="d#0", document_id="d",
                                                                                    extraction=t),))]


def _page(**kw) -> str:
    a = _run({XSS: "Person", IMG: "Person"})
    b = _run({XSS: "Organization", "London": "Location"}, error=kw.pop("error", None))
    chunk = Chunk(id="d#0", document_id="d", index=0, start=0, end=len(TEXT), text=TEXT)
    return diff_html(diff_extractions(a, b, chunks=[chunk], label_a=XSS, label_b=IMG), title=IMG, **kw)


def test_document_strings_are_escaped_everywhere():
    for page in (_page(), _page(fragment=True), _page(error=f"failed {XSS}")):
        assert "<script" not in page and "<img" not in page, re.findall(r"<(?:script|img)[^>]*>", page)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(2)&gt;" in page
        assert "onerror=alert(2)>" not in page


def test_page_loads_nothing_and_has_no_script():
    page = _page()
    assert "default-src 'none'" in page
    assert not re.search(r"\b(src|href)=", page.replace("src=x onerror", ""))


def test_spans_are_highlighted_with_their_status():
    page = _page()
    assert 'class="kd-changed"' in page  # XSS entity: Person -> Organization
    assert 'class="kd-removed"' in page and 'class="kd-added"' in page
    assert "2 documents" not in page and "1 documents" in page


def test_overlapping_marks_keep_the_first_and_escape_text():
    from kgkit.stages.diff import Mark

    marks = (Mark(start=0, end=5, label="a<b", status="same"), Mark(start=2, end=8, label="x", status="added"))
    out = highlight("01234567<9", marks)
    assert out == '<mark class="kd-same" title="a&lt;b [same]">01234</mark>567&lt;9'
