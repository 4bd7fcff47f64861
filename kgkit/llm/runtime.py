"""How kgkit starts litellm (bundled price map, quiet logs) and runs async LLM code from sync code.

>>> async def two():
...     return 2
>>> run_sync(two)
2
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

R = TypeVar("R")


def import_litellm() -> Any:
    """Import litellm with its bundled price map (no network at import; prices reproducible) and quiet errors."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    # instructor logs every failed attempt at ERROR; kgkit reports failures as records instead
    logging.getLogger("instructor").setLevel(logging.CRITICAL)
    lite_logger = logging.getLogger("LiteLLM")
    if not any(isinstance(f, _LoopChangeFilter) for f in lite_logger.filters):
        lite_logger.addFilter(_LoopChangeFilter())
    return litellm


class _LoopChangeFilter(logging.Filter):
    """Drops litellm's "LoggingWorker: event loop changed" warning: `run_sync` runs each batch of calls in
    a fresh event loop on purpose, and litellm moves its pending logging tasks over by itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "event loop changed" not in str(record.msg)


def run_sync(make: Callable[[], Coroutine[Any, Any, R]]) -> R:
    """Run a coroutine to completion from sync code, even inside a running event loop (then in a worker thread).

    >>> async def two():
    ...     return 2
    >>> run_sync(two)
    2
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgkit-llm") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()
