"""Decisions, apply and undo: transitive merges, no edge lost, one-way rejection, exact undo, rebuild safety."""

from __future__ import annotations

import pandas as pd
import pytest
from test_resolve_fixtures import DOMAIN, corpus, graph

from kgkit import io
from kgkit.core.decisions import Decision
from kgkit.core.graph import Graph
from kgkit.io.decisions import DecisionFileError, dump_decisions, parse_decisions, read_decisions, write_decisions
from kgkit.stages.build import build_graph
from kgkit.stages.resolve import apply_decisions, decide, merge_candidates, person_decision, undo
from kgkit.stages.resolve.decisions import JudgeAnswer
from kgkit.testing.builders import edge_row, entity_row

AT = "2026-01-01T00:00:00+00:00"


def _chain_graph() -> Graph:
    ents = pd.DataFrame([entity_row("a"), entity_row("b"), entity_row("c"), entity_row("x"), entity_row("y")])
    rels = pd.DataFrame([edge_row("a", "x", support=2, confidence=0.5), edge_row("b", "x", confidence=0.5), edge_row("c", "y"),
                         edge_row("y", "a", "OTHER"), edge_row("a", "b", "PEER")])
    return Graph.empty().replace(entities=ents, relations=rels)


def test_merges_are_transitive_and_keep_every_edge():
    g = _chain_graph()
    out = apply_decisions(g, [person_decision("merge", ("a", "b")), person_decision("merge", ("b", "c"))])
    assert out.mapping == {"a": "c", "b": "c"}
    rel = out.graph.relations.set_index(["source", "type", "target"])
    assert set(rel.index) == {("c", "R", "x"), ("c", "R", "y"), ("y", "OTHER", "c"), ("c", "PEER", "c")}
    parallel = rel.loc[("c", "R", "x")]
    assert parallel["support"] == 3 and parallel["confidence"] == pytest.approx(0.75)
    assert "self_loop" in rel.loc[("c", "PEER", "c")]["flags"]
    assert int(out.graph.relations["support"].sum()) == int(g.relations["support"].sum())  # nothing lost
    kept = out.graph.entities.set_index("id").loc["c"]
    assert kept["aliases"] == ["A", "B"] and kept["mentions"] == 3


def test_apply_then_undo_is_byte_identical(tmp_path):
    g = graph()
    decisions = decide(merge_candidates(g), at=AT)
    decisions.append(person_decision("reject_relation", ("Person:bob stone", "Organization:international business machines"),
                                     relation_type="WORKS_FOR", at=AT))
    out = apply_decisions(g, decisions, symmetric={"KNOWS"})
    assert len(out.graph.entities) < len(g.entities)
    io.save_graph(g, tmp_path / "before.json")
    io.save_graph(undo(out.graph, out.journal), tmp_path / "after.json")
    assert (tmp_path / "before.json").read_bytes() == (tmp_path / "after.json").read_bytes()
    with pytest.raises(ValueError):
        undo(g, out.journal)  # not the graph the journal produced


def test_provenance_follows_merged_entities_and_relations():
    g = graph()
    out = apply_decisions(g, [person_decision("merge", ("Person:dr jane smith", "Person:jane smith"))])
    prov = out.graph.provenance
    assert not (prov["item_id"] == "Person:dr jane smith").any()
    assert len(prov) == len(g.provenance)
    assert set(prov.loc[prov["kind"] == "relation", "item_id"]) <= set(out.graph.relations["id"])
    jane = out.graph.entity("Person:jane smith")
    assert "Dr. Jane Smith" in jane["aliases"] and jane["documents"] == 2


def test_rejected_relation_goes_in_the_stated_direction_only():
    ents = pd.DataFrame([entity_row("a"), entity_row("b")])
    rels = pd.DataFrame([edge_row("a", "b", "LIKES"), edge_row("b", "a", "LIKES"), edge_row("a", "b", "KNOWS")])
    g = Graph.empty().replace(entities=ents, relations=rels)
    one_way = apply_decisions(g, [person_decision("reject_relation", ("a", "b"), relation_type="LIKES")])
    assert set(zip(one_way.graph.relations["source"], one_way.graph.relations["type"])) == {("b", "LIKES"), ("a", "KNOWS")}
    sym = apply_decisions(g, [person_decision("reject_relation", ("b", "a"), relation_type="KNOWS")], symmetric={"KNOWS"})
    assert "KNOWS" not in set(sym.graph.relations["type"])
    not_sym = apply_decisions(g, [person_decision("reject_relation", ("b", "a"), relation_type="KNOWS")])
    assert "KNOWS" in set(not_sym.graph.relations["type"])


