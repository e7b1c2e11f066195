"""The HTTP transport shared by remote NLI backends: pooled connections, requests of at most
``max_batch_pairs`` pairs, a total deadline per call, retries with backoff (honouring
``Retry-After``), strict decoding, sync and async.

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
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mirage_core.errors import DuplicateKeyError, NLIError
from mirage_core.nli.base import CachedNLI
from mirage_core.nli.label_columns import resolve_label_columns
from mirage_core.nli.remote_http import (
    RETRY_STATUSES,
    HTTPOptions,
    _import_httpx,
    _json,
    _RetryableStatus,
    _SizeRefused,
    parse_retry_after,
)
from mirage_core.nli.retry import DeadlineExceeded

# HTTPOptions is defined in remote_http and stays part of this module's API.
__all__ = ["HTTPOptions", "RemoteNLI", "ServerInfo"]


@dataclass(frozen=True)
class ServerInfo:
    """What a backend read from the server's info route."""

    model: str
    labels: tuple[str, ...]  #: names of the server's output columns, in order
    max_batch_pairs: int | None = None  #: the server's limit on pairs per request
    logits: bool = False  #: columns are raw scores (softmaxed over the 3 NLI labels here)
    max_text_chars: int | None = None  #: the server's limit on one premise or hypothesis
    max_body_bytes: int | None = None  #: the server's limit on one request body


#: What a call works with: the server's info and the column of each label in its answers.
_Known = tuple[ServerInfo, tuple[int, int, int]]


def _limits(info: ServerInfo) -> tuple[int | None, int | None, int | None]:
    """The limits of the server that shape a call's requests."""
    return info.max_batch_pairs, info.max_text_chars, info.max_body_bytes


