"""The fitted combiner of the rules' and a learned NER's entities (bench/ner_combine.py: measured, not shipped)."""

from __future__ import annotations

from bench_modules import load_bench

_module = load_bench("ner_combine.py", "ner_combine")
Combiner, Found, candidates, decide, fit_combiner, type_for = (
    _module.Combiner, _module.Found, _module.candidates, _module.decide, _module.fit_combiner, _module.type_for)

TEXT = "Rick Astley sang. Astley met the Committee in Paris. Ohio voted."


def _sides() -> tuple[list[Found], list[Found]]:
    rules = [Found("Rick Astley", ((0, 11), (18, 24)), type="Person", label="PERSON", votes="Person:2.5"),
             Found("Paris", ((47, 52),), type="Location", label="GPE", votes="Location:3")]
    learned = [Found("Astley", ((18, 24),), label="PER"), Found("Paris", ((47, 52),), label="LOC"),
               Found("Committee", ((33, 42),), label="ORG"), Found("Ohio", ((54, 58),), label="LOC")]
    return rules, learned


def test_a_name_both_sides_give_is_one_candidate_and_a_learned_alias_joins_its_rules_entity() -> None:
    rules, learned = _sides()
    cs = {c.name: c for c in candidates(rules, learned, TEXT)}
    assert set(cs) == {"Rick Astley", "Paris", "Committee", "Ohio"}  # "Astley" is Rick Astley's own mention
    assert cs["Rick Astley"].learned.name == "Astley" and cs["Rick Astley"].features["alias"] == 1.0
    assert cs["Paris"].features["both"] == 1.0 and cs["Paris"].features["learned:LOC"] == 1.0
    assert cs["Committee"].features["learned_only"] == 1.0 and cs["Committee"].features["generic"] == 1.0
    assert cs["Ohio"].features["generic"] == 0.0


def test_the_fitted_model_rejects_what_gold_rejects_and_types_by_gold_class() -> None:
    rules, learned = _sides()
    cs = candidates(rules, learned, TEXT) * 20
    gold = {"Rick Astley": "PER", "Paris": "LOC", "Ohio": "LOC", "Committee": None}
    model = fit_combiner(cs, [gold[c.name] is not None for c in cs], [gold[c.name] for c in cs])
    kept = {c.name: etype for c, etype in decide(candidates(rules, learned, TEXT), model)}
    assert kept == {"Rick Astley": "Person", "Paris": "Location", "Ohio": "Location"}
    again = Combiner.from_dict(model.to_dict())  # what the data file keeps decides the same
    assert {c.name: t for c, t in decide(candidates(rules, learned, TEXT), again)} == kept


def test_a_gold_class_becomes_a_domain_type() -> None:
    [group] = candidates([Found("German", ((0, 6),), type="Group")], [], "German")
    [work] = candidates([Found("Lost", ((0, 4),), type="Work")], [], "Lost")
    [bare] = candidates([], [Found("Lost", ((0, 4),), label="MISC")], "Lost")
    assert type_for("LOC", group) == "Group"  # a nationality: Re-DocRED files demonyms under LOC
    assert (type_for("MISC", work), type_for("MISC", bare), type_for("ORG", work)) == ("Work", "Other", "Organization")


def test_a_record_the_rules_dropped_on_a_candidate_is_its_feature() -> None:
    text = "The Committee met in Paris."
    [c] = candidates([], [Found("Committee", ((4, 13),), label="ORG")], text, dropped=[(4, 13, "clean", "generic")])
    assert c.features["dropped"] == 1.0 and c.features["dropped:clean:generic"] == 1.0
    [c] = candidates([], [Found("Committee", ((4, 13),), label="ORG")], text, dropped=[(0, 13, "clean", "generic")])
    assert "dropped" not in c.features  # another span


def test_extract_counting_reports_each_dropped_record_where_it_stood() -> None:
    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.io import load_domain

    text = "The Committee met the President in Paris."
    dropped: list[tuple[int, int, int, str, str]] = []
    [found], _ = OfflineExtractor().extract_counting([text], domain=load_domain("general"), dropped=dropped)
    assert [e.name for e in found.entities] == ["Paris"]
    assert {(text[s:e], step, why) for _, s, e, step, why in dropped} >= {("Committee", "clean", "generic"),
                                                                         ("President", "clean", "titles only")}
