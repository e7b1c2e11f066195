"""The options and engine that :class:`MirageRetriever` and :class:`MirageCompressor` share."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr, field_validator, model_validator

from mirage_core import Mirage, MirageConfig
from mirage_core.defense import resolve_engine
from mirage_langchain._convert import OutputMode, check_k

__all__ = ["EngineShelf", "MirageEngineFields", "copies_of"]

#: How many engines an :class:`EngineShelf` keeps besides the original's.
_SHELF_SIZE = 8

#: The instance whose copies are being built (:func:`copies_of`), in this thread or task.
_ORIGINAL: ContextVar[MirageEngineFields | None] = ContextVar("mirage_original", default=None)


def _same_part(a: Any, b: Any) -> bool:
    """Whether two values of one engine part build the same engine: the same object, or equal
    settings (a config, a model name)."""
    return a is b or (type(a) is type(b) and isinstance(a, (MirageConfig, str)) and a == b)


def _same_parts(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    return a is not None and b is not None and all(map(_same_part, a, b))


class EngineShelf:
    """The engines of copies of one :class:`MirageEngineFields` with other engine parts than
    its own: one engine per combination of ``mirage``, ``config``, ``nli`` and ``embedder``,
    built on first use and kept while it is among the last few used, so that its loaded
    model, NLI pair cache and embedding cache serve every call that configures the same
    parts. Parts are the same when they are the same object, or equal configs or model names.
    Thread-safe."""

    def __init__(self, size: int = _SHELF_SIZE) -> None:
        self._size = size
        self._engines: list[tuple[tuple[Any, ...], Mirage]] = []
        self._lock = threading.Lock()

    def engine_for(self, parts: tuple[Any, ...]) -> Mirage:
        """The engine for ``parts`` (``resolve_engine``'s arguments), built on first use."""
        with self._lock:
            for i, (built, engine) in enumerate(self._engines):
                if _same_parts(parts, built):
                    self._engines.append(self._engines.pop(i))
                    return engine
            engine = resolve_engine(*parts)
            self._engines = [*self._engines, (parts, engine)][-self._size :]
            return engine

    def __getstate__(self) -> dict[str, Any]:
        # a copy (pickle, deepcopy) starts empty, with a lock of its own
        return {"_size": self._size}

    def __setstate__(self, state: dict[str, Any]) -> None:
        type(self).__init__(self, state["_size"])


class MirageEngineFields(BaseModel):
    """``k``, ``config``, ``nli`` and ``embedder`` or ``mirage``, ``output``, and the one engine
    built from them. ``embedder`` (any LangChain ``Embeddings``, callable or
    :class:`~mirage_core.embeddings.Embedder`) is used when the config needs embeddings
    (the default's ``coordination="embedding"``, ``independence="embedding"`` or
    ``paraphrase_pairs``); the packaged all-MiniLM-L6-v2 otherwise. The coordination signals'
    thresholds were fit on all-MiniLM-L6-v2 cosines: another embedder shifts them.

    Fields are validated when they are set after construction as well (``retriever.k = 3``),
    and setting ``config``, ``nli``, ``embedder`` or ``mirage`` builds the engine anew.
    ``config`` may be given as a mapping (:meth:`~mirage_core.MirageConfig.from_dict`: an
    unknown setting is an error, not ignored)."""

    # a misspelt option (``search_kwargs=`` for the child's) is an error, not ignored
    model_config = ConfigDict(
        arbitrary_types_allowed=True, validate_assignment=True, extra="forbid"
    )

    k: int | None = None
    config: MirageConfig | None = None
    nli: Any = None
    embedder: Any = None
    mirage: Mirage | None = None
    output: OutputMode = "sentences"

    _engine: Mirage = PrivateAttr()
    #: The fields the engine was built from: an assignment of another field keeps it.
    _built_from: tuple[Any, ...] | None = PrivateAttr(default=None)
    #: The engines of this instance's copies with other engine parts (:func:`copies_of`).
    _copy_engines: EngineShelf = PrivateAttr(default_factory=EngineShelf)

    @field_validator("k", mode="before")
    @classmethod
    def _validate_k(cls, value: Any) -> int | None:
        return check_k(value)

    @field_validator("config", mode="before")
    @classmethod
    def _config_from_mapping(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            try:
                return MirageConfig.from_dict(dict(value))
            except TypeError as exc:  # an unknown setting: say so as validation does
                raise ValueError(str(exc)) from exc
        return value

    @model_validator(mode="after")
    def _build_engine(self) -> Any:
        parts = (self.mirage, self.config, self.nli, self.embedder)
        built = getattr(self, "_built_from", None)
        if built is None or any(a is not b for a, b in zip(parts, built, strict=True)):
            original = _ORIGINAL.get()
            self._engine = (
                resolve_engine(*parts) if original is None else original._engine_for(parts)
            )
            self._built_from = parts
        return self

    @property
    def engine(self) -> Mirage:
        """The :class:`~mirage_core.Mirage` engine every call of this instance uses."""
        return self._engine

    def _engine_for(self, parts: tuple[Any, ...]) -> Mirage:
        """The engine of a copy of this instance built from ``parts`` (``mirage``, ``config``,
        ``nli``, ``embedder``): this instance's own when they are its own, else the one its
        shelf keeps for them."""
        if _same_parts(parts, self._built_from):
            return self._engine
        return self._copy_engines.engine_for(parts)


@contextmanager
def copies_of(original: MirageEngineFields) -> Iterator[None]:
    """While it lasts, an instance built in this thread or task takes its engine from
    ``original`` (its own engine, or one kept for other parts) rather than building one:
    LangChain's ``configurable_fields`` builds a copy of ``original`` for every call."""
    token = _ORIGINAL.set(original)
    try:
        yield
    finally:
        _ORIGINAL.reset(token)
