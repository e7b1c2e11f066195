"""mirage's NLI serving protocol (JSON over HTTP), shared by ``mirage serve`` and its client.

Routes, under the application's prefix (``/nli`` by default):

- ``GET  {prefix}/info``: ``{"protocol": "mirage-nli/1", "model": str, "labels": [str, str,
  str], "max_batch_pairs": int, ...}``. ``labels`` names the columns of ``probs`` in order; a
  client reads it and never assumes an order. ``mirage serve`` adds its limits, ``batching``,
  the answering ``replica`` (an opaque id, no host or process id) and its ``batches``,
  ``batched_requests`` and ``requests_per_batch`` (how much dynamic batching merges).
- ``POST {prefix}/predict``: ``{"pairs": [[premise, hypothesis], ...]}`` (at most
  ``max_batch_pairs`` pairs) -> ``{"probs": [[p, p, p], ...]}``, one row per pair, in order.
- ``GET  {prefix}/health``: ``{"status": "ok", "model": str}`` once the model is loaded.

Errors (a JSON body ``{"error": str}``): 400 for a malformed request or one over the limits
(``max_batch_pairs`` pairs, ``max_text_chars`` per string, both on ``/info``); 401 without the
server's bearer token, when it has one; 413 for a body over ``max_body_bytes``; 422 when the
model cannot take this request's text; 503 when the model failed (retry later). Never 500.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np

__all__ = [
    "HEALTH_ROUTE",
    "INFO_ROUTE",
    "PREDICT_ROUTE",
    "PROTOCOL",
    "decode_pairs",
    "decode_probs",
    "encode_pairs",
    "is_real",
]

PROTOCOL = "mirage-nli/1"
INFO_ROUTE = "/info"
PREDICT_ROUTE = "/predict"
HEALTH_ROUTE = "/health"


def encode_pairs(premises: Sequence[str], hypotheses: Sequence[str]) -> dict[str, Any]:
    """The body of a ``predict`` request."""
    return {"pairs": [[p, h] for p, h in zip(premises, hypotheses, strict=True)]}


def decode_pairs(body: Any, max_pairs: int | None = None) -> tuple[list[str], list[str]]:
    """Premises and hypotheses of a ``predict`` request body; ValueError when malformed."""
    pairs = body.get("pairs") if isinstance(body, dict) else None
    if not isinstance(pairs, list):
        raise ValueError('expected a JSON object {"pairs": [[premise, hypothesis], ...]}')
    if max_pairs is not None and len(pairs) > max_pairs:
        raise ValueError(f"{len(pairs)} pairs in one request; this server takes {max_pairs}")
    premises, hypotheses = [], []
    for i, pair in enumerate(pairs):
        if not (
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(t, str) for t in pair)
        ):
            raise ValueError(f"pairs[{i}] is not a [premise, hypothesis] pair of strings")
        premises.append(pair[0])
        hypotheses.append(pair[1])
    return premises, hypotheses


def is_real(x: Any) -> TypeGuard[float]:
    """A finite JSON number: int or float, never bool, str, None, NaN or infinity."""
    return type(x) in (int, float) and math.isfinite(x)


def decode_probs(body: Any, n: int, width: int, *, probabilities: bool = True) -> np.ndarray:
    """The ``(n, width)`` score array of a ``predict`` response; ValueError when malformed.

    Strict: every value a finite JSON number (not a bool, a string or null), every row a list
    of ``width``; with ``probabilities`` each value within [0, 1] and each row summing to 1
    (within 1e-3).
    """
    probs = body.get("probs") if isinstance(body, dict) else None
    if not isinstance(probs, list):
        raise ValueError('expected a JSON object {"probs": [[...], ...]}')
    if len(probs) != n:
        raise ValueError(f"probs has {len(probs)} rows, expected {n}")
    for i, row in enumerate(probs):
        if not isinstance(row, list) or len(row) != width:
            raise ValueError(f"probs[{i}] is not a list of {width} numbers: {row!r:.100}")
        if not all(is_real(x) for x in row):
            raise ValueError(f"probs[{i}] holds a value that is not a finite number: {row!r:.100}")
        if probabilities:
            if not all(-1e-6 <= x <= 1 + 1e-6 for x in row):
                raise ValueError(f"probs[{i}] holds a value outside [0, 1]: {row!r:.100}")
            if abs(sum(row) - 1.0) > 1e-3:
                raise ValueError(f"probs[{i}] does not sum to 1: {row!r:.100}")
    return np.asarray(probs, dtype=np.float64).reshape(n, width)
