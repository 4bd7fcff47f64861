"""Narratives: extractive offline, LLM-written within the budget, citing only relations that exist; community
labels deterministic and cached per community; Markdown, DataFrame and CLI outputs."""

from __future__ import annotations

import doctest
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from kgkit import io
from kgkit.core.graph import Graph
from kgkit.core.names import relation_id
from kgkit.io.cache import Cache
from kgkit.llm import BudgetLedger, LLMClient, LLMSettings, Price
from kgkit.llm.client import import_litellm
from kgkit.stages.narrate import Narrative, cited_sentences, narrate
from kgkit.stages.narrate.prompt import CitedSentence
from kgkit.workflows.narrate import narrate as narrate_workflow

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
litellm = import_litellm()
MAX_TOKENS = 100

# three communities; evidence words are distinct per community, so editing one leaves the others' terms alone
COMMUNITIES = {
    "c0": [("Ada", "Person"), ("Acme", "Organization"), ("London", "Location"), ("Bob", "Person")],
    "c1": [("Navy", "Organization"), ("Pacific", "Location"), ("Japan", "Location")],
    "c2": [("Farm Board", "Organization"), ("Iowa", "Location")],
}
RELATIONS = [  # (source, type, target, support, evidence, document)
    ("Ada", "WORKS_FOR", "Acme", 3, "In 1990 Ada joined Acme as an engineer.", "1990-acme.txt"),
    ("Acme", "LOCATED_IN", "London", 2, "Acme builds engines in London.", "1990-acme.txt"),
    ("Bob", "WORKS_FOR", "Acme", 1, "Bob repairs engines for Acme.", "1991-bob.txt"),
    ("Ada", "MENTIONED_WITH", "Bob", 1, "Ada and Bob met.", "1991-bob.txt"),
    ("Navy", "ATTACKS", "Japan", 2, "On December 7, 1941 the Navy fought Japan at sea.", "1942-war.txt"),
    ("Navy", "LOCATED_IN", "Pacific", 1, "The Navy sails the Pacific with carriers.", "1942-war.txt"),
    ("Farm Board", "LOCATED_IN", "Iowa", 1, "The Farm Board buys wheat in Iowa.", "1934-farm.txt"),
]
EDIT = "The Farm Board stores corn and barley in Iowa silos."


def _eid(name: str, etype: str) -> str:
    return f"{etype}:{name.lower()}"


def make_graph(*, edit: bool = False, extra_entity: tuple[str, str] | None = None) -> Graph:
    types = {n: t for members in COMMUNITIES.values() for n, t in members}
    community = {_eid(n, t): c for c, members in COMMUNITIES.items() for n, t in members}
    rels, prov = [], []
    docs = sorted({r[5] for r in RELATIONS})
    doc_id = {p: f"doc:{i:04d}" for i, p in enumerate(docs)}
    for s, rtype, t, support, evidence, doc in RELATIONS:
        if edit and s == "Farm Board":
            evidence = EDIT
        src, dst = _eid(s, types[s]), _eid(t, types[t])
        rid = relation_id(src, rtype, dst)
        rels.append({"id": rid, "source": src, "target": dst, "type": rtype, "predicate": None, "negated": False,
                     "confidence": 0.9, "support": support, "evidence": evidence, "valid_at": None,
                     "invalid_at": None, "created_at": None, "expired_at": None, "flags": []})
        for x in (rid, src, dst):
            prov.append({"item_id": x, "kind": "relation" if x == rid else "entity", "document_id": doc_id[doc],
                         "chunk_id": doc_id[doc] + "#0", "start": 0, "end": 1, "evidence": evidence,
                         "extractor_id": "test", "model": None, "prompt_hash": None})
    degree = pd.Series([r["source"] for r in rels] + [r["target"] for r in rels]).value_counts()
    names = list(types.items()) + ([extra_entity] if extra_entity else [])
    ents = pd.DataFrame([{"id": _eid(n, t), "name": n, "type": t, "aliases": [], "mentions": 2, "documents": 1,
                          "confidence": 0.9, "identity": "derived", "degree": int(degree.get(_eid(n, t), 0)),
                          "community": community.get(_eid(n, t), "c3")} for n, t in names]).sort_values("id")
    documents = pd.DataFrame([{"id": doc_id[p], "path": p, "sha256": "0" * 64, "media_type": "text/plain",
                               "chunks": 1, "errors": 0} for p in docs])
    return Graph.empty().replace(entities=ents, relations=pd.DataFrame(rels).sort_values("id"),
                                 provenance=pd.DataFrame(prov), documents=documents)


GRAPH = make_graph()
REL_IDS = set(GRAPH.relations["id"])
PATHS = set(GRAPH.documents["path"])


