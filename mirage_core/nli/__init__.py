"""NLI backends: one protocol, ``predict(premises, hypotheses) -> (n, 3)`` probabilities in
``[entail, neutral, contra]`` order (and ``apredict`` for asyncio callers).

In-process: :class:`TransformersNLI` (torch) and :class:`OnnxNLI` (ONNX Runtime, no torch);
:func:`default_nli` picks the one this install can run. Remote: :class:`HTTPNLI` (a ``mirage serve`` application)
and :class:`TEINLI` (Hugging Face text-embeddings-inference). Importing this package never
imports torch, transformers or httpx; each backend imports what it needs when it is built.
"""

from mirage_core.nli.base import LABELS, CachedNLI, CallableNLI, NLIBackend, PairCache
from mirage_core.nli.http import HTTPNLI
from mirage_core.nli.onnx_nli import OnnxNLI, default_nli
from mirage_core.nli.remote import RemoteNLI, ServerInfo
from mirage_core.nli.remote_http import HTTPOptions
from mirage_core.nli.retry import RetryPolicy
from mirage_core.nli.tei import TEINLI
from mirage_core.nli.transformers_nli import DEFAULT_MODEL_DIR, PRESETS, TransformersNLI

__all__ = [
    "DEFAULT_MODEL_DIR",
    "HTTPNLI",
    "LABELS",
    "PRESETS",
    "TEINLI",
    "CachedNLI",
    "CallableNLI",
    "HTTPOptions",
    "NLIBackend",
    "OnnxNLI",
    "PairCache",
    "RemoteNLI",
    "RetryPolicy",
    "ServerInfo",
    "TransformersNLI",
    "default_nli",
]
