"""Local stand-ins for an LLM provider, for the documentation examples (tests/test_examples.py).

`LLMServer` answers, on 127.0.0.1 only, the two wire protocols litellm speaks for the examples' models:

- OpenAI-compatible `POST .../chat/completions` (litellm's `openai/`, `openrouter/` and `hosted_vllm/` providers):
  a tool call to the request's first tool when it offers tools (instructor's tool mode), else JSON content;
- Ollama `POST /api/generate` (litellm's `ollama/` provider: one flattened `prompt`, `format: "json"`) and
  `POST /api/chat`, plus `POST /api/show` (model info).

The answers are those of kgkit's in-process fake provider (`kgkit.testing.fake_llm.fake_answer`: extraction,
document summary, domain discovery) and, for narration prompts, sentences that cite the facts given; every
answer carries usage (`usage`, or Ollama's `prompt_eval_count` / `eval_count`). A server answers at most
`max_requests` requests and stops itself after `max_seconds`; requests past either bound get HTTP 400 (which
litellm does not retry).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kgkit.testing.fake_llm import fake_answer

NARRATE_SYSTEM = "You write short, factual prose about a knowledge graph"
_FACT = re.compile(r"^\[\d+\] (rel:[^:\s]+): ([^;\n]+)", re.M)
_DATE = re.compile(r"date: ([^;\n]+)")
_PROMPT_TOOL = re.compile(r"'function': \{'name': '([^']+)'")  # a tool litellm wrote into an Ollama prompt


def _first_prompt(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's messages up to its first user message (a re-ask appends the model's answer and the error)."""
    out = []
    for m in messages:
        out.append({"role": m.get("role", "user"), "content": _text(m.get("content"))})
        if m.get("role") == "user":
            break
    return out


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def narrate_answer(prompt: str) -> str:
    """Sentences citing the facts of a narration prompt (one per fact, at most 5); a label for a community."""
    sentences = []
    for line in prompt.splitlines():
        m = _FACT.match(line)
        if m:
            date = _DATE.search(line)
            sentence = {"text": m.group(2).strip().rstrip(".") + ".", "relations": [m.group(1)]}
            if date:
                sentence["date"] = date.group(1).strip()
            sentences.append(sentence)
    answer: dict[str, Any] = {"sentences": sentences[:5]}
    if "Give it a `label`" in prompt:
        answer["label"] = "Community of " + (sentences[0]["text"].split()[0] if sentences else "facts")
    return json.dumps(answer)


def answer_for(messages: list[dict[str, Any]]) -> str:
    """The JSON text a request is answered with."""
    first = _first_prompt(messages)
    whole = "\n".join(m["content"] for m in first)
    if NARRATE_SYSTEM in whole:
        return narrate_answer(whole)
    return fake_answer(first[-1:] if first else [])


def _tokens(text: str) -> int:
    return len(text) // 4 + 1


class LLMServer:
    """A threaded HTTP server on 127.0.0.1 speaking the OpenAI and Ollama protocols (see the module docstring)."""

    def __init__(self, port: int = 0, *, max_requests: int = 4000, max_seconds: float = 900.0) -> None:
        self.max_requests, self.max_seconds = max_requests, max_seconds
        self.requests = 0
        self.paths: dict[str, int] = {}
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._deadline = 0.0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                server._count(self.path)
                if self.path.rstrip("/").endswith("/api/tags"):
                    self._send(200, {"models": [{"name": "llama3.1:latest", "model": "llama3.1:latest"}]})
                elif self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": []})
                else:
                    self._send(404, {"error": f"no route for GET {self.path}"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                refused = server._count(self.path)
                if refused:
                    self._send(400, {"error": {"message": refused, "type": "invalid_request_error"}})
                    return
                try:
                    body = json.loads(raw or b"{}")
                    status, reply = server.reply(self.path, body)
                except Exception as exc:  # a bug here must show in the test, not hang a client
                    server.errors.append(f"{self.path}: {type(exc).__name__}: {exc}")
                    status, reply = 500, {"error": {"message": str(exc), "type": "server_error"}}
                self._send(status, reply)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LLMServer:
        self._deadline = time.monotonic() + self.max_seconds
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.max_seconds, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._httpd.server_close()

    def _count(self, path: str) -> str | None:
        """Count a request; the reason it is refused once a bound is passed."""
        with self._lock:
            self.requests += 1
            key = path.split("?")[0]
            self.paths[key] = self.paths.get(key, 0) + 1
            if self.requests > self.max_requests:
                return f"test server: more than {self.max_requests} requests"
            if time.monotonic() > self._deadline:
                return f"test server: open for more than {self.max_seconds} s"
        return None

    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        path = path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            return 200, self._openai(body)
        if path.endswith("/api/generate"):
            return 200, self._ollama_generate(body)
        if path.endswith("/api/chat"):
            return 200, self._ollama_chat(body)
        if path.endswith("/api/show"):
            return 200, {"model_info": {}, "details": {"family": "llama"}, "template": "", "capabilities": ["completion"]}
        return 404, {"error": f"no route for POST {path}"}

    def _openai(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        answer = answer_for(messages)
        prompt_tokens = sum(_tokens(_text(m.get("content"))) for m in messages) + 4 * len(messages)
        message: dict[str, Any] = {"role": "assistant", "content": answer}
        finish = "stop"
        tools = body.get("tools") or []
        if tools:
            name = tools[0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{self.requests}", "type": "function", "function": {"name": name, "arguments": answer}}]}
            finish = "tool_calls"
        completion = _tokens(answer)
        return {"id": f"chatcmpl-{self.requests}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "test"), "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                          "total_tokens": prompt_tokens + completion}}

    def _ollama_generate(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = str(body.get("prompt", ""))
        answer = answer_for([{"role": "user", "content": prompt}])
        tool = _PROMPT_TOOL.search(prompt)
        if tool:  # litellm emulates tool calling for `ollama/`: the reply names the function and its arguments
            answer = json.dumps({"name": tool.group(1), "arguments": json.loads(answer)})
        return {"model": body.get("model", "test"), "created_at": "2026-01-01T00:00:00Z", "response": answer,
                "done": True, "done_reason": "stop", "prompt_eval_count": _tokens(prompt), "eval_count": _tokens(answer)}

    def _ollama_chat(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        answer = answer_for(messages)
        prompt = sum(_tokens(_text(m.get("content"))) for m in messages)
        return {"model": body.get("model", "test"), "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": answer}, "done": True, "done_reason": "stop",
                "prompt_eval_count": prompt, "eval_count": _tokens(answer)}
