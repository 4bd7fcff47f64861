"""Fit the offline extractor's type vote on the shared dev set's gold types and write its weights file.

    .venv/bin/python bench/fit_extract.py                 # all 500 Re-DocRED dev documents -> models/type_vote.json
    .venv/bin/python bench/fit_extract.py --limit 100 --out /tmp/type_vote.json

The documents run through the pipeline of bench/bench_extract.py with the hand-set weights
(kgkit.extractors.offline.fitted.HAND_WEIGHTS), every mention's cues traced; the mentions whose name is a gold
mention's name are the examples, their gold type the label (PER, ORG, LOC their own domain types, MISC any other;
see bench_extract.cue_examples), and fit_type_weights fits the conditional logit (prior: the hand weights). The
file holds the weights and what they were fitted on; how they measure on data they were not fitted on is
bench/bench_extract.py --folds 2 (fitted on one half, scored on the other).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_extract import BATCH, DATA, DOCRED, Pipeline, cue_examples, gold_documents  # noqa: E402

from kgkit.extractors.offline.fitted import (  # noqa: E402
    HAND_WEIGHTS,
    TYPE_VOTE_FILE,
    fit_type_weights,
    traced_cues,
    type_vote_accuracy,
    use_type_weights,
)
from kgkit.io import load_domain  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="Re-DocRED documents (default: all 500)")
    parser.add_argument("--domain", default="general")
    parser.add_argument("--strength", type=float, default=1.0, help="pull towards the hand weights (L2)")
    parser.add_argument("--out", type=Path, default=TYPE_VOTE_FILE)
    args = parser.parse_args()
    domain = load_domain(args.domain)
    golds = gold_documents(DATA / DOCRED, args.limit)
    with use_type_weights(HAND_WEIGHTS), traced_cues() as trace:
        Pipeline(domain).corpus(golds, BATCH)
    examples = [x for doc in cue_examples(golds, trace, domain) for x in doc]
    weights = fit_type_weights(examples, strength=args.strength)
    record = {"fitted_on": f"Re-DocRED dev revised, {len(golds)} documents, gold entity types",
              "model": "conditional logit over the voted types (kgkit.extractors.offline.fitted.fit_type_weights)",
              "domain": domain.id, "mentions": len(examples), "strength": args.strength,
              "training_agreement": {"hand": round(type_vote_accuracy(examples, HAND_WEIGHTS), 4),
                                     "fitted": round(type_vote_accuracy(examples, weights), 4)},
              "weights": dict(sorted(weights.items()))}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(weights)} weights from {len(examples)} mentions; training agreement "
          f"{record['training_agreement']}")


if __name__ == "__main__":
    main()
