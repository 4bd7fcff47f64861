"""Incremental ingestion benchmark (issue 18): add one demo-sized document to the demo workspace.

    .venv/bin/python bench/bench_add.py [--out bench/out/add] [--check-spacy]

Sets up (not timed): the demo corpus without three documents of about the average size (1937, 1940, 1938:
17, 19 and 28 KB), a cold `kgkit run` of the other 11 into a workspace, and `kgkit index --embedder hashing`.
Then times, wall clock and CPU (this process's, or the child's for a CLI process):

- `kgkit.add(ws, [1937])` in-process, the first add of the process (spaCy already loaded, as in the MCP server
  or a notebook; the modules an add needs beyond the extractor are imported inside the timing), and
  `kgkit.add(ws, [1940])` in the same process (the steady state of a server). Each new document is extracted for
  real (not in the cache); graph, communities, view and search index are brought up to date;
- `kgkit add 1938 -w ws` as a fresh CLI process (interpreter, imports, spaCy's import and model load included);
- the peer: a full `kgkit run` of the same 14 documents (warm: every chunk comes from the cache), and checks that
  graph.json, communities.json and extractions.jsonl are byte-identical to the incremental result;
- `kgkit add --remove 1938` (a retraction, CLI), checked: relations expired, still there before its time.

Also counted: the community layouts each add computed (new `force_layout` entries in the workspace's cache: the
view lays out again only communities whose subgraph changed) and whether the CLI add read the gazetteer from the
cache; graph.html is checked byte-identical to the full run's and to one drawn without any layout cache.

`--check-spacy` also parses every chunk of the demo corpus (268) in three processes, one importing spaCy as a
library does (thinc with torch), one as the CLI does (KGKIT_SPACY_WITHOUT_TORCH=1), and one as the CLI does but
loading the pipeline with `spacy.load` itself (not kgkit's `load_pipeline`, which skips building the default
tokenizer), and compares spaCy's annotations (tokens, tags, POS, lemmas, morphology, dependencies, heads,
entities, sentence starts), the tokenizer's bytes, the vocabulary's strings and the offline extractor's output:
they must be identical.

Prints one JSON document and a table. Target: adding one document <= 3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo" / "sotu_1934_1946"
KGKIT = [sys.executable, "-m", "kgkit"]
FIRST, SECOND, BY_CLI = "1937-Roosevelt-1.txt", "1940-Roosevelt-1.txt", "1938-Roosevelt-1.txt"
ARTEFACTS = ("graph.json", "communities.json", "extractions.jsonl")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(*args: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one `kgkit` CLI process (its worker processes' CPU included)."""
    return _cli_output(*args)[:2]


