"""NLI backends: one protocol, ``predict(premises, hypotheses) -> (n, 3)`` probabilities in
``[entail, neutral, contra]`` order.

Importing this package never imports torch or transformers; :class:`TransformersNLI` imports
them when an instance is built.
"""

from mirage_core.nli.base import LABELS, CachedNLI, CallableNLI, NLIBackend, PairCache
from mirage_core.nli.transformers_nli import DEFAULT_MODEL_DIR, PRESETS, TransformersNLI

__all__ = [
    "DEFAULT_MODEL_DIR",
    "LABELS",
    "PRESETS",
    "CachedNLI",
    "CallableNLI",
    "NLIBackend",
    "PairCache",
    "TransformersNLI",
]
