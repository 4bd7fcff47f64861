"""`ForkedCall`: a function computed in a child process forked later in a command, while the command does
other work (`kgkit add` draws its view there while it prepares the search index update); the pool of workers
forked as a command starts is kgkit.workflows.prefork.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable
from typing import Any

__all__ = ["ForkedCall"]


class ForkedCall:
    """`fn()` computed in a child process forked now, while this one goes on with other work; `result()` is
    its value (pickled back through a pipe). When the child cannot be forked (`fork` False), fails or dies,
    `result()` computes `fn()` here instead: the same value, or the same exception, in this process. The child
    ends with `os._exit` (no exit handlers: they belong to this process); `close()` (or leaving the `with`
    block) kills a child whose result was never taken.

    >>> with ForkedCall.start(lambda: sorted("kgkit"), fork=True) as call:
    ...     call.result(), call.forked
    (['g', 'i', 'k', 'k', 't'], True)
    """

    def __init__(self, fn: Callable[[], Any], pid: int | None, fd: int | None) -> None:
        self.fn, self.pid, self.fd = fn, pid, fd
        self.forked = pid is not None

    @classmethod
    def start(cls, fn: Callable[[], Any], *, fork: bool) -> ForkedCall:
        """Fork a child computing `fn()` when `fork` (the caller knows forking is safe here), else nothing yet."""
        if not fork:
            return cls(fn, None, None)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            code = 1
            try:
                os.close(read)
                with os.fdopen(write, "wb") as out:
                    out.write(pickle.dumps(fn(), protocol=pickle.HIGHEST_PROTOCOL))
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        return cls(fn, pid, read)

    def result(self) -> Any:
        """The child's value; `fn()` computed here when there is no child or it failed."""
        if self.fd is None:
            return self.fn()
        with os.fdopen(self.fd, "rb") as answer:
            self.fd = None
            data = answer.read()
        _, status = os.waitpid(self.pid, 0)  # type: ignore[arg-type]
        self.pid = None
        if status == 0 and data:
            try:
                return pickle.loads(data)
            except (pickle.UnpicklingError, EOFError, AttributeError, ValueError):
                pass
        return self.fn()

    def close(self) -> None:
        """Kill a child whose result was never taken (and reap it)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
            os.waitpid(self.pid, 0)
            self.pid = None

    def __enter__(self) -> ForkedCall:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
