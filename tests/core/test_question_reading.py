"""Reading the question for the answer-slot rule: which kinds of fact answer it and which
words it already holds."""

from __future__ import annotations

import pytest

from mirage_core.factcheck import FACT_KINDS
from mirage_core.question_reading import question_kinds, question_words


@pytest.mark.parametrize(
    "query", ["In what year did the tower open", "Which year did the tower open?"]
)
def test_what_or_which_before_a_date_word_asks_for_a_date(query):
    assert question_kinds(query) == ("number", "month")
    assert question_kinds(query, times="year") == ("month", "year")


def test_a_date_word_ending_the_question_is_read_after_its_wh_word():
    assert question_kinds("The tower opened in what year") == ("number", "month")
    assert question_kinds("The tower opened in what") == FACT_KINDS


def test_question_words_are_folded_only_under_equivalent_forms():
    query = "Who is Gabriel García Márquez?"
    assert {"garcía", "márquez"} <= question_words(query)
    assert not {"garcia", "marquez"} & question_words(query)
    folded = question_words(query, forms="equivalent")
    assert {"garcia", "marquez"} <= folded and not {"garcía", "márquez"} & folded
