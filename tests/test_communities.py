"""Communities: seeded and stable (across runs, row orders and process hash seeds), numbered by size, labelled
offline; co-occurrence counts less; Leiden only where installed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from kgkit.core.domain import parse_domain
from kgkit.core.graph import Graph
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation, TextExtraction
from kgkit.io import dumps_json
from kgkit.stages.build import build_graph
from kgkit.stages.communities import assign_communities, communities_of, detect_communities, weighted_pairs

DOMAIN = parse_domain("""
name: t
entity_types: {Person: p, Organization: o, Other: x}
relation_types:
  KNOWS: {description: k, symmetric: true}
  MENTIONED_WITH: {description: m, symmetric: true}
""")


def clique_graph(extra_bridges: int = 1) -> Graph:
    """Three dense groups of people (sizes 6, 5, 4), a few bridges between them, one isolated person."""
    groups = {"Alpha": 6, "Beta": 5, "Gamma": 4}
    rels = []
    for prefix, size in groups.items():
        names = [f"{prefix} {i}" for i in range(size)]
        rels += [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    rels += [("Alpha 0", "Beta 0"), ("Beta 1", "Gamma 1")][:extra_bridges + 1]
    te = TextExtraction(extractor_id="test:1", entities=(ExtractedEntity(name="Loner", type="Person"),),
                        relations=tuple(ExtractedRelation(source=a, source_type="Person", target=b, target_type="Person",
                                                          type="KNOWS") for a, b in rels))
    d = DocumentExtraction(document_id="d1", path="d1.txt",
                           chunks=(ChunkExtraction(chunk_id="d1#0", document_id="d1", extraction=te),))
    return build_graph([d], domain=DOMAIN)


def groups(found):
    return found.membership.groupby("community")["entity"].apply(lambda s: sorted(s)).to_dict()


def test_dense_groups_become_communities_numbered_by_size():
    found = detect_communities(clique_graph(), seed=0)
    g = groups(found)
    assert g["c0"] == [f"Person:alpha {i}" for i in range(6)]
    assert g["c1"] == [f"Person:beta {i}" for i in range(5)]
    assert g["c2"] == [f"Person:gamma {i}" for i in range(4)]
    assert g["c3"] == ["Person:loner"]  # an isolated entity is its own community
    summary = found.summary.set_index("community")
    assert summary.loc["c0", "size"] == 6 and summary.loc["c0", "relations"] == 15
    assert summary.loc["c0", "top_entities"][0] == "Person:alpha 0"  # highest degree (the bridge end) first
    assert summary.loc["c0", "label"].startswith("Alpha 0 / ")
    assert "alpha" in summary.loc["c0", "terms"]


def test_same_graph_same_communities_in_any_row_order():
    g = clique_graph()
    first = detect_communities(g, seed=0)
    again = detect_communities(g, seed=0)
    shuffled = g.replace(entities=g.entities.sample(frac=1, random_state=3),
                         relations=g.relations.sample(frac=1, random_state=4))
    third = detect_communities(shuffled, seed=0)
    assert dumps_json(first.to_json_dict()) == dumps_json(again.to_json_dict()) == dumps_json(third.to_json_dict())


_CHILD = """
import json, sys
sys.path.insert(0, {tests!r})
from test_communities import clique_graph
from kgkit.stages.communities import detect_communities
print(json.dumps(detect_communities(clique_graph(), seed=7).to_json_dict(), sort_keys=True))
"""


def test_same_communities_across_processes_with_different_hash_seeds():
    outputs = set()
    for hash_seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        code = _CHILD.format(tests=os.path.dirname(__file__))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
        outputs.add(out.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["params"]["seed"] == 7


def test_co_occurrence_weighs_less():
    te = TextExtraction(extractor_id="t", relations=(
        ExtractedRelation(source="A", source_type="Person", target="B", target_type="Person", type="KNOWS"),
        ExtractedRelation(source="A", source_type="Person", target="C", target_type="Person", type="MENTIONED_WITH"),
    ))
    g = build_graph([DocumentExtraction(document_id="d", path="d", chunks=(
        ChunkExtraction(chunk_id="d#0", document_id="d", extraction=te),))], domain=DOMAIN)
    ids = list(g.entities["id"])
    w = {(ids[a], ids[b]): x for a, b, x in weighted_pairs(g, weak_factor=0.25).itertuples(index=False)}
    assert w[("Person:a", "Person:b")] == 1.0 and w[("Person:a", "Person:c")] == 0.25


def test_assign_communities_returns_a_new_graph_and_survives_json():
    g = clique_graph()
    found = detect_communities(g, seed=0)
    labelled = assign_communities(g, found)
    assert g.entities["community"].isna().all()  # the input is not changed
    assert dict(zip(labelled.entities["id"], labelled.entities["community"]))["Person:loner"] == "c3"
    again = Graph.from_json_dict(json.loads(dumps_json(labelled.to_json_dict())))
    assert list(again.entities["community"]) == list(labelled.entities["community"])
    # a graph that carries communities is read back, not recomputed
    assert groups(communities_of(again, seed=99)) == groups(found)


@pytest.mark.skipif(importlib.util.find_spec("leidenalg") is not None, reason="leidenalg is installed")
def test_leiden_without_its_packages_is_a_clear_error():
    with pytest.raises(ImportError, match="leidenalg"):
        detect_communities(clique_graph(), method="leiden")


def test_unknown_method_is_an_error():
    with pytest.raises(ValueError, match="unknown community method"):
        detect_communities(clique_graph(), method="spectral")  # type: ignore[arg-type]


def test_community_ids_given_by_a_person_are_kept():
    g = clique_graph()
    named = g.replace(entities=g.entities.assign(community=["north" if "alpha" in i else "south" for i in g.entities["id"]]))
    summary = communities_of(named).summary.set_index("community")
    assert set(summary.index) == {"north", "south"} and summary.loc["north", "size"] == 6
