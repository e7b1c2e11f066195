"""The HTTP pieces of the remote NLI backends that hold no connection: their transport settings
(:class:`HTTPOptions`), the lazy httpx import, the HTTP statuses worth a retry with the
``Retry-After`` wait they carry, the error of a request refused for its size, and strict JSON
decoding of an answer.

:class:`~mirage_core.nli.remote.RemoteNLI` sends the requests with them. httpx is imported when a
backend is built, never when this module is imported.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mirage_core.errors import NLIError
from mirage_core.jsonl import json_loads
from mirage_core.nli.retry import RetryPolicy

__all__ = ["RETRY_STATUSES", "HTTPOptions", "parse_retry_after"]

_INSTALL_HINT = "remote NLI backends need httpx: pip install 'mirage-rag[remote]'"
#: HTTP statuses worth a retry: the server is overloaded, restarting or timed out.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return httpx


@dataclass(frozen=True)
class HTTPOptions:
    """Transport settings of a remote NLI backend.

    Args:
        timeout_s: limit of one HTTP attempt's connect, write, and each read, seconds; cut to
            the time left before the call's deadline (``retry.deadline_s``). Default 10.
        max_batch_pairs: pairs per request; a larger call is split. The server's own limit
            (read from its info route) wins when lower. Default 64.
        max_connections: connections kept in the pool (per client). Default 16.
        max_concurrent_requests: requests in flight together from ``apredict`` calls on one
            event loop, all calls of the backend together (``predict`` sends a call's
            requests one after the other). Default 4.
        retry: retries of timeouts, refused connections and HTTP 408/425/429/5xx, and the
            total deadline of one call (:class:`~mirage_core.nli.retry.RetryPolicy`; default 3
            retries, 30 s deadline).
        headers: sent with every request (e.g. ``{"Authorization": "Bearer ..."}``).
        max_response_bytes: a longer response body is an error (not retried). Default 64 MiB.
    """

    timeout_s: float = 10.0
    max_batch_pairs: int = 64
    max_connections: int = 16
    max_concurrent_requests: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    headers: Mapping[str, str] = field(default_factory=dict)
    max_response_bytes: int = 64 * 2**20

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s}")
        for name in (
            "max_batch_pairs",
            "max_connections",
            "max_concurrent_requests",
            "max_response_bytes",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not isinstance(self.retry, RetryPolicy):
            raise TypeError(f"retry must be a RetryPolicy, got {type(self.retry).__name__}")


class _RetryableStatus(Exception):
    """An HTTP answer worth retrying (429, 5xx); ``retry_after`` from its header, seconds."""

    def __init__(self, status: int, body: str, retry_after: float | None = None) -> None:
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status = status
        self.retry_after = retry_after


class _SizeRefused(NLIError):
    """The server refused a request for its size (an HTTP status of the backend's
    ``size_statuses``): the limits read from its info route may be out of date."""


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds or an HTTP-date (RFC 9110);
    None when absent or unreadable. A date in the past gives 0."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # "²" is a digit to str.isdigit, not to int()
        return float(int(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None  # RFC 9110 dates are GMT; a date without a zone is not one
    seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json(content: bytes) -> Any:
    """Strict JSON: no NaN/Infinity, no object that repeats a key
    (:class:`~mirage_core.errors.DuplicateKeyError`); too deep a nesting is an error, not a
    crash."""
    try:
        return json_loads(content, parse_constant=_no_constants)
    except RecursionError as exc:
        raise ValueError("the JSON is nested too deeply") from exc
