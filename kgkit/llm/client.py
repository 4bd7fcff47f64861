"""The one way kgkit talks to an LLM: litellm + instructor, metered by the budget ledger, cached per request.

`LLMClient.ask(messages, ResponseModel, stage=...)` returns an `Answer`: the validated pydantic value, or an
`error` (timeout, rate limit after retries, provider error, output still invalid after `max_reasks` re-asks,
budget refused) — it never raises for those. What happens on one `ask`:

1. per-request cache: key = hash(model, rendered messages, response JSON schema, parameters). A hit costs
   nothing and makes no call (the stored value is re-validated first).
2. instructor calls the model (tool calling, or JSON mode for providers without it) and re-asks with the
   validation error until the value validates, at most `max_reasks` times.
3. every provider request (re-asks included) first reserves its worst case on the ledger (counted prompt tokens
   x a margin + max_tokens, at the model's price), waits for the rate limiter, then settles the real cost.
4. 429s, timeouts, connection errors and 5xx are retried with exponential backoff and jitter (injected `sleep`
   and `rng`; at least the `retry-after` a 429 asks for), up to `max_attempts` (timeouts: `max_timeout_attempts`,
   as each one is charged its worst case); the rest become the answer's error, "cause — detail" (see
   `kgkit.llm.errors`). Failures are never cached. An answer with none of the response model's fields (or
   with unknown fields in place of missing ones) is the wrong schema: re-asked, then an error — never an
   empty success.
5. a response without usable usage (none, zeros, malformed, or more than the request's worst case) is charged
   the reserved worst case and counted as `estimated`; so the ledger never charges more than the cap.

With `preflight_first` (the CLI and `LLMOptions.client()` set it) the first provider request of the client is
preceded by `preflight()`: one tiny request that checks credentials, the model name and the api base, and
raises `PreflightError` (with the cause and the fix) instead of letting every chunk fail. Requests answered
from the cache never need it, so a re-run from a shipped cache needs no API key.

The provider call itself is `completion` (default: `litellm.acompletion`); tests pass a fake, or use litellm's
`mock_response=` / a registered CustomLLM. `ask_sync` works inside a running event loop (Jupyter, marimo).

>>> from pydantic import BaseModel
>>> litellm = import_litellm()
>>> class Name(BaseModel):
...     name: str
>>> async def fake(**kw):
...     return await litellm.acompletion(model="openai/mock", messages=kw["messages"], mock_response='{"name": "Ada"}')
>>> client = LLMClient("my/model", price_in=1.0, price_out=2.0, ledger=BudgetLedger(cap_usd=1.0), completion=fake)
>>> answer = client.ask_sync([{"role": "user", "content": "Who?"}], Name, stage="demo")
>>> answer.value.name, answer.error, answer.cached, answer.cost_usd > 0
('Ada', None, False, True)
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import random
import threading
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from kgkit.core.protocols import RequestCache
from kgkit.core.records import sha256_hex
from kgkit.llm.answers import PREFLIGHT_MAX_TOKENS, PREFLIGHT_MESSAGES, Answer, LLMSettings, Meter, Preflight
from kgkit.llm.errors import EmptyAnswer, Failure, PreflightError, classify
from kgkit.llm.ledger import BudgetExceeded, BudgetLedger, Price, resolve_price
from kgkit.llm.limits import RateLimiter, Sleeper, backoff_delay
from kgkit.llm.responses import (
    choices_of,
    litellm_completion,
    maybe_billed,
    prepared_model,
    provider_cause,
    retry_after_seconds,
    schema_text,
    usage_of,
)
from kgkit.llm.runtime import import_litellm, run_sync
from kgkit.llm.validation import VALIDATION_CONTEXT

__all__ = [
    "PREFLIGHT_MAX_TOKENS",
    "PREFLIGHT_MESSAGES",
    "Answer",
    "LLMClient",
    "LLMSettings",
    "Preflight",
    "import_litellm",
    "run_sync",
]

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
Messages = Sequence[dict[str, str]]
Completion = Callable[..., Awaitable[Any]]
REQUEST_NAMESPACE = "llm_request"
@dataclass
class LLMClient:
    """One model behind the ledger, the limiter, the request cache and instructor (see module docstring)."""

    model: str
    ledger: BudgetLedger = field(default_factory=BudgetLedger)
    price: Price | None = None
    price_in: float | None = None  # dollars per 1M tokens, for models litellm has no price for
    price_out: float | None = None
    free: bool = False  # a local model (Ollama, vLLM): costs nothing, needs no price
    cache: RequestCache | None = None  # per-request answers (a kgkit.io.cache.Cache, given by the caller)
    completion: Completion | None = None
    settings: LLMSettings = field(default_factory=LLMSettings)
    max_concurrency: int = 8
    limiter: RateLimiter = field(default_factory=RateLimiter)
    max_attempts: int = 4  # provider attempts per ask for transient errors (429, timeout, connection, 5xx)
    max_timeout_attempts: int = 2  # of which timed out (each is charged its worst case: it may be billed)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    sleep: Sleeper = asyncio.sleep
    prompt_margin: float = 1.1  # counted prompt tokens are scaled by this (+16) in the worst case
    extra: dict[str, Any] = field(default_factory=dict)  # passed to litellm (api_base, ...); not in the key
    preflight_first: bool = False  # run `preflight()` before the first provider request (not for cache hits)

    def __post_init__(self) -> None:
        if self.price is None:
            self.price = resolve_price(self.model, price_in=self.price_in, price_out=self.price_out, free=self.free)
        if self.max_concurrency < 1 or self.max_attempts < 1:
            raise ValueError("max_concurrency and max_attempts must be >= 1")
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
            weakref.WeakKeyDictionary())
        self._sem_lock = threading.Lock()
        self.requests = 0  # provider requests made by this client
        self._mode: str | None = None
        self._tokenizer_choice: Any = None
        self.preflight_result: Preflight | None = None
        self.preflight_failure: PreflightError | None = None
        self._preflight_lock = threading.Lock()
        self._preflight_running = False

    # ------------------------------------------------------------------ identity

    def request_key(self, messages: Messages, response_model: type[BaseModel]) -> str:
        """hash(model, messages, response schema, parameters): the per-request cache key."""
        payload = {"model": self.model, "messages": list(messages), "schema": schema_text(response_model),
                   "params": self.settings.key(), "mode": self._mode_name()}
        return sha256_hex(json.dumps(payload, sort_keys=True, ensure_ascii=False))

    def _tokenizer(self) -> Any:
        """litellm's tokenizer for this model, chosen once (litellm would look the model up on every count)."""
        if self._tokenizer_choice is None:
            litellm = import_litellm()
            try:
                self._tokenizer_choice = litellm.utils.select_tokenizer(model=self.model)
            except Exception:  # let token_counter choose per call
                self._tokenizer_choice = False
        return self._tokenizer_choice or None

    def _mode_name(self) -> str:
        """"tools" for models litellm knows to support tool calling, else "json" (works with every provider)."""
        if self.settings.mode != "auto":
            return self.settings.mode
        if self._mode is None:
            litellm = import_litellm()
            try:
                self._mode = "tools" if litellm.supports_function_calling(self.model) else "json"
            except Exception:  # unknown provider
                self._mode = "json"
        return self._mode

    # ------------------------------------------------------------------ asking

    def ask_sync(self, messages: Messages, response_model: type[T], **kwargs: Any) -> Answer[T]:
        """`ask` from sync code (also inside a running event loop)."""
        return run_sync(lambda: self.ask(messages, response_model, **kwargs))

    async def ask(
        self, messages: Messages, response_model: type[T], *, stage: str, label: str = "",
        context: dict[str, Any] | None = None,
    ) -> Answer[T]:
        """Ask for one `response_model` value; never raises for provider, budget or validation failures."""
        key = self.request_key(messages, response_model)
        cached = self._cached(key, response_model, context)
        if cached is not None:
            self.ledger.record_cached(stage=stage, label=label, model=self.model, prompt_tokens=cached.prompt_tokens,
                                      completion_tokens=cached.completion_tokens)
            return cached
        if self.preflight_first:
            await self.apreflight()  # raises PreflightError: nothing of the corpus is sent
        meter = Meter()
        error: str | None = None
        value: T | None = None
        timeouts = 0
        async with self._semaphore("work"):  # a few asks prepare while others wait on the provider
            for attempt in range(self.max_attempts):
                try:
                    value = await self._instructor_call(messages, response_model, context, meter, stage, label)
                    error = None
                    break
                except Exception as exc:  # every failure becomes the answer's error
                    cause = provider_cause(exc)
                    failure = self._classify(cause, attempts=attempt + 1)
                    error = failure.message()
                    timeouts += failure.billed and failure.transient
                    if not failure.transient or attempt + 1 == self.max_attempts \
                            or timeouts >= self.max_timeout_attempts:
                        break
                    await self.sleep(max(backoff_delay(attempt, rng=self.rng), retry_after_seconds(cause)))
        answer = Answer(value=value, error=error, prompt_tokens=meter.prompt_tokens,
                        completion_tokens=meter.completion_tokens, cost_usd=meter.cost_usd, attempts=meter.requests,
                        key=key)
        if error is None and self.cache is not None and value is not None:
            await asyncio.to_thread(self.cache.put_value, REQUEST_NAMESPACE, key, {  # fsync off the event loop
                "model": self.model, "value": value.model_dump(mode="json"), "prompt_tokens": meter.prompt_tokens,
                "completion_tokens": meter.completion_tokens, "cost_usd": meter.cost_usd})
        return answer

    def _classify(self, exc: BaseException, *, attempts: int) -> Failure:
        return classify(exc, model=self.model, api_base=self.extra.get("api_base"), timeout=self.settings.timeout,
                        max_reasks=self.settings.max_reasks, attempts=attempts)

    # ------------------------------------------------------------------ preflight

    def preflight(self) -> Preflight:
        """One tiny request now (see `apreflight`), from sync code."""
        return run_sync(self.apreflight)

    async def apreflight(self) -> Preflight:
        """Check credentials, model name and api base with one tiny request (`PREFLIGHT_MAX_TOKENS` of output),
        reserved and settled through the ledger like any other (stage "preflight"). Raises `PreflightError`
        naming the cause and its fix. Done once per client: later calls return the first result (or raise
        the first failure). A transient failure (429, 5xx, refused connection) is tried once more; a timeout
        is not (it may be billed). When the budget cannot afford even this request, no request is sent
        (`skipped`): every other request would be refused by the budget anyway."""
        while True:
            with self._preflight_lock:
                if self.preflight_failure is not None:
                    raise self.preflight_failure
                if self.preflight_result is not None:
                    return self.preflight_result
                if not self._preflight_running:
                    self._preflight_running = True
                    break
            await asyncio.sleep(0.01)  # another task or thread is checking: wait for its result
        try:
            result = await self._preflight_request()
            with self._preflight_lock:
                self.preflight_result = result
            return result
        except PreflightError as exc:
            with self._preflight_lock:
                self.preflight_failure = exc
            raise
        finally:
            with self._preflight_lock:
                self._preflight_running = False

    async def _preflight_request(self) -> Preflight:
        import time

        assert self.price is not None
        api_base = self.extra.get("api_base")
        meter = Meter()
        started = time.monotonic()
        attempts = min(2, self.max_attempts)
        request = {"model": self.model, "messages": [dict(m) for m in PREFLIGHT_MESSAGES],
                   "max_tokens": PREFLIGHT_MAX_TOKENS, "temperature": 0.0}
        worst = self._worst_case(request)[2]
        if worst > self.ledger.remaining_usd:  # not even this fits: every other request will be refused anyway
            return Preflight(self.model, api_base, self.price, 0.0, 0.0, False,
                             skipped=f"its worst case ${worst:.6f} exceeds what is left of the cap")
        for attempt in range(attempts):
            try:
                await self._metered(meter=meter, stage="preflight", label="", **request)
                break
            except BudgetExceeded as exc:
                return Preflight(self.model, api_base, self.price, 0.0, 0.0, False, skipped=str(exc))
            except Exception as exc:
                failure = self._classify(exc, attempts=attempt + 1)
                if failure.transient and not failure.billed and attempt + 1 < attempts:
                    await self.sleep(max(backoff_delay(attempt, rng=self.rng), retry_after_seconds(exc)))
                    continue
                where = f" at {api_base}" if api_base else ""
                spent = f"${meter.cost_usd:.6f}" if meter.cost_usd else "nothing"
                raise PreflightError(
                    f"{self.model}{where} failed its preflight request: {failure.cause}\n"
                    f"  detail: {failure.detail}\n  fix: {failure.fix}\n"
                    f"  (no document was sent; the check spent {spent})", failure) from None
        estimated = any(c.estimated for c in self.ledger.charges if c.stage == "preflight")
        return Preflight(self.model, api_base, self.price, time.monotonic() - started, meter.cost_usd, estimated)

    def _cached(self, key: str, response_model: type[T], context: dict[str, Any] | None) -> Answer[T] | None:
        if self.cache is None:
            return None
        hit, stored = self.cache.get_value(REQUEST_NAMESPACE, key)
        if not hit:
            return None
        try:
            value = response_model.model_validate(stored["value"], context=context)
        except (ValidationError, KeyError, TypeError):
            return None  # validators got stricter since: ask again
        return Answer(value=value, prompt_tokens=int(stored.get("prompt_tokens", 0)),
                      completion_tokens=int(stored.get("completion_tokens", 0)),
                      cost_usd=float(stored.get("cost_usd", 0.0)), cached=True, key=key)

    def _semaphore(self, kind: Literal["request", "work"] = "request") -> asyncio.Semaphore:
        """Per event loop: "request" bounds provider requests in flight (`max_concurrency`); "work" bounds asks
        being prepared, sent or parsed (twice that), so the next requests are ready when a slot frees up
        without hundreds of queued asks competing for the loop."""
        loop = asyncio.get_running_loop()
        with self._sem_lock:
            sems = self._semaphores.get(loop)
            if sems is None:
                sems = self._semaphores[loop] = {"request": asyncio.Semaphore(self.max_concurrency),
                                                 "work": asyncio.Semaphore(2 * self.max_concurrency)}
            return sems[kind]

    async def _instructor_call(
        self, messages: Messages, response_model: type[T], context: dict[str, Any] | None, meter: Meter,
        stage: str, label: str,
    ) -> T:
        import instructor

        mode = instructor.Mode.TOOLS if self._mode_name() == "tools" else instructor.Mode.JSON
        metered = functools.partial(self._metered, meter=meter, stage=stage, label=label)
        client = instructor.from_litellm(metered, mode=mode, async_client=True)
        params: dict[str, Any] = {"temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens}
        if self.settings.seed is not None:
            params["seed"] = self.settings.seed
        token = VALIDATION_CONTEXT.set(context)  # read by the response model's validators (see kgkit.llm.validation)
        try:
            return await client.chat.completions.create(
                model=self.model, messages=[dict(m) for m in messages], response_model=prepared_model(response_model),
                max_retries=self.settings.max_reasks, **params)
        finally:
            VALIDATION_CONTEXT.reset(token)

    def _worst_case(self, kwargs: dict[str, Any]) -> tuple[int, int, float]:
        """(prompt tokens at worst, max output tokens, worst-case dollars) of one request."""
        litellm = import_litellm()
        try:
            counted = litellm.token_counter(model=self.model, messages=kwargs.get("messages"),
                                            custom_tokenizer=self._tokenizer())
            if kwargs.get("tools"):  # as JSON text: more than a provider's compact rendering, never less
                counted += litellm.token_counter(model=self.model, text=json.dumps(kwargs["tools"]),
                                                 custom_tokenizer=self._tokenizer())
        except Exception:  # no tokenizer for this model: characters / 3 over-counts every common tokenizer
            counted = len(json.dumps(kwargs.get("messages")) + json.dumps(kwargs.get("tools") or "")) // 3
        prompt_worst = math.ceil(counted * self.prompt_margin) + 16
        max_out = int(kwargs.get("max_tokens") or self.settings.max_tokens)
        assert self.price is not None
        return prompt_worst, max_out, self.price.worst_case(prompt_worst, max_out)

    async def _metered(self, *, meter: Meter, stage: str, label: str, **kwargs: Any) -> Any:
        """One provider request: reserve its worst case, respect the rate limit, call, settle the real cost."""
        prompt_worst, max_out, worst = self._worst_case(kwargs)
        assert self.price is not None
        async with self._semaphore():  # requests in flight; preparing and parsing happen outside
            while (reservation := self.ledger.try_reserve(worst, stage=stage, label=label)) is None:
                await asyncio.sleep(0.005)  # fits once the requests in flight settle: wait for them
            try:
                await self.limiter.acquire(tokens=prompt_worst + max_out)
                self.requests += 1
                meter.requests += 1
                call = self.completion or litellm_completion
                async with asyncio.timeout(self.settings.timeout + 5):  # no extra task, unlike wait_for
                    response = await call(**kwargs, timeout=self.settings.timeout, **self.extra)
            except BaseException as exc:
                if maybe_billed(exc):  # the provider may have done (and billed) the work
                    self.ledger.settle(reservation, cost_usd=None, model=self.model)
                    meter.cost_usd += reservation.amount_usd
                else:
                    self.ledger.release(reservation)
                raise
        prompt_tokens, completion_tokens = usage_of(response)
        cost = None if prompt_tokens is None or completion_tokens is None else self.price.cost(prompt_tokens,
                                                                                                completion_tokens)
        # usage beyond the worst case (more than max_tokens out, a prompt far above the count) is not believed
        distrusted = cost is not None and ((completion_tokens or 0) > max_out or cost > reservation.amount_usd)
        if distrusted:
            prompt_tokens = completion_tokens = cost = None
        self.ledger.settle(reservation, cost_usd=cost, prompt_tokens=prompt_tokens or 0,
                           completion_tokens=completion_tokens or 0, model=self.model, distrusted=distrusted)
        meter.prompt_tokens += prompt_tokens or 0
        meter.completion_tokens += completion_tokens or 0
        meter.cost_usd += reservation.amount_usd if cost is None else cost
        if not choices_of(response):
            raise EmptyAnswer("the response has no choices")
        return response
