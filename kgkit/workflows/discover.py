"""The discover workflow: sample a workspace's corpus, ask a model for a domain (entity and relation types,
capped, fallback types kept: kgkit.stages.discover) and save it as editable YAML (WS/domain.yaml by default),
every request through the workspace's cache and one budget ledger.

    found = discover("workspace/gpt", "data/demo/sotu_1934_1946", llm=LLMOptions(model="openai/gpt-4o-mini",
                     max_cost=0.20))
    found.domain, found.path, found.ledger.summary()
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgkit import io
from kgkit.core.constants import DEFAULT_MAX_BYTES, MAX_CHUNK_CHARS
from kgkit.core.domain import Domain
from kgkit.io.cache import Cache
from kgkit.io.workspace import DOMAIN, Workspace
from kgkit.llm.options import LLMOptions
from kgkit.stages.chunk import chunk_document
from kgkit.stages.discover import discover_domain
from kgkit.workflows.corpus import load_corpus
from kgkit.workflows.graph import as_workspace

__all__ = ["Discovered", "discover"]


@dataclass
class Discovered:
    """A discovery: the domain proposed (None when it failed, `error` says why), where it was saved, the ledger."""

    domain: Domain | None
    path: Path | None
    error: str | None
    ledger: Any


def discover(workspace: Workspace | str | os.PathLike[str], corpus: str | os.PathLike[str], *, llm: LLMOptions,
             max_types: int = 10, sample: int = 12, seed: int = 0, name: str = "discovered",
             domain_file: str | os.PathLike[str] | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
             max_chars: int = MAX_CHUNK_CHARS) -> Discovered:
    """Propose a domain from `sample` chunks of `corpus` (seeded) and save it to `domain_file` (default
    WS/domain.yaml); LLMOptionError for a paid model without a cap, PreflightError when the model fails its check."""
    ws = as_workspace(workspace)
    cache = Cache(ws.cache_dir)
    client = llm.client(cache=cache)
    documents, _ = load_corpus(corpus, cache=cache, max_bytes=max_bytes, exclude=[ws.root])
    texts = [c.text for d in documents for c in chunk_document(d, max_chars=max_chars)]
    found = discover_domain(texts, client=client, max_entity_types=max_types, sample=sample, seed=seed, name=name)
    if found.domain is None:
        return Discovered(domain=None, path=None, error=found.error, ledger=client.ledger)
    target = Path(domain_file) if domain_file is not None else ws.path(DOMAIN)
    io.save_domain(found.domain, target)
    return Discovered(domain=found.domain, path=target, error=found.error, ledger=client.ledger)