def _encoded_bytes(text: str) -> int:
    """Bytes ``text`` takes in a JSON request body (UTF-8, quotes and escapes included)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class RemoteNLI(CachedNLI):
    """Base class of the HTTP NLI backends (see the module docstring).

    Args:
        url: the server's base URL (the routes are appended to it).
        options: :class:`HTTPOptions` (timeouts, deadline, batching, retries, pool, headers).
        label_map: output column of each label (``{"entailment": i, "neutral": j,
            "contradiction": k}``) when the server's label names do not say it.
        cache_size: entries of the LRU pair cache (0 disables it).
        transport, async_transport: httpx transports (tests, unix sockets, proxies).

    The server is first contacted at the first ``predict``, not at construction, so that an
    application starts while its NLI server is down (its verdicts fail closed meanwhile).
    ``predict`` is thread-safe; ``apredict`` works on any running event loop (one pooled
    async client per loop, and at most ``max_concurrent_requests`` requests in flight on it).
    A call of either ends by its deadline (``options.retry.deadline_s``): ``apredict``
    exactly (it is cancelled); ``predict`` at most one read timeout later (a read already
    waiting is not interrupted).

    The server's limits (from its info route) shape each call's requests. When the server
    refuses a request for its size (an HTTP status in ``size_statuses``, as when it is
    redeployed with smaller limits), the call reads the info route again and, if the limits
    changed, sends its pairs once more under the new ones; when they did not change, or the
    second try is refused too, it raises NLIError. A call refused after another call has read
    the info route again uses that reading.
    """

    info_route: ClassVar[str]
    predict_route: ClassVar[str]
    #: HTTP statuses by which the server refuses a request for its size.
    size_statuses: ClassVar[frozenset[int]] = frozenset({413})

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
        # per event loop: its async client and its gate. A loop's entries refer back to it, so
        # they are dropped once it is closed (by _loop_state), not left to a weak reference.
        self._aclients: dict[asyncio.AbstractEventLoop, Any] = {}
        self._gates: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        self._lock = threading.Lock()
        self._known: _Known | None = None

    # -- what a subclass provides ------------------------------------------------------------

    def _parse_info(self, body: Any) -> ServerInfo:
        raise NotImplementedError

    def _encode(self, premises: list[str], hypotheses: list[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _decode(self, body: Any, n: int, info: ServerInfo) -> np.ndarray:
        """The ``(n, len(info.labels))`` scores of a response, in the server's column order."""
        raise NotImplementedError

    # -- public surface ----------------------------------------------------------------------

    def server_info(self, *, deadline_at: float | None = None) -> ServerInfo:
        """The server's info (fetched at first contact, with retries, and again when the server
        refuses a request for its size); NLIError when it cannot be read."""
        return self._contact(deadline_at)[0]

    async def aserver_info(self, *, deadline_at: float | None = None) -> ServerInfo:
        """:meth:`server_info` for asyncio callers."""
        return (await self._acontact(deadline_at))[0]

    @property
    def label_columns(self) -> tuple[int, int, int] | None:
        """Server column of entailment, neutral and contradiction (None before first contact)."""
        known = self._known
        return None if known is None else known[1]

    def close(self) -> None:
        """Close the sync client's connections, and drop the async clients of event loops that
        have ended (a running loop's: :meth:`aclose`)."""
        self._client.close()
        self._drop_closed_loops()

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
        deadline_at = self.options.retry.deadline_at()
        known = self._contact(deadline_at)
        try:
            return self._predict_under(known, premises, hypotheses, deadline_at)
        except _SizeRefused:
            fresh = self._contact(deadline_at, stale=known)
            if _limits(fresh[0]) == _limits(known[0]):
                raise
            return self._predict_under(fresh, premises, hypotheses, deadline_at)

    async def _apredict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        deadline_at = self.options.retry.deadline_at()
        known = await self._acontact(deadline_at)
        try:
            return await self._apredict_under(known, premises, hypotheses, deadline_at)
        except _SizeRefused:
            fresh = await self._acontact(deadline_at, stale=known)
            if _limits(fresh[0]) == _limits(known[0]):
                raise
            return await self._apredict_under(fresh, premises, hypotheses, deadline_at)

    # -- internals ---------------------------------------------------------------------------

    def _contact(self, deadline_at: float | None, stale: _Known | None = None) -> _Known:
        """The server's info and label columns, read from its info route at first contact, and
        again after a request made under ``stale`` was refused for its size (unless another
        call has read it since)."""
        known = self._known
        if known is None or known is stale:
            known = self._set_info(self._send("GET", self.info_route, deadline_at=deadline_at))
        return known

    async def _acontact(self, deadline_at: float | None, stale: _Known | None = None) -> _Known:
        known = self._known
        if known is None or known is stale:
            body = await self._asend("GET", self.info_route, deadline_at=deadline_at)
            known = self._set_info(body)
        return known

    def _predict_under(
        self, known: _Known, premises: list[str], hypotheses: list[str], deadline_at: float | None
    ) -> np.ndarray:
        """One try of a ``predict`` call under the server's ``known`` info."""
        info = known[0]
        parts = [
            self._checked_decode(
                self._send("POST", self.predict_route, self._encode(p, h), deadline_at), p, info
            )
            for p, h in self._chunks(premises, hypotheses, info)
        ]
        return self._to_probs(parts, known)

    async def _apredict_under(
        self, known: _Known, premises: list[str], hypotheses: list[str], deadline_at: float | None
    ) -> np.ndarray:
        """One try of an ``apredict`` call under the server's ``known`` info."""
        info = known[0]
        gate = self._gate()
        # cutting and measuring thousands of texts is CPU work: off the event loop
        chunks = await asyncio.to_thread(self._chunks, premises, hypotheses, info)

        async def one(p: list[str], h: list[str]) -> np.ndarray:
            async with gate:
                body = await self._asend(
                    "POST", self.predict_route, self._encode(p, h), deadline_at
                )
            return self._checked_decode(body, p, info)

        tasks = [asyncio.ensure_future(one(p, h)) for p, h in chunks]
        try:
            parts = await asyncio.gather(*tasks)
        except BaseException:
            # One request failed (or the caller was cancelled): the call's other requests
            # stop now instead of running on in the background.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return self._to_probs(list(parts), known)

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

    def _drop_closed_loops(self) -> None:
        """Forget the clients and gates of event loops that are closed (each ``asyncio.run``
        ends its loop): their connections cannot be used again, and holding them would keep
        every loop, client and socket alive."""
        with self._lock:
            for loop in [lp for lp in (*self._aclients, *self._gates) if lp.is_closed()]:
                self._aclients.pop(loop, None)
                self._gates.pop(loop, None)

    def _aclient(self) -> Any:
        self._drop_closed_loops()
        loop = asyncio.get_running_loop()
        client = self._aclients.get(loop)
        if client is None:
            client = self._httpx.AsyncClient(
                transport=self._async_transport, **self._client_kwargs()
            )
            self._aclients[loop] = client
        return client

    def _gate(self) -> asyncio.Semaphore:
        """The running loop's limit on requests in flight (shared by every apredict call)."""
        self._drop_closed_loops()
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = asyncio.Semaphore(self.options.max_concurrent_requests)
        return gate

    def _set_info(self, body: Any) -> _Known:
        try:
            info = self._parse_info(body)
            columns = resolve_label_columns(
                dict(enumerate(info.labels)),
                self.label_map,
                model_name=f"{self.url} ({info.model})",
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise NLIError(f"{self!r}: cannot use the server's info: {exc}") from exc
        known = (info, columns)
        with self._lock:
            self._known = known
        return known

    def _chunks(
        self, premises: list[str], hypotheses: list[str], info: ServerInfo
    ) -> list[tuple[list[str], list[str]]]:
        """The requests of one call: texts cut to the server's ``max_text_chars``, at most
        ``max_batch_pairs`` pairs and (about) ``max_body_bytes`` bytes each.

        Cutting a text changes no score: the model reads 512 tokens of a pair, far fewer than
        the server's 10,000 characters, so a long sentence on a retrieved page is scored as the
        in-process model scores it instead of failing the whole query's request."""
        limit = info.max_text_chars
        if limit:
            premises = [p[:limit] for p in premises]
            hypotheses = [h[:limit] for h in hypotheses]
        size = self.options.max_batch_pairs
        if info.max_batch_pairs:
            size = min(size, info.max_batch_pairs)
        budget = None if not info.max_body_bytes else int(info.max_body_bytes * 0.9) - 64
        out: list[tuple[list[str], list[str]]] = []
        start, used = 0, 0
        for i, (p, h) in enumerate(zip(premises, hypotheses, strict=True)):
            cost = _encoded_bytes(p) + _encoded_bytes(h) + 8 if budget is not None else 0
            if i > start and (i - start >= size or (budget is not None and used + cost > budget)):
                out.append((premises[start:i], hypotheses[start:i]))
                start, used = i, 0
            used += cost
        if start < len(premises):
            out.append((premises[start:], hypotheses[start:]))
        return out

    def _to_probs(self, parts: Sequence[np.ndarray], known: _Known) -> np.ndarray:
        info, columns = known
        width = len(info.labels)
        scores = np.concatenate(parts, axis=0) if parts else np.empty((0, width))
        picked = scores[:, list(columns)]
        return _softmax(picked) if info.logits and len(picked) else picked

    def _checked_decode(self, body: Any, premises: list[str], info: ServerInfo) -> np.ndarray:
        try:
            return self._decode(body, len(premises), info)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise NLIError(f"{self!r}: malformed predict answer: {exc}") from exc

    def _transient(self, exc: BaseException) -> bool:
        return isinstance(exc, (_RetryableStatus, self._httpx.TransportError))

    def _timeout(self, deadline_at: float | None) -> Any:
        """This attempt's httpx timeout: ``timeout_s``, cut to the time left."""
        seconds = self.options.timeout_s
        if deadline_at is not None:
            left = deadline_at - time.monotonic()
            if left <= 0:
                raise DeadlineExceeded("the call's deadline passed")
            seconds = min(seconds, left)
        return self._httpx.Timeout(seconds)

    def _take(self, body: bytearray, chunk: bytes, deadline_at: float | None) -> None:
        """Append one chunk of a response body; stop at the size limit or the deadline."""
        body += chunk
        if len(body) > self.options.max_response_bytes:
            raise NLIError(
                f"{self!r}: the answer is longer than max_response_bytes "
                f"({self.options.max_response_bytes})"
            )
        if deadline_at is not None and time.monotonic() > deadline_at:
            raise DeadlineExceeded("the call's deadline passed while the answer was read")

    def _check(self, response: Any, content: bytes) -> Any:
        status = response.status_code
        text = content[:300].decode("utf-8", "replace")
        if status in RETRY_STATUSES:
            after = parse_retry_after(response.headers.get("retry-after"))
            raise _RetryableStatus(status, text, after)
        if status >= 400:
            error = _SizeRefused if status in self.size_statuses else NLIError
            raise error(
                f"{self!r}: {response.request.method} {response.request.url.path} answered "
                f"HTTP {status}: {text}"
            )
        try:
            return _json(content)
        except DuplicateKeyError as exc:
            raise NLIError(f"{self!r}: the answer is ambiguous: {exc}") from exc
        except ValueError as exc:
            raise NLIError(f"{self!r}: the answer is not JSON: {text[:200]!r}") from exc

    def _fail(self, method: str, route: str, exc: BaseException) -> NLIError:
        if isinstance(exc, NLIError):
            return exc
        if isinstance(exc, (DeadlineExceeded, asyncio.TimeoutError)):
            return NLIError(
                f"{self!r}: {method} {route} timed out: deadline of "
                f"{self.options.retry.deadline_s} s exceeded"
            )
        what = "timed out" if isinstance(exc, self._httpx.TimeoutException) else "failed"
        return NLIError(f"{self!r}: {method} {route} {what}: {type(exc).__name__}: {exc}")

    def _send(
        self, method: str, route: str, payload: Any = None, deadline_at: float | None = None
    ) -> Any:
        if deadline_at is None:
            deadline_at = self.options.retry.deadline_at()

        def attempt() -> Any:
            timeout = self._timeout(deadline_at)
            with self._client.stream(method, route, json=payload, timeout=timeout) as response:
                body = bytearray()
                for chunk in response.iter_bytes():
                    self._take(body, chunk, deadline_at)
            return self._check(response, bytes(body))

        try:
            return self.options.retry.call(attempt, self._transient, deadline_at=deadline_at)
        except Exception as exc:
            raise self._fail(method, route, exc) from exc

    async def _asend(
        self, method: str, route: str, payload: Any = None, deadline_at: float | None = None
    ) -> Any:
        if deadline_at is None:
            deadline_at = self.options.retry.deadline_at()
        client = self._aclient()

        async def attempt() -> Any:
            timeout = self._timeout(deadline_at)
            async with client.stream(method, route, json=payload, timeout=timeout) as response:
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    self._take(body, chunk, deadline_at)
            return self._check(response, bytes(body))

        try:
            if deadline_at is None:
                return await self.options.retry.acall(attempt, self._transient)
            async with asyncio.timeout(max(0.0, deadline_at - time.monotonic())):
                return await self.options.retry.acall(
                    attempt, self._transient, deadline_at=deadline_at
                )
        except Exception as exc:
            raise self._fail(method, route, exc) from exc
