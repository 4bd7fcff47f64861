"""Entity-resolution benchmarks (issues 5 and 14): quality against ground truth, what the policy guards hold
back, the near-miss trap set, and candidate-generation time.

    .venv/bin/python bench/bench_resolve.py             # all parts; prints a markdown section for RESULTS.md
    .venv/bin/python bench/bench_resolve.py --parts ab  # (a) synthetic sift-kg extractions vs sift-kg 0.9.0
                                                        # (b) PATSTAT + FEBRL vs a rapidfuzz baseline
                                                        # (c) candidate generation time, 10k / 100k entities
                                                        # (d) the near-miss trap set (tests/data/near_miss_pairs.csv)
    .venv/bin/python bench/bench_resolve_learned.py     # the learned scorer on every set, held out by data set

Needs ../shared (the generator and the ER data sets) for (a)-(c); they are skipped with a message when it is
absent. sift-kg runs from its own venv (SIFTKG_VENV, default /tmp/siftkg-venv) when present, else its column is
left out. (a) and (b) also score kgkit with the policy guards off (ResolveConfig(guards=False),
Policy(guards=False)): the difference is what the guards leave to a person.

Scoring. kgkit: build the graph (exact-id merge), merge_candidates -> decide (default policy) ->
apply_decisions; each input name lands in the entity its id maps to. B-cubed precision/recall per item;
pairwise P/R/F1 over item pairs. For the synthetic set, items are the distinct (type, surface name) keys
of truth.json, and a surface name may denote several real entities (a surname shared by many people), so
B-cubed is the extended form (Amigo et al. 2009): two items are correct together when their truth sets
intersect. sift-kg is scored the same way, from its own build-time pre-dedup (sift_kg.graph.prededup).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"
SIFT_VENV = Path("/tmp/siftkg-venv")

SIFT_MAP = r"""
import json, sys
from pathlib import Path
from sift_kg.graph.builder import _make_entity_id, load_extractions
from sift_kg.graph.prededup import prededup_entities
ex = load_extractions(Path(sys.argv[1]))
cmap = prededup_entities(ex)
out = {}
for d in ex:
    for e in d.entities:
        out[f"{e.entity_type}|{e.name}"] = _make_entity_id(cmap.get((e.entity_type, e.name), e.name), e.entity_type)
print(json.dumps(out))
"""


# --------------------------------------------------------------------------- metrics


def bcubed(items: list[tuple[str, frozenset[str]]]) -> tuple[float, float]:
    """Extended B-cubed over (predicted cluster, truth label set) items."""
    by_cluster: dict[str, list[frozenset[str]]] = defaultdict(list)
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, (cl, labels) in enumerate(items):
        by_cluster[cl].append(labels)
        for lab in labels:
            by_label[lab].append(i)
    p = r = 0.0
    for cl, labels in items:
        mates = by_cluster[cl]
        p += sum(1 for m in mates if m & labels) / len(mates)
        related = {j for lab in labels for j in by_label[lab]}
        r += sum(1 for j in related if items[j][0] == cl) / len(related)
    return p / len(items), r / len(items)


def pairwise(pred: list[str], truth: list[str]) -> tuple[float, float]:
    """Pairwise precision / recall of a clustering (single truth label per item)."""
    def pairs(counts: Counter) -> int:
        return sum(n * (n - 1) // 2 for n in counts.values())
    tp = pairs(Counter(zip(pred, truth)))
    pp, tt = pairs(Counter(pred)), pairs(Counter(truth))
    return (tp / pp if pp else 1.0), (tp / tt if tt else 1.0)


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def row(name: str, p: float, r: float) -> str:
    return f"| {name} | {p:.3f} | {r:.3f} | {f1(p, r):.3f} |"


# --------------------------------------------------------------------------- kgkit


def kgkit_resolve(graph, *, embedder=None, config=None, guards: bool = True) -> tuple[dict[str, str], dict[str, float]]:
    """entity id -> final id after the default policy, and timings (the candidates under "candidate_list").
    `guards=False`: the policy guards off (ResolveConfig(guards=False), Policy(guards=False))."""
    from kgkit.stages.resolve import Policy, ResolveConfig, apply_decisions, decide, merge_candidates

    t0 = time.perf_counter()
    config = (config or ResolveConfig()).replace(guards=guards)
    cands = merge_candidates(graph, embedder=embedder, config=config)
    t1 = time.perf_counter()
    decisions = decide(cands, policy=Policy(guards=guards), at="2026-01-01T00:00:00+00:00")
    out = apply_decisions(graph, decisions)
    t2 = time.perf_counter()
    stats = {"candidates_s": t1 - t0, "apply_s": t2 - t1, "candidates": len(cands),
             "merges": sum(d.kind == "merge" for d in decisions),
             "ambiguous": sum(c.verdict == "ambiguous" for c in cands), "candidate_list": cands}
    return out.mapping, stats


def policy_clusters(cands) -> dict[str, str]:
    """entity id -> cluster id from the default policy's merges on these candidates (union-find, no apply)."""
    from kgkit.stages.resolve import decide

    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for d in decide(cands, at="2026-01-01T00:00:00+00:00"):
        if d.kind == "merge" and d.verdict == "accept" and find(d.subjects[0]) != find(d.subjects[1]):
            parent[find(d.subjects[0])] = find(d.subjects[1])
    return {x: find(x) for x in parent}


