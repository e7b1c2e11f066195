"""Candidate pairs: cross-source claim pairs by token overlap, and the close paraphrases that
overlap misses."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import EmbeddingError, Mirage
from mirage_core.embeddings import CallableEmbedder
from mirage_core.pairs import CandidatePairs, add_paraphrase_pairs, candidate_pairs
from tests.conftest import NO_SIGNALS, bag_of_words_embedding, worded_claims

TEXTS = [
    ("Its lifts were built by Otis.", "d.example"),
    ("The tower was completed in 1889.", "a.example"),
    ("The tower was completed in 1889 for the fair.", "b.example"),
    ("Work on the landmark ended that year.", "c.example"),
]


def _unit(rows: list[list[float]]) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_paraphrase_pair_is_added_once_beside_the_lexical_pairs():
    claims = worded_claims(TEXTS)
    lexical = candidate_pairs(claims, tau=0.5)
    assert list(zip(lexical.left.tolist(), lexical.right.tolist())) == [(1, 2)]
    # 1, 2 and 3 say one thing in other words; 0 says something else
    embeddings = _unit([[0, 0, 1], [1, 0.05, 0], [1, 0, 0.05], [1, 0.1, 0.1]])
    pairs = add_paraphrase_pairs(lexical, claims, embeddings, threshold=0.9)
    got = sorted(zip(pairs.left.tolist(), pairs.right.tolist()))
    assert got == [(1, 2), (1, 3), (2, 3)]  # (1, 2) is not added a second time
    assert pairs.is_paraphrase.sum() == 2 and pairs.prefiltered == lexical.prefiltered + 2
    assert pairs.total_cross_source == lexical.total_cross_source
    added = pairs.priority[pairs.is_paraphrase]
    assert np.all(np.diff(pairs.priority) <= 0) and np.all(added >= 0.9)


def test_a_paraphrase_pair_at_the_threshold_is_added():
    claims = worded_claims(TEXTS[:2])
    none = candidate_pairs(claims, tau=1.0)
    at = add_paraphrase_pairs(none, claims, np.array([[1.0, 0.0], [0.5, 0.75**0.5]]), 0.5)
    assert (at.left.tolist(), at.right.tolist()) == ([0], [1])


def test_a_one_word_claim_inside_another_overlaps_fully():
    claims = worded_claims([("Otis.", "a.example"), ("Otis built the lifts.", "b.example")])
    pairs = candidate_pairs(claims, tau=1.0)
    assert pairs.overlap.tolist() == [1.0]


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_claims_make_no_pairs(n):
    pairs = candidate_pairs(worded_claims(TEXTS[:n]), tau=0.0)
    assert len(pairs) == pairs.right.size == pairs.overlap.size == 0
    assert pairs.total_cross_source == pairs.prefiltered == 0


def test_a_failed_claim_embedding_follows_the_error_policy(fake_nli, clean_passages):
    def run(policy: str):
        calls: list[int] = []

        def down_after_the_passages(texts):  # the service goes down between the two calls
            calls.append(len(texts))
            if len(calls) > 1:
                raise ConnectionError("embedding service unreachable")
            return bag_of_words_embedding(texts)

        config = NO_SIGNALS.replace(
            independence="domain", nli_error_policy=policy, paraphrase_pairs=True
        )
        engine = Mirage(config, fake_nli, embedder=CallableEmbedder(down_after_the_passages))
        return engine.defend("When was the Eiffel Tower completed?", clean_passages)

    with pytest.raises(EmbeddingError, match="unreachable"):
        run("raise")
    closed = run("fallback")
    assert closed.decision == "fallback" and "embedding failed" in closed.reason
    opened = run("pass_through")
    assert "ConnectionError" in opened.embedding_error and opened.candidate_stats["nli_pairs"] > 0
    assert opened.candidate_stats["paraphrase_pairs"] == 0


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
