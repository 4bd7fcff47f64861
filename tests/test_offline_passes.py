"""The offline extractor's case table: (text, expected, pass). `expected` lists names that must come out ("+X")
and names that must not ("-X"), or all the names ("=X =Y"); `pass` names the declared pass responsible
(kgkit.extractors.offline.spans.SPAN_PASSES, mentions.MENTION_PASSES, extractor.CONTEXT_PASSES), so a failure says
which pass broke, and the test checks that this pass reported a change ("non-names: unit" = the non-name filter
dropped a mention as a unit; "coordinated: joined" = the pass joined two spans)."""

from __future__ import annotations

import pytest

from kgkit.core.domain import Domain
from kgkit.extractors.offline import OfflineExtractor
from kgkit.extractors.offline.extractor import CONTEXT_PASSES
from kgkit.extractors.offline.mentions import MENTION_PASSES
from kgkit.extractors.offline.nonnames import NON_NAME_RULES
from kgkit.extractors.offline.passes import PassContext, Span
from kgkit.extractors.offline.spans import SPAN_PASSES, candidate_spans

PIPELINE = [p.name for p in (*SPAN_PASSES, *MENTION_PASSES, *CONTEXT_PASSES)]

CASES = [
    # non-names (kgkit.extractors.offline.nonnames.NON_NAME_RULES): the reason is reported
    ("The site could hold 1600 MW of offshore wind farms near Denmark.", "+Denmark -MW", "entities"),  # a CARDINAL: no span
    ("It can hold 1600 MW of wind farms and became a Grade II listed building.", "-MW -Grade_II", "non-names: grade"),
    ("Joseph lived in Egypt in the 16th century BCE.", "+Joseph +Egypt -BCE", "non-names: unit"),
    ("The statue of Churchill in London became a Grade II listed building in 1970.", "+London -Grade_II",
     "non-names: grade"),
    ("Burton served as Minister for Social Protection in Ireland from 2011 to 2016.", "+Burton -Social_Protection",
     "non-names: portfolio"),
    ("In pursuance of my Constitutional duty, I wrote to the Congress.", "=Congress", "non-names: law adjective"),
    ("The exhibition moved to the Casa Grande Ruins Visitor Centre in Arizona last spring.", "=Arizona",
     "non-names: fragment"),
    ("He played in two Africa Cup of Nations tournaments for Ghana.", "+Ghana -Africa_Cup", "non-names: cut before of"),
    ("The budget for Calendar Year 1944 was passed by the Congress.", "+Congress -Calendar_Year_1944", "non-names: date"),
    # the clean step: a span that names nothing, with its reason
    ("The Government and the Federal Government asked the Board. VE-day came. Then Congress met.",
     "+Congress -Government -Federal_Government -Board", "clean: generic"),
    ("The Government asked the Board. VE-day came. Then Congress met.", "+Congress -VE", "clean: hyphenated word"),
    ("Congress met.\n\nLEGISLATION HERETOFORE RECOMMENDED AND STILL PENDING", "+Congress -LEGISLATION_HERETOFORE_RECOMMENDED",
     "clean: heading"),
    ("Truman spoke to the President and the Secretary of Agriculture.", "+Truman -President -Agriculture", "clean: titles only"),
    # span passes
    ("Land was sold to the Delaware and Hudson Railroad in 1823.", "+Delaware_and_Hudson_Railroad -Delaware",
     "coordinated: joined"),
    ("The area lies in the Moravian - Silesian Region of the country.", "+Moravian_-_Silesian_Region", "hyphens: joined"),
    ("Its capital is Sogn og Fjordane county in Norway.", "+Sogn_og_Fjordane -Fjordane", "particles"),
    ("A ramada can be seen at the Casa Grande Ruins National Monument in Arizona.",
     "+Casa_Grande_Ruins_National_Monument -Casa_Grande -National_Monument", "pieces: joined"),
    ("In 1887 Wallace was promoted to the United States Court of Appeals for the Second Circuit.",
     "+United_States_Court_of_Appeals_for_the_Second_Circuit -Second_Circuit", "pieces: joined"),
    ("He signed with INSEAD and DLNA in France.", "+DLNA +France", "acronyms: added"),
    ("Others settled at Zell am See in Austria.", "+Zell_am_See -See", "particles: resized"),
    ("He played for the Plain White T's.", "+Plain_White_T's", "pieces: resized"),
    ("Rumi retold the story of Yusuf and Zulaikha in verse.", "+Yusuf +Zulaikha -Yusuf_and_Zulaikha", "entities"),
    ("Zamfir Arbore was a Moldavian Romanian writer and journalist.", "+Moldavian -Moldavian_Romanian", "splits: split"),
    ("The community is located at the crossroads of Courtright Line and Brigden Road in Ontario.",
     "+Courtright_Line +Brigden_Road -Courtright_Line_and_Brigden_Road", "splits: split"),
    ("They spoke of World War I and World War II.", "+World_War_I +World_War_II", "splits: split"),
    ("He was picked in the fourth round of the 2004 NFL Draft by the Chiefs.", "+2004_NFL_Draft -NFL_Draft",
     "proper runs: added"),  # an event's run takes its year
    ("He made his debut for Chhattisgarh in the 2016–17 Ranji Trophy on 6 October 2016.",
     "+2016–17_Ranji_Trophy -Ranji_Trophy", "editions: resized"),
    ("Camp Caves was the camp for the 24th Infantry Division in Hawaii.",
     "+24th_Infantry_Division -Infantry_Division", "entities"),
    ("Its Extraordinary Session of the 73rd Congress ended.", "+73rd_Congress", "editions: resized"),
    ('She sang "Two Doors Down" twice at the Grand Ole Opry.', "+Two_Doors_Down", "titles"),
    ("Pride and Prejudice is a novel by Jane Austen.", "+Pride_and_Prejudice +Jane_Austen", "titles"),
    # votes
    ("He led all the Allied armies in France.", "+Allied +France", "group votes: retyped"),
    ("I am proud that the flag will fly again over Wake and Guam.", "+Wake +Guam", "mate votes: retyped"),
    ("Its Extraordinary Session of the 73rd Congress ended.", "+Extraordinary_Session", "meeting votes: retyped"),
]


