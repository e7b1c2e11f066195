"""Request handling of ``mirage serve``, without Ray: limits, authentication, errors.

:class:`NLIService` holds one replica's backend and answers the routes of
:mod:`mirage_core.nli.protocol`; the Ray Serve deployment (:mod:`mirage_core.serve.app`) routes
to it, and :func:`build_api` puts it in a plain FastAPI app (tests, or another ASGI server).

What a request meets, in order:

- a bearer token, when one is set (401 without it; compared in constant time);
- the body's size, ``max_body_bytes`` (413: refused from ``Content-Length`` before it is read,
  or as soon as the bytes read pass it);
- a pydantic model of the body (400): a JSON object ``{"pairs": [[premise, hypothesis],
  ...]}`` and nothing else, at most ``max_batch_pairs`` pairs of strings of at most
  ``max_text_chars`` characters; JSON nested too deeply or holding a lone surrogate is invalid
  JSON (pydantic's parser has a recursion limit), never a crash; a body that passes the model
  is read once more to refuse a repeated ``"pairs"`` key (the model would keep the last);
- the backend: an error it raises on this request's pairs is answered 422 (``ValueError``,
  ``TypeError``, ``UnicodeError``: the input) or 503 (anything else: the model), never 500, and
  never fails the other requests merged into the same batch (:meth:`NLIService.score_many`
  scores each request of a failed batch alone).
"""

from __future__ import annotations

import asyncio
import hmac
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import ConfigDict, Field, StringConstraints, ValidationError, create_model
from starlette.requests import Request
from starlette.responses import JSONResponse

import mirage_core.nli.protocol as protocol
from mirage_core.errors import DuplicateKeyError, NLIError
from mirage_core.jsonl import json_loads
from mirage_core.nli.base import LABELS, PairCache
from mirage_core.serve.config import ServeConfig

__all__ = ["Failed", "NLIService", "build_api", "error_status", "request_model"]


@dataclass(frozen=True)
class Failed:
    """One request's error, returned in its place by a batch (raised for that request only)."""

    error: BaseException


class _TooLarge(Exception):
    pass


def error_status(exc: BaseException) -> int:
    """HTTP status of a backend error: 422 when the input is to blame, else 503."""
    if isinstance(exc, NLIError):
        return 503
    if isinstance(exc, (ValueError, TypeError, UnicodeError)):
        return 422
    return 503


def request_model(max_pairs: int, max_chars: int) -> Any:
    """The pydantic model of a ``predict`` body under these limits."""
    text = Annotated[str, StringConstraints(strict=True, max_length=max_chars)]
    return create_model(
        "PredictRequest",
        __config__=ConfigDict(extra="forbid"),
        pairs=(Annotated[list[tuple[text, text]], Field(max_length=max_pairs)], ...),
    )


def _errors(exc: ValidationError, limit: int = 3) -> str:
    parts = []
    for err in exc.errors(include_url=False, include_input=False)[:limit]:
        loc = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in err["loc"])
        parts.append(f"{loc.lstrip('.') or 'body'}: {err['msg']}")
    more = exc.error_count() - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


