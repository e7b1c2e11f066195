"""The HTTP transport shared by remote NLI backends: pooled connections, requests of at most
``max_batch_pairs`` pairs, per-attempt timeouts, retries with backoff, sync and async.

A subclass says how to talk to one kind of server (:class:`~mirage_core.nli.http.HTTPNLI` for
``mirage serve``, :class:`~mirage_core.nli.tei.TEINLI` for text-embeddings-inference): where the
routes are, how to read the server's label order from its info route, how to encode a request
and decode a response. The label order always comes from the server (or an explicit
``label_map``), never from an assumption.

httpx is imported when a backend is built, never when this module is imported. Every failure
(timeouts and refused connections after the retries, HTTP errors, malformed answers, a label
order that cannot be read) raises :class:`~mirage_core.errors.NLIError`, so the engine's
``nli_error_policy`` decides what happens: fail closed by default.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mirage_core.errors import NLIError
from mirage_core.nli.base import CachedNLI
from mirage_core.nli.retry import RetryPolicy
from mirage_core.nli.transformers_nli import resolve_label_columns

__all__ = ["HTTPOptions", "RemoteNLI", "ServerInfo"]

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
        timeout_s: limit of one HTTP attempt (connect, write, read), seconds. Default 10.
        max_batch_pairs: pairs per request; a larger call is split. The server's own limit
            (read from its info route) wins when lower. Default 64.
        max_connections: connections kept in the pool (per client). Default 16.
        max_concurrent_requests: requests of one ``apredict`` call in flight together
            (``predict`` sends its requests one after the other). Default 4.
        retry: retries of timeouts, refused connections and HTTP 408/425/429/5xx
            (:class:`~mirage_core.nli.retry.RetryPolicy`; default 3 retries, 30 s deadline).
        headers: sent with every request (e.g. ``{"Authorization": "Bearer ..."}``).
    """

    timeout_s: float = 10.0
    max_batch_pairs: int = 64
    max_connections: int = 16
    max_concurrent_requests: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s}")
        for name in ("max_batch_pairs", "max_connections", "max_concurrent_requests"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not isinstance(self.retry, RetryPolicy):
            raise TypeError(f"retry must be a RetryPolicy, got {type(self.retry).__name__}")


@dataclass(frozen=True)
class ServerInfo:
    """What a backend read from the server's info route."""

    model: str
    labels: tuple[str, ...]  #: names of the server's output columns, in order
    max_batch_pairs: int | None = None  #: the server's limit on pairs per request
    logits: bool = False  #: columns are raw scores (softmaxed over the 3 NLI labels here)


class _RetryableStatus(Exception):
    """An HTTP answer worth retrying (429, 5xx)."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status = status


def _softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class RemoteNLI(CachedNLI):
    """Base class of the HTTP NLI backends (see the module docstring).

    Args:
        url: the server's base URL (the routes are appended to it).
        options: :class:`HTTPOptions` (timeouts, batching, retries, pool, headers).
        label_map: output column of each label (``{"entailment": i, "neutral": j,
            "contradiction": k}``) when the server's label names do not say it.
        cache_size: entries of the LRU pair cache (0 disables it).
        transport, async_transport: httpx transports (tests, unix sockets, proxies).

    The server is first contacted at the first ``predict``, not at construction, so that an
    application starts while its NLI server is down (its verdicts fail closed meanwhile).
    ``predict`` is thread-safe; ``apredict`` works on any running event loop (one pooled
    async client per loop).
    """

    info_route: ClassVar[str]
    predict_route: ClassVar[str]

    def __init__(
        self,
        url: str,
        *,
        options: HTTPOptions | None = None,
        label_map: Mapping[str, int] | None = None,
        cache_size: int = 100_000,
        transport: Any = None,
        async_transport: Any = None,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
        super().__init__(cache_size)
        self._httpx = _import_httpx()
        self.url = url.rstrip("/")
        self.options = options or HTTPOptions()
        self.label_map = dict(label_map) if label_map is not None else None
        self._transport = transport
        self._async_transport = async_transport
        self._client = self._httpx.Client(transport=transport, **self._client_kwargs())
        self._aclients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._info: ServerInfo | None = None
        self._columns: tuple[int, int, int] | None = None

    # -- what a subclass provides ------------------------------------------------------------

    def _parse_info(self, body: Any) -> ServerInfo:
        raise NotImplementedError

    def _encode(self, premises: list[str], hypotheses: list[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _decode(self, body: Any, n: int, info: ServerInfo) -> np.ndarray:
        """The ``(n, len(info.labels))`` scores of a response, in the server's column order."""
        raise NotImplementedError

    # -- public surface ----------------------------------------------------------------------

    def server_info(self) -> ServerInfo:
        """The server's info (fetched once, with retries); NLIError when it cannot be read."""
        if self._info is None:
            self._set_info(self._send("GET", self.info_route))
        assert self._info is not None
        return self._info

    async def aserver_info(self) -> ServerInfo:
        """:meth:`server_info` for asyncio callers."""
        if self._info is None:
            self._set_info(await self._asend("GET", self.info_route))
        assert self._info is not None
        return self._info

    @property
    def label_columns(self) -> tuple[int, int, int] | None:
        """Server column of entailment, neutral and contradiction (None before first contact)."""
        return self._columns

    def close(self) -> None:
        """Close the sync client's connections (async clients: :meth:`aclose`)."""
        self._client.close()

    async def aclose(self) -> None:
        """Close the async client of the running loop."""
        client = self._aclients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def __enter__(self) -> RemoteNLI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> RemoteNLI:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    # -- CachedNLI hooks ---------------------------------------------------------------------

    def _predict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        info = self.server_info()
        parts = [
            self._checked_decode(
                self._send("POST", self.predict_route, self._encode(p, h)), p, info
            )
            for p, h in self._chunks(premises, hypotheses, info)
        ]
        return self._to_probs(parts, info)

    async def _apredict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        info = await self.aserver_info()
        gate = asyncio.Semaphore(self.options.max_concurrent_requests)

        async def one(p: list[str], h: list[str]) -> np.ndarray:
            async with gate:
                body = await self._asend("POST", self.predict_route, self._encode(p, h))
            return self._checked_decode(body, p, info)

        parts = await asyncio.gather(
            *(one(p, h) for p, h in self._chunks(premises, hypotheses, info))
        )
        return self._to_probs(list(parts), info)

    # -- internals ---------------------------------------------------------------------------

    def _client_kwargs(self) -> dict[str, Any]:
        httpx, opts = self._httpx, self.options
        return {
            "base_url": self.url,
            "timeout": httpx.Timeout(opts.timeout_s),
            "limits": httpx.Limits(
                max_connections=opts.max_connections,
                max_keepalive_connections=opts.max_connections,
            ),
            "headers": dict(opts.headers),
        }

    def _aclient(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._aclients.get(loop)
        if client is None:
            client = self._httpx.AsyncClient(
                transport=self._async_transport, **self._client_kwargs()
            )
            self._aclients[loop] = client
        return client

    def _set_info(self, body: Any) -> None:
        try:
            info = self._parse_info(body)
            columns = resolve_label_columns(
                dict(enumerate(info.labels)),
                self.label_map,
                model_name=f"{self.url} ({info.model})",
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise NLIError(f"{self!r}: cannot use the server's info: {exc}") from exc
        with self._lock:
            self._info, self._columns = info, columns

    def _chunks(
        self, premises: list[str], hypotheses: list[str], info: ServerInfo
    ) -> list[tuple[list[str], list[str]]]:
        size = self.options.max_batch_pairs
        if info.max_batch_pairs:
            size = min(size, info.max_batch_pairs)
        return [
            (premises[i : i + size], hypotheses[i : i + size])
            for i in range(0, len(premises), size)
        ]

    def _to_probs(self, parts: Sequence[np.ndarray], info: ServerInfo) -> np.ndarray:
        width = len(info.labels)
        scores = np.concatenate(parts, axis=0) if parts else np.empty((0, width))
        assert self._columns is not None
        picked = scores[:, list(self._columns)]
        return _softmax(picked) if info.logits and len(picked) else picked

    def _checked_decode(self, body: Any, premises: list[str], info: ServerInfo) -> np.ndarray:
        try:
            return self._decode(body, len(premises), info)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise NLIError(f"{self!r}: malformed predict answer: {exc}") from exc

    def _transient(self, exc: BaseException) -> bool:
        return isinstance(exc, (_RetryableStatus, self._httpx.TransportError))

    def _check(self, response: Any) -> Any:
        if response.status_code in RETRY_STATUSES:
            raise _RetryableStatus(response.status_code, response.text)
        if response.status_code >= 400:
            raise NLIError(
                f"{self!r}: {response.request.method} {response.request.url.path} answered "
                f"HTTP {response.status_code}: {response.text[:300]}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise NLIError(f"{self!r}: the answer is not JSON: {response.text[:200]!r}") from exc

    def _fail(self, method: str, route: str, exc: Exception) -> NLIError:
        if isinstance(exc, NLIError):
            return exc
        what = "timed out" if isinstance(exc, self._httpx.TimeoutException) else "failed"
        return NLIError(f"{self!r}: {method} {route} {what}: {type(exc).__name__}: {exc}")

    def _send(self, method: str, route: str, payload: Any = None) -> Any:
        def attempt() -> Any:
            return self._check(self._client.request(method, route, json=payload))

        try:
            return self.options.retry.call(attempt, self._transient)
        except Exception as exc:
            raise self._fail(method, route, exc) from exc

    async def _asend(self, method: str, route: str, payload: Any = None) -> Any:
        client = self._aclient()

        async def attempt() -> Any:
            return self._check(await client.request(method, route, json=payload))

        try:
            return await self.options.retry.acall(attempt, self._transient)
        except Exception as exc:
            raise self._fail(method, route, exc) from exc
