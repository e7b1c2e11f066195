"""The numpy sparse structures against a plain-Python count on random inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mirage_core.adjacency import Adjacency, TokenIncidence, tokens_stated


def _random_sets(rng: np.random.Generator, n: int, vocab: int) -> list[frozenset[str]]:
    return [
        frozenset(f"w{t}" for t in rng.integers(0, vocab, size=rng.integers(0, 8)))
        for _ in range(n)
    ]


# (60, 40) counts its pairs densely, (400, 5000) sparsely (by sorting): both readings
@pytest.mark.parametrize(("n", "vocab"), [(0, 5), (1, 5), (2, 3), (12, 6), (60, 40), (400, 5000)])
def test_shared_counts_every_pair_that_shares_a_token(n, vocab):
    rng = np.random.default_rng(n)
    sets = _random_sets(rng, n, vocab)
    want = {
        (i, j): len(sets[i] & sets[j])
        for i, j in itertools.combinations(range(n), 2)
        if sets[i] & sets[j]
    }
    inc = TokenIncidence.of(sets)
    left, right, shared = inc.shared()
    assert (
        dict(zip(zip(left.tolist(), right.tolist(), strict=True), shared.tolist(), strict=True))
        == want
    )
    keys = left * max(n, 1) + right
    assert np.all(np.diff(keys) > 0)  # ordered by (left, right), each pair once
    assert inc.sizes.tolist() == [len(s) for s in sets]
    if n >= 2:
        pl, pr = np.triu_indices(n, k=1)
        got = inc.shared_of(pl, pr)
        assert got.tolist() == [len(sets[i] & sets[j]) for i, j in zip(pl, pr, strict=True)]


def test_adjacency_sums_both_directions_and_duplicates():
    # 0→1 twice, 1→0 once, 2→0 once
    rows, cols = np.array([0, 0, 1, 2]), np.array([1, 1, 0, 0])
    weights = np.array([0.5, 0.25, -1.0, 2.0])
    a = Adjacency.symmetric(3, rows, cols, weights)
    dense = np.zeros((3, 3))
    for r, c, w in zip(rows, cols, weights, strict=True):
        dense[r, c] += w
        dense[c, r] += w
    np.testing.assert_array_equal(a.toarray(), dense)
    idx, data = a.row(0)
    assert idx.tolist() == [1, 2] and data.tolist() == [-0.25, 2.0]
    assert a.row(1)[0].tolist() == [0]
    np.testing.assert_array_equal(Adjacency.dense(dense).toarray(), dense)
    assert (
        Adjacency.symmetric(2, np.empty(0, int), np.empty(0, int), np.empty(0)).row(1)[0].size == 0
    )


@pytest.mark.parametrize(("n", "vocab", "edges"), [(2, 3, 1), (12, 6, 30), (60, 40, 200)])
def test_tokens_stated_counts_the_hypothesis_tokens_the_premises_unit_holds(n, vocab, edges):
    rng = np.random.default_rng(n)
    tokens = [
        sorted({int(t) for t in rng.integers(0, vocab, size=rng.integers(0, 6))}) for _ in range(n)
    ]
    stated = [
        sorted({int(t) for t in rng.integers(0, vocab, size=rng.integers(0, 8))}) for _ in range(n)
    ]
    unit = rng.integers(0, max(n // 3, 1), size=n)
    premise = rng.integers(0, n, size=edges)
    hypothesis = rng.integers(0, n, size=edges)
    # each claim its own unit, its own tokens stated
    assert tokens_stated(tokens, premise, hypothesis).tolist() == [
        len(set(tokens[h]) & set(tokens[p])) for p, h in zip(premise, hypothesis, strict=True)
    ]
    # a wider unit: whatever any claim of the premise's unit states
    by_unit = {u: set().union(*(stated[i] for i in range(n) if unit[i] == u)) for u in set(unit)}
    got = tokens_stated(tokens, premise, hypothesis, stated=stated, unit=unit)
    assert got.tolist() == [
        len(set(tokens[h]) & by_unit[unit[p]]) for p, h in zip(premise, hypothesis, strict=True)
    ]
    assert tokens_stated(tokens, premise[:0], hypothesis[:0]).size == 0


@pytest.mark.parametrize("block", [1, 7, 100, 5_000])
def test_pairs_listed_in_parts_are_the_pairs_listed_at_once(block):
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(300)]
    for _ in range(10):
        sets = [
            set(rng.choice(vocab, size=rng.integers(1, 12), replace=False))
            | ({"topic"} if rng.random() < 0.7 else set())
            for _ in range(int(rng.integers(2, 300)))
        ]
        tokens = TokenIncidence.of(sets)
        whole = tokens.shared()
        parts = list(tokens.shared_blocks(block))
        assert len(parts) >= 1
        joined = [np.concatenate(col) for col in zip(*parts, strict=True)]
        assert all(np.array_equal(a, b) for a, b in zip(whole, joined, strict=True))
        # each part holds whole runs of left claims: no left claim is split between two
        lefts = [set(p[0].tolist()) for p in parts]
        assert all(not (a & b) for i, a in enumerate(lefts) for b in lefts[i + 1 :])
