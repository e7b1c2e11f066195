"""Fixtures of the LangChain adapter tests: the shared passages as Documents, real in-memory
retrievers over them, and a callback handler that records runs and custom events.

The NLI test double and the passages themselves come from ``tests/conftest.py``.
"""

from __future__ import annotations

import math
import re
import zlib
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore

from mirage_core import Passage

_DIM = 256


class BagOfWordsEmbeddings(Embeddings):
    """Deterministic hashed bag-of-words vectors: texts sharing words are close (unlike
    ``DeterministicFakeEmbedding``, whose vectors are random per text)."""

    def _embed(self, text: str) -> list[float]:
        vec = [0.0] * _DIM
        for word in re.findall(r"\w+", text.lower()):
            vec[zlib.crc32(word.encode()) % _DIM] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def to_documents(passages: list[Passage], prefix: str) -> list[Document]:
    return [
        Document(
            page_content=p.text,
            metadata={"url": p.source, "score": p.score, "tags": ["encyclopedia"]},
            id=f"{prefix}-{i}",
        )
        for i, p in enumerate(passages)
    ]


@pytest.fixture
def clean_docs(clean_passages: list[Passage]) -> list[Document]:
    return to_documents(clean_passages, "clean")


@pytest.fixture
def polluted_docs(polluted_passages: list[Passage]) -> list[Document]:
    return to_documents(polluted_passages, "polluted")


def two_path_child(docs: list[Document], calls: list[str]) -> RunnableLambda:
    """A retriever-like Runnable returning ``docs`` that records which path ran: ``"sync"``
    (``invoke``) or ``"async"`` (``ainvoke``)."""

    def sync_child(query: str) -> list[Document]:
        calls.append("sync")
        return docs

    async def async_child(query: str) -> list[Document]:
        calls.append("async")
        return docs

    return RunnableLambda(sync_child, afunc=async_child)


def vector_retriever(docs: list[Document], k: int):
    store = InMemoryVectorStore(embedding=BagOfWordsEmbeddings())
    store.add_documents(docs)
    return store.as_retriever(search_kwargs={"k": k})


@pytest.fixture
def make_vector_retriever():
    """``make_vector_retriever(docs, k)``: an InMemoryVectorStore retriever over ``docs``."""
    return vector_retriever


@pytest.fixture
def clean_retriever(clean_docs: list[Document]):
    """A real vector-store retriever whose top 3 for an Eiffel question are the 3 clean docs."""
    return vector_retriever(clean_docs, k=3)


@pytest.fixture
def polluted_retriever(polluted_docs: list[Document]):
    return vector_retriever(polluted_docs, k=3)


class Recorder(BaseCallbackHandler):
    """Records every run start (name, run id, parent id), errors and custom events."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.prompts: list[str] = []

    def _start(
        self, kind: str, serialized: Any, run_id: UUID, parent_run_id: UUID | None, kwargs: dict
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name")
        self.runs.append({"kind": kind, "name": name, "run_id": run_id, "parent": parent_run_id})

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        self._start("chain", serialized, run_id, parent_run_id, kwargs)

    def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kwargs):
        self._start("retriever", serialized, run_id, parent_run_id, kwargs)

    def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, **kwargs):
        self._start("llm", serialized, run_id, parent_run_id, kwargs)
        self.prompts += [m.text for batch in messages for m in batch]

    def on_llm_start(self, serialized, prompts, *, run_id, parent_run_id=None, **kwargs):
        self._start("llm", serialized, run_id, parent_run_id, kwargs)
        self.prompts += list(prompts)

    def on_retriever_error(self, error, *, run_id, parent_run_id=None, **kwargs):
        self.errors.append({"error": error, "run_id": run_id, "parent": parent_run_id})

    def on_custom_event(self, name, data, *, run_id, **kwargs):
        self.events.append({"name": name, "data": data, "run_id": run_id})

    def run(self, name: str) -> dict[str, Any]:
        found = [r for r in self.runs if r["name"] == name]
        assert len(found) == 1, f"expected one run named {name!r}, got {self.runs}"
        return found[0]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()
