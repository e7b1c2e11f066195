"""mirage's NLI serving protocol (JSON over HTTP), shared by ``mirage serve`` and its client.

Routes, under the application's prefix (``/nli`` by default):

- ``GET  {prefix}/info``: ``{"protocol": "mirage-nli/1", "model": str, "labels": [str, str,
  str], "max_batch_pairs": int, ...}``. ``labels`` names the columns of ``probs`` in order; a
  client reads it and never assumes an order. ``mirage serve`` adds ``batching``, and the
  answering ``replica``'s ``batches``, ``batched_requests`` and ``requests_per_batch`` (how much
  dynamic batching merges).
- ``POST {prefix}/predict``: ``{"pairs": [[premise, hypothesis], ...]}`` (at most
  ``max_batch_pairs`` pairs) -> ``{"probs": [[p, p, p], ...]}``, one row per pair, in order.
- ``GET  {prefix}/health``: ``{"status": "ok", "model": str}`` once the model is loaded.

Errors: 400 for a malformed request; 500 when the model failed (the body says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "HEALTH_ROUTE",
    "INFO_ROUTE",
    "PREDICT_ROUTE",
    "PROTOCOL",
    "decode_pairs",
    "decode_probs",
    "encode_pairs",
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


def decode_probs(body: Any, n: int, width: int) -> np.ndarray:
    """The ``(n, width)`` score array of a ``predict`` response; ValueError when malformed."""
    probs = body.get("probs") if isinstance(body, dict) else None
    if not isinstance(probs, list):
        raise ValueError('expected a JSON object {"probs": [[...], ...]}')
    try:
        arr = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"probs is not a numeric array: {exc}") from exc
    if arr.shape != (n, width):
        raise ValueError(f"probs has shape {arr.shape}, expected ({n}, {width})")
    return arr
