"""The options and engine that :class:`MirageRetriever` and :class:`MirageCompressor` share."""

from __future__ import annotations

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
    thresholds were fit on all-MiniLM-L6-v2 cosines: another embedder shifts them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    k: int | None = None
    config: MirageConfig | None = None
    nli: Any = None
    embedder: Any = None
    mirage: Mirage | None = None
    output: OutputMode = "sentences"

    _engine: Mirage = PrivateAttr()

    @field_validator("k", mode="before")
    @classmethod
    def _validate_k(cls, value: Any) -> int | None:
        return check_k(value)

    @model_validator(mode="after")
    def _build_engine(self) -> Any:
        self._engine = resolve_engine(self.mirage, self.config, self.nli, self.embedder)
        return self

    @property
    def engine(self) -> Mirage:
        """The :class:`~mirage_core.Mirage` engine every call of this instance uses."""
        return self._engine
