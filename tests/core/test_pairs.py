"""Candidate pairs: cross-source claim pairs by token overlap, and the close paraphrases that
overlap misses."""

from __future__ import annotations

import numpy as np

from mirage_core.pairs import CandidatePairs, add_paraphrase_pairs, candidate_pairs
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


def test_taking_pairs_keeps_their_priority_unless_given_a_new_one():
    pairs = CandidatePairs(
        left=np.array([0, 0, 1]),
        right=np.array([1, 2, 2]),
        overlap=np.array([0.9, 0.6, 0.3], dtype=np.float32),
        total_cross_source=3,
        prefiltered=3,
        priority=np.array([0.9, 0.6, 0.3]),
    )
    kept = pairs.take(np.array([2, 0]))
    assert kept.priority.tolist() == [0.3, 0.9] and kept.left.tolist() == [1, 0]
    assert (kept.total_cross_source, kept.prefiltered) == (3, 3)
    assert pairs.take(np.array([1]), np.array([0.5])).priority.tolist() == [0.5]
