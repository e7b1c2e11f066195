"""LlamaIndex fixtures built on the shared corpora of tests/conftest.py (no copies of them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from mirage_core import Mirage, MirageConfig, Passage

#: The sentence of ``mixed_passages`` that contradicts the rest (outvoted, the gate still passes).
POLLUTED_SENTENCE = "The tower was completed in 1925."


def as_nodes(passages: Sequence[Passage]) -> list[NodeWithScore]:
    """One TextNode per passage, its source as ``metadata["url"]``."""
    return [
        NodeWithScore(node=TextNode(text=p.text, metadata={"url": p.source}), score=p.score)
        for p in passages
    ]


@pytest.fixture
def mixed_passages(clean_passages: list[Passage]) -> list[Passage]:
    """The clean sources, one more that agrees, and one whose second sentence is polluted (its
    first is corroborated)."""
    return [
        *clean_passages,
        Passage(
            "Tickets for the summit are sold online. Every seven years it is repainted with "
            "about sixty tonnes of paint.",
            source="https://www.toureiffel.paris/en",
            score=0.8,
        ),
        Passage(
            "Until the Chrysler Building rose in New York, it was the tallest structure in the "
            f"world. {POLLUTED_SENTENCE}",
            source="https://evil.example/x",
            score=0.99,
        ),
    ]


@pytest.fixture
def every_pair_mirage(fake_nli) -> Mirage:
    """The default engine reading every pair: the evil page's corroborated sentence holds no
    word of the query, so only then is its support read (``pair_relevant_only=False``)."""
    return Mirage(MirageConfig().replace(pair_relevant_only=False), nli=fake_nli)


@pytest.fixture
def polluted_sentence() -> str:
    return POLLUTED_SENTENCE


@pytest.fixture(name="as_nodes")
def as_nodes_fixture() -> Callable[[Sequence[Passage]], list[NodeWithScore]]:
    return as_nodes


@pytest.fixture
def clean_nodes(clean_passages: list[Passage]) -> list[NodeWithScore]:
    return as_nodes(clean_passages)


@pytest.fixture
def polluted_nodes(polluted_passages: list[Passage]) -> list[NodeWithScore]:
    return as_nodes(polluted_passages)


@pytest.fixture
def mixed_nodes(mixed_passages: list[Passage]) -> list[NodeWithScore]:
    return as_nodes(mixed_passages)


class FixedRetriever(BaseRetriever):
    """Returns ``route(query)`` (a list of nodes) or raises what it returns if an exception."""

    def __init__(self, route: Callable[[str], list[NodeWithScore] | BaseException]) -> None:
        super().__init__()
        self._route = route

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        out = self._route(query_bundle.query_str)
        if isinstance(out, BaseException):
            raise out
        return list(out)


@pytest.fixture
def fixed_retriever() -> Callable[..., FixedRetriever]:
    def make(nodes_or_route) -> FixedRetriever:
        if callable(nodes_or_route):
            return FixedRetriever(nodes_or_route)
        return FixedRetriever(lambda _q: nodes_or_route)

    return make
