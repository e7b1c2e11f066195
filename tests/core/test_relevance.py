import numpy as np
import pytest

from mirage_core.claims import content_tokens
from mirage_core.relevance import edge_relevance, lexical_relevance, stem
from mirage_core.types import Claim


def _claim(i: int, text: str) -> Claim:
    return Claim(i, text, i, 0, len(text), f"s{i}", f"d{i}", 1.0, content_tokens(text))


def test_lexical_relevance_saturates_and_stems():
    claims = [
        _claim(0, "The Eiffel Tower's completion came in 1889."),  # eiffel, tower, complet-
        _claim(1, "The tower is in Paris."),  # tower only
        _claim(2, "The Alpha Gazette reports it."),
    ]
    rel = lexical_relevance("When was the Eiffel Tower completed?", claims, saturation=0.5)
    assert rel[0] == pytest.approx(1.0)
    assert rel[1] == pytest.approx((1 / 3) / 0.5)
    assert rel[2] == 0.0
    strict = lexical_relevance("When was the Eiffel Tower completed?", claims, saturation=1.0)
    assert strict[1] == pytest.approx(1 / 3)


def test_a_stem_cuts_a_word_and_keeps_a_number_whole():
    assert stem("completed") == stem("completion") == "compl"
    assert stem("tower") == "tower"
    assert stem("18891231") == "18891231"  # another number than "18890101"


def test_query_without_content_words_makes_everything_relevant():
    claims = [_claim(0, "The tower is in Paris.")]
    assert lexical_relevance("what is it?", claims).tolist() == [1.0]


def test_edge_relevance_is_the_lower_end():
    rel = np.array([1.0, 0.2, 0.6])
    out = edge_relevance(rel, np.array([0, 1, 2]), np.array([2, 0, 0]))
    assert out.tolist() == [0.6, 0.2, 0.6]


def test_bad_saturation():
    with pytest.raises(ValueError):
        lexical_relevance("q", [], saturation=0)
