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


class DuplicateKeyError(MirageError, ValueError):
    """A JSON object of the input names the same key twice.

    Python's ``json`` keeps the last value of a repeated key; mirage refuses the ambiguity
    wherever it reads JSON it did not write itself (configuration files, passage rows, HTTP
    bodies). ``key`` is the repeated key; ``where`` the file (and line) where the reader knows
    it, and the message names both.
    """

    def __init__(self, key: str, where: str | None = None) -> None:
        self.key = key
        self.where = where
        super().__init__(f"{where + ': ' if where else ''}duplicate key {key!r} in a JSON object")

    def __reduce__(self) -> tuple[type[DuplicateKeyError], tuple[str, str | None]]:
        return type(self), (self.key, self.where)
