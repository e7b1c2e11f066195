"""Shared phrasing between passages: word 3-grams outside the query, and their containment."""

from __future__ import annotations

import numpy as np

from mirage_core.lexical_overlap import lexical_matrix, shingles

QUERY = "who sang the song"


def test_a_curly_apostrophe_reads_as_a_straight_one():
    assert shingles("it’s the band’s own record", frozenset()) == shingles(
        "it's the band's own record", frozenset()
    )


def test_a_number_reads_without_its_thousands_separators():
    grams = shingles("sold 1,200,000 copies in total", frozenset())
    assert ("sold", "1200000", "copies") in grams
    assert grams == shingles("sold 1200000 copies in total", frozenset())


def test_shingles_are_three_words_by_default():
    texts = ["the band played four loud songs", "the band played four quiet songs"]
    # 3-grams: "the band played", "band played four" and "played four loud/quiet" → 2 of 4 in
    # common; 4-grams would share one of three
    assert lexical_matrix(texts, QUERY)[0, 1] == 0.5


def test_a_passage_too_short_for_a_shingle_shares_nothing():
    m = lexical_matrix(["the band played four loud songs", "loud songs"], QUERY)
    assert m.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert np.all(lexical_matrix(["loud songs", "loud songs"], QUERY) == 0)
