"""Fault injection through real HTTP: `kgkit run --model openai/...` against an OpenAI-compatible server on
127.0.0.1 (tests/fault_llm_server.py) that misbehaves on purpose. Per fault: the exit code, the error records
(grouped by cause, each with a fix), what a re-run asks (the server's own request log), and the money spent —
from the server's own bill, never above the cap.

Ten one-chunk documents; the chunk of d3.txt mentions "Faultline", and the server answers its requests with
the fault (other requests validly, unless a test faults every request). Backoff between retries is shortened
(a 429's Retry-After is still honoured); everything else is the product as shipped.

`KGKIT_FAULTS_REPORT=faults.jsonl pytest tests/test_llm_faults.py` also writes one JSON line per fault: the
figures of bench/RESULTS.md ("LLM faults").
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from fault_llm_server import HOSTILE_NAMES, FaultServer
from typer.testing import CliRunner

from kgkit.cli import app
from kgkit.llm.client import import_litellm

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"), pytest.mark.timeout(120)]

MODEL = "openai/gpt-4o-mini"  # litellm knows its price and that it calls tools: instructor's tool mode
CAP = 0.05
PEOPLE = [("Ada Lovelace", "Charles Babbage", "London"), ("Mary Somerville", "John Herschel", "Paris"),
          ("Grace Hopper", "Howard Aiken", "Boston"), ("Alan Turing", "Max Newman", "Faultline"),
          ("Emmy Noether", "David Hilbert", "Berlin"), ("Marie Curie", "Pierre Curie", "Warsaw"),
          ("Lise Meitner", "Otto Hahn", "Vienna"), ("Niels Bohr", "Werner Heisenberg", "Copenhagen"),
          ("Rosalind Franklin", "Maurice Wilkins", "Cambridge"), ("Katherine Johnson", "John Glenn", "Hampton")]
_REPORT: list[dict[str, Any]] = []


def _prices() -> tuple[float, float]:
    """gpt-4o-mini's dollars per 1M tokens (in, out), from litellm's bundled price map."""
    entry = import_litellm().model_cost["gpt-4o-mini"]
    return entry["input_cost_per_token"] * 1e6, entry["output_cost_per_token"] * 1e6


@pytest.fixture(autouse=True)
def _provider_env(monkeypatch):
    import kgkit.llm.client as client

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fault")
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setattr(client, "backoff_delay", lambda attempt, rng: 0.05)  # keep retries, skip the long waits


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    path = os.environ.get("KGKIT_FAULTS_REPORT")
    if path and _REPORT:
        with open(path, "a", encoding="utf-8") as out:
            for row in _REPORT:
                out.write(json.dumps(row, sort_keys=True) + "\n")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, (a, b, place) in enumerate(PEOPLE):
        (folder / f"d{i}.txt").write_text(f"{a} met {b} in {place}. {a} wrote to {b} about the Engine.\n")
    return folder


def kgkit(*args: str, server: FaultServer | None, cap: float | None = CAP, as_json: bool = True,
          model: str = MODEL, extra: tuple[str, ...] = ()) -> tuple[int, dict[str, Any] | None, str]:
    """`kgkit ARGS --model M [--api-base URL] [--max-cost CAP] [--json]` in process: (exit code, JSON, output)."""
    argv = [*args, "--model", model, *extra]
    if server is not None:
        argv += ["--api-base", server.url]
    if cap is not None:
        argv += ["--max-cost", str(cap)]
    if as_json:
        argv.append("--json")
    result = CliRunner().invoke(app, argv, env={"COLUMNS": "200"})
    data = None
    if as_json and result.stdout.strip().startswith("{"):
        data = json.loads(result.stdout)
    return result.exit_code, data, result.output


def run(docs: Path, ws: Path, server: FaultServer | None, **kwargs: Any) -> tuple[int, dict[str, Any] | None, str]:
    return kgkit("run", str(docs), "-o", str(ws), "--no-view", server=server, **kwargs)


def faulted_chunks(server: FaultServer, *, since: int = 0) -> set[str]:
    return {r.chunk for r in server.requests("extract", since=since) if r.fault != "valid"}


def asked(server: FaultServer, *, since: int = 0) -> dict[str, int]:
    """Extraction requests per chunk (sha256 of its text) since request number `since`."""
    counts: dict[str, int] = {}
    for r in server.requests("extract", since=since):
        counts[r.chunk] = counts.get(r.chunk, 0) + 1
    return counts


def spend_within_cap(server: FaultServer, summary: dict[str, Any] | None, cap: float, *, since: int = 0) -> float:
    """The provider's bill (from its own log) and kgkit's charges: both within the cap. Returns the bill."""
    billed = server.spent(*_prices(), since=since)
    assert billed <= cap, f"the provider billed ${billed:.6f}, above the ${cap} cap"
    if summary is not None:
        assert summary["llm"]["spent_usd"] <= cap + 1e-12
    return billed


def record(mode: str, server: FaultServer, code: int, summary: dict[str, Any] | None, cap: float, *,
           since: int = 0, until: int | None = None, note: str = "") -> None:
    """One line of the report: the run of requests [since:until] (and the re-run after it, if any)."""
    billed = server.spent(*_prices(), since=since, until=until)
    rerun = None if until is None else server.requests(since=until)
    _REPORT.append({"mode": mode, "exit": code, "requests": len(server.requests(since=since, until=until)),
                    "rerun_requests": None if rerun is None else len(rerun),
                    "rerun_extract_requests": None if rerun is None else sum(r.kind == "extract" for r in rerun),
                    "provider_billed_usd": round(billed, 8), "cap_usd": cap,
                    "kgkit_charged_usd": None if summary is None else summary["llm"]["spent_usd"],
                    "overshoot_usd": round(max(0.0, billed - cap), 8),
                    "errors": None if summary is None else summary["error_groups"], "note": note})


# --------------------------------------------------------------------------- answers


def test_valid_answers_one_preflight_and_one_request_per_chunk_then_a_cached_rerun_asks_nothing(docs, tmp_path,
                                                                                                 monkeypatch):
    ws = tmp_path / "ws"
    with FaultServer("valid") as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.url)  # what litellm 1.108 reads for openai/ without --api-base
        code, summary, output = run(docs, ws, None)
        assert code == 0, output
        assert summary["outcome"] == "complete" and summary["chunk_errors"] == [] and summary["error_groups"] == []
        assert [r.kind for r in server.log].count("preflight") == 1 and server.log[0].kind == "preflight"
        assert len(asked(server)) == 10 and set(asked(server).values()) == {1}
        assert summary["llm"]["stages"]["preflight"]["calls"] == 1 and summary["llm"]["estimated"] == 0
        assert summary["entities"] > 0 and summary["relations"] > 0
        spend_within_cap(server, summary, CAP)
        record("valid", server, code, summary, CAP)
        n = len(server.log)
        again, summary2, output = run(docs, ws, None)
        assert again == 0 and len(server.log) == n, output  # every chunk from the cache: no request, no preflight
        assert summary2["extractor_calls"] == 0 and summary2["llm"]["spent_usd"] == 0
    # a shipped cache re-runs without the key and without the provider
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_API_BASE")
    offline, summary3, output = run(docs, ws, None)
    assert offline == 0 and summary3["extractor_calls"] == 0, output


def test_json_mode_for_a_model_without_tool_calling(docs, tmp_path):
    """A model litellm does not know to call tools (priced by hand) is asked in JSON mode; the wrong schema
    is an error there too."""
    with FaultServer("wrong_schema") as server:
        code, summary, output = run(docs, tmp_path / "ws", server, model="openai/fault-model",
                                    extra=("--price-in", "0.15", "--price-out", "0.6"))
        assert code == 1, output
        assert summary["extractors"][0].endswith(":mode-json")
        assert all(r.status == 200 for r in server.log)
        assert [g["cause"] for g in summary["error_groups"]] == ["invalid output after 2 re-asks: wrong schema"]
        assert summary["entities"] > 0


FAULTS = [  # mode, cause of the failed chunk, requests for it (re-asks and retries), server options, CLI options
    ("malformed_json", "invalid output after 2 re-asks: malformed JSON", 3, {}, ()),
    ("wrong_schema", "invalid output after 2 re-asks: wrong schema", 3, {}, ()),
    ("empty_choices", "provider answered with no choices", 1, {}, ()),
    ("rate_limit", "rate limited (429) after 4 attempts", 4, {"retry_after": 0.2}, ()),
    ("server_error", "provider server error (500) after 4 attempts", 4, {}, ()),
    ("connection_reset", "cannot reach the provider at {url}", 4, {}, ()),
    ("stall", "no answer within 2 s after 2 attempts", 2, {"stall_seconds": 4}, ("--timeout", "2")),
]


@pytest.mark.parametrize(("mode", "cause", "tries", "options", "flags"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_faulty_chunk_is_an_error_record_never_cached_and_a_rerun_asks_only_it(docs, tmp_path, mode, cause, tries,
                                                                                  options, flags):
    ws = tmp_path / "ws"
    with FaultServer(mode, **options) as server:
        code, summary, output = run(docs, ws, server, extra=flags)
        # 1 of 10 chunks failed: within --max-failures (10%), so the run is committed, with exit code 1
        assert code == 1 and summary["outcome"] == "failures", output
        [group] = summary["error_groups"]
        assert group["cause"] == cause.format(url=server.url) and group["count"] == 1 and group["fix"]
        [error] = summary["chunk_errors"]
        assert error.split(": ", 1)[1].startswith(group["cause"] + " — ")  # "chunk id: cause — detail"
        records = [json.loads(line) for line in (ws / "extractions.jsonl").read_text().splitlines()]
        failed = [c["extraction"] for d in records for c in d["chunks"] if c["extraction"]["error"]]
        assert len(failed) == 1 and failed[0]["entities"] == [] and failed[0]["error"].startswith(group["cause"])
        [bad] = faulted_chunks(server)
        counts = asked(server)
        assert counts.pop(bad) == tries and set(counts.values()) == {1} and len(counts) == 9
        if mode == "stall":  # each timed-out attempt may be billed: charged at its worst case
            assert summary["llm"]["estimated"] == 2
        spend_within_cap(server, summary, CAP)
        first = len(server.log)
        server.mode = "valid"
        again, summary2, output = run(docs, ws, server, extra=flags)
        assert again == 0 and summary2["chunk_errors"] == [], output
        assert asked(server, since=first) == {bad: 1}  # only the failed chunk, once: the failure was never cached
        assert [r.kind for r in server.requests(since=first)] == ["preflight", "extract"]
        spend_within_cap(server, summary2, CAP, since=first)
        record(mode, server, code, summary, CAP, until=first)


def test_429_retry_after_is_waited_for_and_the_chunk_then_succeeds(docs, tmp_path):
    with FaultServer("rate_limit", times=1, retry_after=1) as server:
        code, summary, output = run(docs, tmp_path / "ws", server)
        assert code == 0 and summary["chunk_errors"] == [], output
        [bad] = faulted_chunks(server)
        tries = [r for r in server.requests("extract") if r.chunk == bad]
        assert [r.status for r in tries] == [429, 200]
        assert tries[1].at - tries[0].at >= 1.0  # the Retry-After header, not the (shortened) backoff
        spend_within_cap(server, summary, CAP)
        record("rate_limit (429 once, Retry-After: 1)", server, code, summary, CAP)


def test_errors_are_grouped_by_cause_once_with_a_fix_not_printed_per_chunk(docs, tmp_path):
    ws = tmp_path / "ws"
    with FaultServer("empty_choices", marker=" met ") as server:  # every chunk (not the preflight)
        code, _, output = run(docs, ws, server, as_json=False)
    assert code == 1 and "rejected" in output
    assert output.count("provider answered with no choices") == 1 and "— 10 chunks" in output
    assert output.count("fix: ") == 1 and "chunk_errors" in output  # each chunk's error: in the summary file
    rejected = json.loads((ws / ".kgkit" / "rejected-run.json").read_text())
    assert rejected["error_groups"] == [{"cause": "provider answered with no choices", "count": 10,
                                         "fix": rejected["error_groups"][0]["fix"]}]
    assert len(rejected["chunk_errors"]) == 10 and not (ws / "graph.json").exists()


# --------------------------------------------------------------------------- money


@pytest.mark.parametrize("mode", ["missing_usage", "usage_above_max", "malformed_usage"])
def test_usage_that_cannot_be_trusted_is_charged_at_the_worst_case_and_the_cap_holds(docs, tmp_path, mode):
    """Every answer (the preflight's too) comes without usable usage. Charged at the worst case, the cap
    admits only some chunks; the rest are refused (budget errors) and a re-run with a higher cap asks
    exactly those."""
    ws, cap = tmp_path / "ws", 0.006
    with FaultServer(mode, marker=None) as server:
        code, summary, output = run(docs, ws, server, cap=cap)
        assert code == 1 and summary["outcome"] == "rejected", output
        llm = summary["llm"]
        sent = len(server.log)
        assert llm["estimated"] == sent and llm["spent_usd"] <= cap  # each request charged its reserved worst case
        if mode == "usage_above_max":
            assert llm["overruns"] == sent  # reported beyond the worst case: not believed
        [group] = summary["error_groups"]
        assert group["cause"] == "budget: the cap is used up" and group["count"] == 10 - (sent - 1)
        assert 2 <= sent - 1 <= 5  # some chunks fit the cap at their worst case, not all
        billed = spend_within_cap(server, summary, cap)
        assert billed < llm["spent_usd"]  # the worst case is an over-estimate of the real bill
        admitted = set(asked(server, since=0))
        first = len(server.log)
        server.mode = "valid"
        again, summary2, output = run(docs, ws, server, cap=CAP)
        assert again == 0 and summary2["chunk_errors"] == [], output
        rerun = asked(server, since=first)
        assert set(rerun.values()) == {1} and len(rerun) == 10 - len(admitted) and not set(rerun) & admitted
        record(mode, server, code, summary, cap, until=first,
               note=f"{sent - 1} chunks admitted at their worst case, {group['count']} refused by the budget")


# --------------------------------------------------------------------------- names


def test_hostile_names_lose_their_control_characters_and_markup_stays_text(docs, tmp_path):
    ws = tmp_path / "ws"
    with FaultServer("hostile_names") as server:
        result = CliRunner().invoke(app, ["run", str(docs), "-o", str(ws), "--model", MODEL, "--api-base", server.url,
                                          "--max-cost", str(CAP)], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        record("hostile_names", server, result.exit_code, None, CAP)
    assert "\x1b" not in result.output and "\x00" not in result.output
    graph = json.loads((ws / "graph.json").read_text())
    names = [e["name"] for e in graph["entities"]] if isinstance(graph["entities"], list) else list(
        graph["entities"]["name"])
    bad = [n for n in names if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in n)]
    assert bad == [] and "" not in names
    assert HOSTILE_NAMES[0] in names and "[bold red]Acme[/bold red]" in names  # markup is data, kept as text
    assert "Bob[31mevil" in names  # NUL, ESC and the right-to-left override dropped
    html = (ws / "graph.html").read_text()
    assert "<img src=x onerror=alert(1)>" not in html  # escaped in the view


# --------------------------------------------------------------------------- preflight


def test_a_bad_key_fails_the_preflight_in_one_request_exit_2_and_the_good_graph_stays(docs, tmp_path):
    ws = tmp_path / "ws"
    with FaultServer("valid") as server:
        assert run(docs, ws, server)[0] == 0
        good = (ws / "graph.json").read_bytes()
        (docs / "d10.txt").write_text("Hedy Lamarr met George Antheil in Hollywood.\n")  # one chunk to ask
        first = len(server.log)
        server.mode, server.marker = "bad_key", None
        code, summary, output = run(docs, ws, server)
        assert code == 2 and summary is None, output
        assert "provider rejected the API key in OPENAI_API_KEY (401)" in output and "fix: check the key" in output
        assert [(r.kind, r.status) for r in server.requests(since=first)] == [("preflight", 401)]
        assert (ws / "graph.json").read_bytes() == good
        record("bad_key (401)", server, code, None, CAP, since=first, note="preflight only, exit 2")


def test_no_api_key_fails_before_any_request(docs, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with FaultServer("valid") as server:
        code, _, output = run(docs, tmp_path / "ws", server)
        assert code == 2 and "OPENAI_API_KEY is not set" in output and "export OPENAI_API_KEY=" in output, output
        assert server.log == []
        record("no OPENAI_API_KEY", server, code, None, CAP, note="nothing sent, exit 2")
    assert not (tmp_path / "ws" / "graph.json").exists()


def test_extract_and_discover_check_the_model_first_too(docs, tmp_path):
    with FaultServer("bad_key", marker=None) as server:
        code, _, output = kgkit("extract", str(docs), "-o", str(tmp_path / "a"), server=server)
        assert code == 2 and "401" in output, output
        code, _, output = kgkit("discover", str(docs), "-o", str(tmp_path / "b"), server=server)
        assert code == 2 and "401" in output, output
        assert [r.kind for r in server.log] == ["preflight", "preflight"]
