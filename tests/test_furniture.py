"""Page furniture and boilerplate blanked out before chunking (kgkit.stages.furniture)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgkit.core.records import Document
from kgkit.stages.chunk import chunk_document
from kgkit.stages.furniture import find_furniture, strip_furniture

CAROL = Path(__file__).resolve().parents[2] / "shared" / "data" / "corpora" / "christmas_carol" / "a_christmas_carol_gutenberg24022.txt"

GUTENBERG = """The Project Gutenberg eBook of A Tale

This ebook is for the use of anyone anywhere in the United States.

*** START OF THE PROJECT GUTENBERG EBOOK A TALE ***

Produced by Someone

CONTENTS

  STAVE ONE--MARLEY'S GHOST                                             3
  STAVE TWO--THE FIRST OF THE THREE SPIRITS                            37

STAVE ONE

Marley was dead: to begin with. Scrooge signed it. [Pg 12]

[Illustration: MARLEY'S GHOST]

14

1946 67,229

*** END OF THE PROJECT GUTENBERG EBOOK A TALE ***

Section 1. General Terms of Use of the Project Gutenberg License.
"""


def test_gutenberg_header_licence_contents_headings_pages_tables_go_and_offsets_stay() -> None:
    found = find_furniture(GUTENBERG)
    assert len(found.text) == len(GUTENBERG) and found.text.count("\n") == GUTENBERG.count("\n")
    kept = " ".join(found.text.split())
    assert kept == "Marley was dead: to begin with. Scrooge signed it."
    kinds = {k for _, _, k in found.spans}
    assert kinds == {"gutenberg", "contents", "heading", "page", "table"}
    body = GUTENBERG.index("Marley was dead")
    assert found.text[body : body + 15] == GUTENBERG[body : body + 15]  # offsets into the text are unchanged


def test_prose_without_furniture_is_untouched() -> None:
    text = "Germany invaded Poland in 1939.\n\nThe U.S. Senate met in Washington. NATO was founded later.\n"
    assert find_furniture(text).spans == ()
    doc = Document.from_text(text, path="a.txt")
    assert strip_furniture(doc) is doc


def test_a_document_mostly_in_capitals_keeps_its_lines() -> None:
    telegram = "GERMANY INVADED POLAND TODAY STOP\nTROOPS CROSSED BORDER STOP\nMORE LATER STOP\n"
    assert [k for _, _, k in find_furniture(telegram).spans] == []


def test_chunks_of_a_stripped_document_hold_no_furniture_and_slice_back() -> None:
    doc = strip_furniture(Document.from_text(GUTENBERG, path="tale.txt"))
    assert doc.metadata["furniture"].split()[0].startswith("0-")
    chunks = chunk_document(doc, max_chars=200, overlap_chars=0)
    assert " ".join(" ".join(c.text for c in chunks).split()) == "Marley was dead: to begin with. Scrooge signed it."
    for c in chunks:
        assert GUTENBERG[c.start : c.end] == c.text


@pytest.mark.skipif(not CAROL.is_file(), reason="shared corpus ../shared/data/corpora/christmas_carol is absent")
def test_the_carol_keeps_its_book_and_loses_the_licence() -> None:
    text = CAROL.read_text(encoding="utf-8-sig")
    found = find_furniture(text)
    assert "Project Gutenberg" not in found.text and "MARLEY'S GHOST" not in found.text
    assert "Marley was dead, to begin with." in found.text and "Ebenezer Scrooge" in found.text


TABLES = """The estimated expenditures compare as follows with those of a prewar year:

Total Budget expenditures

Fiscal year: (in millions)

1947 $35, 860
1946 67,229

Calendar Year 1944 (global war) adjusted annual rates)
______________________ ____________________
Economic Group Receipts tures icit(-) Receipts tures icit(-)

Income after taxes $134 ....... ...... $132 ...... .......
 Expenditures ...... $98 ...... ...... $107 .......

The Budget total includes expenditures for capital outlay, as the Treasury Department reported in 1946 and 1947.
"""


def test_a_tables_header_rows_go_with_its_figures_and_the_prose_around_it_stays() -> None:
    found = find_furniture(TABLES)
    kept = " ".join(found.text.split())
    assert kept == ("The estimated expenditures compare as follows with those of a prewar year: The Budget total "
                    "includes expenditures for capital outlay, as the Treasury Department reported in 1946 and 1947.")
    removed = [TABLES[s:e] for s, e, kind in found.spans if kind == "table"]
    assert "Total Budget expenditures" in removed
    assert "Economic Group Receipts tures icit(-) Receipts tures icit(-)" in removed
    assert len(found.text) == len(TABLES)


def test_short_lines_of_hard_wrapped_prose_with_numbers_are_no_table() -> None:
    text = ("The Treasury reported that receipts in\nthe year had risen to 1,250 and 1,400\nmillion dollars since "
            "the war.\n\nJuly 4, 1776\n\nNew Haven\n")
    assert [k for _, _, k in find_furniture(text).spans] == []


def test_editors_notes_go_and_an_editors_correction_inside_a_sentence_stays() -> None:
    text = ("[Delivered in person before a joint session]\n\nOur war program, [See APP Note.] as my Budget Message "
            "shows, will cost 56 billion dollars in [the States] of the Union.\n\n[In any event, this one reduction "
            "will save taxpayers, each year, approximately 2 hundred million dollars in interest costs.]\n")
    found = find_furniture(text)
    assert " ".join(found.text.split()) == (
        "Our war program, as my Budget Message shows, will cost 56 billion dollars in [the States] of the Union. [In "
        "any event, this one reduction will save taxpayers, each year, approximately 2 hundred million dollars in "
        "interest costs.]")
    assert [k for _, _, k in found.spans] == ["note", "note"]
