"""NLI backend for callers inside the Ray cluster: a Serve ``DeploymentHandle``, no HTTP.

Example (in a Ray task, actor or another deployment)::

    from mirage_core import Mirage
    from mirage_core.serve import ServeHandleNLI

    mirage = Mirage(nli=ServeHandleNLI(app_name="mirage-nli"))

ray is imported when the backend is built. A replica that dies under a call, a timeout or Serve's
back-pressure is retried (:class:`~mirage_core.nli.retry.RetryPolicy`); the last failure raises
:class:`~mirage_core.errors.NLIError`, so the engine's ``nli_error_policy`` applies. An attempt
that ends without its answer (its timeout passed, the caller was cancelled) cancels its request
(``DeploymentResponse.cancel()``) before the next attempt is sent, so that no replica goes on
scoring pairs nobody waits for.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import numpy as np

from mirage_core.errors import NLIError
from mirage_core.nli.base import CachedNLI
from mirage_core.nli.retry import DeadlineExceeded, RetryPolicy

__all__ = ["ServeHandleNLI"]

_INSTALL_HINT = "ServeHandleNLI needs Ray Serve: pip install 'mirage-rag[serve]'"


def _transient_types() -> tuple[type[BaseException], ...]:
    import ray.exceptions as rex
    from ray.serve.exceptions import BackPressureError

    names = ("RayActorError", "ActorUnavailableError", "GetTimeoutError", "ObjectLostError")
    found = tuple(getattr(rex, n) for n in names if hasattr(rex, n))
    return (*found, BackPressureError, TimeoutError, asyncio.TimeoutError)


def _cancel(response: Any) -> None:
    """Cancel a request whose answer will not be read (best effort, as Serve's cancel is). An
    error it raises is dropped (Serve raises again the failure of a request that never reached
    a replica): the attempt's own error is the one that propagates."""
    with contextlib.suppress(Exception):
        response.cancel()


class ServeHandleNLI(CachedNLI):
    """Calls the ``predict`` method of a ``mirage serve`` deployment through a handle.

    Args:
        handle: a ``DeploymentHandle`` of :class:`~mirage_core.serve.app.NLIServer`; ``None``:
            the ingress handle of the application ``app_name``.
        app_name: the Serve application's name (``ServeConfig.name``). Default ``"mirage-nli"``.
        timeout_s: limit of one attempt, seconds (cut to the time left before the
            deadline); a request that passes it is cancelled. Default 30.
        retry: retries of dead replicas, timeouts and back-pressure, and the total deadline
            of one call (default :class:`~mirage_core.nli.retry.RetryPolicy`).
        cache_size: entries of the LRU pair cache (0 disables it).
    """

    def __init__(
        self,
        handle: Any = None,
        *,
        app_name: str = "mirage-nli",
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        cache_size: int = 100_000,
    ) -> None:
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        super().__init__(cache_size)
        try:
            from ray import serve
        except ImportError as exc:
            raise ImportError(_INSTALL_HINT) from exc
        self.app_name = app_name
        self.handle = handle if handle is not None else serve.get_app_handle(app_name)
        self.timeout_s = float(timeout_s)
        self.retry = retry or RetryPolicy()
        self._transient = _transient_types()

    def __repr__(self) -> str:
        return f"ServeHandleNLI(app_name={self.app_name!r})"

    def _is_transient(self, exc: BaseException) -> bool:
        return isinstance(exc, self._transient)

    def _fail(self, exc: Exception) -> NLIError:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, NLIError):
            return cause
        return NLIError(f"{self!r}: predict failed: {type(exc).__name__}: {exc}")

    def _attempt_timeout(self, deadline_at: float | None) -> float:
        """``timeout_s``, cut to the time left before the call's deadline."""
        if deadline_at is None:
            return self.timeout_s
        left = deadline_at - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded("the call's deadline passed")
        return min(self.timeout_s, left)

    def _predict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        deadline_at = self.retry.deadline_at()

        def attempt() -> np.ndarray:
            timeout = self._attempt_timeout(deadline_at)
            response = self.handle.predict.remote(premises, hypotheses)
            try:
                return response.result(timeout_s=timeout)
            except BaseException:
                _cancel(response)
                raise

        try:
            return self.retry.call(attempt, self._is_transient, deadline_at=deadline_at)
        except Exception as exc:
            raise self._fail(exc) from exc

    async def _apredict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        deadline_at = self.retry.deadline_at()

        async def attempt() -> np.ndarray:
            timeout = self._attempt_timeout(deadline_at)
            response = self.handle.predict.remote(premises, hypotheses)
            try:
                return await asyncio.wait_for(response, timeout)
            except BaseException:
                _cancel(response)
                raise

        try:
            return await self.retry.acall(attempt, self._is_transient, deadline_at=deadline_at)
        except Exception as exc:
            raise self._fail(exc) from exc
