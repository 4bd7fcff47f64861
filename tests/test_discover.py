"""Schema discovery: seeded sampling, the cap, fallback types kept, YAML round trip, a corpus's domain
(`kgkit discover` is tested end to end in test_cli_llm.py)."""

from __future__ import annotations

import json

import pytest

from kgkit import io
from kgkit.llm import BudgetLedger, LLMClient, LLMSettings
from kgkit.stages.discover import discover_domain, domain_from_proposal, sample_texts
from kgkit.stages.discover.prompt import FALLBACK_TYPES, DiscoveryResponse
from kgkit.testing.fake_llm import QueuedCompletion, register_fake_provider

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PROPOSAL = {
    "description": "Space missions",
    "entity_types": [{"name": f"kind {i}", "description": f"kind number {i}"} for i in range(14)]
    + [{"name": "PERSON", "description": "dup of a fallback"}, {"name": "Kind0"}],
    "relation_types": [
        {"name": "launched by", "description": "who launched", "signatures": [["Kind0", "Organization"]]},
        {"name": "orbitsPlanet", "signatures": [["Kind1", "Kind13"]]},  # Kind13 is capped away
        {"name": "related to", "description": "the fallback relation is implicit"},
    ],
}


@pytest.mark.parametrize("cap", [4, 7, 10])
def test_domain_is_capped_and_always_keeps_the_fallback_types(cap):
    d = domain_from_proposal(DiscoveryResponse.model_validate(PROPOSAL), max_entity_types=cap)
    assert len(d.entity_types) == cap
    assert all(t in d.entity_types for t in FALLBACK_TYPES)
    assert list(d.entity_types)[: cap - 4] == [f"Kind{i}" for i in range(cap - 4)]  # the model's order is kept
    assert "RELATED_TO" not in d.relation_types and "ORBITS_PLANET" not in d.relation_types
    if cap > 4:
        assert d.relation_types["LAUNCHED_BY"].signatures == (("Kind0", "Organization"),)


def test_cap_below_the_fallbacks_is_refused():
    with pytest.raises(ValueError, match="fallback"):
        domain_from_proposal(DiscoveryResponse(), max_entity_types=3)


def test_saved_domain_is_editable_yaml_that_loads_back_with_the_same_id(tmp_path):
    d = domain_from_proposal(DiscoveryResponse.model_validate(PROPOSAL), name="space")
    path = tmp_path / "domain.yaml"
    io.save_domain(d, path)
    loaded = io.load_domain(path)
    assert loaded.id == d.id and loaded.entity_types == d.entity_types and loaded.relation_types == d.relation_types
    edited = path.read_text().replace("kind number 1", "a rocket")
    path.write_text(edited)
    assert io.load_domain(path).id != d.id  # identified by content


def test_sampling_is_seeded_and_deterministic():
    texts = [f"text {i}" for i in range(50)]
    assert sample_texts(texts, n=5, seed=3) == sample_texts(texts, n=5, seed=3)
    assert sample_texts(texts, n=5, seed=3) != sample_texts(texts, n=5, seed=4)
    assert sample_texts(["a", "a", " ", "b"], n=5) == ["a", "b"]


def test_discover_domain_asks_once_through_the_ledger():
    fake = QueuedCompletion([json.dumps(PROPOSAL)])
    client = LLMClient("kgkit-test/model", price_in=1.0, price_out=2.0, ledger=BudgetLedger(0.5), completion=fake,
                       settings=LLMSettings(mode="json"))
    found = discover_domain([f"Apollo {i} flew." for i in range(30)], client=client, sample=5, seed=1)
    assert found.error is None and len(found.domain.entity_types) == 10 and len(fake.calls) == 1
    assert client.ledger.summary()["stages"]["discover"]["calls"] == 1
    assert fake.calls[0]["messages"][-1]["content"].count("Apollo") == 5


def test_a_domain_discovered_from_a_corpus_is_saved_used_and_rediscovered_for_free(corpus_copy, tmp_path):
    # what `kgkit discover` does (end to end in test_cli_llm.py), through the library
    import kgkit
    from kgkit.io.cache import Cache
    from kgkit.llm.options import LLMOptions
    from kgkit.stages.chunk import chunk_document
    from kgkit.testing.workspaces import CapitalisedNames
    from kgkit.workflows.corpus import load_corpus

    register_fake_provider()
    cache = Cache(tmp_path / "cache")
    documents, _ = load_corpus(corpus_copy, cache=cache)
    texts = [c.text for d in documents for c in chunk_document(d)]
    options = LLMOptions(model="kgkit-fake/x", price_in=1, price_out=2, max_cost=0.05)
    client = options.client(cache=cache)
    found = discover_domain(texts, client=client, seed=0)
    assert found.error is None and 0 < client.ledger.summary()["spent_usd"] <= 0.05
    io.save_domain(found.domain, tmp_path / "domain.yaml")
    domain = io.load_domain(tmp_path / "domain.yaml")
    assert domain.id == found.domain.id and "Mission" in domain.entity_types and "WORKS_FOR" in domain.relation_types
    ran = kgkit.run(tmp_path / "ws", corpus_copy, domain=str(tmp_path / "domain.yaml"), extractor=CapitalisedNames(),
                    write_view=False)
    assert ran.domain_id == domain.id and ran.graph.meta["domain"] == domain.id
    again_client = options.client(cache=cache)
    again = discover_domain(texts, client=again_client, seed=0)
    assert again.domain.id == domain.id and again_client.ledger.summary()["spent_usd"] == 0  # cached request: free
