"""Candidate pairs: cross-source claim pairs by token overlap, and the close paraphrases that
overlap misses."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import EmbeddingError, Mirage, MirageConfig
from mirage_core import pairs as pairs_module
from mirage_core.adjacency import TokenIncidence
from mirage_core.config import MethodSettings
from mirage_core.embeddings import CallableEmbedder
from mirage_core.evidence import Evidence
from mirage_core.pair_budget import apply_budget
from mirage_core.pairs import CandidatePairs, add_paraphrase_pairs, build_pairs, candidate_pairs
from mirage_core.types import Claim
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


def _random_claims(rng: np.random.Generator, n: int, n_sources: int, vocab: int) -> list[Claim]:
    """``n`` claims of 1–6 words from a small vocabulary (many overlaps tie; some claims say the
    same words), each from one of ``n_sources`` sources: mixed, or (half the time) a source's
    claims one after another, so that a claim meets one source after another as pairs are listed."""
    words = [f"w{i}" for i in range(vocab)]
    sources = rng.integers(n_sources, size=n)
    if rng.random() < 0.5:
        sources.sort()
    claims = []
    for i, s in enumerate(sources):
        if claims and rng.random() < 0.1:  # a claim repeated in another source
            tokens = claims[int(rng.integers(len(claims)))].tokens
        else:
            tokens = frozenset(rng.choice(words, size=int(rng.integers(1, 7)), replace=True))
        claims.append(Claim(i, " ".join(sorted(tokens)), i, 0, 1, f"s{s}", f"s{s}", 1.0, tokens))
    return claims


def _small_blocks(monkeypatch, block: int) -> None:
    """List the shared-token pairs in parts of about ``block`` co-occurrences (many parts)."""
    listed = TokenIncidence.shared_blocks
    monkeypatch.setattr(TokenIncidence, "shared_blocks", lambda self, b=block: listed(self, b))


def _same_pairs(got: CandidatePairs, want: CandidatePairs) -> None:
    assert got.left.tolist() == want.left.tolist()
    assert got.right.tolist() == want.right.tolist()
    assert got.overlap.tolist() == want.overlap.tolist()
    assert got.left.dtype == want.left.dtype and got.overlap.dtype == want.overlap.dtype
    assert (got.total_cross_source, got.prefiltered) == (want.total_cross_source, want.prefiltered)
    assert got.priority is None and got.is_paraphrase is None


@pytest.mark.parametrize("seed", range(60))
def test_pairs_cut_as_they_are_listed_give_the_budget_the_same_pairs(monkeypatch, seed):
    """The relevance filter and the per-claim budget applied while the candidates are listed
    leave the budget exactly the pairs, order and counts it has from every candidate."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 90))
    claims = _random_claims(rng, n, int(rng.choice([2, 3, 5, 20, n])), int(rng.integers(3, 15)))
    relevance = rng.choice([0.0, 0.25, 0.5, 1.0], size=n)
    partners = int(rng.integers(1, 4))
    max_pairs = [None, 1, int(rng.integers(1, 3 * n))][seed % 3]
    tau = float(rng.choice([0.0, 0.2, 0.34, 0.5, 1.0]))
    floor = float(rng.choice([0.0, 0.25, 0.5]))
    _small_blocks(monkeypatch, int(rng.choice([1, 5, 40, 10**6])))
    cut_above = int(rng.choice([0, 50, 1 << 16]))
    monkeypatch.setattr(pairs_module, "CUT_ABOVE", cut_above)

    def relevant(left, right):
        return np.minimum(relevance[left], relevance[right]) > floor

    for keep in (None, relevant):
        every = candidate_pairs(claims, tau)
        if keep is not None:
            every = every.take(np.flatnonzero(keep(every.left, every.right)))
        cut = candidate_pairs(claims, tau, keep=keep, partners_per_claim=partners)
        assert len(cut) <= min(len(every), max(cut_above, partners * n))
        _same_pairs(
            apply_budget(cut, claims, partners, max_pairs, relevance),
            apply_budget(every, claims, partners, max_pairs, relevance),
        )

    # the same through build_pairs, with the cut in the stream turned off and on
    method = MethodSettings(tau=tau, pair_relevant_only=seed % 2 == 0, pair_min_relevance=floor)
    config = MirageConfig(partners_per_claim=partners, max_pairs=max_pairs, method=method)

    def built(in_stream: bool) -> CandidatePairs:
        monkeypatch.setattr(pairs_module, "_budget_reads_the_candidates", lambda c, e: in_stream)
        evidence = Evidence(query="q", n_passages=n, claims=claims, relevance=relevance)
        return build_pairs(evidence, config, None)

    _same_pairs(built(True), built(False))


