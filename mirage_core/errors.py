"""Typed errors raised by mirage.

Programming errors (wrong types, invalid configuration) raise these or the builtin
``TypeError`` / ``ValueError``; conditions of the evidence itself (no passages, one source,
junk text) never raise: they produce a :class:`~mirage_core.verdict.Verdict` whose reason
says what happened.
"""

from __future__ import annotations


class MirageError(Exception):
    """Base class of every error mirage raises on purpose."""


class NLIError(MirageError):
    """The NLI backend failed or returned something that is not an (n, 3) probability array.

    Whether it propagates is the user's choice: ``MirageConfig(nli_error_policy="raise")``.
    """


class EmbeddingError(MirageError):
    """The embedder failed at query time or returned non-finite vectors.

    It follows the same policy as NLI failures (``MirageConfig.nli_error_policy``): it
    propagates only under ``"raise"``.
    """


class ModelNotFoundError(MirageError, FileNotFoundError):
    """An NLI model could not be found locally and could not be downloaded."""
