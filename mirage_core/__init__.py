"""mirage_core — the framework-free MIRAGE engine.

>>> from mirage_core import Mirage, MirageConfig, Passage
>>> verdict = Mirage(MirageConfig()).defend("query", [Passage("text", source="a.org")])
"""

from typing import TYPE_CHECKING

from mirage_core.config import MirageConfig
from mirage_core.defense import Mirage
from mirage_core.errors import (
    DuplicateKeyError,
    EmbeddingError,
    MirageError,
    ModelNotFoundError,
    NLIError,
)
from mirage_core.graph import ClaimGraph
from mirage_core.nli.base import CallableNLI, NLIBackend
from mirage_core.types import Claim, Passage
from mirage_core.verdict import Edge, Verdict, VerifiedPassage

if TYPE_CHECKING:
    from mirage_core.nli.transformers_nli import TransformersNLI

__version__ = "0.1.0"

__all__ = [
    "CallableNLI",
    "Claim",
    "ClaimGraph",
    "DuplicateKeyError",
    "Edge",
    "EmbeddingError",
    "Mirage",
    "MirageConfig",
    "MirageError",
    "ModelNotFoundError",
    "NLIBackend",
    "NLIError",
    "Passage",
    "TransformersNLI",
    "Verdict",
    "VerifiedPassage",
    "__version__",
]


if not TYPE_CHECKING:
    # Type checkers read the import above; at runtime TransformersNLI is imported on first use,
    # so that `import mirage_core` never loads torch.
    def __getattr__(name: str) -> type:
        if name == "TransformersNLI":
            from mirage_core.nli.transformers_nli import TransformersNLI

            return TransformersNLI
        raise AttributeError(f"module 'mirage_core' has no attribute {name!r}")
