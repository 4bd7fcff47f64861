"""Schema discovery: seeded sampling, the cap, fallback types kept, YAML round trip, the `discover` command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kgkit import io
from kgkit.cli import app
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


def test_discover_command_writes_a_domain_the_run_command_uses(corpus_copy, tmp_path):
    register_fake_provider()
    ws = tmp_path / "ws"
    args = ["discover", str(corpus_copy), "-o", str(ws), "--model", "kgkit-fake/x", "--price-in", "1",
            "--price-out", "2", "--max-cost", "0.05", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    domain = io.load_domain(ws / "domain.yaml")
    assert report["domain"] == domain.id and "Mission" in domain.entity_types and "WORKS_FOR" in domain.relation_types
    again = json.loads(CliRunner().invoke(app, args).stdout)
    assert again["domain"] == domain.id and again["llm"]["spent_usd"] == 0  # cached request: same domain, free