def _expected(spec: str) -> tuple[set[str], set[str], set[str] | None]:
    """(kept, dropped, exactly these or None) from "+X -Y" or "=X =Z" (spaces in names written as _)."""
    words = [w.replace("_", " ") for w in spec.split()]
    exact = {w[1:] for w in words if w[0] == "="}
    return {w[1:] for w in words if w[0] == "+"} | exact, {w[1:] for w in words if w[0] == "-"}, exact or None


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    return OfflineExtractor(cooccurrence=False)


@pytest.mark.parametrize(("text", "expected", "step"), CASES, ids=[f"{c[2]}: {c[0][:40]}" for c in CASES])
def test_case_table(ex: OfflineExtractor, general_domain: Domain, text: str, expected: str, step: str) -> None:
    [result], counts = ex.extract_counting([text], domain=general_domain)
    assert result.ok, result.error
    found = {e.name for e in result.entities}
    kept, dropped, exact = _expected(expected)
    assert exact is None or found == exact, f"{step}: {found} instead of {exact}"
    assert kept <= found, f"{step}: {kept - found} missing from {found}"
    assert not dropped & found, f"{step}: {dropped & found} should not be names"
    name, _, change = step.partition(": ")
    assert name in PIPELINE, f"unknown pass {name!r}"
    assert counts.get(name), f"{name} reported no change: {counts}"
    if change:
        reported = counts[name].get(change) or counts[name].get(f"removed: {change}")
        assert reported, f"{name} reported no {change!r}: {counts[name]}"


def test_every_pass_is_reported_in_pipeline_order(ex: OfflineExtractor, general_domain: Domain) -> None:
    _, counts = ex.extract_counting(["Joseph lived in Egypt in the 16th century BCE."], domain=general_domain)
    assert list(counts) == PIPELINE
    assert counts["non-names"] == {"removed": 1, "removed: unit": 1}
    assert counts["entities"] == {"added": 3} and counts["clean"] == {"added": 3}  # "the 16th century": a DATE, no span


def test_a_span_pass_stamps_its_spans_and_a_dropped_span_keeps_its_reason(general_domain: Domain) -> None:
    from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    from kgkit.extractors.offline.gazetteer import load_places
    from kgkit.extractors.offline.mentions import find_mentions

    doc = load_model(DEFAULT_MODEL)("Land was sold to the Delaware and Hudson Railroad for $5 million.")
    context = PassContext(domain=general_domain, places=load_places())
    spans = candidate_spans(doc, PassContext())
    assert [(doc[s.start : s.end].text, s.by) for s in spans if s.label in ("GPE", "ORG")] == [
        ("Delaware and Hudson Railroad", "coordinated")]
    found = find_mentions(doc, general_domain, context.places, context)
    assert "Delaware and Hudson Railroad" in {m.name for m in found}
    assert context.counts["coordinated"] == {"joined": 1}
    assert [(step, doc[s.start : s.end].text, why) for step, s, why in context.dropped if step == "labels"] == [
        ("labels", "$5 million", "unused label")]


def test_the_non_name_reasons_are_a_declared_table() -> None:
    reasons = [reason for reason, _ in NON_NAME_RULES]
    assert len(reasons) == len(set(reasons)) == 16  # each reason names one rule
    assert reasons[:4] == ["date", "quoted phrase", "fragment", "cut before of"]  # asked in order: the first wins
    assert "law adjective" in reasons  # the context's non-name is one of the table's, not a filter of its own


def test_a_span_is_a_typed_record_ordered_by_its_tokens() -> None:
    assert sorted([Span(3, 5, "ORG"), Span(0, 2, "GPE", by="entities")]) == [Span(0, 2, "GPE"), Span(3, 5, "ORG")]
    assert Span(0, 2, "GPE", by="entities") == Span(0, 2, "GPE")  # provenance is not identity