def test_keep_apart_blocks_a_transitive_merge():
    g = _chain_graph()
    out = apply_decisions(g, [person_decision("keep_apart", ("a", "c")), person_decision("merge", ("a", "b")),
                              person_decision("merge", ("b", "c"))])
    assert len(set(out.mapping.values()) | set(out.mapping)) == 2
    assert any(e.status == "skipped" and "kept apart" in e.detail for e in out.journal.entries)


def test_cross_type_candidates_are_never_auto_merged():
    decisions = decide(merge_candidates(graph()), at=AT)
    merged = [d for d in decisions if d.kind == "merge"]
    assert merged and not any({*d.subjects} == {"Person:washington", "Location:washington"} for d in merged)
    assert all(d.subjects[0].split(":")[0] == d.subjects[1].split(":")[0] for d in merged)


def test_human_decisions_survive_rebuild_and_re_resolve(tmp_path):
    g = graph()
    first = decide(merge_candidates(g), at=AT)
    mine = person_decision("keep_apart", ("Person:j smith", "Person:jane smith"), why="different people", who="ana", at=AT)
    write_decisions(tmp_path, [*first, mine])
    rebuilt = build_graph(list(reversed(corpus())), domain=DOMAIN)  # rebuild from the extractions
    again = decide(merge_candidates(rebuilt), decisions=read_decisions(tmp_path), at="2026-02-02T00:00:00+00:00")
    assert mine in again
    assert not any(d.kind == "merge" and {*d.subjects} == {"Person:j smith", "Person:jane smith"} for d in again)
    out = apply_decisions(rebuilt, again)
    assert out.mapping.get("Person:j smith") is None and "Person:j smith" in set(out.graph.entities["id"])


def test_decisions_yaml_round_trip_and_bad_entries(tmp_path):
    ds = [*decide(merge_candidates(graph()), at=AT), person_decision("reject_relation", ("a", "b"), relation_type="KNOWS")]
    write_decisions(tmp_path, ds)
    assert read_decisions(tmp_path) == sorted(ds, key=lambda d: d.id)
    text = (tmp_path / "decisions.yaml").read_text()
    assert text == dump_decisions(read_decisions(tmp_path))  # stable text: small git diffs
    bad = text.replace("decided_by: policy", "decided_by: robot", 1)
    with pytest.raises(DecisionFileError, match=r"entry \d+ \(dec:[0-9a-f]+\): decided_by"):
        parse_decisions(bad)
    with pytest.raises(DecisionFileError, match="same subjects"):
        parse_decisions(text + text.split("decisions:\n", 1)[1])


def test_judge_decides_only_what_the_policy_leaves():
    asked = []

    class Judge:
        id = "fake-llm"

        def __call__(self, c):
            asked.append(c)
            return JudgeAnswer(same=False, why="different people")


    g = Graph.empty().replace(entities=pd.DataFrame([entity_row("P:jane smith", "Jane Smith", "Person", 3),
        entity_row("P:john smith", "John Smith", "Person", 3), entity_row("P:j smith", "J. Smith", "Person", 1),
        entity_row("P:dr jane smith", "Dr. Jane Smith", "Person", 1)]))
    decisions = decide(merge_candidates(g), judge=Judge(), at=AT)
    assert asked and all(c.verdict == "ambiguous" or c.score < 0.9 for c in asked)
    assert all(c.source_type == c.target_type for c in asked)
    assert {d.decided_by for d in decisions if d.kind == "keep_apart"} == {"llm"}


def test_decision_rejects_self_merge():
    with pytest.raises(ValueError):
        Decision(kind="merge", subjects=("a", "a"), decided_by="person")


def test_re_running_the_policy_changes_nothing_in_the_file(tmp_path):
    g = graph()
    write_decisions(tmp_path, decide(merge_candidates(g), at=AT))
    before = (tmp_path / "decisions.yaml").read_text()
    write_decisions(tmp_path, decide(merge_candidates(g), decisions=read_decisions(tmp_path), at="2027-01-01T00:00:00+00:00"))
    assert (tmp_path / "decisions.yaml").read_text() == before
