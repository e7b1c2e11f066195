"""The options and engine that :class:`MirageRetriever` and :class:`MirageCompressor` share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr, field_validator, model_validator

from mirage_core import Mirage, MirageConfig
from mirage_core.defense import resolve_engine
from mirage_langchain._convert import OutputMode, check_k

__all__ = ["MirageEngineFields"]


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
            self._engine = resolve_engine(*parts)
            self._built_from = parts
        return self

    @property
    def engine(self) -> Mirage:
        """The :class:`~mirage_core.Mirage` engine every call of this instance uses."""
        return self._engine