def _prompt(messages) -> str:
    return next(str(m["content"]) for m in messages if m["role"] == "user")  # re-asks append messages after it


def _facts_in(messages) -> list[str]:
    return re.findall(r"^\[\d+\] (rel:[0-9a-f]+):", _prompt(messages), flags=re.M)


class FakeNarrator:
    """A provider that answers narrate prompts citing the facts it was given (or an invented id when asked to),
    billing exactly max_tokens of output, so each request costs its worst case."""

    def __init__(self, *, invent: int = 0):
        self.invent = invent  # the first `invent` requests cite a made-up id
        self.calls = 0
        self.log: list[dict] = []

    async def __call__(self, **kwargs):
        self.calls += 1
        self.log.append(kwargs)
        ids = _facts_in(kwargs["messages"]) or ["rel:none"]
        cited = ["rel:deadbeefdeadbeef"] if self.calls <= self.invent else ids[:2]
        sentence = {"text": f"Written from {len(ids)} facts.", "relations": cited, "date": None}
        body = {"sentences": [sentence]}
        if "Give it a `label`" in _prompt(kwargs["messages"]):
            body["label"] = "A labelled community"
        response = await litellm.acompletion(model="openai/x", messages=kwargs["messages"],
                                             mock_response=json.dumps(body))
        response.usage.prompt_tokens, response.usage.completion_tokens = 0, MAX_TOKENS
        return response


def client_with(fake, *, cap: float | None = 10.0, cache: Cache | None = None, reasks: int = 1) -> LLMClient:
    # input is free and output costs 1e-4 a token: every request's worst case (and real cost) is exactly $0.01
    return LLMClient("kgkit-test/narrator", price=Price(0.0, 1e-4, "explicit"), ledger=BudgetLedger(cap_usd=cap),
                     completion=fake, cache=cache, settings=LLMSettings(mode="json", max_tokens=MAX_TOKENS,
                                                                         max_reasks=reasks))


def _all_citations_exist(n: Narrative) -> None:
    for where, s in n.sentences():
        assert s.relations or s.documents, (where, s)
        assert set(s.relations) <= REL_IDS, (where, s.relations)
        assert set(s.documents) <= PATHS, (where, s.documents)
    assert set(n.sources) == set(n.cited_relations())


# --------------------------------------------------------------------------- offline


def test_offline_narrative_covers_every_part_and_cites_only_existing_relations():
    n = narrate(GRAPH)
    _all_citations_exist(n)
    assert n.model is None and not n.fallbacks()
    assert n.overview.sentences and n.chains.sentences and n.entities and len(n.communities) == 3
    # chains leave co-occurrence out while other relations exist
    chained = {r for s in n.chains.sentences for r in s.relations}
    assert chained and not chained & set(GRAPH.relations.loc[GRAPH.relations["type"] == "MENTIONED_WITH", "id"])
    # timeline from dates written in evidence, in date order
    assert [s.date for s in n.timeline.sentences] == ["1941-12-07", "1990"]
    ada = next(e for e in n.entities if e.name == "Ada")
    assert "Ada works for Acme" in ada.text and ada.community == "c0"


def test_offline_labels_are_extractive_with_terms_and_evidence():
    labels = {c.community: c for c in narrate(GRAPH).communities}
    c1 = labels["c1"]
    assert c1.label == "Navy / Japan / Pacific" and c1.source == "extractive"
    assert "carriers" in c1.terms or "sea" in c1.terms
    assert not {"navy", "japan", "pacific"} & set(c1.terms)  # words of the label's names are not "distinctive"
    assert any('"' in s.text for s in c1.sentences)  # an evidence sentence, quoted


