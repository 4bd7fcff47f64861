"""Schema discovery: sample chunks (seeded), ask an LLM for a domain, cap it, keep the fallback types.

- `sample_texts(texts, n=, seed=)` — pure, seeded: the same corpus and seed give the same sample.
- `domain_from_proposal(DiscoveryResponse, max_entity_types=)` — pure: names normalised (PascalCase entity
  types, UPPER_SNAKE relation types), duplicates dropped, capped at `max_entity_types` *including* the fallback
  types Person, Organization, Location, Other (always kept), signatures pointing at dropped types removed.
- `discover_domain(texts, client=)` — the LLM call (through the ledger and the request cache), then the above.

Save the result with `kgkit.io.save_domain(domain, path)`: it is editable YAML that `kgkit.io.load_domain` reads
back with the same content id, and is then used like a bundled domain.

>>> from kgkit.stages.discover.prompt import DiscoveryResponse
>>> proposal = DiscoveryResponse.model_validate({
...     "entity_types": [{"name": f"type {i}", "description": "d"} for i in range(12)] + [{"name": "person"}],
...     "relation_types": [{"name": "part of", "signatures": [["Type0", "Type1"], ["Type0", "Type11"]]}]})
>>> d = domain_from_proposal(proposal, max_entity_types=10)
>>> len(d.entity_types), [t for t in ("Person", "Organization", "Location", "Other") if t in d.entity_types]
(10, ['Person', 'Organization', 'Location', 'Other'])
>>> d.relation_types["PART_OF"].signatures
(('Type0', 'Type1'),)
>>> sample_texts(["a", "b", "c", "d"], n=2, seed=1) == sample_texts(["a", "b", "c", "d"], n=2, seed=1)
True
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgkit.core.domain import Domain, EntityType, RelationType
from kgkit.llm.client import Answer, LLMClient, run_sync
from kgkit.stages.discover.prompt import FALLBACK_TYPES, DiscoveryInput, DiscoveryResponse, render_messages

DEFAULT_MAX_ENTITY_TYPES = 10
_FALLBACK_DESCRIPTIONS = {
    "Person": "A named human being.",
    "Organization": "A named company, institution, government body or group acting together.",
    "Location": "A named place: country, region, city, site or building.",
    "Other": "Anything named that fits no other type.",
}


def sample_texts(texts: Sequence[str], *, n: int = 12, seed: int = 0) -> list[str]:
    """Up to `n` distinct non-empty texts, chosen with a seeded RNG, in their corpus order."""
    unique = list(dict.fromkeys(t for t in texts if t.strip()))
    if len(unique) <= n:
        return unique
    picked = sorted(random.Random(seed).sample(range(len(unique)), n))
    return [unique[i] for i in picked]


def _pascal(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name)
    out = "".join(w[:1].upper() + w[1:] for w in words)
    return out if out[:1].isalpha() else f"T{out}"


def _snake(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name))
    out = "_".join(w.upper() for w in words)
    return out if out[:1].isalpha() else f"R_{out}"


def domain_from_proposal(
    proposal: DiscoveryResponse, *, max_entity_types: int = DEFAULT_MAX_ENTITY_TYPES, name: str = "discovered",
    description: str | None = None,
) -> Domain:
    """A valid Domain from a model's proposal: capped, with the fallback types, signatures cleaned."""
    if max_entity_types < len(FALLBACK_TYPES):
        raise ValueError(f"max_entity_types must be >= {len(FALLBACK_TYPES)} (the fallback types are always kept)")
    entity_types: dict[str, EntityType] = {}
    lower_fallbacks = {t.lower(): t for t in FALLBACK_TYPES}
    for p in proposal.entity_types:
        tname = _pascal(p.name)
        tname = lower_fallbacks.get(tname.lower(), tname)
        if tname in FALLBACK_TYPES or tname in entity_types or not tname:
            continue
        if len(entity_types) >= max_entity_types - len(FALLBACK_TYPES):
            break
        entity_types[tname] = EntityType(description=p.description.strip() or tname)
    for fallback in FALLBACK_TYPES:
        entity_types[fallback] = EntityType(description=_FALLBACK_DESCRIPTIONS[fallback])
    relation_types: dict[str, RelationType] = {}
    for r in proposal.relation_types:
        rname = _snake(r.name)
        if not rname or rname in relation_types or rname == "RELATED_TO":
            continue
        sigs = []
        for src, dst in r.signatures:
            pair = (lower_fallbacks.get(_pascal(src).lower(), _pascal(src)), lower_fallbacks.get(_pascal(dst).lower(), _pascal(dst)))
            if pair[0] in entity_types and pair[1] in entity_types and pair not in sigs:
                sigs.append(pair)
        if r.signatures and not sigs:
            continue  # every signature named a type that was capped away: the relation has no place left
        relation_types[rname] = RelationType(description=r.description.strip() or rname, signatures=tuple(sigs),
                                             symmetric=r.symmetric)
    return Domain(name=name, description=(description if description is not None else proposal.description),
                  entity_types=entity_types, relation_types=relation_types)


@dataclass(frozen=True)
class Discovery:
    """What `discover_domain` produced: the domain (None on failure), the model's raw proposal, and the answer."""

    domain: Domain | None
    proposal: DiscoveryResponse | None
    answer: Answer[DiscoveryResponse]

    @property
    def error(self) -> str | None:
        return self.answer.error


async def adiscover_domain(
    texts: Sequence[str], *, client: LLMClient, max_entity_types: int = DEFAULT_MAX_ENTITY_TYPES, sample: int = 12,
    seed: int = 0, name: str = "discovered",
) -> Discovery:
    """Ask the model for a domain from a seeded sample of `texts` (one request, metered and cached)."""
    inp = DiscoveryInput(samples=sample_texts(texts, n=sample, seed=seed), max_entity_types=max_entity_types)
    answer = await client.ask(render_messages(inp), DiscoveryResponse, stage="discover")
    if answer.value is None:
        return Discovery(domain=None, proposal=None, answer=answer)
    domain = domain_from_proposal(answer.value, max_entity_types=max_entity_types, name=name)
    return Discovery(domain=domain, proposal=answer.value, answer=answer)


def discover_domain(texts: Sequence[str], *, client: LLMClient, **kwargs: object) -> Discovery:
    """Sync form of `adiscover_domain` (works inside a running event loop too)."""
    return run_sync(lambda: adiscover_domain(texts, client=client, **kwargs))  # type: ignore[arg-type]
