"""Retries with exponential backoff for remote NLI calls, sync and async side by side, on
`tenacity <https://tenacity.readthedocs.io>`_ (imported when a call is made, so that importing
:mod:`mirage_core.nli` needs no optional package; it comes with the ``remote`` extra).

A call is retried only when its error is *transient* (the caller decides: a timeout, a refused
connection, an HTTP 429 or 5xx, a dead replica); every other error propagates at once. An error
may carry a ``retry_after`` attribute (seconds, from an HTTP ``Retry-After`` header): the next
attempt then waits that long instead of the backoff, unless the wait would end past the
deadline, in which case the error propagates at once. The last error after the final attempt,
or the first one whose retry would pass the deadline, propagates too: the remote backends turn
it into :class:`~mirage_core.errors.NLIError`, which the engine's ``nli_error_policy`` handles
(fail closed by default).
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["DeadlineExceeded", "RetryPolicy"]

T = TypeVar("T")

_INSTALL_HINT = "remote NLI retries need tenacity: pip install 'mirage-rag[remote]'"


class DeadlineExceeded(TimeoutError):
    """A call's total deadline passed (never retried)."""


def _import_tenacity() -> Any:
    try:
        import tenacity
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return tenacity


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a remote call is retried.

    Args:
        max_retries: attempts after the first one (0: never retry). Default 3.
        backoff_s: wait before the first retry; it doubles on each retry. Default 0.2 s.
        backoff_max_s: cap of one backoff wait. Default 5 s.
        jitter: each wait is multiplied by a uniform factor in ``[1 - jitter, 1]`` so that many
            clients do not retry in lockstep. Default 0.5.
        deadline_s: total time of one call, seconds (``None``: no deadline). Default 30 s. The
            remote backends count it from the start of a ``predict``/``apredict`` call, across
            the info request, every request of the call and every retry: each attempt's timeout
            is cut to the time left, a response body is read only until the deadline, and no
            retry starts that would wait past it.
        retry_after_max_s: longest ``Retry-After`` wait honoured (a longer one ends the call at
            once). Default 60 s.
    """

    max_retries: int = 3
    backoff_s: float = 0.2
    backoff_max_s: float = 5.0
    jitter: float = 0.5
    deadline_s: float | None = 30.0
    retry_after_max_s: float = 60.0

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise TypeError(f"max_retries must be an int, got {self.max_retries!r}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff_s < 0 or self.backoff_max_s < 0:
            raise ValueError("backoff_s and backoff_max_s must be >= 0")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"jitter must be in [0, 1], got {self.jitter}")
        if self.deadline_s is not None and not self.deadline_s >= 0:
            raise ValueError(f"deadline_s must be >= 0 or None, got {self.deadline_s}")
        if not self.retry_after_max_s >= 0:
            raise ValueError(f"retry_after_max_s must be >= 0, got {self.retry_after_max_s}")

    def delay(self, retry: int) -> float:
        """Backoff in seconds before retry number ``retry`` (0-based)."""
        base = min(self.backoff_max_s, self.backoff_s * (2.0**retry))
        return base * (1.0 - self.jitter * random.random())

    def deadline_at(self) -> float | None:
        """``time.monotonic()`` at which a call starting now must end (None: no deadline)."""
        return None if self.deadline_s is None else time.monotonic() + self.deadline_s

    # -- tenacity ----------------------------------------------------------------------------

    def _wait(self, state: Any) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        after = getattr(exc, "retry_after", None)
        if isinstance(after, (int, float)) and after >= 0:
            # Honoured as asked; longer than retry_after_max_s: _stop ends the call.
            return float(after)
        return self.delay(state.attempt_number - 1)

    def _stopper(self, deadline_at: float | None) -> Callable[[Any], bool]:
        def stop(state: Any) -> bool:
            if state.attempt_number > self.max_retries:
                return True
            wait = state.upcoming_sleep
            exc = state.outcome.exception() if state.outcome is not None else None
            after = getattr(exc, "retry_after", None)
            if isinstance(after, (int, float)) and after > self.retry_after_max_s:
                return True  # a Retry-After longer than the caller will wait
            return deadline_at is not None and time.monotonic() + wait >= deadline_at

        return stop

    def _kwargs(
        self, transient: Callable[[BaseException], bool], deadline_at: float | None
    ) -> dict[str, Any]:
        tenacity = _import_tenacity()
        if deadline_at is None:
            deadline_at = self.deadline_at()
        return {
            "retry": tenacity.retry_if_exception(
                lambda exc: not isinstance(exc, DeadlineExceeded) and bool(transient(exc))
            ),
            "wait": self._wait,
            "stop": self._stopper(deadline_at),
            "reraise": True,
        }

    def call(
        self,
        fn: Callable[[], T],
        transient: Callable[[BaseException], bool],
        *,
        deadline_at: float | None = None,
    ) -> T:
        """``fn()``, retried while it raises an error for which ``transient`` is true.

        ``deadline_at`` (``time.monotonic()`` time) bounds the retries; default: now +
        ``deadline_s``.
        """
        retrying = _import_tenacity().Retrying(**self._kwargs(transient, deadline_at))
        return retrying(fn)

    async def acall(
        self,
        fn: Callable[[], Awaitable[T]],
        transient: Callable[[BaseException], bool],
        *,
        deadline_at: float | None = None,
    ) -> T:
        """``await fn()``, retried like :meth:`call` (the waits do not block the loop)."""
        retrying = _import_tenacity().AsyncRetrying(**self._kwargs(transient, deadline_at))
        return await retrying(fn)