def test_offline_output_is_deterministic_across_runs_and_processes(tmp_path):
    first = json.dumps(narrate(GRAPH).to_json_dict(), sort_keys=True)
    assert first == json.dumps(narrate(make_graph()).to_json_dict(), sort_keys=True)
    io.save_graph(GRAPH, tmp_path / "graph.json")
    code = ("import json, sys; from kgkit import io; from kgkit.stages.narrate import narrate; "
            "print(json.dumps(narrate(io.load_graph(sys.argv[1])).to_json_dict(), sort_keys=True))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "graph.json")], capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "987", "PATH": "/usr/bin:/bin"}, timeout=60)
    assert out.stdout.strip() == first


def test_changing_one_community_recomputes_only_its_label(tmp_path):
    narrate(GRAPH, cache=Cache(tmp_path))
    again = Cache(tmp_path)
    narrate(GRAPH, cache=again)
    assert again.stats.computed["label_communities"] == 0 and again.stats.hits["label_communities"] == 3
    edited = Cache(tmp_path)
    n = narrate(make_graph(edit=True), cache=edited)
    assert edited.stats.computed["label_communities"] == 1 and edited.stats.hits["label_communities"] == 2
    assert {"corn", "barley"} & set(next(c for c in n.communities if c.community == "c2").terms)


# --------------------------------------------------------------------------- with a model


def test_llm_writes_every_part_through_one_ledger_and_the_request_cache(tmp_path):
    fake = FakeNarrator()
    client = client_with(fake, cache=Cache(tmp_path))
    n = narrate(GRAPH, llm=client, top_entities=3)
    _all_citations_exist(n)
    assert n.model == "kgkit-test/narrator" and not n.fallbacks()
    assert n.overview.source == n.chains.source == n.timeline.source == "llm"
    assert all(e.source == "llm" for e in n.entities)
    labelled = [c for c in n.communities if c.source == "llm"]
    assert len(labelled) == 3 and labelled[0].label == "A labelled community"
    stages = client.ledger.summary()["stages"]
    assert set(stages) == {"narrate_overview", "narrate_chains", "narrate_timeline", "narrate_entity",
                           "narrate_community"}
    assert fake.calls == 3 + 3 + 3 and client.ledger.spent_usd == pytest.approx(0.09)
    # the same narrative again: every request is answered from the cache, nothing is spent
    again = client_with(fake, cache=Cache(tmp_path))
    assert narrate(GRAPH, llm=again, top_entities=3) == n
    assert fake.calls == 9 and again.ledger.spent_usd == 0


def test_llm_timeline_sentences_get_their_facts_dates():
    n = narrate(GRAPH, llm=client_with(FakeNarrator()), top_entities=1)
    assert n.timeline.source == "llm" and n.timeline.sentences[0].date == "1941-12-07"


def test_changing_one_community_asks_the_model_again_only_for_it(tmp_path):
    fake = FakeNarrator()
    narrate(GRAPH, llm=client_with(fake), cache=Cache(tmp_path), top_entities=1)
    before, cache = fake.calls, Cache(tmp_path)
    n = narrate(make_graph(edit=True), llm=client_with(fake), cache=cache, top_entities=1)
    assert cache.stats.computed["label_communities"] == 1 and cache.stats.hits["label_communities"] == 2
    # one new label request; overview and timeline quote the edited evidence, so they are asked again too
    asked = [c["messages"] for c in fake.log[before:]]
    assert sum("Give it a `label`" in _prompt(m) for m in asked) == 1
    assert [c.source for c in n.communities] == ["llm"] * 3


def test_budget_cap_admits_some_parts_the_rest_stay_extractive_and_marked():
    fake = FakeNarrator()
    client = client_with(fake, cap=0.035)  # admits three $0.01 requests
    n = narrate(GRAPH, llm=client, top_entities=3)
    ledger = client.ledger
    assert ledger.spent_usd <= 0.035 and fake.calls == 3 and ledger.refused > 0
    assert n.overview.source == n.chains.source == n.timeline.source == "llm"  # asked first
    refused = [*n.entities, *[c for c in n.communities if c.fallback]]
    assert len(refused) == 6
    for part in refused:
        assert part.source == "extractive" and part.fallback.startswith("budget:") and part.sentences
    assert "Extractive text: the LLM text was not used (budget:" in n.to_markdown()
    _all_citations_exist(n)


def test_invented_relation_ids_are_reasked_then_dropped():
    once = FakeNarrator(invent=1)  # the overview's first answer cites an unknown id; the re-ask is right
    n = narrate(GRAPH, llm=client_with(once), top_entities=1)
    assert n.overview.source == "llm" and once.calls == 1 + 1 + 2 + 1 + 3
    _all_citations_exist(n)
    always = FakeNarrator(invent=10**6)  # never cites a given id: every part falls back, marked
    n = narrate(GRAPH, llm=client_with(always), top_entities=1)
    assert n.overview.source == "extractive" and n.overview.fallback.startswith("invalid output")
    assert set(n.fallbacks()) == {"overview", "chains", "timeline", "Organization:acme", "c0", "c1", "c2"}
    _all_citations_exist(n)


def test_cited_sentences_drop_unknown_ids_and_uncited_sentences():
    given = {"rel:a": ("a.txt",), "rel:b": ("b.txt",)}
    answer = [CitedSentence.model_construct(text="Both.", relations=["rel:a", "rel:zzz"], date=None),
              CitedSentence.model_construct(text="Invented.", relations=["rel:zzz"], date=None)]
    [kept] = cited_sentences(answer, given)
    assert kept.relations == ("rel:a",) and kept.documents == ("a.txt",)


# --------------------------------------------------------------------------- outputs


def test_markdown_and_dataframes():
    n = narrate(GRAPH)
    md = n.to_markdown()
    for heading in ("# Narrative", "## Overview", "## Main relationship chains", "## Timeline", "## Main entities",
                    "## Communities", "## Sources"):
        assert heading in md
    for rid in n.cited_relations():
        assert f"`{rid}`" in md
    ents = n.entity_frame()
    assert list(ents.columns[:3]) == ["entity", "name", "type"] and len(ents) == len(n.entities)
    assert ents["description"].str.len().gt(0).all()
    comms = n.community_frame()
    assert list(comms["community"]) == ["c0", "c1", "c2"] and comms["label"].str.len().gt(0).all()
    assert Narrative.from_json_dict(json.loads(json.dumps(n.to_json_dict()))) == n


def test_markdown_escapes_document_text():
    g = make_graph(extra_entity=("<img src=x onerror=alert(1)>", "Other"))
    rels = g.relations.copy()
    rels.loc[0, "evidence"] = "[click](javascript:alert(1)) <b>bold</b>"
    md = narrate(g.replace(relations=rels)).to_markdown()
    assert "<b>" not in md and "<img" not in md and "\\<b\\>" in md
    assert not re.search(r"(?<!\\)\]\(", md)  # brackets escaped: no link from document text


def test_narrate_workspace_writes_markdown_and_json(tmp_path):
    io.save_graph(GRAPH, tmp_path / "graph.json")
    paths = narrate_workflow(tmp_path).paths
    assert Path(paths["narrative"]).read_text().startswith("# Narrative")
    assert Narrative.from_json_dict(io.read_json(paths["narrative_json"])) == narrate(GRAPH)


def test_an_empty_graph_narrates_nothing_and_asks_nothing():
    fake = FakeNarrator()
    n = narrate(Graph.empty(), llm=client_with(fake))
    assert fake.calls == 0 and not n.entities and not n.communities and "_Nothing to report._" in n.to_markdown()


def test_narrate_workspace_uses_communities_json_when_the_graph_has_none(tmp_path):
    bare = GRAPH.replace(entities=GRAPH.entities.assign(community=None))
    io.save_graph(bare, tmp_path / "graph.json")
    membership = {e: "k9" for e in GRAPH.entities["id"]}  # one community, saved by `kgkit build`
    io.write_json(tmp_path / "communities.json", {"format": "kgkit.communities/1", "params": {"seed": 3},
                                                  "communities": [], "membership": membership})
    narrate_workflow(tmp_path)
    data = Narrative.from_json_dict(io.read_json(tmp_path / "narrative.json"))
    assert [c.community for c in data.communities] == ["k9"] and data.communities[0].size == len(GRAPH.entities)


def test_narrate_to_an_output_file_leaves_the_workspace_alone(tmp_path):
    io.save_graph(GRAPH, tmp_path / "graph.json")
    out = tmp_path / "story.md"
    told = narrate_workflow(tmp_path, output=out)
    assert told.paths == {"narrative": str(out), "narrative_json": str(tmp_path / "story.json")}
    assert out.read_text().startswith("# Narrative") and not (tmp_path / "narrative.md").exists()
    data = io.read_json(tmp_path / "story.json")
    assert data["format"] == "kgkit.narrative/1" and set(data["sources"]) <= REL_IDS
    assert Narrative.from_json_dict(data) == told.narrative == narrate(GRAPH)
    other = narrate_workflow(tmp_path / "elsewhere", graph=GRAPH)  # a graph given, not the workspace's own
    assert set(other.narrative.sources) <= REL_IDS and (tmp_path / "elsewhere" / "narrative.md").is_file()
    with pytest.raises(FileNotFoundError):
        narrate_workflow(tmp_path / "empty")  # a workspace without a graph


def test_a_model_that_answers_no_narrative_degrades_to_extractive_parts(tmp_path):
    from kgkit.llm.options import LLMOptions
    from kgkit.testing.fake_llm import register_fake_provider

    register_fake_provider()
    io.save_graph(GRAPH, tmp_path / "graph.json")
    # the fake provider answers extraction JSON, never a narrative: every part falls back, marked, and cites
    # only the graph's relations
    client = LLMOptions(model="kgkit-fake/n", free=True, max_tokens=1024).client(cache=Cache(tmp_path / "cache"))
    told = narrate_workflow(tmp_path, llm=client, top_entities=1).narrative
    assert told.overview.fallback.startswith("invalid output") and told.model == "kgkit-fake/n"
    assert set(told.sources) <= REL_IDS and client.ledger.summary()["spent_usd"] == 0
    _all_citations_exist(told)


@pytest.mark.parametrize("name", ["kgkit.stages.narrate", "kgkit.stages.narrate.core", "kgkit.stages.narrate.facts",
                                  "kgkit.stages.narrate.labels", "kgkit.stages.narrate.model", "kgkit.workflows.narrate",
                                  "kgkit.stages.narrate.prompt"])
def test_docstring_examples(name):
    assert doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS).failed == 0
