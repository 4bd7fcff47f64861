"""Benchmark (issue 3): LLM extraction through a fake provider with 0.25 s latency.

    .venv/bin/python bench/bench_llm.py

200 chunks over 20 documents, document context on, concurrency 8: wall time (target <= 8 s), LLM requests
per chunk including document context (target <= 1.2), and budget overshoot with the cap set to half the
cost of the full run (target 0). No network: the provider is kgkit's litellm CustomLLM fake.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from kgkit.extractors.llm import LLMExtractor
from kgkit.io.cache import Cache
from kgkit.llm.options import LLMOptions
from kgkit.testing.fake_llm import register_fake_provider
from kgkit.workflows.run import run as run_pipeline


def make_corpus(root: Path) -> Path:
    """20 documents of 10 paragraphs (~240 characters each): 10 chunks per document at max_chars=250."""
    docs = root / "docs"
    docs.mkdir()
    for d in range(20):
        paras = [" ".join(f"Person{d}x{k}x{j} met Agency{k}x{j} in City{k}x{j} during Mission{d}." for j in range(4))
                 for k in range(10)]
        (docs / f"doc{d:02d}.txt").write_text("\n\n".join(paras))
    return docs


def main() -> None:
    handler = register_fake_provider(latency=0.25)
    root = Path(tempfile.mkdtemp(prefix="kgkit-bench-llm-"))
    docs = make_corpus(root)

    def once(ws: Path, cap: float):
        ex = LLMExtractor.from_options(LLMOptions(model="kgkit-fake/bench", max_cost=cap, price_in=1.0, price_out=2.0,
                                                  concurrency=8, max_tokens=512), cache=Cache(ws / "cache"))
        calls, start = handler.calls, time.perf_counter()
        result = run_pipeline(ws, docs, extractor=ex, cache=Cache(ws / "cache"), max_chars=250, overlap_chars=0,
                              batch_size=256, write_view=False)
        return result, time.perf_counter() - start, handler.calls - calls, ex.client.ledger

    full, seconds, calls, ledger = once(root / "ws1", 10.0)
    _, warm_seconds, warm_calls, _ = once(root / "ws1", 10.0)
    capped, _, _, capped_ledger = once(root / "ws2", ledger.spent_usd / 2)
    print(json.dumps({
        "chunks": len(full.chunks), "wall_s": round(seconds, 2), "requests": calls,
        "requests_per_chunk": round(calls / len(full.chunks), 3), "spent_usd": round(ledger.spent_usd, 5),
        "warm_wall_s": round(warm_seconds, 2), "warm_requests": warm_calls,
        "half_cap_usd": round(ledger.spent_usd / 2, 5), "half_cap_spent_usd": round(capped_ledger.spent_usd, 5),
        "overshoot_usd": max(0.0, capped_ledger.spent_usd - ledger.spent_usd / 2),
        "refused_chunks": len(capped.chunk_errors), "load_average": os.getloadavg()[0],
    }, indent=2))


if __name__ == "__main__":
    main()
