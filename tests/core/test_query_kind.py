"""Query kind: a request for an account is told from a question by its form."""

from __future__ import annotations

import pytest

from mirage_core.query_kind import requests_account


@pytest.mark.parametrize(
    "query",
    [
        "Tell me a bio of Mihai Eminescu?",
        "tell me about the Eiffel Tower",
        "Please describe the history of the tower.",
        "Could you please summarize the life of Patoranking?",
        "Can you give me an overview of the 1889 World's Fair",
        "  Write a short biography of Ada Lovelace.",
        "Tell me",
    ],
)
def test_imperatives_of_telling_request_an_account(query):
    assert requests_account(query)


@pytest.mark.parametrize(
    "query",
    [
        "Who supplied the lift machinery of the tower?",
        "who recorded i can't help falling in love with you",
        "Can you climb the Eiffel Tower?",  # courtesy, then a verb that is not of telling
        "The tower was completed in which year?",
        "When was the tower completed? Tell me.",  # the question comes first
        "Teller of tales: who wrote it?",
        "",
        "?!",
        "1889?",
        "Tell me who won the 2018 World Cup.",  # a question in the imperative: one answer
        "Can you tell us when the tower was completed?",
        "Explain why the tower was built",
        "tell me whether the tower opened in 1889",
        # a free relative reads as an embedded question: the question's gate, the safe side
        "Summarize what is known about Patoranking",
    ],
)
def test_questions_and_statements_do_not(query):
    assert not requests_account(query)