def names_graph(rows: list[tuple[str, str]]):
    """A graph whose entities are the given (name, type) rows, one document per row (the real build stage)."""
    from kgkit.core.domain import parse_domain
    from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, TextExtraction
    from kgkit.stages.build import build_graph

    types = sorted({t for _, t in rows} | {"Person", "Organization", "Other"})
    dom = parse_domain("name: bench\nentity_types: {" + ", ".join(f"{t}: x" for t in types) + "}")
    docs = []
    for i, (name, typ) in enumerate(rows):
        ext = TextExtraction(extractor_id="bench", quality="imported", entities=(ExtractedEntity(name=name, type=typ),))
        docs.append(DocumentExtraction(document_id=f"r{i}", path=f"r{i}", chunks=(
            ChunkExtraction(chunk_id=f"r{i}#0", document_id=f"r{i}", extraction=ext),)))
    return build_graph(docs, domain=dom)


def read_siftkg(folder: Path):
    """sift-kg 0.9.0 extraction JSON -> kgkit DocumentExtractions (until kgkit.io.importers lands)."""
    from kgkit.core.records import (
        ChunkExtraction,
        DocumentExtraction,
        ExtractedEntity,
        ExtractedRelation,
        TextExtraction,
    )

    docs = []
    for path in sorted(folder.glob("*.json")):
        d = json.loads(path.read_text())
        if d.get("error"):
            continue
        types = {e["name"]: e["entity_type"] for e in d["entities"]}
        types.update({e["name"].lower(): e["entity_type"] for e in d["entities"]})
        ents = tuple(ExtractedEntity(name=e["name"], type=e["entity_type"], confidence=e["confidence"]) for e in d["entities"])
        rels = tuple(ExtractedRelation(source=r["source_entity"], target=r["target_entity"], type=r["relation_type"],
                                       source_type=types.get(r["source_entity"], types.get(r["source_entity"].lower(), "Other")),
                                       target_type=types.get(r["target_entity"], types.get(r["target_entity"].lower(), "Other")),
                                       confidence=r["confidence"], evidence=r["evidence"]) for r in d["relations"])
        ext = TextExtraction(extractor_id="sift-kg", quality="imported", entities=ents, relations=rels)
        docs.append(DocumentExtraction(document_id=d["document_id"], path=d["document_path"], chunks=(
            ChunkExtraction(chunk_id=d["document_id"] + "#0", document_id=d["document_id"], extraction=ext),)))
    return docs


