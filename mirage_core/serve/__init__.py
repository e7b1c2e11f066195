"""Serving mirage's NLI model on Ray Serve (``mirage serve``) and calling it from the cluster.

- :class:`ServeConfig`: model, batching, replicas / autoscaling, device, address;
- :mod:`mirage_core.serve.app`: the deployment (``@serve.batch`` dynamic batching, HTTP routes
  of :mod:`mirage_core.nli.protocol`, a health route) and :func:`~mirage_core.serve.app.run`;
- :class:`ServeHandleNLI`: a backend for callers inside the Ray cluster (a DeploymentHandle).

Callers outside the cluster use :class:`~mirage_core.nli.HTTPNLI`. Importing this package does
not import ray: only :mod:`mirage_core.serve.app` and a built :class:`ServeHandleNLI` do.
"""

from mirage_core.serve.config import ServeConfig
from mirage_core.serve.handle import ServeHandleNLI

__all__ = ["ServeConfig", "ServeHandleNLI"]
