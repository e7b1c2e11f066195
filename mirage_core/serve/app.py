"""The Ray Serve application of ``mirage serve``: one deployment, any NLI backend.

Each replica loads the backend once. Concurrent requests are merged into one forward pass by
``@serve.batch`` (unless ``batching=False``: then one request is one forward pass). Routes follow
:mod:`mirage_core.nli.protocol`; callers inside the Ray cluster use the deployment's
``predict`` method through a handle (:class:`~mirage_core.serve.handle.ServeHandleNLI`).

This module imports ray and fastapi (the ``serve`` extra); nothing in the engine imports it. (No
``from __future__ import annotations`` here: FastAPI reads the route signatures' types.)
"""

from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from ray import serve

import mirage_core.nli.protocol as protocol
from mirage_core.nli.loading import load_backend
from mirage_core.serve.config import ServeConfig
from mirage_core.serve.routes import NLIService

__all__ = ["NLIServer", "build_app", "run"]

api = FastAPI(title="mirage NLI", description="mirage's NLI model on Ray Serve")


@api.exception_handler(Exception)
async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    """Never a 500: an error no route expected is the server's, and temporary."""
    return JSONResponse({"error": f"server error: {type(exc).__name__}"}, status_code=503)


def _quiet_model_loading() -> None:
    """No progress bars of huggingface libraries in the replicas' logs."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:
        pass


# Serve pickles the class when it is decorated: whatever its methods use is defined above it.


@serve.deployment
@serve.ingress(api)
class NLIServer:
    """One replica: the backend, its dynamic batcher and the HTTP routes (whose handling, limits
    and token check live in :class:`~mirage_core.serve.routes.NLIService`)."""

    def __init__(self, config: dict[str, Any]) -> None:
        cfg = ServeConfig.from_dict(config)
        self.cfg = cfg
        _quiet_model_loading()
        self.backend = load_backend(cfg.model, **cfg.backend_kwargs())
        self.service = NLIService(cfg, self.backend, batch=self._batched if cfg.batching else None)
        # @serve.batch adds these setters; its type hints keep the plain method's type
        self._batched.set_max_batch_size(cfg.max_batch_size)  # type: ignore[attr-defined]
        self._batched.set_batch_wait_timeout_s(cfg.batch_wait_timeout_s)  # type: ignore[attr-defined]

    # -- HTTP routes (mirage_core.nli.protocol) ----------------------------------------------

    @api.get(protocol.INFO_ROUTE)
    async def info(self, request: Request) -> Any:
        return await self.service.info(request)

    @api.get(protocol.HEALTH_ROUTE)
    async def health(self, request: Request) -> Any:
        return await self.service.health(request)

    @api.post(protocol.PREDICT_ROUTE)
    async def predict_route(self, request: Request) -> Any:
        return await self.service.predict(request)

    # -- handle method -----------------------------------------------------------------------

    async def predict(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        """``(n, 3)`` probabilities in :data:`~mirage_core.nli.base.LABELS` order. An error
        raised here is this call's own, never another caller's in the same batch."""
        return await self.service.score(list(premises), list(hypotheses))

    @serve.batch(max_batch_size=32, batch_wait_timeout_s=0.005)
    async def _batched(self, requests: list[tuple[list[str], list[str]]]) -> list[Any]:
        """Every waiting request's pairs in one ``predict`` call, split back per request
        (a request whose pairs fail gets its own error: ``NLIService.score_many``)."""
        return await self.service.score_many(requests)

    def check_health(self) -> None:
        """Serve's periodic health check: the backend is loaded."""
        if self.backend is None:
            raise RuntimeError("NLI backend not loaded")


def build_app(config: ServeConfig) -> Any:
    """The bound application (``serve.run`` it, or compose it in a larger app)."""
    # @serve.deployment makes the class a Deployment; its type hints keep the class's type
    deployment = NLIServer.options(name="NLIServer", **config.deployment_options())  # type: ignore[attr-defined]
    return deployment.bind(config.to_dict())


def run(
    config: ServeConfig, *, blocking: bool = False, runtime_env: dict[str, Any] | None = None
) -> Any:
    """Start (or join) Ray, start Serve's HTTP proxy and deploy; return the app's handle."""
    import ray

    if not ray.is_initialized():
        ray.init(address=config.address, runtime_env=runtime_env, include_dashboard=False)
    serve.start(http_options={"host": config.host, "port": config.port})
    return serve.run(
        build_app(config), name=config.name, route_prefix=config.route_prefix, blocking=blocking
    )