# --------------------------------------------------------------------------- parts


def part_a(work: Path) -> list[str]:
    from kgkit.core.domain import parse_domain
    from kgkit.core.names import entity_id
    from kgkit.stages.build import build_graph

    out = work / "n2000"
    if not (out / "truth.json").exists():
        subprocess.run([sys.executable, str(SHARED / "bench" / "gen_extractions.py"), "--n", "2000", "--out", str(out)],
                       check=True, capture_output=True)
    truth = json.loads((out / "truth.json").read_text())["surface_to_truth"]
    docs = read_siftkg(out / "extractions")
    dom = parse_domain("name: sift\nentity_types: {PERSON: a, ORGANIZATION: b, LOCATION: c, EVENT: d, Person: a, "
                       "Organization: b, Other: c}")
    t0 = time.perf_counter()
    graph = build_graph(docs, domain=dom)
    build_s = time.perf_counter() - t0
    mapping, stats = kgkit_resolve(graph)
    keys = sorted(truth)
    labels = [frozenset(truth[k]) for k in keys]

    def kg_cluster(k: str) -> str:
        typ, name = k.split("|", 1)
        eid = entity_id(typ, name)
        return mapping.get(eid, eid)

    lines = ["### (a) Synthetic extractions, gen_extractions.py --n 2000 (seed 7), vs sift-kg 0.9.0", "",
             f"{len(docs)} documents, {len(graph.entities)} entities after the exact-id build ({build_s:.1f} s), "
             f"{len(keys)} distinct (type, surface) names scored, {len({t for v in truth.values() for t in v})} real "
             f"entities. kgkit: {stats['candidates']} candidates ({stats['ambiguous']} ambiguous) in "
             f"{stats['candidates_s']:.1f} s, {stats['merges']} merges by the default policy, decide + apply "
             f"{stats['apply_s']:.1f} s.", "",
             "| system | B-cubed P | B-cubed R | F1 |", "|---|---|---|---|"]
    kp, kr = bcubed([(kg_cluster(k), lab) for k, lab in zip(keys, labels)])
    lines.append(row("kgkit (default policy)", kp, kr))
    only = [i for i, lab in enumerate(labels) if len(lab) == 1]
    sift_python = Path(__import__("os").environ.get("SIFTKG_VENV", SIFT_VENV)) / "bin" / "python"
    if sift_python.exists():
        t0 = time.perf_counter()
        res = subprocess.run([str(sift_python), "-c", SIFT_MAP, str(out / "extractions")], capture_output=True,
                             text=True, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PATH": "/usr/bin:/bin"})
        sift_s = time.perf_counter() - t0
        if res.returncode == 0:
            sift = json.loads(res.stdout)
            sp, sr = bcubed([(sift.get(k, k), lab) for k, lab in zip(keys, labels)])
            lines.append(row(f"sift-kg 0.9.0 build pre-dedup ({sift_s:.0f} s incl. start-up)", sp, sr))
            up, ur = bcubed([(sift.get(keys[i], keys[i]), labels[i]) for i in only])
            lines.append(row("sift-kg, unambiguous names only", up, ur))
        else:
            lines.append(f"| sift-kg | failed: {res.stderr.strip().splitlines()[-1][:120]} | | |")
    else:
        lines.append("| sift-kg | not run (no venv at SIFTKG_VENV) | | |")
    up, ur = bcubed([(kg_cluster(keys[i]), labels[i]) for i in only])
    lines.append(row("kgkit, unambiguous names only", up, ur))
    loose, _ = kgkit_resolve(graph, guards=False)
    lines.append(row("kgkit, policy guards off", *bcubed([(loose.get(entity_id(*k.split("|", 1)), entity_id(*k.split("|", 1))), lab)
                                                          for k, lab in zip(keys, labels)])))
    lines.append(row("kgkit, policy guards off, unambiguous names only", *bcubed(
        [(loose.get(entity_id(*keys[i].split("|", 1)), entity_id(*keys[i].split("|", 1))), labels[i]) for i in only])))
    exact = policy_clusters([c for c in stats["candidate_list"] if c.step == "exact"])
    ep, er = bcubed([(exact.get(entity_id(*k.split("|", 1)), entity_id(*k.split("|", 1))), lab)
                     for k, lab in zip(keys, labels)])
    lines.append(row("kgkit, exact step only (no fuzzy merge)", ep, er))
    # two ceilings from the truth itself: every name that denotes one entity put with it, and a name that
    # denotes several either kept apart or put with one of them (extended B-cubed counts either as right)
    apart = bcubed([(sorted(lab)[0] if len(lab) == 1 else "several:" + k, lab) for k, lab in zip(keys, labels)])
    lines.append(row("ceiling: every one-entity name resolved, many-entity names kept apart", *apart))
    lines.append(row("ceiling: ... and each many-entity name put with one of its entities", *bcubed(
        [(sorted(lab)[0], lab) for lab in labels])))
    lines += ["", f"\"Unambiguous names only\": the {len(only)} of {len(keys)} names that denote exactly one real "
              "entity (B-cubed over those items alone). The ceilings are computed from truth.json, not by a resolver."]
    return lines


def _patstat() -> tuple[list[str], list[str]]:
    import csv

    with open(SHARED / "data" / "er" / "dedupe_examples" / "patstat_reference.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [r["person_name"] for r in rows], [r["leuven_id"] for r in rows]


def _febrl(name: str) -> tuple[list[str], list[str]]:
    import pandas as pd

    df = pd.read_csv(SHARED / "data" / "er" / "febrl" / name, skipinitialspace=True, dtype=str, index_col="rec_id")
    names = (df["given_name"].fillna("") + " " + df["surname"].fillna("")).str.strip()
    ent = df.index.to_series().str.extract(r"rec-(\d+)-")[0]
    return names.tolist(), ent.tolist()


def _baseline(names: list[str], threshold: float) -> list[str]:
    """Plain rapidfuzz: token-sort ratio on normalised names >= threshold, connected components."""
    import numpy as np
    from rapidfuzz import fuzz, process

    from kgkit.core.names import normalise_name

    uniq = sorted({normalise_name(n) for n in names})
    parent = list(range(len(uniq)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for lo in range(0, len(uniq), 1000):
        sims = process.cdist(uniq[lo : lo + 1000], uniq, scorer=fuzz.token_sort_ratio, score_cutoff=threshold, workers=1)
        for i, j in zip(*np.nonzero(sims)):
            a, b = find(lo + int(i)), find(int(j))
            if a != b:
                parent[a] = b
    pos = {u: i for i, u in enumerate(uniq)}
    return [str(find(pos[normalise_name(n)])) for n in names]


def part_b() -> list[str]:
    from kgkit.core.names import entity_id

    lines = ["### (b) Real name variants: PATSTAT organisations and FEBRL people, vs a rapidfuzz baseline", "",
             "| data set | system | B-cubed P | B-cubed R | B-cubed F1 | pairwise P | pairwise R | pairwise F1 |",
             "|---|---|---|---|---|---|---|---|"]
    sets = [("PATSTAT (2,379 names, 102 entities)", _patstat, "Organization")]
    sets += [(f"FEBRL {n} (given + surname only)", lambda n=n: _febrl(n), "Person")
             for n in ("dataset1.csv", "dataset2.csv", "dataset3.csv")]
    errors: list[str] = []
    febrl_errors: list[str] = []
    for label, load, typ in sets:
        names, truth = load()
        t0 = time.perf_counter()
        graph = names_graph([(n, typ) for n in names])
        mapping, _stats = kgkit_resolve(graph)
        secs = time.perf_counter() - t0
        pred = [mapping.get(entity_id(typ, n), entity_id(typ, n)) for n in names]
        systems = [(f"kgkit defaults ({secs:.1f} s)", pred)]
        off, _ = kgkit_resolve(graph, guards=False)
        systems.append(("kgkit, policy guards off", [off.get(entity_id(typ, n), entity_id(typ, n)) for n in names]))
        if label.startswith("PATSTAT"):
            from kgkit.stages.resolve import ResolveConfig

            loose, _ = kgkit_resolve(graph, config=ResolveConfig(rule_legal_form_differs=0.93))
            systems.append(("kgkit, legal forms as variants (rule_legal_form_differs=0.93)",
                            [loose.get(entity_id(typ, n), entity_id(typ, n)) for n in names]))
        systems += [(f"rapidfuzz token-sort >= {t}", _baseline(names, t)) for t in (85, 90)]
        for system, clusters in systems:
            bp, br = bcubed([(c, frozenset([t])) for c, t in zip(clusters, truth)])
            pp, pr = pairwise(clusters, truth)
            lines.append(f"| {label} | {system} | {bp:.3f} | {br:.3f} | {f1(bp, br):.3f} | {pp:.3f} | {pr:.3f} | {f1(pp, pr):.3f} |")
        if label.startswith("PATSTAT"):
            errors = _patstat_errors(names, truth, systems[2][1])
        if label.startswith("FEBRL dataset3"):
            febrl_errors = _febrl_errors(names, truth, pred)
    return [*lines, "", *errors, "", *febrl_errors]


def _febrl_kind(a: str, b: str) -> str:
    """What separates two names of one FEBRL person (match keys, word by word)."""
    from rapidfuzz.distance import OSA

    from kgkit.stages.resolve.keys import match_key

    ta, tb = match_key(a, "Person").split(), match_key(b, "Person").split()
    if len(ta) != len(tb):
        return "a space added or lost" if "".join(ta) == "".join(tb) else "a word missing or split"
    if sorted(ta) == sorted(tb):
        return "words swapped"
    straight = sum(OSA.distance(x, y) for x, y in zip(ta, tb))
    swapped = sum(OSA.distance(x, y) for x, y in zip(ta, tb[::-1])) if len(ta) == 2 else straight + 1
    edits = [OSA.distance(x, y) for x, y in zip(ta, tb if straight <= swapped else tb[::-1])]
    order = "" if straight <= swapped else "swapped, "
    if any(e > 2 and e >= 0.5 * max(len(x), len(y)) for e, x, y in zip(edits, ta, tb)):
        return "a word replaced (another name)"
    return order + ("one slip" if sum(edits) == 1 else "slips in both words" if sum(e > 0 for e in edits) > 1
                    else "two or more slips in one word")


def _febrl_errors(names: list[str], truth: list[str], pred: list[str]) -> list[str]:
    """True pairs (same person, different names) kgkit keeps apart, by what separates them, and how many of
    them the rapidfuzz baseline (token sort >= 85) links directly."""
    from itertools import combinations

    from rapidfuzz import fuzz

    from kgkit.core.names import normalise_name

    by_truth: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for n, t, p in zip(names, truth, pred):
        by_truth[t].add((n, p))
    missed: Counter = Counter()
    baseline: Counter = Counter()
    total = 0
    for members in by_truth.values():
        for (a, pa), (b, pb) in combinations(sorted(members), 2):
            if a == b:
                continue
            total += 1
            if pa != pb:
                kind = _febrl_kind(a, b)
                missed[kind] += 1
                baseline[kind] += fuzz.token_sort_ratio(normalise_name(a), normalise_name(b)) >= 85
    out = [f"FEBRL dataset3 error analysis (kgkit defaults): of {total:,} true pairs of distinct names, "
           f"{sum(missed.values()):,} are kept apart; by what separates them (pairs; of them linked directly by "
           "rapidfuzz token-sort >= 85):", ""]
    out += [f"- {kind}: {n:,} ({baseline[kind]:,})" for kind, n in missed.most_common()]
    return out


def _patstat_errors(names: list[str], truth: list[str], pred: list[str]) -> list[str]:
    """The largest recall losses: true entities split over several kgkit clusters (with example names)."""
    by_truth: dict[str, Counter] = defaultdict(Counter)
    example: dict[tuple[str, str], str] = {}
    for n, t, p in zip(names, truth, pred):
        by_truth[t][p] += 1
        example.setdefault((t, p), n)
    split = sorted(by_truth.items(), key=lambda kv: -(sum(kv[1].values()) - max(kv[1].values())))
    out = ["PATSTAT error analysis (kgkit, legal forms as variants): largest splits, i.e. names outside the true "
           "entity's biggest kgkit cluster / all its names, with examples:", ""]
    for t, counts in split[:6]:
        total, biggest = sum(counts.values()), counts.most_common(1)[0]
        others = [example[(t, p)] for p, _ in counts.most_common()[1:4]]
        out.append(f"- {example[(t, biggest[0])]!r}: {total - biggest[1]} / {total} elsewhere, e.g. {others}")
    size, together = Counter(truth), Counter(zip(pred, truth))
    loss: Counter = Counter()
    for t, p in zip(truth, pred):
        loss[t] += (1 - together[(p, t)] / size[t]) / len(truth)
    first = {t: n for n, t in reversed(list(zip(names, truth)))}
    out.append(f"- B-cubed recall lost: {sum(loss.values()):.3f} in all; by true entity: " + ", ".join(
        f"{first[t]!r} ({size[t]} names) {v:.3f}" for t, v in loss.most_common(4)))
    mixed = defaultdict(set)
    for t, p in zip(truth, pred):
        mixed[p].add(t)
    impure = [(p, ts) for p, ts in mixed.items() if len(ts) > 1]
    out.append(f"- clusters mixing true entities: {len(impure)}")
    return out


def part_c() -> list[str]:
    import importlib.util
    import os

    from kgkit.core.names import entity_id
    from kgkit.stages.embed import HashingEmbedder
    from kgkit.stages.resolve import merge_candidates

    spec = importlib.util.spec_from_file_location("gen", SHARED / "bench" / "gen_extractions.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)  # type: ignore[union-attr]
    load = os.getloadavg()[0]
    lines = ["### (c) Candidate generation time (lexical path: exact + rules + entropy-gated LSH, no graph features)", "",
             f"Names drawn from gen_extractions.py's pools (one variant per real entity, distinct entity ids). "
             f"Wall and process CPU time on the shared 2-core machine (load average {load:.1f} when the run began; "
             f"other sessions were running).", "",
             "| entities | wall | CPU | candidates | + HashingEmbedder neighbour step (wall) |", "|---|---|---|---|---|"]
    for n in (10_000, 100_000):
        rng = random.Random(11)
        pool = gen.build_pool(int(n * 3), rng)
        rows, seen = [], set()
        for e in pool:
            forms, weights = zip(*e["variants"])
            name = rng.choices(forms, weights)[0]
            if entity_id(e["type"], name) not in seen:
                seen.add(entity_id(e["type"], name))
                rows.append((name, e["type"]))
            if len(rows) == n:
                break
        graph = names_graph(rows)
        t0, c0 = time.perf_counter(), time.process_time()
        cands = merge_candidates(graph, use_graph=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        embedded = "-"
        if n <= 10_000:
            t0 = time.perf_counter()
            merge_candidates(graph, use_graph=False, embedder=HashingEmbedder())
            embedded = f"{time.perf_counter() - t0:.1f} s"
        lines.append(f"| {len(graph.entities):,} | {wall:.1f} s | {cpu:.1f} s | {len(cands):,} | {embedded} |")
    return [*lines, "", f"Load average (1 min) when part (c) ended: {os.getloadavg()[0]:.1f}."]


def part_d() -> list[str]:
    """The near-miss trap set: one graph holding both names of every pair (one document per pair, both linked
    to one shared neighbour), the default cascade and policy; with the guards on and off."""
    import csv

    from kgkit.core.domain import parse_domain
    from kgkit.core.names import entity_id
    from kgkit.core.records import (
        ChunkExtraction,
        DocumentExtraction,
        ExtractedEntity,
        ExtractedRelation,
        TextExtraction,
    )
    from kgkit.stages.build import build_graph
    from kgkit.stages.resolve import Policy, ResolveConfig, decide, merge_candidates, pending

    with (ROOT / "tests" / "data" / "near_miss_pairs.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    shared = {"Location": "Gazetteer", "Person": "Biographical Dictionary", "Organization": "Register of Bodies",
              "Event": "Chronicle of Events"}
    dom = parse_domain("name: traps\nentity_types: {Location: a, Person: b, Organization: c, Event: d, Topic: e, "
                       "Other: f}\nrelation_types: {DESCRIBED_IN: {description: x}}")
    docs = []
    for i, r in enumerate(rows):
        a, b, t, s = r["name_a"], r["name_b"], r["type"], shared[r["type"]]
        ext = TextExtraction(extractor_id="bench", quality="imported",
                             entities=(ExtractedEntity(name=a, type=t), ExtractedEntity(name=b, type=t),
                                       ExtractedEntity(name=s, type="Topic")),
                             relations=tuple(ExtractedRelation(source=x, source_type=t, type="DESCRIBED_IN", target=s,
                                                               target_type="Topic", confidence=0.6, evidence=x)
                                             for x in (a, b)))
        docs.append(DocumentExtraction(document_id=f"p{i}", path=f"p{i}", chunks=(
            ChunkExtraction(chunk_id=f"p{i}#0", document_id=f"p{i}", extraction=ext),)))
    graph = build_graph(docs, domain=dom)
    pairs = [(r["category"], frozenset((entity_id(r["type"], r["name_a"]), entity_id(r["type"], r["name_b"]))))
             for r in rows]
    lines = ["### (d) Near-miss trap set (tests/data/near_miss_pairs.csv): distinct real things with close names", "",
             f"{len(rows)} pairs ({', '.join(f'{k} {v}' for k, v in sorted(Counter(c for c, _ in pairs).items()))}); "
             f"one graph of {len(graph.entities)} entities holds both names of every pair.", "",
             "| policy | merges in the graph | trap pairs merged | trap pairs pending for a person |", "|---|---|---|---|"]
    for label, guards in (("default (guards on)", True), ("guards off", False)):
        cands = merge_candidates(graph, config=ResolveConfig(guards=guards))
        decisions = decide(cands, policy=Policy(guards=guards), at="2026-01-01T00:00:00+00:00")
        merged = {frozenset(d.subjects) for d in decisions if d.kind == "merge"}
        waiting = {frozenset((c.source, c.target)) for c in pending(cands, decisions)}
        hit = Counter(c for c, p in pairs if p in merged)
        lines.append(f"| {label} | {len(merged)} | {sum(hit.values())} ({', '.join(f'{k} {v}' for k, v in sorted(hit.items())) or '-'}) "
                     f"| {sum(p in waiting for _, p in pairs)} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="abcd")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kgkit-bench-resolve")
    args = ap.parse_args()
    lines = ["## Entity resolution", ""]
    if not SHARED.is_dir():
        print(f"skipped (a)-(c): {SHARED} is absent (the generator and the ER data sets live there)", file=sys.stderr)
        args.parts = "".join(p for p in args.parts if p == "d")
    args.work.mkdir(parents=True, exist_ok=True)
    for part, fn in (("a", lambda: part_a(args.work)), ("b", part_b), ("c", part_c), ("d", part_d)):
        if part in args.parts:
            lines += [*fn(), ""]
            print("\n".join(lines), flush=True, file=sys.stderr)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
