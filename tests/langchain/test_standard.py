"""langchain-tests' standard retriever suite against MirageRetriever.

The child is a real ``InMemoryVectorStore`` retriever over three agreeing encyclopedia
passages (``clean_passages``), so the gate passes with the NLI test double and at least three
documents survive; ``k`` is MirageRetriever's own output cap (never forwarded to the child).
Blocking is tested in ``test_retriever.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from mirage_langchain import MirageRetriever


@pytest.mark.model
class TestMirageRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _child_and_nli(self, fake_nli, clean_retriever) -> None:
        # Fixtures of a test class are bound to the instance running the test, so the
        # properties below can use them.
        self._nli = fake_nli
        self._child = clean_retriever

    @property
    def retriever_constructor(self) -> type[MirageRetriever]:
        return MirageRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"base_retriever": self._child, "nli": self._nli}

    @property
    def retriever_query_example(self) -> str:
        return "Where is the Eiffel Tower located?"


@pytest.mark.model
class TestMirageRetrieverStandardAttributions(TestMirageRetrieverStandard):
    """Attributions: five outlets state one fact, each in its own words, and name themselves
    ("The Alpha Gazette reports it.", "So writes the Bravo Times."), and the NLI backend calls
    every pair entailment. Outlet names are not facts: a name-based fact check that read
    "Alpha" vs "Bravo" as a conflict would return nothing."""

    @pytest.fixture(autouse=True)
    def _child_and_nli(self, make_vector_retriever, attributed_outlets) -> None:
        import numpy as np
        from langchain_core.documents import Document

        from mirage_core import CallableNLI

        docs = [
            Document(page_content=p.text, metadata={"url": p.source}) for p in attributed_outlets
        ]
        self._child = make_vector_retriever(docs, 5)
        self._nli = CallableNLI(lambda p, h: np.tile([0.98, 0.01, 0.01], (len(p), 1)))

    @property
    def retriever_query_example(self) -> str:
        return "How tall is the Eiffel Tower?"