def _cli_output(*args: str) -> tuple[float, float, str]:
    """(wall, CPU, stdout) of one `kgkit` CLI process."""
    cpu, t = _children_cpu(), time.perf_counter()
    out = subprocess.run([*KGKIT, *args], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return time.perf_counter() - t, _children_cpu() - cpu, out.stdout


def _drop_extractions(ws: Path, document: Path) -> int:
    """Take `document`'s chunks out of the workspace's extraction cache (so that adding it again extracts it
    for real); how many entries went."""
    import tempfile

    from kgkit.extractors.offline import OfflineExtractor
    from kgkit.io import load_domain
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.stages.extract import extract_texts
    from kgkit.workflows.corpus import load_corpus

    folder = Path(tempfile.mkdtemp())
    shutil.copy(document, folder / document.name)
    [doc], _ = load_corpus(folder, cache=Cache(folder / ".cache"))
    shutil.rmtree(folder)
    cache, domain, extractor = Cache(ws / "cache"), load_domain("general"), OfflineExtractor()
    keys = {cache.key(extract_texts, [c.text], domain=domain, extractor=extractor)
            for c in chunk_document(doc, max_chars=2000, overlap_chars=200)}
    gone = [Path(path) for stage, path, _ in cache.entries() if stage == "extract_texts" and Path(path).stem in keys]
    for path in gone:
        path.unlink()
    return len(gone)


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_pids() -> set[int]:
    return {int(p) for task in Path(f"/proc/{os.getpid()}/task").iterdir()
            for p in (task / "children").read_text().split()}


def mcp_add(ws: Path, document: Path) -> dict:
    """A real stdio MCP session (`kgkit mcp -w WS --allow add`, the SDK's client) adding `document` with its
    extraction dropped from the cache: the server's first add (spaCy imported and loaded in it), a retraction,
    then the same add again, extracted for real again (the steady state of a resident server). Wall seconds of
    each tool call, and the server process's CPU seconds during it."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "kgkit", "mcp", "-w", str(ws), "--allow", "add"],
                                   env={k: v for k, v in os.environ.items() if k.isupper()})
    out: dict = {}

    async def call(session: ClientSession, server: int, name: str, **arguments: object) -> dict:
        cpu, t = _process_cpu(server), time.perf_counter()
        result = await session.call_tool("add", arguments)
        wall = time.perf_counter() - t
        if result.is_error:
            raise RuntimeError(result.content[0].text)
        done = json.loads(result.content[0].text)
        out[name] = {"wall_s": round(wall, 3), "server_cpu_s": round(_process_cpu(server) - cpu, 3),
                     "extractor_calls": done["extractor_calls"]}
        return done

    async def main() -> None:
        before = _children_pids()
        t = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            out["session_start_s"] = round(time.perf_counter() - t, 3)
            [server] = _children_pids() - before
            out["dropped_first"] = _drop_extractions(ws, document)
            await call(session, server, "first_add", paths=[str(document)])
            await call(session, server, "retract", remove=[document.name])
            out["dropped_again"] = _drop_extractions(ws, document)
            await call(session, server, "resident_add", paths=[str(document)])

    anyio.run(main)
    return out


def _entries(ws: Path, stage: str) -> int:
    """How many entries of `stage` the workspace's cache holds."""
    from kgkit.io.cache import Cache

    return sum(1 for name, _, _ in Cache(ws / "cache").entries() if name == stage)


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def parse_hashes(corpus: str) -> dict:
    """Parse every chunk of `corpus` as the offline extractor does (run in a child process); hashes of spaCy's
    annotations and of the extractions, and whether thinc has torch behind it."""
    import hashlib
    import tempfile

    from kgkit.extractors.offline import OfflineExtractor, load_model, split_text
    from kgkit.io import load_domain
    from kgkit.io.cache import Cache
    from kgkit.stages.chunk import chunk_document
    from kgkit.workflows.corpus import load_corpus

    docs, _ = load_corpus(corpus, cache=Cache(tempfile.mkdtemp()))
    texts = [c.text for d in docs for c in chunk_document(d, max_chars=2000, overlap_chars=200)]
    extractor = OfflineExtractor()
    if os.environ.get("KGKIT_BENCH_LOAD") == "spacy.load":  # spaCy's own loading, default tokenizer built first
        import kgkit.extractors.offline.loading as loading

        loading.load_pipeline = lambda spacy, name: spacy.load(name)
    t = time.perf_counter()
    nlp = load_model(extractor.model)
    load_s = time.perf_counter() - t
    import thinc.compat
    from spacy.attrs import DEP, ENT_IOB, ENT_TYPE, HEAD, LEMMA, MORPH, ORTH, POS, SENT_START, TAG

    pieces = [piece for text in texts for _, piece in split_text(text, extractor.max_chars)]
    annotations = hashlib.sha256(nlp.tokenizer.to_bytes())
    annotations.update(json.dumps(list(nlp.vocab.strings)).encode())
    for doc in nlp.pipe(pieces, batch_size=extractor.batch_size):
        annotations.update(doc.to_array([ORTH, TAG, POS, LEMMA, DEP, HEAD, ENT_IOB, ENT_TYPE, SENT_START,
                                         MORPH]).tobytes())
        annotations.update(json.dumps([(t.lemma_, t.tag_, t.pos_, t.dep_, str(t.morph)) for t in doc]).encode())
        annotations.update(json.dumps([(e.start_char, e.end_char, e.label_) for e in doc.ents]).encode())
    found = extractor.extract(texts, domain=load_domain("general"))
    extracted = json.dumps([f.model_dump(mode="json") for f in found], sort_keys=True).encode()
    return {"chunks": len(texts), "pieces": len(pieces), "annotations": annotations.hexdigest(),
            "extractions": hashlib.sha256(extracted).hexdigest(), "torch_imported": "torch" in sys.modules,
            "thinc_has_torch": thinc.compat.has_torch, "model_load_s": round(load_s, 2)}


def check_spacy() -> dict:
    """parse_hashes in three fresh processes at once: spaCy with torch (a library's import), without (the CLI's),
    and without, loaded by `spacy.load` itself."""
    runs = {}
    for mode, flag, load in (("with_torch", "0", ""), ("without_torch", "1", ""),
                             ("without_torch_spacy_load", "1", "spacy.load")):
        env = {**os.environ, "KGKIT_SPACY_WITHOUT_TORCH": flag, "KGKIT_BENCH_LOAD": load}
        runs[mode] = subprocess.Popen([sys.executable, __file__, "--parse-hashes", str(DEMO)], env=env,
                                      stdout=subprocess.PIPE, text=True)
    out = {mode: json.loads(p.communicate()[0]) for mode, p in runs.items()}
    same = all(out["with_torch"][k] == out[other][k] for k in ("chunks", "pieces", "annotations", "extractions")
               for other in ("without_torch", "without_torch_spacy_load"))
    return {**out, "identical": same}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "add")
    parser.add_argument("--check-spacy", action="store_true", help="also prove the CLI's spaCy parses the same")
    parser.add_argument("--no-mcp", action="store_true", help="skip the MCP server's add (a stdio session)")
    parser.add_argument("--parse-hashes", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.parse_hashes:
        print(json.dumps(parse_hashes(args.parse_hashes)))
        return
    out = args.out
    shutil.rmtree(out, ignore_errors=True)
    corpus, outside, ws, full = out / "corpus", out / "outside", out / "ws", out / "full"
    shutil.copytree(DEMO, corpus)
    outside.mkdir()
    for name in (FIRST, SECOND, BY_CLI):
        shutil.move(corpus / name, outside / name)
    setup, _ = _cli("run", str(corpus), "-o", str(ws))
    _cli("index", "-w", str(ws), "--embedder", "hashing")

    import kgkit
    from kgkit.extractors.offline import OfflineExtractor

    extractor = OfflineExtractor()
    extractor.extract(["Warm the model up."], domain=kgkit.load_domain("general"))  # spaCy loaded, not timed
    uptime_before = _uptime()
    in_process = {}
    layouts = {"after_setup": _entries(ws, "force_layout")}
    for name in (FIRST, SECOND):
        before_layouts = _entries(ws, "force_layout")
        cpu, t = time.process_time(), time.perf_counter()
        added = kgkit.add(ws, [outside / name], extractor=extractor)
        in_process[name] = {"wall_s": round(time.perf_counter() - t, 3), "cpu_s": round(time.process_time() - cpu, 3),
                            "extractor_calls": added.extractor_calls,
                            "timings": {k: round(v, 3) for k, v in added.timings.items()}}
        layouts[name] = {"communities": int(added.graph.entities["community"].nunique()),
                         "layouts_computed": _entries(ws, "force_layout") - before_layouts}
    before_layouts, gazetteer_stored = _entries(ws, "force_layout"), _entries(ws, "gazetteer")
    cli, cli_cpu, printed = _cli_output("add", str(outside / BY_CLI), "-w", str(ws), "--json")
    cli_summary = json.loads(printed)
    layouts[BY_CLI] = {"layouts_computed": _entries(ws, "force_layout") - before_layouts}
    shutil.copytree(ws / "cache", full / "cache")
    peer, peer_cpu = _cli("run", str(corpus), "-o", str(full))
    same = {name: (ws / name).read_bytes() == (full / name).read_bytes() for name in (*ARTEFACTS, "graph.html")}
    from kgkit.core.constants import VIEW_NODES
    from kgkit.views.graph_page import graph_html

    config = json.loads((ws / "manifest.json").read_text())["config"]
    drawn = graph_html(kgkit.read_graph(ws), max_nodes=config.get("view_nodes", VIEW_NODES))  # no layout cache
    same["graph.html_without_layout_cache"] = (ws / "graph.html").read_bytes() == drawn.encode()
    before = kgkit.read_graph(ws)
    remove, remove_cpu = _cli("add", "-w", str(ws), "--remove", BY_CLI)
    after = kgkit.read_graph(ws)
    expired = after.relations[after.relations["expired_at"].notna()]
    at = datetime.fromisoformat(str(expired["expired_at"].iloc[0]).replace("Z", "+00:00")) if len(expired) else None
    retraction = {
        "document_gone": BY_CLI not in set(after.documents["path"]),
        "expired_relations": len(expired),
        # a second before the retraction the graph believes all it did; a second after, all but the expired
        "as_of_before_equals_graph_before": at is not None
        and set(after.as_of(at - timedelta(seconds=1)).relations["id"]) == set(before.relations["id"]),
        "as_of_after_drops_expired": at is not None
        and not set(after.as_of(at + timedelta(seconds=1)).relations["id"]) & set(expired["id"]),
    }
    mcp = mcp_add(ws, outside / BY_CLI) if not args.no_mcp else None
    uptime_after = _uptime()
    report = {
        "uptime_before": uptime_before, "uptime_after": uptime_after, "cpus": os.cpu_count(),
        "setup_cold_run_s": round(setup, 2),
        "add_in_process_first": in_process[FIRST], "add_in_process_second": in_process[SECOND],
        "add_cli_s": round(cli, 3), "add_cli_cpu_s": round(cli_cpu, 3),
        "add_cli_extractor_calls": cli_summary["extractor_calls"], "add_cli_timings": cli_summary["timings"],
        "add_cli_extraction_processes": cli_summary["extraction_processes"],
        "layouts": layouts, "gazetteer_entries_before_cli_add": gazetteer_stored,
        "gazetteer_entries_after_cli_add": _entries(ws, "gazetteer"),
        "peer_full_warm_run_s": round(peer, 3), "peer_full_warm_run_cpu_s": round(peer_cpu, 3),
        "ratio_cli_add_to_full_warm_run": round(cli / peer, 2),
        "byte_identical_to_full_run": same, "remove_cli_s": round(remove, 3), "remove_cli_cpu_s": round(remove_cpu, 3),
        "retraction": retraction, "mcp": mcp, "target_s": 3.0,
    }
    if args.check_spacy:
        report["spacy_with_and_without_torch"] = check_spacy()
    print(json.dumps(report, indent=2))
    first, second = in_process[FIRST], in_process[SECOND]
    print(f"\n| measurement | wall s | CPU s |\n|---|---|---|\n"
          f"| add one document, in-process, first add ({FIRST}) | {first['wall_s']:.2f} | {first['cpu_s']:.2f} |\n"
          f"| add one document, in-process, second add ({SECOND}) | {second['wall_s']:.2f} | {second['cpu_s']:.2f} |\n"
          f"| add one document, CLI process ({BY_CLI}) | {cli:.2f} | {cli_cpu:.2f} |\n"
          f"| full warm run (peer) | {peer:.2f} | {peer_cpu:.2f} |\n"
          f"| retract one document, CLI | {remove:.2f} | {remove_cpu:.2f} |")
    if mcp is not None:
        for name, what in (("first_add", "first add"), ("retract", "retraction"), ("resident_add", "add again")):
            print(f"| MCP server (stdio session), {what} ({BY_CLI}) | {mcp[name]['wall_s']:.2f} | "
                  f"{mcp[name]['server_cpu_s']:.2f} |")
    print(f"\nload: {uptime_before} / {uptime_after}")
    if not all(same.values()):
        sys.exit("the incremental result differs from the full run")
    if not (retraction["document_gone"] and retraction["expired_relations"] > 0
            and retraction["as_of_before_equals_graph_before"] and retraction["as_of_after_drops_expired"]):
        sys.exit("the retraction did not expire the document's relations")
    if args.check_spacy and not report["spacy_with_and_without_torch"]["identical"]:
        sys.exit("spaCy without torch, or loaded by spacy.load, parsed the demo differently")


if __name__ == "__main__":
    main()
