"""Fake LLM providers for tests, demos and benchmarks: no network, no API key, deterministic.

- `QueuedCompletion([...])`: a `completion=` for LLMClient that answers from a queue through litellm's own
  `mock_response=` (real ModelResponse objects, real usage); an Exception in the queue is raised instead.
- `AnsweringCompletion()`: a `completion=` that answers every request as the provider below does.
- `register_fake_provider()`: a litellm CustomLLM registered as provider "kgkit-fake", so any code that calls
  `litellm.acompletion(model="kgkit-fake/...")` — the CLI included — gets a deterministic answer: "OK" to the
  preflight check, a context summary, a small domain proposal, or an extraction (capitalised word runs as entities; two of them in one
  sentence related by RELATED_TO with the sentence as evidence). `latency` seconds per call (for benchmarks).

>>> import asyncio
>>> fake = QueuedCompletion(['{"a": 1}'])
>>> response = asyncio.run(fake(model="m", messages=[{"role": "user", "content": "hi"}]))
>>> response.choices[0].message.content, len(fake.calls)
('{"a": 1}', 1)
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgkit.extractors.llm.prompt import SUMMARY_REQUEST
from kgkit.llm.client import PREFLIGHT_MESSAGES, import_litellm

PROVIDER = "kgkit-fake"
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_STOP = {"The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "We", "This", "That", "But", "And", "Then"}


@dataclass(frozen=True)
class ToolCallReply:
    """A queued answer given as a tool call (what tool-calling models return), with JSON `arguments`."""

    arguments: str


class AnsweringCompletion:
    """A `completion=` for LLMClient that answers every request with `fake_answer` (as the "kgkit-fake" provider
    does) and keeps the requests in `calls`."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return await _amodel_response(kwargs["messages"])


class QueuedCompletion:
    """Answers requests in order from `responses` (strings -> litellm mock responses; ToolCallReply -> a mock
    tool call to the request's first tool; exceptions -> raised)."""

    def __init__(self, responses: Iterable[str | ToolCallReply | BaseException]) -> None:
        self.queue: deque[str | ToolCallReply | BaseException] = deque(responses)
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if not self.queue:
            raise AssertionError("QueuedCompletion: no response left for this request")
        item = self.queue.popleft()
        if isinstance(item, BaseException):
            raise item
        litellm = import_litellm()
        if isinstance(item, ToolCallReply):
            name = kwargs["tools"][0]["function"]["name"]
            call = {"id": f"call_{len(self.calls)}", "type": "function",
                    "function": {"name": name, "arguments": item.arguments}}
            return await litellm.acompletion(model="openai/fake", messages=kwargs["messages"], mock_response="",
                                             mock_tool_calls=[call])
        return await litellm.acompletion(model="openai/fake", messages=kwargs["messages"], mock_response=item)


def _chunk_of(messages: list[dict[str, Any]]) -> str:
    content = str(messages[-1].get("content", "")) if messages else ""
    if "Chunk:" in content:
        content = content.rsplit("Chunk:", 1)[1]
    parts = content.split('"""')
    return parts[1].strip() if len(parts) >= 3 else content


def fake_answer(messages: list[dict[str, Any]]) -> str:
    """The fake provider's deterministic JSON answer to kgkit's prompts."""
    user = str(messages[-1].get("content", "")) if messages else ""
    if PREFLIGHT_MESSAGES[-1]["content"] in user and "Chunk:" not in user:  # LLMClient.preflight() (maybe flattened)
        return "OK"
    if user.startswith("Summarise"):
        return json.dumps({"summary": " ".join(_chunk_of(messages).split()[:20])})
    if "Sample passages" in user:
        return json.dumps({"description": "fake", "entity_types": [{"name": "Mission", "description": "A mission"}],
                           "relation_types": [{"name": "works for", "description": "employment",
                                               "signatures": [["Person", "Organization"]]}]})
    text = _chunk_of(messages)
    entities: dict[str, dict[str, str]] = {}
    relations = []
    for sentence in _SENTENCE.findall(text):
        names = [m for m in _NAME.findall(sentence) if m not in _STOP]
        for name in names:
            entities.setdefault(name, {"name": name, "type": "Other"})
        if len(names) >= 2 and names[0] != names[1]:
            relations.append({"source": names[0], "target": names[1], "type": "RELATED_TO",
                              "evidence": sentence.strip()})
    answer: dict[str, Any] = {"entities": list(entities.values()), "relations": relations}
    if SUMMARY_REQUEST.strip() in user:  # a document's first chunk: the summary its later chunks get
        answer["summary"] = " ".join(text.split()[:20]) or "(empty)"
    return json.dumps(answer)


def _model_response(messages: list[dict[str, Any]]) -> Any:
    litellm = import_litellm()
    return litellm.completion(model="openai/fake", messages=messages, mock_response=fake_answer(messages))


async def _amodel_response(messages: list[dict[str, Any]]) -> Any:
    """A litellm ModelResponse with usage of the size a real provider would bill (~4 characters a token)."""
    litellm = import_litellm()
    answer = fake_answer(messages)
    prompt = sum(len(str(m.get("content", ""))) for m in messages) // 4 + 4 * len(messages)
    completion = len(answer) // 4 + 1
    return litellm.ModelResponse(
        model="kgkit-fake", choices=[{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": answer}}],
        usage=litellm.Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion))


def register_fake_provider(*, latency: float = 0.0, name: str = PROVIDER) -> Any:
    """Register (once per process) a litellm CustomLLM answering `fake_answer`; returns the handler."""
    litellm = import_litellm()
    from litellm import CustomLLM

    class FakeLLM(CustomLLM):
        def __init__(self) -> None:
            super().__init__()
            self.latency = latency
            self.calls = 0

        def completion(self, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.latency:
                time.sleep(self.latency)
            return _model_response(kwargs["messages"])  # sync path: litellm's fixed mock usage

        async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.latency:
                await asyncio.sleep(self.latency)
            return await _amodel_response(kwargs["messages"])

    for entry in litellm.custom_provider_map:
        if entry.get("provider") == name:
            entry["custom_handler"].latency = latency
            return entry["custom_handler"]
    handler = FakeLLM()
    litellm.custom_provider_map = [*litellm.custom_provider_map, {"provider": name, "custom_handler": handler}]
    litellm.utils.custom_llm_setup()
    return handler
