"""What went wrong with an LLM request, in words a person can act on: a cause, a fix, and whether to retry.

`classify(exc, ...)` turns a provider, budget or validation failure into a `Failure`: a short **cause** that is
the same for every request that failed the same way ("provider rejected the request: OPENAI_API_KEY is not
set"), the request's own **detail** (the provider's message, cleaned of control characters and cut short), a
**fix**, whether the failure is **transient** (worth a retry with backoff) and whether the provider may have
**billed** the request. A chunk's error record is `failure.message()`: "cause — detail".

`group_errors(errors)` counts error records by cause, each with its fix, for a run summary that names each
cause once instead of once per chunk:

>>> errors = ["budget: the cap is used up — this call may cost up to $0.01", "budget: the cap is used up — ...",
...           "document context unavailable: no answer within 2 s — ReadTimeout", "AuthenticationError: no key"]
>>> [(g["cause"], g["count"]) for g in group_errors(errors)]
[('budget: the cap is used up', 2), ('AuthenticationError: no key', 1), ('no answer within 2 s', 1)]
>>> group_errors(errors)[0]["fix"]
'raise --max-cost; a re-run retries exactly these chunks (the others are cached)'

Importing this module loads neither litellm nor instructor (the CLI imports it for `PreflightError`).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgkit.llm.ledger import BudgetExceeded
from kgkit.llm.runtime import import_litellm

__all__ = ["EmptyAnswer", "Failure", "PreflightError", "classify", "clean", "fix_for", "group_errors",
           "missing_key"]

SEPARATOR = " — "
CONTEXT_PREFIX = "document context unavailable: "
PREFLIGHT_PREFIX = "preflight failed: "
_TIMEOUTS = ("Timeout", "TimeoutError", "ReadTimeout", "APITimeoutError", "CancelledError")
_PARSE_ERRORS = ("ValidationError", "JSONDecodeError", "ResponseParsingError", "AsyncValidationError")
_SCHEMA_TYPES = {"missing", "extra_forbidden", "model_type", "model_attributes_type", "list_type", "dict_type",
                 "string_type", "bool_type", "int_type", "float_type", "literal_error", "is_instance_of"}
WRONG_SCHEMA = "wrong schema"


class PreflightError(RuntimeError):
    """The model's preflight request failed (credentials, model name, api base): nothing else was sent.
    `failure` is the classified cause; the message names it, its detail and the fix."""

    def __init__(self, message: str, failure: Failure | None = None) -> None:
        super().__init__(message)
        self.failure = failure


class EmptyAnswer(RuntimeError):
    """A provider response with no choices (nothing to parse): an error, never an empty success."""


@dataclass(frozen=True)
class Failure:
    cause: str  # the same for every request that failed the same way (the group key)
    detail: str = ""
    transient: bool = False  # worth a retry with backoff
    billed: bool = False  # the provider may have billed the request (charge its worst case)

    @property
    def fix(self) -> str:
        return fix_for(self.cause)

    def message(self) -> str:
        return f"{self.cause}{SEPARATOR}{self.detail}" if self.detail else self.cause


def clean(text: object, limit: int = 300) -> str:
    """One line of printable text: control and format characters dropped, whitespace collapsed, cut at `limit`.

    >>> clean("Bad\\x1b[31m key\\n\\n  given\\u202e")
    'Bad[31m key given'
    """
    out = []
    for ch in str(text):
        if ch in "\t\n\r":
            out.append(" ")
        elif unicodedata.category(ch) not in ("Cc", "Cf"):
            out.append(ch)
    line = " ".join("".join(out).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def missing_key(model: str) -> str | None:
    """The API key variable litellm looks for and does not find for `model` (None when none is missing)."""
    try:
        found = import_litellm().validate_environment(model=model)
    except Exception:
        return None
    keys = [k for k in found.get("missing_keys") or [] if k.endswith(("_KEY", "_TOKEN"))]
    return keys[0] if keys else None


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _parse_kind(exc: BaseException) -> str:
    """Why an answer failed validation: malformed JSON, the wrong schema, or the chunk's and domain's checks."""
    if type(exc).__name__ == "JSONDecodeError":
        return "malformed JSON"
    errors_of = getattr(exc, "errors", None)
    try:
        errors = errors_of() if callable(errors_of) else []
    except Exception:
        errors = []
    types = {e.get("type") for e in errors if isinstance(e, dict)}
    text = str(exc)
    if "json_invalid" in types or "Invalid JSON" in text or "JSON" in type(exc).__name__:
        return "malformed JSON"
    if types & _SCHEMA_TYPES or WRONG_SCHEMA in text:
        return WRONG_SCHEMA
    return "fails the checks against the chunk and domain"


def classify(exc: BaseException, *, model: str = "", api_base: str | None = None, timeout: float | None = None,
             max_reasks: int = 0, attempts: int = 1) -> Failure:
    """The `Failure` behind an exception raised while asking `model` (see the module docstring)."""
    name = type(exc).__name__
    text = str(exc)
    detail = clean(f"{name}: {text}" if text else name)
    status = _status(exc)
    low = text.lower()
    tries = f" after {attempts} attempt{'s' if attempts != 1 else ''}"
    if isinstance(exc, BudgetExceeded):
        return Failure("budget: the cap is used up", clean(text.removeprefix("budget: ")))
    if isinstance(exc, EmptyAnswer):
        return Failure("provider answered with no choices", clean(text))
    if name in _PARSE_ERRORS:
        kind = _parse_kind(exc)
        return Failure(f"invalid output after {max_reasks} re-asks: {kind}", clean(text, 400))
    if name == "IncompleteOutputException":
        return Failure("invalid output: cut off at max_tokens", detail)
    if "missing credentials" in low or "api_key client option must be set" in low or (
            name == "AuthenticationError" and "api key" in low and ("not set" in low or "missing" in low)):
        var = missing_key(model) or "the provider's API key"
        return Failure(f"provider rejected the request: {var} is not set", detail)
    if name == "AuthenticationError" or status == 401:
        return Failure(f"provider rejected the API key in {_key_name(model)} (401)", detail)
    if name == "PermissionDeniedError" or status == 403:
        return Failure("provider denied access (403)", detail)
    if name == "NotFoundError" or status == 404:
        return Failure(f"provider does not know the model {model}", detail)
    if name == "ContextWindowExceededError":
        return Failure("prompt longer than the model's context window", detail)
    if name == "RateLimitError" or status == 429:
        if "quota" in low or "billing" in low or "credit" in low:
            return Failure("provider quota exhausted (429)", detail)
        return Failure(f"rate limited (429){tries}", detail, transient=True)
    if name in _TIMEOUTS:
        within = f" within {timeout:g} s" if timeout else " in time"
        return Failure(f"no answer{within}{tries}", detail, transient=True, billed=True)
    if "invalid response object" in low:
        return Failure("provider sent a response litellm cannot read", detail, billed=True)
    if name == "APIConnectionError" or "connection error" in low or "connection refused" in low \
            or "connect call failed" in low or "connection reset" in low:
        where = f" at {api_base}" if api_base else ""
        return Failure(f"cannot reach the provider{where}", detail, transient=True)
    if name in ("InternalServerError", "ServiceUnavailableError", "APIError") or (status or 0) >= 500:
        code = f" ({status})" if status else ""
        return Failure(f"provider server error{code}{tries}", detail, transient=True)
    if name in ("BadRequestError", "UnprocessableEntityError", "UnsupportedParamsError") or status in (400, 422):
        return Failure(f"provider rejected the request ({status or 400})", detail)
    return Failure(f"provider error: {name}", detail)


def _key_name(model: str) -> str:
    provider = model.split("/", 1)[0].upper().replace("-", "_") if "/" in model else "OPENAI"
    return f"{provider}_API_KEY"


_FIXES: list[tuple[re.Pattern[str], str]] = [(re.compile(p), f) for p, f in [
    (r"^budget: ", "raise --max-cost; a re-run retries exactly these chunks (the others are cached)"),
    (r"^provider answered with no choices$", "a re-run retries these chunks; if it persists, the provider filters "
     "this content or --api-base is not a chat-completions endpoint"),
    (r"^invalid output: cut off", "lower --chunk-chars (or raise max_tokens in LLMSettings)"),
    (r"^invalid output", "a re-run retries these chunks; if many fail, try a stronger model, a domain with fewer "
     "types, or --no-context"),
    (r"^provider rejected the request: (.+) is not set$", "set {0} (export {0}=...) and run again; nothing was billed"),
    (r"^provider rejected the API key in (\S+)", "check the key in {0} (the provider says it is wrong or revoked); "
     "nothing was billed"),
    (r"^provider denied access", "the key has no access to this model (or the account or region is not allowed)"),
    (r"^provider does not know the model", "check --model (litellm's provider/model name) and --api-base"),
    (r"^prompt longer than", "lower --chunk-chars"),
    (r"^provider quota exhausted", "add credit or raise the quota in the provider's account, then run again"),
    (r"^rate limited", "lower --concurrency or set --rpm / --tpm; a re-run retries these chunks"),
    (r"^no answer", "raise --timeout or lower --concurrency; a re-run retries these chunks"),
    (r"^provider sent a response", "check that --api-base is an OpenAI-compatible endpoint for this provider"),
    (r"^cannot reach the provider", "check --api-base and that the server runs; a re-run retries these chunks"),
    (r"^provider server error", "the provider failed; a re-run later retries exactly these chunks"),
    (r"^provider rejected the request", "see the detail in run.json (a parameter the model does not support? "
     "try LLMSettings(mode='json'))"),
]]


def fix_for(cause: str) -> str:
    """The fix for a cause `classify` produces ("see chunk_errors in run.json" for any other error)."""
    for pattern, fix in _FIXES:
        m = pattern.match(cause)
        if m:
            return fix.format(*m.groups())
    return "see chunk_errors in run.json for each chunk's error"


def cause_of(error: str) -> str:
    """The group key of one error record: its cause (the part before " — "); a document-context failure
    counts under the failure that left the document without context."""
    for prefix in (CONTEXT_PREFIX, PREFLIGHT_PREFIX):
        error = error.removeprefix(prefix)
    return clean(error.split(SEPARATOR, 1)[0], 200)


def group_errors(errors: Iterable[str | None]) -> list[dict[str, Any]]:
    """[{"cause", "count", "fix"}] for the error records given, most frequent first (JSON-ready)."""
    counts = Counter(cause_of(e) for e in errors if e)
    return [{"cause": cause, "count": n, "fix": fix_for(cause)}
            for cause, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def usage_tokens(usage: Any) -> tuple[int | None, int | None]:
    """(prompt, completion) tokens of a response's usage; (None, None) when it is missing or malformed — not
    numbers, negative, not finite, or both zero (litellm fills zeros when a provider sends no usage)."""
    if usage is None:
        return None, None
    if isinstance(usage, str):
        try:
            usage = json.loads(usage)
        except ValueError:
            return None, None
    get = usage.get if isinstance(usage, dict) else (lambda k: getattr(usage, k, None))
    out: list[int] = []
    for key in ("prompt_tokens", "completion_tokens"):
        v = get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 or v != int(v):
            return None, None
        out.append(int(v))
    if out[0] + out[1] == 0:
        return None, None
    return out[0], out[1]
