"""The offline extractor's case table: (text, expected, pass). `expected` lists names that must come out ("+X")
and names that must not ("-X"), or all the names ("=X =Y"); `pass` names the step responsible, so a failure says which pass broke. For a
declared mention pass (kgkit.extractors.offline.mentions.MENTION_PASSES, extractor.CONTEXT_PASSES) the test also
checks that this pass reported the change ("non-names: unit" = the non-name filter dropped a mention as a unit);
a span-level step (spans, joins, fused, editions, titles) is named by its module."""

from __future__ import annotations

import pytest

from kgkit.core.domain import Domain
from kgkit.extractors.offline import OfflineExtractor
from kgkit.extractors.offline.extractor import CONTEXT_PASSES
from kgkit.extractors.offline.mentions import MENTION_PASSES
from kgkit.extractors.offline.nonnames import NON_NAME_RULES

SPAN_STEPS = {"spans", "joins", "fused", "editions", "titles", "clean"}
DECLARED = {p.name for p in (*MENTION_PASSES, *CONTEXT_PASSES)}

CASES = [
    # non-names (kgkit.extractors.offline.nonnames.NON_NAME_RULES): the reason is reported
    ("The site could hold 1600 MW of offshore wind farms near Denmark.", "+Denmark -MW", "spans"),  # no candidate
    ("It can hold 1600 MW of wind farms and became a Grade II listed building.", "-MW -Grade_II", "non-names: grade"),
    ("Joseph lived in Egypt in the 16th century BCE.", "+Joseph +Egypt -BCE", "non-names: unit"),
    ("The statue of Churchill in London became a Grade II listed building in 1970.", "+London -Grade_II",
     "non-names: grade"),
    ("Burton served as Minister for Social Protection in Ireland from 2011 to 2016.", "+Burton -Social_Protection",
     "non-names: portfolio"),
    # fragments of a longer name
    ("The exhibition moved to the Casa Grande Ruins Visitor Centre in Arizona last spring.", "=Arizona", "fragments"),
    ("The Government and the Federal Government asked the Board. VE-day came. Then Congress met.\n\n"
     "LEGISLATION HERETOFORE RECOMMENDED AND STILL PENDING",
     "+Congress -Government -Federal_Government -Board -VE -LEGISLATION_HERETOFORE_RECOMMENDED", "clean"),
    # span-level steps
    ("A ramada can be seen at the Casa Grande Ruins National Monument in Arizona.",
     "+Casa_Grande_Ruins_National_Monument -Casa_Grande -National_Monument", "joins"),
    ("In 1887 Wallace was promoted to the United States Court of Appeals for the Second Circuit.",
     "+United_States_Court_of_Appeals_for_the_Second_Circuit -Second_Circuit", "joins"),
    ("The drummer Philly Joe Jones joined the quintet in 1955.", "+Philly_Joe_Jones -Joe_Jones", "joins"),
    ("Rumi retold the story of Yusuf and Zulaikha in verse.", "+Yusuf +Zulaikha -Yusuf_and_Zulaikha", "fused"),
    ("Zamfir Arbore was a Moldavian Romanian writer and journalist.", "+Moldavian -Moldavian_Romanian", "fused"),
    ("The community is located at the crossroads of Courtright Line and Brigden Road in Ontario.",
     "+Courtright_Line +Brigden_Road -Courtright_Line_and_Brigden_Road", "fused"),
    ("He was picked in the fourth round of the 2004 NFL Draft by the Chiefs.", "+2004_NFL_Draft -NFL_Draft", "editions"),
    ("He made his debut for Chhattisgarh in the 2016–17 Ranji Trophy on 6 October 2016.",
     "+2016–17_Ranji_Trophy -Ranji_Trophy", "editions"),
    ("Camp Caves was the camp for the 24th Infantry Division in Hawaii.",
     "+24th_Infantry_Division -Infantry_Division", "editions"),
    ("Pride and Prejudice is a novel by Jane Austen.", "+Pride_and_Prejudice +Jane_Austen", "titles"),
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
    name, _, reason = step.partition(": ")
    assert name in DECLARED | SPAN_STEPS, f"unknown pass {name!r}"
    if name in DECLARED:
        assert counts.get(name), f"{name} reported no change: {counts}"
    if reason:
        assert counts[name].get(f"removed: {reason}"), f"{name} did not drop a mention as {reason!r}: {counts}"


def test_every_pass_is_reported_in_pipeline_order(ex: OfflineExtractor, general_domain: Domain) -> None:
    _, counts = ex.extract_counting(["Joseph lived in Egypt in the 16th century BCE."], domain=general_domain)
    assert list(counts) == ["candidates", *(p.name for p in MENTION_PASSES), *(p.name for p in CONTEXT_PASSES)]
    assert counts["non-names"] == {"removed": 1, "removed: unit": 1}


def test_the_non_name_reasons_are_a_declared_table() -> None:
    reasons = [reason for reason, _ in NON_NAME_RULES]
    assert len(reasons) == len(set(reasons)) == 11  # each reason names one rule
    assert reasons[:2] == ["unit", "style"]  # asked in order: the first that holds is the reason
