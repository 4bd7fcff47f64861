"""An OpenAI-compatible chat-completions server on 127.0.0.1 that misbehaves on purpose (tests/test_llm_faults.py).

litellm's `openai/<name>` provider is pointed at it with `--api-base` (or `OPENAI_API_BASE`). Every request is
answered by one `mode` (below) when it is *faulty* — by default every request whose chunk contains `marker`, or
every request when `marker` is None — and with a valid answer otherwise. A valid answer is what kgkit's
in-process fake provider gives (`kgkit.testing.fake_llm.fake_answer`), as a tool call when the request offers
tools (instructor's tool mode) and as JSON content otherwise (JSON mode).

Modes: valid, malformed_json, wrong_schema, empty_choices, rate_limit (429 with Retry-After), server_error (500),
connection_reset, stall (no answer for `stall_seconds`), missing_usage, usage_above_max, malformed_usage,
hostile_names (markup and control characters in entity names), bad_key (401).

The server keeps its own books: `log` has one `Request` per HTTP request (what it was, how it was answered, the
usage it *reported* and the tokens it *billed*). Billing follows what a provider does: an answer bills the
prompt (the messages counted with litellm's bundled tiktoken encoding, 4 tokens a message, the tools as JSON)
and the answer's own tokens — whatever usage it reports; a stall bills the prompt and the request's
`max_tokens` (the work may have been done); errors and resets bill nothing.
`spent(price_in, price_out)` is the provider's bill in dollars, independent of kgkit's ledger.

Bounded: at most `max_requests` requests (later ones get HTTP 400, which litellm does not retry) and
`max_seconds` of life; a stall never lasts longer than `stall_seconds`. Listens on 127.0.0.1 only.
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kgkit.llm.client import import_litellm
from kgkit.testing.fake_llm import fake_answer

MODES = ("valid", "malformed_json", "wrong_schema", "empty_choices", "rate_limit", "server_error",
         "connection_reset", "stall", "missing_usage", "usage_above_max", "malformed_usage", "hostile_names",
         "bad_key")
MARKER = "Faultline"  # a word in the chunks whose requests get the fault
HOSTILE_NAMES = ["<img src=x onerror=alert(1)>Ada", "[bold red]Acme[/bold red]", "Bob\x00\x1b[31m\u202eevil",
                 "\x07\x08"]


def chunk_of(messages: list[dict[str, Any]]) -> str:
    """The chunk a kgkit prompt carries (the text between the triple quotes of the first user message)."""
    for m in messages:
        if m.get("role") == "user":
            content = _text(m.get("content"))
            if "Chunk:" in content:
                content = content.rsplit("Chunk:", 1)[1]
            parts = content.split('"""')
            return parts[1].strip() if len(parts) >= 3 else content
    return ""


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _first_prompt(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages up to the first user message (a re-ask appends the answer and the validation error)."""
    out = []
    for m in messages:
        out.append({"role": m.get("role", "user"), "content": _text(m.get("content"))})
        if m.get("role") == "user":
            break
    return out


_ENCODER: list[Any] = []


def tokens(text: str) -> int:
    """Tokens as OpenAI counts them, with the tokenizer litellm bundles (tiktoken cl100k_base; gpt-4o's o200k
    counts English about the same); characters / 3 (more than any common tokenizer) if it cannot load."""
    if not _ENCODER:
        try:
            import_litellm()
            from litellm.litellm_core_utils.default_encoding import encoding  # bundled: never downloaded

            _ENCODER.append(encoding)
        except Exception:
            _ENCODER.append(None)
    encoder = _ENCODER[0]
    return len(encoder.encode(text, disallowed_special=())) if encoder is not None else len(text) // 3 + 1


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeout) or a reset on purpose: not worth a traceback


@dataclass
class Request:
    """One HTTP request as the server saw and answered it."""

    n: int
    at: float  # time.monotonic() when it arrived
    kind: str  # "extract", "summary", "preflight", "other"
    chunk: str  # sha256 of the chunk text ("" when the request carries none)
    reask: bool  # a re-ask (more than the first prompt)
    fault: str  # the mode applied, "valid" when answered normally
    status: int  # HTTP status sent (0: none — reset or stalled)
    max_tokens: int
    reported: dict[str, Any] | None = None  # the `usage` sent
    billed_prompt: int = 0
    billed_completion: int = 0


@dataclass
class FaultServer:
    """See the module docstring. Use as a context manager, or `start()` / `stop()`."""

    mode: str = "valid"
    marker: str | None = MARKER  # None: every request is faulty
    times: int | None = None  # fault only the first `times` faulty requests, then answer validly
    retry_after: float = 1.0
    stall_seconds: float = 3.0
    max_requests: int = 300
    max_seconds: float = 120.0
    log: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; one of {MODES}")
        self._lock = threading.Lock()
        self._faulted = 0
        self._deadline = 0.0
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send(404, {"error": {"message": f"no route for GET {self.path}"}})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                server._handle(self, body)

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (a timeout): nothing to answer
                    pass

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ life

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FaultServer:
        tokens("warm up")  # load the tokenizer now, not inside the first request's time
        self._deadline = time.monotonic() + self.max_seconds
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # ends stalls early
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the books

    def requests(self, kind: str | None = None, *, since: int = 0, until: int | None = None) -> list[Request]:
        """The logged requests [since:until] (of one `kind`: extract, summary, preflight, other)."""
        with self._lock:
            return [r for r in self.log[since:until] if kind is None or r.kind == kind]

    def spent(self, price_in: float, price_out: float, *, since: int = 0, until: int | None = None) -> float:
        """The provider's bill in dollars (prices per 1M tokens) for requests [since:until], from its own log."""
        return sum(r.billed_prompt * price_in + r.billed_completion * price_out
                   for r in self.requests(since=since, until=until)) / 1e6

    # ------------------------------------------------------------------ answering

    def _handle(self, handler: Any, body: dict[str, Any]) -> None:
        messages = body.get("messages") or []
        chunk = chunk_of(messages)
        first = _first_prompt(messages)
        whole = "\n".join(m["content"] for m in first)
        kind = ("summary" if first and first[-1]["content"].startswith("Summarise") else
                "extract" if "Chunk:" in whole else "preflight" if len(whole) < 200 else "other")
        with self._lock:
            n = len(self.log) + 1
            faulty = self.marker is None or (self.marker in chunk)
            if faulty and self.times is not None:
                faulty = self._faulted < self.times
            if faulty:
                self._faulted += 1
            over = n > self.max_requests or time.monotonic() > self._deadline
            req = Request(n=n, at=time.monotonic(), kind=kind, chunk=hashlib.sha256(chunk.encode()).hexdigest()
                          if chunk else "", reask=len(messages) > len(first), fault=self.mode if faulty else "valid",
                          status=0, max_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens") or 0))
            self.log.append(req)
        if over:
            req.fault, req.status = "refused", 400
            handler._send(400, {"error": {"message": "fault server: request bound passed", "type": "invalid_request_error"}})
            return
        mode = req.fault
        prompt_tokens = sum(tokens(_text(m.get("content"))) for m in messages) + 4 * len(messages) \
            + (tokens(json.dumps(body["tools"])) if body.get("tools") else 0)
        if mode == "bad_key":
            req.status = 401
            handler._send(401, {"error": {"message": "Incorrect API key provided: sk-bad. You can find your API key "
                                          "at https://platform.openai.com/account/api-keys.",
                                          "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}})
            return
        if mode == "rate_limit":
            req.status = 429
            handler._send(429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                          "param": None, "code": "rate_limit_exceeded"}},
                          headers={"Retry-After": str(self.retry_after)})
            return
        if mode == "server_error":
            req.status = 500
            handler._send(500, {"error": {"message": "The server had an error while processing your request.",
                                          "type": "server_error", "param": None, "code": None}})
            return
        if mode == "connection_reset":
            handler.close_connection = True
            sock = handler.connection
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
            sock.close()
            return
        if mode == "stall":
            req.billed_prompt, req.billed_completion = prompt_tokens, req.max_tokens  # the work may be billed
            self._stop.wait(self.stall_seconds)
            handler.close_connection = True
            return
        answer = self._answer(first, mode)
        completion_tokens = tokens(answer)
        req.billed_prompt, req.billed_completion = prompt_tokens, completion_tokens
        usage: dict[str, Any] | None = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                        "total_tokens": prompt_tokens + completion_tokens}
        if mode == "missing_usage":
            usage = None
        elif mode == "usage_above_max":
            big = 10 * max(req.max_tokens, 1)
            usage = {"prompt_tokens": prompt_tokens * 10, "completion_tokens": big, "total_tokens": prompt_tokens * 10 + big}
        elif mode == "malformed_usage":  # numbers litellm passes on, but no bill can have
            usage = {"prompt_tokens": -prompt_tokens, "completion_tokens": -5, "total_tokens": -prompt_tokens - 5}
        message: dict[str, Any] = {"role": "assistant", "content": answer}
        finish = "stop"
        if body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": answer}}]}
            finish = "tool_calls"
        choices = [] if mode == "empty_choices" else [{"index": 0, "message": message, "finish_reason": finish}]
        reply: dict[str, Any] = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()),
                                 "model": body.get("model", "fault"), "choices": choices}
        if usage is not None:
            reply["usage"] = usage
        req.reported, req.status = usage, 200
        handler._send(200, reply)

    def _answer(self, first: list[dict[str, Any]], mode: str) -> str:
        if mode == "malformed_json":
            return '{"entities": [{"name": "Ada", "type": "Person"'  # cut off
        if mode == "wrong_schema":
            return json.dumps({"people": ["Ada"], "links": []})
        if not first or ("Chunk:" not in first[-1]["content"] and not first[-1]["content"].startswith("Summarise")):
            return "OK"
        answer = json.loads(fake_answer(first[-1:]))
        if mode == "hostile_names" and "entities" in answer:
            names = [e["name"] for e in answer["entities"]]
            hostile = [{"name": h, "type": "Other"} for h in HOSTILE_NAMES]
            answer["entities"] = [*answer["entities"], *hostile]
            if names:  # a relation between a hostile name and a real one, with a verbatim quote as evidence
                quote = next((r["evidence"] for r in answer["relations"]), None)
                if quote:
                    answer["relations"].append({"source": HOSTILE_NAMES[0], "target": names[0],
                                                "type": "RELATED_TO", "evidence": quote})
        return json.dumps(answer)
