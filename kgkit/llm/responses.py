"""Reading what a provider sent back: usage, choices, retry-after, the provider's own exception, and the
response models wrapped once for instructor with a wrong-schema check (an answer that sets none of the fields).

>>> usage_of({"usage": {"prompt_tokens": 3, "completion_tokens": 2}})
(3, 2)
>>> usage_of({"choices": []})
(None, None)
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any, TypeVar

from pydantic import BaseModel, model_validator

from kgkit.llm.errors import WRONG_SCHEMA, usage_tokens
from kgkit.llm.runtime import import_litellm

T = TypeVar("T", bound=BaseModel)


@functools.lru_cache(maxsize=256)
def prepared_model(response_model: type[T]) -> type[T]:
    """instructor wraps a response model in a new class on every call; wrap each model once instead."""
    try:
        from instructor.v2.core.function_calls import response_schema
    except ImportError:  # another instructor layout: let it wrap per call
        return response_model
    wrapped = response_schema(response_model)
    schemas: dict[str, dict[str, Any]] = {}

    def model_json_schema(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        # JSON mode renders the schema into every request; pydantic rebuilds it each time (~5 ms)
        key = repr((args, sorted(kwargs.items())))
        if key not in schemas:
            schemas[key] = super(prepared, cls).model_json_schema(*args, **kwargs)
        return copy.deepcopy(schemas[key])

    prepared = type(wrapped.__name__, (wrapped,), {"__module__": wrapped.__module__, "__doc__": wrapped.__doc__,
                                                    "model_json_schema": classmethod(model_json_schema),
                                                    "_kgkit_shape": model_validator(mode="after")(check_shape)})
    return prepared


def check_shape(self: BaseModel) -> BaseModel:
    """An answer that sets none of the response's fields (`{}`, or `{"people": [...]}` for `entities`) is the
    wrong schema: an error to re-ask, never a value made of defaults. (An after-validator: a before-validator
    would turn JSON validation into Python validation, where a JSON array is no longer a valid tuple.)

    >>> class Found(BaseModel):
    ...     names: list[str] = []
    ...     places: list[str] = []
    >>> check_shape(Found.model_validate({"names": ["Ada"]})).names
    ['Ada']
    >>> check_shape(Found.model_validate({"people": ["Ada"]}))
    Traceback (most recent call last):
    ...
    ValueError: wrong schema: the answer sets none of the fields ['names', 'places']
    """
    fields = type(self).model_fields
    if fields and not self.model_fields_set:
        raise ValueError(f"{WRONG_SCHEMA}: the answer sets none of the fields {sorted(fields)}")
    return self


@functools.lru_cache(maxsize=256)
def schema_text(response_model: type[BaseModel]) -> str:
    return json.dumps(response_model.model_json_schema(), sort_keys=True)


async def litellm_completion(**kwargs: Any) -> Any:
    litellm = import_litellm()
    return await litellm.acompletion(**kwargs, num_retries=0, max_retries=0)  # kgkit retries, with the ledger


def usage_of(response: Any) -> tuple[int | None, int | None]:
    """(prompt, completion) tokens from a response's usage; (None, None) when missing or malformed."""
    usage = getattr(response, "usage", None)
    if usage is None and isinstance(response, dict):
        usage = response.get("usage")
    return usage_tokens(usage)


def choices_of(response: Any) -> list[Any]:
    choices = getattr(response, "choices", None)
    if choices is None and isinstance(response, dict):
        choices = response.get("choices")
    return list(choices or [])


def maybe_billed(exc: BaseException) -> bool:
    """Timeouts, cancellation and a response that came back but could not be read: the provider may bill."""
    name = type(exc).__name__
    return name in ("Timeout", "TimeoutError", "ReadTimeout", "APITimeoutError", "CancelledError") \
        or "invalid response object" in str(exc).lower()


def retry_after_seconds(exc: BaseException, *, cap: float = 120.0) -> float:
    """Seconds a 429 asks us to wait (`retry-after` / `retry-after-ms` headers), 0 when it says nothing."""
    headers: Any = {}
    for candidate in (getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None),
                      getattr(getattr(exc, "response", None), "headers", None)):
        if candidate:  # litellm keeps the provider's headers apart; its `response` is a stand-in
            headers = candidate
            break
    try:
        lowered = {str(k).lower(): v for k, v in dict(headers).items()}
        if "retry-after-ms" in lowered:
            return min(float(lowered["retry-after-ms"]) / 1000, cap)
        return min(float(lowered.get("retry-after", 0)), cap)
    except (TypeError, ValueError):  # an HTTP date or garbage: fall back to backoff
        return 0.0


def provider_cause(exc: BaseException) -> BaseException:
    """The provider's own exception behind instructor's wrapper."""
    seen = 0
    while type(exc).__name__ == "InstructorRetryException" and exc.__cause__ is not None and seen < 5:
        exc, seen = exc.__cause__, seen + 1
    return exc
