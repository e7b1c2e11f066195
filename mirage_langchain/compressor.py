"""``MirageCompressor``: MIRAGE as a ``BaseDocumentCompressor`` for compressor pipelines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import Callbacks
from langchain_core.documents import Document
from langchain_core.documents.compressor import BaseDocumentCompressor

from mirage_core import Mirage, MirageConfig
from mirage_langchain._convert import (
    OutputMode,
    aemit_verdict,
    check_documents,
    documents_to_passages,
    emit_verdict,
    verdict_to_documents,
)
from mirage_langchain._engine import MirageEngineFields
from mirage_langchain.retriever import MirageRetrieval

__all__ = ["MirageCompressor"]


class MirageCompressor(MirageEngineFields, BaseDocumentCompressor):
    """Verify already-retrieved documents for a query; same options and output as
    :class:`~mirage_langchain.MirageRetriever` (``k``, ``config``, ``nli`` or ``mirage``,
    ``output``). Returns new documents (``[]`` when the gate blocks); the input documents are
    never modified.

    The verdict is dispatched as the ``"mirage_verdict"`` custom event when the call belongs to
    a run (``callbacks`` is a run's child manager, as compression retrievers pass, or the call
    happens inside a runnable); a bare call has no run to attach it to, so use
    :meth:`compress_with_verdict` there.
    """

    if TYPE_CHECKING:
        # The constructor as type checkers read it: the field validator also takes a mapping as
        # ``config``.
        def __init__(
            self,
            *,
            k: int | None = None,
            config: MirageConfig | Mapping[str, Any] | None = None,
            nli: Any = None,
            embedder: Any = None,
            mirage: Mirage | None = None,
            output: OutputMode = "sentences",
        ) -> None: ...

    def _finish(self, docs: list[Document], verdict: Any) -> MirageRetrieval:
        documents, claims = verdict_to_documents(docs, verdict, self.output, self.k)
        return MirageRetrieval(documents, verdict, claims)

    def compress_with_verdict(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> MirageRetrieval:
        """``compress_documents`` with the verdict (a :class:`MirageRetrieval`)."""
        docs = check_documents(documents, "documents")
        verdict = self._engine.defend(query, documents_to_passages(docs))
        emit_verdict(verdict, callbacks)
        return self._finish(docs, verdict)

    async def acompress_with_verdict(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> MirageRetrieval:
        """Async :meth:`compress_with_verdict` (model work in a worker thread)."""
        docs = check_documents(documents, "documents")
        verdict = await self._engine.adefend(query, documents_to_passages(docs))
        await aemit_verdict(verdict, callbacks)
        return self._finish(docs, verdict)

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        return self.compress_with_verdict(documents, query, callbacks).documents

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        return (await self.acompress_with_verdict(documents, query, callbacks)).documents
