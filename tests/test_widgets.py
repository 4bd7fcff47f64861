"""MergeReview without a browser: payload converters, decisions, the bundled ES module, the JS logic tests."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from kgkit.core.decisions import MergeCandidate
from kgkit.core.graph import Graph
from kgkit.stages.resolve.apply import apply_decisions
from kgkit.views.widgets import (
    actions_to_decisions,
    candidate_key,
    candidates_payload,
    canonical_names,
    decision_label,
    merge_review_esm,
    payload_to_candidates,
    review_order,
)

ROOT = Path(__file__).resolve().parents[1]


def _cand(source: str, target: str, score: float = 0.9, sname: str = "", tname: str = "") -> MergeCandidate:
    return MergeCandidate(source=source, target=target, source_name=sname or source, target_name=tname or target,
                          source_type="Person", target_type="Person", score=score, step="rule", verdict="unique",
                          features={"jaro": 0.8}, reasons=("initials agree",))


def _ent(eid: str, name: str, mentions: int = 1) -> dict:
    return {"id": eid, "name": name, "type": "Person", "aliases": [], "mentions": mentions, "documents": 1,
            "confidence": 1.0, "identity": "derived", "degree": 1, "community": None}


@pytest.fixture
def graph() -> Graph:
    ents = pd.DataFrame([_ent("P:j smith", "J. Smith"), _ent("P:jane smith", "Jane Smith", 3),
                         _ent("P:bob", "Bob <script>"), _ent("P:rob", "Rob")])
    rels = pd.DataFrame([{"id": "rel:1", "source": "P:j smith", "target": "P:bob", "type": "MET", "predicate": None,
                          "negated": False, "confidence": 0.5, "support": 1, "evidence": "x", "valid_at": None,
                          "invalid_at": None, "created_at": None, "expired_at": None, "flags": []}])
    prov = pd.DataFrame([{"item_id": "P:j smith", "kind": "entity", "document_id": "d", "chunk_id": "c", "start": 0,
                          "end": 8, "evidence": "J. Smith met Bob.", "extractor_id": "x", "model": None,
                          "prompt_hash": None}])
    return Graph.empty().replace(entities=ents, relations=rels, provenance=prov)


def _with_documents(g: Graph) -> Graph:
    """`graph` with document ids on its provenance (one for the mention, one for the relation) and their paths."""
    prov = pd.concat([g.provenance.assign(document_id="doc:1"),
                      g.provenance.assign(item_id="rel:1", kind="relation", document_id="doc:2", evidence="x")],
                     ignore_index=True)
    row = {"sha256": "0", "media_type": "text/plain", "chunks": 1, "errors": 0}
    docs = pd.DataFrame([{"id": "doc:1", "path": "letters/1911.txt", **row}, {"id": "doc:2", "path": "notes <b>.md", **row}])
    return g.replace(provenance=prov, documents=docs)


def test_payload_round_trips_and_carries_evidence_and_neighbours(graph):
    cands = [_cand("P:j smith", "P:jane smith", 0.92, "J. Smith", "Jane Smith"), _cand("P:bob", "P:rob", 0.6)]
    payload = candidates_payload(cands, graph=graph)
    assert payload_to_candidates(payload) == cands
    first = payload[0]
    assert first["key"] == candidate_key(cands[0]) == "P:j smith|P:jane smith"
    assert first["evidence"] == ["J. Smith met Bob.", "x"]  # its mention's sentence, then a relation's evidence
    assert first["source_neighbours"] == ["Bob <script>"] and first["target_neighbours"] == []
    assert payload[1]["target_neighbours"] == [] and payload[1]["source_neighbours"] == ["J. Smith"]
    import json
    json.dumps(payload)  # JSON-ready for the trait


def test_actions_become_person_decisions_in_candidate_order():
    cands = [_cand("a", "b", 0.95, "Al", "Alan"), _cand("c", "d", 0.7), _cand("e", "f"), _cand("g", "h")]
    payload = candidates_payload(cands)
    actions = {"c|d": {"verdict": "reject", "canonical": "d"}, "a|b": {"verdict": "accept", "canonical": "Alan"},
               "e|f": {"verdict": "skip", "canonical": "f"}, "zz|yy": {"verdict": "accept", "canonical": "q"}}
    decisions = actions_to_decisions(payload, actions, who="ana", at="2026-11-30T12:00:00Z")
    assert [(d.kind, d.subjects, d.decided_by, d.who) for d in decisions] == [
        ("merge", ("a", "b"), "person", "ana"), ("keep_apart", ("c", "d"), "person", "ana")]
    assert decisions[0].score == 0.95 and decisions[0].at == "2026-11-30T12:00:00Z"


def test_canonical_name_edit_chooses_the_kept_entity_or_is_recorded():
    payload = candidates_payload([_cand("a", "b", sname="Al", tname="Alan"), _cand("c", "d", sname="Cy", tname="Cyrus")])
    actions = {"a|b": {"verdict": "accept", "canonical": "Al"}, "c|d": {"verdict": "accept", "canonical": "Cyrus X."}}
    first, second = actions_to_decisions(payload, actions)
    assert first.subjects == ("b", "a")  # kept entity is the one whose name was chosen
    assert second.subjects == ("c", "d") and "Cyrus X." in second.why
    assert canonical_names(payload, actions) == {"d": "Cyrus X."}


def test_widget_decisions_apply_to_the_graph(graph):
    payload = candidates_payload([_cand("P:j smith", "P:jane smith", sname="J. Smith", tname="Jane Smith")], graph=graph)
    decisions = actions_to_decisions(payload, {payload[0]["key"]: {"verdict": "accept", "canonical": "Jane Smith"}})
    applied = apply_decisions(graph, decisions)
    assert applied.mapping == {"P:j smith": "P:jane smith"}


def test_widget_traits_sync_and_hold_no_logic():
    from kgkit.views.widgets import MergeReview

    w = MergeReview.from_candidates([_cand("a", "b")], threshold=0.8)
    assert w.candidates[0]["key"] == "a|b" and w.threshold == 0.8 and w.actions == {}
    state = w.get_state()
    assert {"candidates", "actions", "cursor", "threshold", "_esm"} <= set(state)
    w.actions = {"a|b": {"verdict": "accept", "canonical": "b"}}
    assert [d.kind for d in actions_to_decisions(w.candidates, w.actions)] == ["merge"]


def test_bundled_module_inlines_the_logic_once():
    esm = merge_review_esm()
    assert "./merge_review_logic.js\"" not in esm.replace('import("./merge_review_logic.js")', "")
    assert esm.count("export default") == 1 and "export function decide" in esm
    assert "innerHTML" not in esm and "http" not in esm.replace("http-equiv", "")  # no CDN, no markup injection


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is required in CI for the widget logic tests")
        pytest.skip("node not installed")
    return node


def test_widget_logic_passes_node_test():
    result = subprocess.run([_node(), "--test", "kgkit/views/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_bundled_module_imports_in_node(tmp_path):
    path = tmp_path / "bundle.mjs"
    path.write_text(merge_review_esm(), encoding="utf-8")
    code = (f"const m = await import({str(path.as_uri())!r});"
            "if (typeof m.default.render !== 'function' || typeof m.decide !== 'function') process.exit(3);")
    result = subprocess.run([_node(), "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_cluster_map_payload_and_traits():
    import numpy as np

    from kgkit.views.cluster import cluster_points
    from kgkit.views.widgets import ClusterMap, cluster_payload

    ents = pd.DataFrame({"id": ["a", "b", "c"], "name": ["A <b>", "B", "C"], "type": ["Person", "Person", "Location"]})
    points = cluster_points(ents, np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5]]))
    rows, pairs = cluster_payload(points, candidates=[_cand("a", "b"), ("c", "missing")])
    assert pairs == [[0, 1]] and [r["candidate"] for r in rows] == [True, True, False]
    assert rows[0]["name"] == "A <b>" and rows[0]["colour"].startswith("#")
    w = ClusterMap.from_points(points, candidates=[("a", "c")])
    assert w.pairs == [[0, 2]] and w.selected == []
    w.set_state({"selected": ["b"]})  # what the browser sends after a box selection
    assert w.selected == ["b"]


def test_cluster_map_module_imports_in_node(tmp_path):
    from kgkit.views.widgets import bundle_esm

    path = tmp_path / "cluster.mjs"
    path.write_text(bundle_esm("cluster_map"), encoding="utf-8")
    code = (f"const m = await import({str(path.as_uri())!r});"
            "if (typeof m.default.render !== 'function' || typeof m.inBox !== 'function') process.exit(3);")
    result = subprocess.run([_node(), "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_evidence_names_its_document_by_path(graph):
    payload = candidates_payload([_cand("P:j smith", "P:jane smith", 0.92, "J. Smith", "Jane Smith")],
                                 graph=_with_documents(graph))
    assert payload[0]["evidence"] == ["J. Smith met Bob.", "x"]
    assert payload[0]["evidence_documents"] == ["letters/1911.txt", "notes <b>.md"]  # paths, never ids
    assert candidates_payload([_cand("P:j smith", "P:jane smith")], graph=graph)[0]["evidence_documents"] == ["", ""]


def test_every_candidate_is_shown_in_review_order_with_policy_merges_marked():
    from kgkit.stages.resolve.decisions import decide

    exact = _cand("a", "b", 0.97, "J. Smith", "Jane Smith").model_copy(update={"step": "exact"})
    near, low, far = _cand("c", "d", 0.88), _cand("e", "f", 0.55), _cand("g", "h", 0.8)
    made = decide([exact, near, low, far], at="2026-01-01T00:00:00Z")
    assert [(d.subjects, d.decided_by) for d in made] == [(("a", "b"), "policy")]
    # undecided first, closest to the threshold first; then what the policy decided
    assert [c.source for c in review_order([exact, low, far, near], made)] == ["c", "g", "e", "a"]
    payload = candidates_payload([exact, low, far, near], decisions=made)
    assert [r["key"] for r in payload] == ["c|d", "g|h", "e|f", "a|b"]
    assert payload[-1]["decided_by"] == "policy" and payload[-1]["decision"] == "merge" and payload[-1]["step"] == "exact"
    assert payload[-1]["status"] == "policy merged: score 0.97 — v to veto"
    assert payload[0]["decided_by"] is None and payload[0]["status"] == ""
    assert decision_label(None, 0.5) == ""


def test_a_veto_is_a_persons_keep_apart_that_survives_re_resolve():
    from kgkit.stages.resolve.decisions import decide

    cand = _cand("a", "b", 0.97, "J. Smith", "Jane Smith")
    made = decide([cand], at="2026-01-01T00:00:00Z")
    payload = candidates_payload([cand], decisions=made)
    (veto,) = actions_to_decisions(payload, {"a|b": {"verdict": "reject", "canonical": "b"}}, who="ana", at="t")
    assert (veto.kind, veto.decided_by, veto.who, veto.id) == ("keep_apart", "person", "ana", made[0].id)
    assert "vetoed the policy merge" in veto.why
    again = decide([cand], decisions=[*made, veto], at="2026-02-01T00:00:00Z")  # the next `kgkit resolve`
    assert [(d.kind, d.decided_by) for d in again] == [("keep_apart", "person")]
    shown = candidates_payload([cand], decisions=again)[0]
    assert shown["decided_by"] == "person" and shown["status"] == "person (ana) kept apart: score 0.97"
