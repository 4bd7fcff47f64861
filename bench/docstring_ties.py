"""Which docstrings queries the default search misses at 10k, and how many items hold every word of each.

`.venv/bin/python bench/docstring_ties.py` (reads ../shared/data/retrieval/docstrings; skips when absent).

For each query whose target is not in kgkit's top 5 it prints the number of items holding every query word
(lower-cased substring test) and, for the 6-random-word queries, the chance that the Bayes-optimal ranking under
the set's own generator puts the target in its top 5: a query of 6 distinct content words drawn from the target
has likelihood 1 / C(n_d, 6) under an item d holding them all (n_d: its distinct words), 0 otherwise. A query
no method can tell apart from hundreds of items bounds every method's R@5 (bench/RESULTS.md, issue 16).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("KGKIT_SHARED", ROOT.parent / "shared")) / "data" / "retrieval" / "docstrings"


def words_of(text: str) -> set[str]:
    """The distinct lower-cased words of a text, as whitespace and word-character tokens.

    >>> sorted(words_of("Copyright 2006-present, BSD."))
    ['2006', '2006-present,', 'bsd', 'bsd.', 'copyright', 'present']
    """
    low = text.lower()
    return set(low.split()) | set(re.findall(r"\w+", low))


def bayes_top5_chance(query: str, target: str, texts: dict[str, str]) -> float | None:
    """The posterior mass of the Bayes-optimal top 5 for a 6-word query (its expected R@5 under the generator);
    None when the target lacks one of the words (then the model does not describe the query)."""
    words = query.lower().split()
    holders = {i: len(words_of(t)) for i, t in texts.items() if all(w in t for w in words)}
    if target not in holders:
        return None
    weight = {i: 1.0 / math.comb(max(n, len(words)), len(words)) for i, n in holders.items()}
    return sum(sorted(weight.values(), reverse=True)[:5]) / sum(weight.values())


def main() -> int:
    if not (DATA / "corpus.jsonl").exists():
        print(f"skipped: {DATA} not found (the shared evaluation data sits beside the project)")
        return 0
    from kgkit.stages.search import SearchIndex, SearchItem

    docs = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()]
    index = SearchIndex(embedder=None)  # the keyword channel: the default's hits on these lookups
    index.add([SearchItem(id=d["id"], kind="chunk", title=d["title"], body=d["text"]) for d in docs])
    texts = {d["id"]: f"{d['title']} {d['text']}".lower() for d in docs}
    titles = {d["id"]: d["title"] for d in docs}
    missed = 0
    for q in queries:
        if q["target"] in list(index.search(q["query"], limit=5)["id"]):
            continue
        missed += 1
        words = re.sub(r"[,.]", " ", q["query"].lower()).split()
        holders = sum(all(w in t for w in words) for t in texts.values())
        chance = bayes_top5_chance(q["query"], q["target"], texts) if q["kind"] == "subset" else None
        extra = "" if chance is None else f", the Bayes-optimal top 5 holds the target with probability {chance:.3f}"
        print(f"{q['qid']} {q['kind']:8s} {q['query'][:80]!r}: {holders} items hold every word{extra}; "
              f"target {titles[q['target']]}")
    print(f"R@5 {1 - missed / len(queries):.3f} ({len(queries) - missed} of {len(queries)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
