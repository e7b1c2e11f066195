"""``MirageRetriever``: any LangChain retriever, with MIRAGE between it and the model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.runnables.configurable import RunnableConfigurableFields
from langchain_core.runnables.utils import AnyConfigurableField
from pydantic import ConfigDict, field_validator

from mirage_core import Claim, Mirage, MirageConfig, Verdict
from mirage_langchain._convert import (
    OutputMode,
    aemit_verdict,
    check_documents,
    check_k,
    documents_to_passages,
    emit_verdict,
    verdict_to_documents,
)
from mirage_langchain._engine import MirageEngineFields, copies_of

__all__ = [
    "MirageRetrieval",
    "MirageRetriever",
    "ainvoke_with_verdict",
    "invoke_with_verdict",
    "wrapped_mirage",
]

#: How deep :func:`wrapped_mirage` looks through wrappers.
_MAX_WRAPPERS = 16


class MirageRetrieval(NamedTuple):
    """One retrieval with its verdict (what :meth:`MirageRetriever.retrieve_with_verdict` returns).

    Attributes:
        documents: what ``invoke`` returns (``[]`` when the gate blocked).
        verdict: the engine's :class:`~mirage_core.Verdict` for this query.
        claims: the verified claims carried by ``documents``, in S* pick order: what the
            verified prompt quotes (all of ``verdict.verified_claims`` unless ``k`` cut documents).
    """

    documents: list[Document]
    verdict: Verdict
    claims: list[Claim]

    @property
    def route(self) -> Literal["verified", "fallback"]:
        return self.verdict.decision


class MirageRetriever(MirageEngineFields, BaseRetriever):
    """A retriever that verifies what another retriever found before anything reaches a model.

    It calls ``base_retriever`` (any retriever-like Runnable: a vector store retriever, BM25,
    an ensemble, a ``RunnableLambda`` or a plain function of the query), runs the MIRAGE engine
    on the documents, and returns **new** ``Document`` objects (the originals are never
    modified). Each keeps the source document's ``id`` and a copy of its metadata, plus one key
    ``metadata["mirage"]``: ``decision``, ``reason`` (one line), ``support`` (most corroborating
    sources of its claims), ``agreeing_sources``, the claim indices into the verdict and which of
    them an independent source corroborates (``corroborated`` for one claim,
    ``corroborated_claims`` for a document's).
    When the gate blocks, the result is ``[]``.

    Args:
        base_retriever: the retriever to verify. Called with ``config={"callbacks": ...}`` only,
            so its run nests under this one; no other argument is ever forwarded to it.
        k: the most documents to return (the top of the verified output). It is **not** passed
            to ``base_retriever``: how many passages the evidence holds is the child's own
            setting (e.g. ``vectorstore.as_retriever(search_kwargs={"k": 8})``). ``invoke(q,
            k=3)`` overrides it per call. ``None``: everything that passed.
        config: a :class:`~mirage_core.MirageConfig` (defaults otherwise).
        nli: an NLI backend, a model name / path, or ``None`` for the packaged model.
        mirage: a ready :class:`~mirage_core.Mirage` engine instead of ``config``/``nli``
            (e.g. one shared by several retrievers).
        output: ``"sentences"`` (default; each contributing document reduced to its verified
            sentences, in retrieval order), ``"claims"`` (one document per verified claim, in
            S* pick order) or ``"documents"`` (the contributing documents whole, in retrieval
            order).

    The verdict of every call is dispatched as the custom event ``"mirage_verdict"`` (data:
    ``verdict.to_dict(include_edges=False)``), visible to callback handlers' ``on_custom_event``
    and in ``astream_events(version="v2")``; :meth:`retrieve_with_verdict` returns it directly.
    One engine is built per instance and shared by concurrent calls (it is thread-safe);
    the async path awaits the child's ``ainvoke`` and runs the model work in a worker thread.
    Through :meth:`configurable_fields`, the copy LangChain makes for each call runs this
    instance's engine while ``config``, ``nli``, ``embedder`` and ``mirage`` are its own, and
    an engine built once per other combination of them otherwise.

    Example:
        >>> retriever = MirageRetriever(base_retriever=vectorstore.as_retriever(), k=4)
        >>> docs = retriever.invoke("When was the Eiffel Tower completed?")
    """

    # BaseRetriever's config ignores unknown options; this one refuses them (and validates
    # assignments), as MirageEngineFields does
    model_config = ConfigDict(
        arbitrary_types_allowed=True, validate_assignment=True, extra="forbid"
    )

    base_retriever: Runnable

    if TYPE_CHECKING:
        # The constructor as type checkers read it: the field validators also take a function
        # of the query as ``base_retriever`` and a mapping as ``config``.
        def __init__(
            self,
            *,
            base_retriever: Runnable[str, Sequence[Document]] | Callable[[str], Sequence[Document]],
            k: int | None = None,
            config: MirageConfig | Mapping[str, Any] | None = None,
            nli: Any = None,
            embedder: Any = None,
            mirage: Mirage | None = None,
            output: OutputMode = "sentences",
            name: str | None = None,
            tags: list[str] | None = None,
            metadata: dict[str, Any] | None = None,
        ) -> None: ...

    @field_validator("base_retriever", mode="before")
    @classmethod
    def _coerce_retriever(cls, value: Any) -> Runnable:
        if isinstance(value, Runnable):
            return value
        if callable(value):
            return RunnableLambda(value)
        raise TypeError(
            "base_retriever must be a retriever-like Runnable (str -> list[Document]) or a "
            f"function of the query, got {type(value).__name__}"
        )

    def configurable_fields(self, **kwargs: AnyConfigurableField) -> _ConfigurableMirageRetriever:
        """LangChain's ``configurable_fields``, whose per-call copies share engines (see the
        class docstring) rather than each building and loading its own."""
        checked = cast("RunnableConfigurableFields", super().configurable_fields(**kwargs))
        return _ConfigurableMirageRetriever(default=self, fields=checked.fields)

    # -- retrieval -----------------------------------------------------------------------------
    def _finish(self, docs: list[Document], verdict: Verdict, k: int | None) -> MirageRetrieval:
        documents, claims = verdict_to_documents(
            docs, verdict, self.output, k if k is not None else self.k
        )
        return MirageRetrieval(documents, verdict, claims)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        _mirage_sink: list[MirageRetrieval] | None = None,
    ) -> list[Document]:
        k = check_k(k)
        result = self.base_retriever.invoke(query, config={"callbacks": run_manager.get_child()})
        docs = check_documents(result)
        verdict = self._engine.defend(query, documents_to_passages(docs))
        emit_verdict(verdict, run_manager.get_child())
        retrieval = self._finish(docs, verdict, k)
        if _mirage_sink is not None:
            _mirage_sink.append(retrieval)
        return retrieval.documents

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        _mirage_sink: list[MirageRetrieval] | None = None,
    ) -> list[Document]:
        k = check_k(k)
        result = await self.base_retriever.ainvoke(
            query, config={"callbacks": run_manager.get_child()}
        )
        docs = check_documents(result)
        verdict = await self._engine.adefend(query, documents_to_passages(docs))
        await aemit_verdict(verdict, run_manager.get_child())
        retrieval = self._finish(docs, verdict, k)
        if _mirage_sink is not None:
            _mirage_sink.append(retrieval)
        return retrieval.documents

    # -- documents and verdict together ----------------------------------------------------------
    def retrieve_with_verdict(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> MirageRetrieval:
        """``invoke``, returning the documents together with this call's verdict.

        Runs as one ordinary retriever run (same trace, same event); the verdict travels back
        through a per-call list, so concurrent calls never see each other's verdicts.
        """
        return invoke_with_verdict(self, input, config, **kwargs)

    async def aretrieve_with_verdict(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> MirageRetrieval:
        """Async :meth:`retrieve_with_verdict`."""
        return await ainvoke_with_verdict(self, input, config, **kwargs)


class _ConfigurableMirageRetriever(RunnableConfigurableFields):
    """A :class:`MirageRetriever`'s ``configurable_fields``: LangChain builds a new retriever
    per call from the configured fields; this one hands that copy the engine of the retriever
    it copies, or one kept for the copy's engine parts. To LangChain (name, serialized id) it
    is a ``RunnableConfigurableFields``."""

    @classmethod
    def lc_id(cls) -> list[str]:
        return RunnableConfigurableFields.lc_id()

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or "RunnableConfigurableFields")

    def _prepare(self, config: RunnableConfig | None = None) -> tuple[Runnable, RunnableConfig]:
        # built only by MirageRetriever.configurable_fields, with default=self
        with copies_of(cast("MirageRetriever", self.default)):
            return super()._prepare(config)


def wrapped_mirage(runnable: Any) -> MirageRetriever | None:
    """The :class:`MirageRetriever` that ``runnable`` is or wraps (``with_config``,
    ``with_retry``, ``configurable_fields`` …: a binding's ``bound``, a configurable's
    ``default``), or ``None``."""
    for _ in range(_MAX_WRAPPERS):
        if isinstance(runnable, MirageRetriever):
            return runnable
        inner = getattr(runnable, "bound", None)
        runnable = inner if inner is not None else getattr(runnable, "default", None)
        if runnable is None:
            return None
    return None


def _only_retrieval(sink: list[MirageRetrieval], runnable: Runnable) -> MirageRetrieval:
    if len(sink) != 1:
        raise TypeError(
            f"{type(runnable).__name__} did not hand its keyword arguments on to the "
            "MirageRetriever it wraps, so its verdict cannot be read; pass the MirageRetriever "
            "itself"
        )
    return sink[0]


def invoke_with_verdict(
    retriever: Runnable, input: str, config: RunnableConfig | None = None, **kwargs: Any
) -> MirageRetrieval:
    """``retriever.invoke`` (a :class:`MirageRetriever`, or a wrapper of one that hands keyword
    arguments on: ``with_config``, ``with_retry``, ``configurable_fields``), returning the
    documents together with this call's verdict."""
    sink: list[MirageRetrieval] = []
    retriever.invoke(input, config, _mirage_sink=sink, **kwargs)
    return _only_retrieval(sink, retriever)


async def ainvoke_with_verdict(
    retriever: Runnable, input: str, config: RunnableConfig | None = None, **kwargs: Any
) -> MirageRetrieval:
    """Async :func:`invoke_with_verdict`."""
    sink: list[MirageRetrieval] = []
    await retriever.ainvoke(input, config, _mirage_sink=sink, **kwargs)
    return _only_retrieval(sink, retriever)