def test_the_pairs_held_while_listing_stay_within_the_budget(monkeypatch):
    """Evidence whose claims all share words: tens of thousands of pairs reach τ, but no more
    than the budget's ``m · n`` plus one part are ever held."""
    rng = np.random.default_rng(0)
    claims = _random_claims(rng, 400, 50, 6)
    partners, block = 2, 3000
    _small_blocks(monkeypatch, block)
    monkeypatch.setattr(pairs_module, "CUT_ABOVE", 0)  # cut after every part
    held: list[int] = []
    cut = pairs_module.budget_cut

    def recording(left, *args):
        held.append(int(left.size))
        return cut(left, *args)

    monkeypatch.setattr(pairs_module, "budget_cut", recording)
    pairs = candidate_pairs(claims, 0.3, partners_per_claim=partners)
    assert pairs.prefiltered > 40_000 and len(held) > 10
    assert max(held) <= partners * len(claims) + block < pairs.prefiltered / 10
    assert len(pairs) <= partners * len(claims)


@pytest.mark.parametrize(
    ("method", "embedder", "in_stream"),
    [
        ({}, None, True),
        ({}, "embedder", True),
        ({"paraphrase_support": 0.9}, "embedder", True),
        ({"paraphrase_pairs": True}, None, True),  # without an embedder nothing is added
        ({"paraphrase_pairs": True}, "embedder", False),
        ({"partner_ranking": "embedding"}, "embedder", False),
        ({"paraphrase_budget": "exempt", "paraphrase_support": 0.9}, "embedder", False),
    ],
)
def test_the_budget_is_applied_in_the_stream_only_where_it_ranks_the_candidates(
    method, embedder, in_stream
):
    config = MirageConfig(method=MethodSettings(**method))
    embed = bag_of_words_embedding if embedder else None
    assert pairs_module._budget_reads_the_candidates(config, embed) is in_stream
    assert not pairs_module._budget_reads_the_candidates(
        config.replace(partners_per_claim=None), embed
    )


def test_a_claims_first_pair_from_a_new_source_is_kept_below_its_second_pair(monkeypatch):
    """Claims 2 and 3 each meet source A twice before their pair (2, 3) is listed, and (2, 3)
    overlaps less than either second A pair; yet it is each one's first pair from another
    source, so the budget keeps it: a second pair from one source sets no floor."""
    claims = [
        Claim(i, " ".join(sorted(t)), i, 0, 1, s, s, 1.0, frozenset(t))
        for i, (t, s) in enumerate(
            [
                ({"x1", "x2", "x3", "x4", "y1", "y2", "y3", "y4", "z"}, "A"),
                ({"x1", "x2", "x3", "x4", "y1", "y2", "q1", "q2"}, "A"),
                ({"x1", "z", "q1", "r1", "r2", "r3"}, "C"),
                ({"x1", "x2", "x3", "x4", "y1", "y2", "y3", "y4"}, "B"),
            ]
        )
    ]
    _small_blocks(monkeypatch, 1)  # one left claim at a time: (2, 3) comes after the A pairs
    monkeypatch.setattr(pairs_module, "CUT_ABOVE", 0)  # cut after every part
    cut = candidate_pairs(claims, 0.0, partners_per_claim=2)
    every = candidate_pairs(claims, 0.0)
    assert (2, 3) in set(zip(cut.left.tolist(), cut.right.tolist()))
    _same_pairs(apply_budget(cut, claims, 2, None), apply_budget(every, claims, 2, None))
