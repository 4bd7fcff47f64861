"""Issue 14: the learned pair scorer on every shared ER set at once, held out by data set, against a
rapidfuzz token-sort baseline swept over 75-95 in the same run.

    .venv/bin/python bench/bench_resolve_learned.py            # prints a markdown section for RESULTS.md
    .venv/bin/python bench/bench_resolve_learned.py --fit-prior # prints the weights of the shipped prior

Data sets (../shared): PATSTAT (organisation names; context: co-authors and IPC classes of each row, as
graph neighbours), FEBRL 1-3 (given name + surname; context: date of birth, postcode and suburb as graph
neighbours), the synthetic n2000 extractions (their own relations). For each set the model is fitted on the
OTHER sets' candidates (leave one data set out) and never on the set it is scored on. Candidates are the
cascade's (merge_candidates, defaults); labels come from the truth files (a pair is true when the two
entities denote the same things). Reported per set: the calibration of the held-out probabilities (reliability
table), B-cubed P/R/F1 of the policy with min_probability (guards on) next to the default score policy and
the baseline's best threshold, and the review load: a simulated person decides candidates (batches of 50) in
three orders — uncertainty (closest to 0.5 first), likely merges first, kgkit's own (decisions.pending, with
the candidates regroup.kept_apart_candidates adds after a person's keep-aparts) — the model is updated from
those decisions after each batch (update_model), until the target is reached (or the budget runs out);
groups are formed as apply forms them (a merge joining two entities kept apart is skipped). For n2000 kgkit's
order runs in batches of 200 up to --n2000-budget and its decisions -> P / R curve is printed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_resolve import SHARED, _baseline, bcubed, f1, read_siftkg  # noqa: E402

AT = "2026-01-01T00:00:00+00:00"


def context_graph(rows: list[tuple[str, str, list[tuple[str, str, str]]]]):
    """A graph of one document per row: the row's (name, type) and its context (relation, target name, target
    type) as related entities (the real build stage)."""
    from kgkit.core.domain import parse_domain
    from kgkit.core.records import (
        ChunkExtraction,
        DocumentExtraction,
        ExtractedEntity,
        ExtractedRelation,
        TextExtraction,
    )
    from kgkit.stages.build import build_graph

    types = sorted({t for _, t, _ in rows} | {tt for _, _, ctx in rows for _, _, tt in ctx} | {"Person", "Organization", "Other"})
    rels = sorted({r for _, _, ctx in rows for r, _, _ in ctx}) or ["RELATED"]
    dom = parse_domain("name: bench\nentity_types: {" + ", ".join(f"{t}: x" for t in types) + "}\nrelation_types: {"
                       + ", ".join(f"{r}: {{description: x}}" for r in rels) + "}")
    docs = []
    for i, (name, typ, ctx) in enumerate(rows):
        ents = [ExtractedEntity(name=name, type=typ)] + [ExtractedEntity(name=n, type=t) for _, n, t in ctx]
        rel = tuple(ExtractedRelation(source=name, source_type=typ, type=r, target=n, target_type=t, confidence=0.9,
                                      evidence=name) for r, n, t in ctx)
        ext = TextExtraction(extractor_id="bench", quality="imported", entities=tuple(ents), relations=rel)
        docs.append(DocumentExtraction(document_id=f"r{i}", path=f"r{i}", chunks=(
            ChunkExtraction(chunk_id=f"r{i}#0", document_id=f"r{i}", extraction=ext),)))
    return build_graph(docs, domain=dom)


def load_patstat():
    folder = SHARED / "data/er/dedupe_examples"
    ref = {r["person_id"]: r for r in csv.DictReader((folder / "patstat_reference.csv").read_text().splitlines())}
    rows, truth = [], []
    for r in csv.DictReader((folder / "patstat_input.csv").read_text().splitlines()):
        name = ref[r["person_id"]]["person_name"]
        ctx = [("CO_APPLICANT", c.strip(), "Other") for c in r["Coauthor"].split("**") if c.strip()]
        ctx += [("IPC_CLASS", c.strip(), "Topic") for c in r["Class"].split("**") if c.strip()]
        rows.append((name, "Organization", ctx))
        truth.append(ref[r["person_id"]]["leuven_id"])
    return rows, truth


def load_febrl(name: str):
    import pandas as pd

    df = pd.read_csv(SHARED / "data/er/febrl" / name, skipinitialspace=True, dtype=str, index_col="rec_id").fillna("")
    rows, truth = [], []
    for rec, r in df.iterrows():
        ctx = [(rel, v, t) for rel, v, t in (("BORN_ON", r["date_of_birth"], "Date"), ("POSTCODE", r["postcode"], "Place"),
                                              ("SUBURB", r["suburb"], "Place")) if v]
        rows.append((f"{r['given_name']} {r['surname']}".strip(), "Person", ctx))
        truth.append(rec.split("-")[1])
    return rows, truth


def load_n2000(work: Path):
    from kgkit.core.domain import parse_domain
    from kgkit.core.names import entity_id
    from kgkit.stages.build import build_graph

    out = work / "n2000"
    if not (out / "truth.json").exists():
        subprocess.run([sys.executable, str(SHARED / "bench" / "gen_extractions.py"), "--n", "2000", "--out", str(out)],
                       check=True, capture_output=True)
    truth = json.loads((out / "truth.json").read_text())["surface_to_truth"]
    dom = parse_domain("name: sift\nentity_types: {PERSON: a, ORGANIZATION: b, LOCATION: c, EVENT: d, Person: a, "
                       "Organization: b, Other: c}")
    graph = build_graph(read_siftkg(out / "extractions"), domain=dom)
    items = [(entity_id(*k.split("|", 1)), frozenset(v)) for k, v in truth.items()]
    return graph, items, [k.split("|", 1)[1] for k in truth]


class Case:
    """One data set: its graph, the items scored (entity id, truth labels), its candidates and their labels."""

    def __init__(self, label: str, graph, items: list[tuple[str, frozenset[str]]], names: list[str], one_entity: bool):
        from kgkit.stages.resolve import merge_candidates
        from kgkit.stages.resolve.learned import context_candidates, feature_matrix, pair_context

        self.label, self.graph, self.items, self.names, self.one_entity = label, graph, items, names, one_entity
        t0 = time.process_time()
        ids = {e for e, _ in items}
        cands = merge_candidates(graph)
        item_types = set(graph.entities[graph.entities["id"].isin(ids)]["type"])
        cands += context_candidates(graph, cands, types=item_types)
        # only pairs of scored items (co-authors, dates and places are context, not items)
        self.cands = sorted((c for c in cands if c.source in ids and c.target in ids), key=lambda c: (c.source, c.target))
        self.ctx = pair_context(graph)
        self.x = feature_matrix(self.cands, self.ctx)
        self.cpu = time.process_time() - t0
        from kgkit.stages.resolve import Policy

        self.person_only = [Policy().person_only(c) for c in self.cands]  # guarded, context-only, types differ
        lab: dict[str, set[str]] = defaultdict(set)
        for eid, labels in items:
            lab[eid] |= labels
        # the simulated person says "merge" only when the two names denote the same entities: "Smith" (several
        # people) and "Jane Smith" share one, but merging them would put every Smith together
        self.lab = lab
        self.y = np.array([self.same(c.source, c.target) for c in self.cands])

    def same(self, a: str, b: str) -> int:
        """1 when the two entities denote the same things (the simulated person's answer), else 0."""
        return int(a in self.lab and self.lab[a] == self.lab.get(b))

    def score(self, mapping: dict[str, str]) -> tuple[float, float]:
        items = self.items
        if self.one_entity:
            items = [(e, lab) for e, lab in items if len(lab) == 1]
        return bcubed([(mapping.get(e, e), lab) for e, lab in items])


def apply_groups(decisions) -> dict[str, str]:
    """Entity -> group, as apply.apply_decisions joins them: person merges first, then the others best score
    first; a merge that would join two entities someone keeps apart is skipped."""
    parent: dict[str, str] = {}
    apart: dict[str, set[str]] = defaultdict(set)  # group root -> entities kept apart from it

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for d in decisions:
        if d.kind == "keep_apart" and d.verdict == "accept":
            a, b = d.subjects
            apart[a].add(b)
            apart[b].add(a)
    merges = [d for d in decisions if d.kind == "merge" and d.verdict == "accept"]
    merges.sort(key=lambda d: (d.decided_by != "person", -(d.score or 0.0), d.id))
    for d in merges:
        ra, rb = find(d.subjects[0]), find(d.subjects[1])
        if ra == rb or any(find(x) == rb for x in apart.get(ra, ())):
            continue
        parent[ra] = rb
        if ra in apart:
            apart[rb] |= apart.pop(ra)
    return {x: find(x) for x in list(parent)}


def clusters(case: Case, model, min_probability: float, person: dict[int, int], cands=None) -> dict[str, str]:
    """Policy merges at min_probability (guards on) plus a person's merges; a person's keep-apart wins, and a
    merge that would join two entities kept apart is skipped (as apply does)."""
    from kgkit.stages.resolve import Policy, decide, person_decision
    from kgkit.stages.resolve.learned import score_candidates

    cands = case.cands if cands is None else cands
    scored = score_candidates(cands, None, model, context=case.ctx) if model is not None else cands
    decisions = [person_decision("merge" if y else "keep_apart", (cands[i].source, cands[i].target), at=AT)
                 for i, y in person.items()]
    policy = Policy(min_probability=min_probability) if model is not None else Policy()
    return apply_groups(decide(scored, decisions=decisions, policy=policy, at=AT))


def review_load(case: Case, prior, min_probability: float, reached, budget: int, batch: int = 50,
                order_by: str = "uncertainty", curve: list | None = None, every: int = 0):
    """Decisions a simulated person makes until reached(P, R) (B-cubed), model updated after each batch;
    (decisions, P, R). order_by: "uncertainty" (closest to 0.5 first), "likely" (most probable first) or
    "mixed" (kgkit's own review order, decisions.pending: decisions.doubt_order — the two in turn,
    uncertainty among the pairs the policy could merge, likely first among those only a person can — with
    the pairs the person's decisions already settle last, and the candidates regroup.kept_apart_candidates
    adds once a person keeps a spelling apart from its exact-key group). `curve` collects (decisions, P, R)
    every `every` decisions."""
    from kgkit.stages.resolve import Policy, person_decision
    from kgkit.stages.resolve.decisions import doubt_order, settled
    from kgkit.stages.resolve.learned import feature_matrix, fit_model
    from kgkit.stages.resolve.regroup import kept_apart_candidates

    person: dict[int, int] = {}
    model = prior
    cands, x, y, only = list(case.cands), case.x, case.y, list(case.person_only)
    while True:
        p, r = case.score(clusters(case, model, min_probability, person, cands))
        if curve is not None and every and (len(person) % every == 0 or reached(p, r)):
            curve.append((len(person), p, r))
        if reached(p, r) or len(person) >= min(budget, len(cands)):
            return len(person), p, r
        probs = model.probability(x)
        if order_by == "mixed":
            mine = [person_decision("merge" if v else "keep_apart", (cands[i].source, cands[i].target), at=AT)
                    for i, v in person.items()]
            done = settled(cands, mine)
            ranked = [i for later in (False, True) for i in (lambda sub: [sub[k] for k in doubt_order(
                probs[sub], [only[j] for j in sub])])([j for j in range(len(cands)) if done[j] == later])]
        else:
            ranked = np.argsort(-probs if order_by == "likely" else np.abs(probs - 0.5), kind="stable").tolist()
        order = [i for i in ranked if int(i) not in person]
        for i in order[:batch]:
            person[int(i)] = int(y[i])
        if order_by == "mixed":
            mine = [person_decision("merge" if v else "keep_apart", (cands[i].source, cands[i].target), at=AT)
                    for i, v in person.items()]
            new = kept_apart_candidates(cands, mine)
            if new:
                cands += new
                x = np.vstack([x, feature_matrix(new, case.ctx)])
                y = np.concatenate([y, [case.same(c.source, c.target) for c in new]])
                only += [Policy().person_only(c) for c in new]
        # as learned.update_model: only answers on pairs the policy could merge teach the model
        rows = sorted(i for i in person if not only[i])
        if not rows:
            continue
        model = fit_model(x[rows], y[rows], prior=prior, strength=1.0)


def main() -> None:
    from kgkit.core.names import entity_id
    from kgkit.stages.resolve.learned import fit_model, reliability

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("/tmp/kgkit-bench-resolve"))
    ap.add_argument("--fit-prior", action="store_true")
    ap.add_argument("--min-probability", type=float, default=0.99)
    ap.add_argument("--budget", type=int, default=1500)
    ap.add_argument("--n2000-budget", type=int, default=15000,
                    help="decisions for n2000 in kgkit's review order (batches of 200; its curve is printed)")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    cases: list[tuple[Case, tuple[float, float], list[str], list[str]]] = []
    rows, truth = load_patstat()
    g = context_graph(rows)
    cases.append((Case("PATSTAT", g, [(entity_id("Organization", n), frozenset([t])) for (n, _, _), t in zip(rows, truth)],
                       [n for n, _, _ in rows], False), (0.95, 0.99), [n for n, _, _ in rows], truth))
    for i in (1, 2, 3):
        rows, truth = load_febrl(f"dataset{i}.csv")
        g = context_graph(rows)
        cases.append((Case(f"FEBRL {i}", g, [(entity_id("Person", n), frozenset([t])) for (n, _, _), t in zip(rows, truth)],
                           [n for n, _, _ in rows], False), (0.0, 0.0), [n for n, _, _ in rows], truth))
    g, items, names = load_n2000(args.work)
    cases.append((Case("n2000 (one-entity names)", g, items, names, True), (0.0, 0.98), [], []))
    # the shipped prior (kgkit/stages/resolve/prior.py): PATSTAT (MIT) and FEBRL (BSD-3 / ANU open source) only
    shipped = [c for c, *_ in cases if not c.label.startswith("n2000")]
    model = fit_model(np.vstack([c.x for c in shipped]), np.concatenate([c.y for c in shipped]))
    print("prior: " + json.dumps(model.to_dict()), file=sys.stderr, flush=True)
    if args.fit_prior:
        print(json.dumps(model.to_dict(), indent=1))
        return
    out = ["### Learned scorer, held out by data set (bench/bench_resolve_learned.py)", "",
           f"Load average {load0:.1f} at the start (2 cores, other sessions running). Policy: min_probability "
           f"{args.min_probability}, guards on. Baseline: rapidfuzz token-sort on normalised names, thresholds "
           "75/80/85/90/95, best F1 shown (chosen on the truth: flatters it).", "",
           "| data set | candidates (true) | default score policy P / R / F1 | learned, held out P / R / F1 | baseline best (threshold) P / R / F1 | review load to target, uncertainty order | likely merges first | kgkit's review order (mixed) |",
           "|---|---|---|---|---|---|---|---|"]
    calib = []
    curves: list[tuple[str, list[tuple[int, float, float]]]] = []
    for k, (case, target, bnames, btruth) in enumerate(cases):
        others = [c for j, (c, *_) in enumerate(cases) if j != k]
        prior = fit_model(np.vstack([c.x for c in others]), np.concatenate([c.y for c in others]))
        dp, dr = case.score(clusters(case, None, 0, {}))
        lp, lr = case.score(clusters(case, prior, args.min_probability, {}))
        base = "-"
        if bnames:
            best = max(((t, bcubed([(c, frozenset([x])) for c, x in zip(_baseline(bnames, t), btruth)])) for t in (75, 80, 85, 90, 95)),
                       key=lambda tp: f1(*tp[1]))
            base = f"{best[1][0]:.3f} / {best[1][1]:.3f} / {f1(*best[1]):.3f} (>= {best[0]})"
            if target == (0.0, 0.0):
                target = (f1(*best[1]) + 0.02, 0.0)
        if case.label.startswith("n2000"):
            def reached(p, r):
                return r >= 0.95 and p >= 0.98
        else:
            def reached(p, r, goal=target):
                return f1(p, r) >= goal[0] and p >= goal[1]
        n, rp, rr = review_load(case, prior, args.min_probability, reached, args.budget)
        met = reached(rp, rr)
        n2, rp2, rr2 = review_load(case, prior, args.min_probability, reached, args.budget, order_by="likely")
        met2 = reached(rp2, rr2)
        if case.label.startswith("n2000"):
            curve: list[tuple[int, float, float]] = []
            n3, rp3, rr3 = review_load(case, prior, args.min_probability, reached, args.n2000_budget, batch=200,
                                       order_by="mixed", curve=curve, every=1000)
            curves.append((case.label, curve))
        else:
            n3, rp3, rr3 = review_load(case, prior, args.min_probability, reached, args.budget, order_by="mixed")
        met3 = reached(rp3, rr3)
        out.append(f"| {case.label} | {len(case.cands):,} ({int(case.y.sum()):,}) | {dp:.3f} / {dr:.3f} / {f1(dp, dr):.3f} | "
                   f"{lp:.3f} / {lr:.3f} / {f1(lp, lr):.3f} | {base} | {n:,} decisions -> {rp:.3f} / {rr:.3f} / "
                   f"{f1(rp, rr):.3f} ({'target met' if met else 'target not met'}) | {n2:,} -> {rp2:.3f} / {rr2:.3f} / "
                   f"{f1(rp2, rr2):.3f} ({'met' if met2 else 'not met'}) | {n3:,} -> {rp3:.3f} / {rr3:.3f} / "
                   f"{f1(rp3, rr3):.3f} ({'met' if met3 else 'not met'}) |")
        probs = prior.probability(case.x)
        calib.append((case.label, reliability(probs, case.y)))
        print("\n".join(out), file=sys.stderr, flush=True)
    out += ["", "Calibration of the held-out probabilities (candidates per bin, mean predicted / observed share true):", "",
            "| data set | " + " | ".join(b for b, *_ in calib[0][1]) + " |", "|---|" + "---|" * len(calib[0][1])]
    for label, table in calib:
        cells = {b: f"{n}: {mp:.2f} / {ob:.2f}" for b, n, mp, ob in table}
        out.append(f"| {label} | " + " | ".join(cells.get(b, "-") for b, *_ in calib[0][1]) + " |")
    for label, curve in curves:
        out += ["", f"{label}, kgkit's review order (batches of 200): decisions -> B-cubed P / R", "",
                "| decisions | " + " | ".join(f"{n:,}" for n, _, _ in curve) + " |", "|---|" + "---|" * len(curve),
                "| P | " + " | ".join(f"{p:.3f}" for _, p, _ in curve) + " |",
                "| R | " + " | ".join(f"{r:.3f}" for _, _, r in curve) + " |"]
    out.append(f"\nLoad average at the end: {os.getloadavg()[0]:.1f}.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