class NLIService:
    """One replica's request handling (see the module docstring).

    Args:
        config: the limits, token and batching setting (:class:`ServeConfig`).
        backend: the NLI backend (``predict(premises, hypotheses) -> (n, 3)``).
        batch: ``None`` to score each request alone, or an async function that merges
            concurrent requests (the deployment's ``@serve.batch`` method, which calls
            :meth:`score_many`) and returns each request's array or :class:`Failed`.
    """

    def __init__(
        self,
        config: ServeConfig,
        backend: Any,
        *,
        model: str | None = None,
        batch: Callable[[tuple[list[str], list[str]]], Awaitable[Any]] | None = None,
    ) -> None:
        self.cfg = config
        self.backend = backend
        self.model = model or str(getattr(backend, "name", None) or config.model or "packaged")
        self.batch = batch
        # An opaque id: which replica answered, without its host name or process id.
        self.replica = uuid.uuid4().hex[:12]
        self.batches = 0  # merged backend calls, and the requests they served
        self.batched_requests = 0
        self._model = request_model(config.max_batch_pairs, config.max_text_chars)
        cache = getattr(backend, "cache", None)
        if isinstance(cache, PairCache):
            cache.max_bytes = config.cache_bytes

    # -- scoring -------------------------------------------------------------------------------

    async def score(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        """``(n, 3)`` probabilities in LABELS order; raises only this request's error."""
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        if not premises:
            return np.empty((0, 3))
        if self.batch is not None:
            result = await self.batch((list(premises), list(hypotheses)))
        else:
            result = (await self.score_many([(list(premises), list(hypotheses))]))[0]
        if isinstance(result, Failed):
            raise result.error
        return result

    async def score_many(
        self, requests: list[tuple[list[str], list[str]]]
    ) -> list[np.ndarray | Failed]:
        """Every request's pairs in one backend call, split back per request. When that call
        fails, each request is scored alone, so that one request's bad input (or a model
        error it alone triggers) fails that request only."""
        self.batches += 1
        self.batched_requests += len(requests)
        premises = [p for req in requests for p in req[0]]
        hypotheses = [h for req in requests for h in req[1]]
        try:
            probs = await self._predict(premises, hypotheses)
        except Exception as exc:
            if len(requests) == 1:
                return [Failed(exc)]
            return [await self._alone(p, h) for p, h in requests]
        return list(np.split(probs, np.cumsum([len(req[0]) for req in requests])[:-1]))

    async def _alone(self, premises: list[str], hypotheses: list[str]) -> np.ndarray | Failed:
        try:
            return await self._predict(premises, hypotheses)
        except Exception as exc:
            return Failed(exc)

    async def _predict(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        probs = await asyncio.to_thread(self.backend.predict, premises, hypotheses)
        arr = np.asarray(probs, dtype=np.float64)
        if arr.shape != (len(premises), 3) or not np.all(np.isfinite(arr)):
            raise NLIError(f"the backend returned shape {arr.shape} or non-finite values")
        return arr

    # -- HTTP ------------------------------------------------------------------------------------

    def authorized(self, request: Request) -> bool:
        token = self.cfg.token
        if token is None:
            return True
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        # header values arrive as latin-1; the token is printable ASCII (ServeConfig)
        return scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode("latin-1", "replace"), token.encode("ascii")
        )

    @staticmethod
    def _unauthorized() -> JSONResponse:
        return JSONResponse(
            {"error": "missing or wrong bearer token"},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )

    async def _body(self, request: Request) -> bytes:
        limit = self.cfg.max_body_bytes
        declared = request.headers.get("content-length")
        declared = None if declared is None else declared.strip()
        if declared and declared.isascii() and declared.isdigit() and int(declared) > limit:
            raise _TooLarge
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise _TooLarge
        return bytes(body)

    async def info(self, request: Request) -> Any:
        if not self.authorized(request):
            return self._unauthorized()
        return {
            "protocol": protocol.PROTOCOL,
            "model": self.model,
            "labels": list(LABELS),
            "max_batch_pairs": self.cfg.max_batch_pairs,
            "max_text_chars": self.cfg.max_text_chars,
            "max_body_bytes": self.cfg.max_body_bytes,
            "batching": self.cfg.batching,
            "replica": self.replica,
            "batches": self.batches,  # this replica's, since it started
            "batched_requests": self.batched_requests,
            "requests_per_batch": round(self.batched_requests / self.batches, 2)
            if self.batches
            else None,
        }

    async def health(self, request: Request) -> Any:
        if self.cfg.token is not None and not self.authorized(request):
            return {"status": "ok"}  # load balancers need no token; the model name does
        return {"status": "ok", "model": self.model}

    async def predict(self, request: Request) -> Any:
        if not self.authorized(request):
            return self._unauthorized()
        try:
            body = await self._body(request)
        except _TooLarge:
            return JSONResponse(
                {"error": f"the request body is longer than {self.cfg.max_body_bytes} bytes"},
                status_code=413,
            )
        try:
            parsed = self._model.model_validate_json(body)
            json_loads(body)  # the model keeps the last of a repeated key: refuse the ambiguity
        except (ValidationError, DuplicateKeyError) as exc:
            detail = _errors(exc) if isinstance(exc, ValidationError) else str(exc)
            return JSONResponse(
                {
                    "error": 'malformed request: expected {"pairs": [[premise, hypothesis], '
                    f"...]}}, at most {self.cfg.max_batch_pairs} pairs, each a pair of strings "
                    f"of at most {self.cfg.max_text_chars} characters ({detail})"
                },
                status_code=400,
            )
        premises = [p for p, _ in parsed.pairs]
        hypotheses = [h for _, h in parsed.pairs]
        try:
            probs = await self.score(premises, hypotheses)
        except Exception as exc:
            return JSONResponse(
                {
                    "error": f"the model could not score this request: {type(exc).__name__}: "
                    f"{str(exc)[:300]}"
                },
                status_code=error_status(exc),
            )
        return {"probs": probs.tolist()}


def build_api(service: NLIService) -> Any:
    """A FastAPI app of the service's routes (no Ray; the deployment has its own)."""
    from fastapi import FastAPI

    api = FastAPI(title="mirage NLI")
    api.add_api_route(protocol.INFO_ROUTE, service.info, methods=["GET"])
    api.add_api_route(protocol.HEALTH_ROUTE, service.health, methods=["GET"])
    api.add_api_route(protocol.PREDICT_ROUTE, service.predict, methods=["POST"])
    return api
