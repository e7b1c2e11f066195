"""Retries with exponential backoff for remote NLI calls, sync and async side by side.

A call is retried only when its error is *transient* (the caller decides: a timeout, a refused
connection, an HTTP 429 or 5xx, a dead replica); every other error propagates at once. The last
error after the final attempt, or the first one past the deadline, propagates too: the remote
backends turn it into :class:`~mirage_core.errors.NLIError`, which the engine's
``nli_error_policy`` handles (fail closed by default).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["RetryPolicy"]

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a remote call is retried.

    Args:
        max_retries: attempts after the first one (0: never retry). Default 3.
        backoff_s: wait before the first retry; it doubles on each retry. Default 0.2 s.
        backoff_max_s: cap of one wait. Default 5 s.
        jitter: each wait is multiplied by a uniform factor in ``[1 - jitter, 1]`` so that many
            clients do not retry in lockstep. Default 0.5.
        deadline_s: no retry starts later than this many seconds after the first attempt
            (``None``: no deadline). Default 30 s. With ``timeout_s`` per attempt, a call takes
            at most ``deadline_s + timeout_s``.
    """

    max_retries: int = 3
    backoff_s: float = 0.2
    backoff_max_s: float = 5.0
    jitter: float = 0.5
    deadline_s: float | None = 30.0

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise TypeError(f"max_retries must be an int, got {self.max_retries!r}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff_s < 0 or self.backoff_max_s < 0:
            raise ValueError("backoff_s and backoff_max_s must be >= 0")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"jitter must be in [0, 1], got {self.jitter}")
        if self.deadline_s is not None and self.deadline_s < 0:
            raise ValueError(f"deadline_s must be >= 0 or None, got {self.deadline_s}")

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        base = min(self.backoff_max_s, self.backoff_s * (2.0**retry))
        return base * (1.0 - self.jitter * random.random())

    def _next_delay(self, retry: int, started: float, exc: BaseException, transient: bool) -> float:
        """The wait before the next attempt, or re-raise ``exc`` when there is none."""
        if not transient or retry >= self.max_retries:
            raise exc
        wait = self.delay(retry)
        if self.deadline_s is not None and time.monotonic() + wait - started > self.deadline_s:
            raise exc
        return wait

    def call(self, fn: Callable[[], T], transient: Callable[[BaseException], bool]) -> T:
        """``fn()``, retried while it raises an error for which ``transient`` is true."""
        started = time.monotonic()
        retry = 0
        while True:
            try:
                return fn()
            except Exception as exc:
                time.sleep(self._next_delay(retry, started, exc, transient(exc)))
                retry += 1

    async def acall(
        self, fn: Callable[[], Awaitable[T]], transient: Callable[[BaseException], bool]
    ) -> T:
        """``await fn()``, retried like :meth:`call` (the waits do not block the loop)."""
        started = time.monotonic()
        retry = 0
        while True:
            try:
                return await fn()
            except Exception as exc:
                await asyncio.sleep(self._next_delay(retry, started, exc, transient(exc)))
                retry += 1
