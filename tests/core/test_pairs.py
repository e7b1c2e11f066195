"""Candidate pairs: cross-source claim pairs by token overlap, and the close paraphrases that
overlap misses."""

from __future__ import annotations

import numpy as np

from mirage_core.pairs import add_paraphrase_pairs, candidate_pairs
from tests.conftest import worded_claims

TEXTS = [
    ("The tower was completed in 1889.", "a.example"),
    ("The tower was completed in 1889 for the fair.", "b.example"),
    ("Work on the landmark ended that year.", "c.example"),
    ("Its lifts were built by Otis.", "d.example"),
]


def _unit(rows: list[list[float]]) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_paraphrase_pair_is_added_once_beside_the_lexical_pairs():
    claims = worded_claims(TEXTS)
    lexical = candidate_pairs(claims, tau=0.5)
    assert list(zip(lexical.left.tolist(), lexical.right.tolist())) == [(0, 1)]
    # 0, 1 and 2 say one thing in other words; 3 says something else
    embeddings = _unit([[1, 0.05, 0], [1, 0, 0.05], [1, 0.1, 0.1], [0, 0, 1]])
    pairs = add_paraphrase_pairs(lexical, claims, embeddings, threshold=0.9)
    got = sorted(zip(pairs.left.tolist(), pairs.right.tolist()))
    assert got == [(0, 1), (0, 2), (1, 2)]  # (0, 1) is not added a second time
    assert pairs.is_paraphrase.sum() == 2 and pairs.prefiltered == lexical.prefiltered + 2
    added = pairs.priority[pairs.is_paraphrase]
    assert np.all(np.diff(pairs.priority) <= 0) and np.all(added >= 0.9)
