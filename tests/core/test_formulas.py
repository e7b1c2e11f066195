"""The formulas of the method (docs/method.md), checked against small graphs computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.adjacency import Adjacency
from mirage_core.config import MethodSettings
from mirage_core.graph import ClaimGraph, claim_scores, edge_weights, support_counts
from mirage_core.pairs import candidate_pairs
from mirage_core.selection import greedy_select
from mirage_core.types import Claim


def make_claim(
    i: int, tokens: str, source: str, score: float = 1.0, domain: str | None = None
) -> Claim:
    return Claim(
        i,
        tokens,
        i,
        0,
        len(tokens),
        source,
        domain or source,
        score,
        frozenset(tokens.split()),
        source,
    )


def test_overlap_is_containment_over_the_smaller_set():
    claims = [
        make_claim(0, "a b c d", "s1"),
        make_claim(1, "a b x", "s2"),  # |∩|=2, min=3 → 0.667
        make_claim(2, "a y z w v", "s3"),  # with 0: 1/4; with 1: 1/3
        make_claim(3, "a b c d", "s1"),  # same source as 0: never paired with it
    ]
    pairs = candidate_pairs(claims, tau=0.3)
    got = {
        (int(a), int(r)): round(float(o), 3)
        for a, r, o in zip(pairs.left, pairs.right, pairs.overlap)
    }
    assert got == {(0, 1): 0.667, (1, 3): 0.667, (1, 2): 0.333}
    assert pairs.total_cross_source == 6 - 1  # 4 claims → 6 pairs, one same-source
    assert list(zip(pairs.left, pairs.right))[:2] == [(0, 1), (1, 3)]  # overlap desc, then index


def test_tau_is_inclusive_and_filters():
    claims = [make_claim(0, "a b c", "s1"), make_claim(1, "a x y", "s2")]  # 1/3
    assert len(candidate_pairs(claims, tau=1 / 3)) == 1
    assert len(candidate_pairs(claims, tau=0.34)) == 0


def test_edge_weights_and_kappa_cut():
    probs = np.array([[0.8, 0.1, 0.1], [0.4, 0.2, 0.4], [0.1, 0.41, 0.49], [0.1, 0.2, 0.7]])
    w_supp, w_contr = edge_weights(probs, kappa=0.5)
    np.testing.assert_allclose(w_supp, [0.6, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(w_contr, [0.0, 0.0, 0.0, 0.7])  # 0.49 < κ is cut
    _, at_kappa = edge_weights(np.array([[0.1, 0.4, 0.5]]), kappa=0.5)
    assert at_kappa.tolist() == [0.5]  # p_contra = κ counts


def test_support_counts_incoming_distinct_other_groups():
    # claims 0,1 in group A; 2 in B; 3 in C
    groups = np.array([0, 0, 1, 2])
    n = 4
    # edges premise→hypothesis: 2→0 supp, 3→0 supp, 1→0 supp (same group: no corroboration),
    # 0→2 supp (counts for 2, not 0), 3→2 weak entail (w_supp 0)
    premise = np.array([2, 3, 1, 0, 3])
    hypothesis = np.array([0, 0, 0, 2, 2])
    probs = np.array(
        [[0.9, 0.05, 0.05], [0.8, 0.1, 0.1], [0.9, 0.05, 0.05], [0.7, 0.2, 0.1], [0.5, 0.4, 0.1]]
    )
    w_supp, w_contr = edge_weights(probs, 0.5)
    g = ClaimGraph(n, premise, hypothesis, probs, w_supp, w_contr)
    assert support_counts(g, groups).tolist() == [2, 0, 1, 0]


def test_claim_score_formula():
    cfg = MirageConfig(
        trust={"good.org": 1.0}, default_trust=0.2, method=MethodSettings(alpha=0.5, beta=0.5)
    )
    claims = [
        make_claim(0, "x", "s1", score=10.0, domain="good.org"),
        make_claim(1, "x", "s2", score=20.0),
        make_claim(2, "x", "s3", score=15.0),
    ]
    s = claim_scores(claims, np.array([3, 0, 1]), cfg)
    expected = [
        math.log(4) + 0.5 * 1.0 + 0.5 * 0.0,
        math.log(1) + 0.5 * 0.2 + 0.5 * 1.0,
        math.log(2) + 0.5 * 0.2 + 0.5 * 0.5,
    ]
    np.testing.assert_allclose(s, expected)
    # absent / equal scores → r̃ = 1
    flat = claim_scores([*claims[:1], make_claim(1, "x", "s2", score=10.0)], np.array([0, 0]), cfg)
    np.testing.assert_allclose(flat, [0.5 + 0.5, 0.1 + 0.5])


def test_greedy_order_and_stop():
    scores = np.array([1.0, 0.8, 0.3, 0.2])
    # 0 and 1 contradict (net −2 summed both ways); 2 and 3 support (net +0.5)
    m = np.zeros((4, 4))
    m[0, 1] = m[1, 0] = -2.0
    m[2, 3] = m[3, 2] = 0.5
    picked = greedy_select(scores, Adjacency.dense(m))
    # 0 (1.0) → 2 (0.3; 1 has 0.8−2 < 0) → 3 (0.2+0.5) → stop (1 is −1.2)
    assert picked == [0, 2, 3]
    assert greedy_select(
        scores, Adjacency.dense(m), eligible=np.array([False, True, True, True])
    ) == [1, 2, 3]
    assert greedy_select(np.array([-0.1, 0.0]), Adjacency.dense(np.zeros((2, 2)))) == []


def test_interaction_matrix_sums_both_directions():
    probs = np.array(
        [[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]
    )  # 0→1 supports (0.8), 1→0 contradicts (0.8)
    g = ClaimGraph.build(2, np.array([0]), np.array([1]), probs, kappa=0.5)
    m = g.interaction_matrix().toarray()
    np.testing.assert_allclose(m, [[0.0, 0.0], [0.0, 0.0]], atol=1e-12)  # 0.8 − 0.8
    assert g.mass() == pytest.approx((0.8, 0.8))


class TableNLI:
    """NLI whose answer for each (premise, hypothesis) is looked up in a table (default neutral)."""

    def __init__(self, table: dict[tuple[str, str], list[float]]):
        self.table = table

    def __call__(self, premises, hypotheses):
        return np.array(
            [self.table.get((p, h), [0.05, 0.9, 0.05]) for p, h in zip(premises, hypotheses)]
        )


A = "Alpha beta gamma delta."
B = "Alpha beta gamma epsilon."
C = "Alpha beta gamma zeta."


def run(table, config, passages=None):
    passages = passages or [
        Passage(A, source="a.org"),
        Passage(B, source="b.org"),
        Passage(C, source="c.org"),
    ]
    return Mirage(config, CallableNLI(TableNLI(table))).defend("q", passages)


def test_end_to_end_hand_computed_graph():
    table = {
        (A, B): [0.9, 0.05, 0.05],
        (B, A): [0.8, 0.1, 0.1],  # A,B support each other
        (A, C): [0.1, 0.2, 0.7],
        (C, A): [0.1, 0.3, 0.6],  # A,C contradict
        (B, C): [0.2, 0.4, 0.4],
        (C, B): [0.3, 0.3, 0.4],  # below κ: nothing
    }
    cfg = MirageConfig.paper(alpha=0.0, beta=0.0, r_max=0.5)
    v = run(table, cfg)
    assert [c.text for c in v.claims] == [A, B, C]
    assert v.support.tolist() == [1, 1, 0]
    np.testing.assert_allclose(v.scores, [math.log(2), math.log(2), 0.0])
    # greedy: A (ln2) → B (ln2 + 0.8 + 0.6) → C has gain 0 − 1.3 < 0: stop
    assert v.selected == (0, 1)
    e_supp, e_contr = 0.8 + 0.6, 0.7 + 0.6
    assert v.r_contr == pytest.approx(e_contr / (e_supp + e_contr), rel=1e-6)
    assert v.d_src == 2 and v.decision == "verified"
    # selected scope: only edges inside S* = {A, B} → no contradiction
    v_sel = run(table, cfg.replace(contradiction_scope="selected"))
    assert v_sel.r_contr == pytest.approx(0.0)
    # gate: r_max below the ratio blocks; d_min above the domains blocks
    assert run(table, cfg.replace(r_max=0.4)).decision == "fallback"
    blocked = run(table, cfg.replace(d_min=3))
    assert blocked.decision == "fallback" and "d_src=2 < d_min=3" in blocked.reason


def test_min_support_excludes_uncorroborated_claims():
    table = {(A, B): [0.9, 0.05, 0.05]}  # only B is corroborated (edge into B)
    v = run(table, MirageConfig.paper(min_support=1, d_min=1))
    assert v.selected == (1,)
