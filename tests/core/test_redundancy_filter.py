"""The redundancy filter (RAGDefender's two-stage estimate) in the engine: what it holds back
from the delivered evidence, when it blocks, and that it leaves the gate's figures alone."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

pytest.importorskip("sklearn")

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.config import MethodSettings
from mirage_core.graph import ClaimGraph
from mirage_core.redundancy_filter import (
    MIN_PASSAGES,
    _lower_median,
    estimate_n_adv,
    hold_back,
    n_tfidf,
    redundant_passages,
    select_most_similar,
)
from tests.conftest import NEAR_COPIES, NEAR_COPY_QUERY, OWN_PAGES

QUERY = NEAR_COPY_QUERY
PLANTED = NEAR_COPIES
HONEST = OWN_PAGES


def passages(texts: list[str]) -> list[Passage]:
    return [Passage(t, source=f"https://site{i}.example/page") for i, t in enumerate(texts)]


def engine(fake_nli, fake_embedder, **cfg) -> Mirage:
    # The coordination signals, the answer-slot rule (90 vs 100 degrees) and corroborated
    # delivery are off so that only the filter under test acts.
    config = MirageConfig(coordination="none", answer_conflict=None).replace(
        **{"corroborated_only": "none", **cfg}
    )
    return Mirage(config, nli=fake_nli, embedder=fake_embedder)


def test_the_near_copies_are_the_estimated_adversarial_passages(fake_embedder):
    texts = PLANTED + HONEST
    emb = fake_embedder.embed(texts)
    n_adv = estimate_n_adv(texts, emb, "single_hop")
    assert n_adv == 3  # the TF-IDF vote sees the copies' terms in more than half the passages
    assert sorted(select_most_similar(n_adv, emb)) == [0, 1, 2]
    assert redundant_passages(texts, emb) == (3, (0, 1, 2))


def test_fewer_than_three_passages_are_never_filtered(fake_embedder):
    texts = PLANTED[:2]
    assert MIN_PASSAGES == 3
    assert redundant_passages(texts, fake_embedder.embed(texts)) == (0, ())
    # the bare estimate (the baseline's, as in the artifact) does pick one of two
    assert estimate_n_adv(texts, fake_embedder.embed(texts)) == 1


def test_an_estimate_of_every_passage_holds_back_nothing():
    # three mutually unrelated passages: every one is equally alike, and the concentration
    # estimate calls them all adversarial (the artifact would then remove them all)
    texts = ["alpha beta", "gamma delta", "epsilon zeta"]
    emb = np.eye(3)
    assert estimate_n_adv(texts, emb, "multi_hop") == 3
    assert redundant_passages(texts, emb, "multi_hop") == (3, ())


def _one_hot(groups: list[int]) -> np.ndarray:
    """One unit vector per passage, the same for passages of one group: cosine 1 or 0."""
    return np.eye(max(groups) + 1)[groups]


@pytest.mark.parametrize(
    ("groups", "n_adv"),
    [
        # three copies stand out by their mean and median similarity: they are the estimate
        ([0, 0, 0, 1], 3),
        ([0, 0, 0, 1, 2], 3),
        # two copies among three unrelated passages: the median of every passage is 0, not
        # above the mean (0.28), so the estimate is the passages *not* standing out
        ([0, 0, 1, 2, 3], 3),
    ],
)
def test_the_concentration_estimate_counts_the_passages_that_stand_out(groups, n_adv):
    texts = [f"passage {i}" for i in range(len(groups))]
    assert estimate_n_adv(texts, _one_hot(groups), "multi_hop") == n_adv


def test_the_lower_median_takes_the_lower_middle_value():
    assert _lower_median(np.array([3.0, 1.0, 4.0, 2.0])) == 2.0
    assert _lower_median(np.array([5.0, 1.0, 3.0])) == 3.0
    columns = np.array([[1.0, 8.0], [4.0, 6.0], [2.0, 7.0], [3.0, 5.0]])
    assert _lower_median(columns, axis=0).tolist() == [2.0, 6.0]


def test_tfidf_vote_counts_passages_holding_most_of_the_top_terms():
    texts = ["alpha beta gamma delta epsilon"] * 3 + ["alpha beta gamma", "zeta"]
    # top five terms: alpha, beta, gamma, delta, epsilon; more than two of them in four passages
    assert n_tfidf(texts) == 4
    # top six adds zeta: the fourth passage holds three, not more than three
    assert n_tfidf(texts, m=6) == 3
    # stop words are no terms; a text of stop words alone gives no vote
    assert n_tfidf(["the of and", "and the"]) == 0
    shouted = ["ALPHA BETA GAMMA delta", "alpha beta gamma", "other words here"]
    assert n_tfidf(shouted) == 2
    assert n_tfidf(shouted, case_sensitive=True) == 1


def test_the_most_similar_passages_are_picked_by_their_top_pair_similarities():
    # cosines (0, 1) 0.8, (0, 2) 0.6, (2, 3) 0.6, every other pair 0; the diagonal is never read
    gram = np.array(
        [[1.5, 0.8, 0.6, 0.0], [0.8, 1.5, 0.0, 0.0], [0.6, 0.0, 1.5, 0.6], [0.0, 0.0, 0.6, 1.5]]
    )
    emb = np.linalg.cholesky(gram)
    assert select_most_similar(0, emb) == []
    assert select_most_similar(1, emb) == [0]  # the top pair, (0, 1); a tie goes to the index
    assert select_most_similar(2, emb) == [0, 1]
    # three picks read the top three pairs, squared: 0 scores 0.64 + 0.36, 2 scores 0.36 +
    # 0.36, 1 scores 0.64 (cubed, 1 would come before 2)
    assert select_most_similar(3, emb) == [0, 2, 1]
    assert select_most_similar(4, emb) == [0, 1, 2, 3]
    # 4 is close to both 2 and 3 (0.5 each, 0.25 + 0.25 squared): it stays below 0 and 1
    # (0.81), where a plain sum (1.0 against 0.9) would rank it first
    gram = np.eye(5) * 1.5
    for i, j, cosine in [(0, 1, 0.9), (2, 4, 0.5), (3, 4, 0.5)]:
        gram[i, j] = gram[j, i] = cosine
    assert select_most_similar(3, np.linalg.cholesky(gram)) == [0, 1, 4]


COPY = "alpha beta gamma delta epsilon"
OWN = [
    "zeta eta theta iota kappa lambda",
    "mu nu xi omicron pi rho",
    "sigma tau upsilon phi chi psi",
]


@pytest.mark.parametrize(
    ("texts", "clusters", "n_adv"),
    [
        # two copies and three pages of their own: the TF-IDF vote (2 of 5) is no majority,
        # so the smaller embedding cluster is the estimate
        ([COPY] * 2 + OWN, [0, 0, 1, 1, 1], 2),
        # three copies: the vote (3 of 5) is a majority, so the larger cluster is
        ([COPY] * 3 + OWN[:2], [0, 0, 0, 1, 1], 3),
    ],
)
def test_the_single_hop_estimate_takes_the_cluster_the_tfidf_vote_points_to(texts, clusters, n_adv):
    # one direction per cluster, each passage a little apart from its cluster mates
    n = len(texts)
    emb = np.zeros((n, 2 + n))
    emb[np.arange(n), clusters] = 1.0
    emb[np.arange(n), 2 + np.arange(n)] = 0.05
    assert estimate_n_adv(texts, emb) == n_adv


def test_unknown_task_type_is_a_value_error(fake_embedder):
    with pytest.raises(ValueError, match="task_type"):
        estimate_n_adv(HONEST, fake_embedder.embed(HONEST), "three_hop")


def test_config_field_is_validated_and_off_in_paper():
    with pytest.raises(ValueError, match="redundancy_filter"):
        MirageConfig(redundancy_filter="yes")
    assert MirageConfig.paper().redundancy_filter == "none"
    assert MirageConfig(coordination="none", redundancy_filter="single_hop").needs_embeddings
    assert MirageConfig.from_dict(MirageConfig(redundancy_filter="multi_hop").to_dict()) == (
        MirageConfig(redundancy_filter="multi_hop")
    )


def test_held_back_passages_leave_the_delivered_evidence(fake_nli, fake_embedder):
    docs = passages(PLANTED + HONEST)
    before = copy.deepcopy(docs)
    off = engine(fake_nli, fake_embedder).defend(QUERY, docs)
    on = engine(fake_nli, fake_embedder, redundancy_filter="single_hop").defend(QUERY, docs)
    assert docs == before  # the caller's passages are untouched
    assert off.decision == on.decision == "verified"
    held = set(on.extras["redundancy"]["passages"])
    assert held == {0, 1, 2}
    assert "redundancy" not in off.extras
    # delivered = the gate's S* minus the held-back passages' claims, pick order kept
    assert list(on.selected) == [i for i in off.selected if on.claims[i].passage_index not in held]
    assert on.selected and not any(on.claims[i].passage_index in held for i in on.selected)
    # no honest page supports the copies' claims, so every one of them is held back
    assert on.extras["redundancy"]["held_claims"] == [
        i for i in off.selected if off.claims[i].passage_index in held
    ]
    # the gate's own figures are those before the filter
    assert on.r_contr == off.r_contr and on.d_src == off.d_src
    assert "held back by the redundancy filter (N_adv=3)" in on.reason
    assert "redundancy filter: passages [0, 1, 2] held back" in on.explain()
    assert "redundancy filter" not in off.explain()


def test_nothing_left_to_deliver_blocks(fake_nli, fake_embedder):
    # The copies and a page with no claim: every claim of S* sits in a held-back passage.
    docs = passages([*PLANTED, "Boiling point?"])
    cfg = dict(redundancy_filter="single_hop", method=MethodSettings(claim_filter=True))
    v = engine(fake_nli, fake_embedder, **cfg).defend(QUERY, docs)
    assert {c.passage_index for c in v.claims} == {0, 1, 2}
    assert set(v.extras["redundancy"]["passages"]) >= {0, 1, 2}
    assert v.decision == "fallback"
    assert v.selected == ()
    assert v.reason.startswith("blocked: every verified claim came from passages")
    assert "; the gate had passed: r_contr=" in v.reason


def test_missing_scikit_learn_is_a_setup_error(monkeypatch, fake_nli, fake_embedder):
    import mirage_core.redundancy_filter as rf

    def missing():
        raise ImportError("the redundancy filter needs scikit-learn: pip install scikit-learn")

    monkeypatch.setattr(rf, "_sklearn", missing)
    with pytest.raises(ImportError, match="scikit-learn"):
        engine(fake_nli, fake_embedder, redundancy_filter="single_hop")
    # the concentration estimate is numpy alone
    v = engine(fake_nli, fake_embedder, redundancy_filter="multi_hop").defend(
        QUERY, passages(PLANTED + HONEST)
    )
    assert "redundancy" in v.extras


def test_hold_back_splits_in_pick_order_and_keeps_what_an_outside_page_supports(claims_of):
    claims = claims_of("First claim about water boiling. Second claim about kettles here.")
    groups = np.array([0, 1])
    empty = ClaimGraph.empty(len(claims))
    assert hold_back(claims, [1, 0], {0}, empty, groups) == ([], [1, 0])
    assert hold_back(claims, [1, 0], {5}, empty, groups) == ([1, 0], [])
    # claim 1 sits in another passage (5), outside the held-back one, and supports claim 0
    claims = [claims[0], dataclasses.replace(claims[1], passage_index=5)]
    probs = np.array([[0.95, 0.04, 0.01], [0.1, 0.8, 0.1]])  # 1 -> 0 entails; 0 -> 1 does not
    graph = ClaimGraph.build(2, np.array([1]), np.array([0]), probs, kappa=0.8)
    assert hold_back(claims, [0, 1], {0}, graph, groups) == ([0, 1], [])
    # support from inside the held-back passages vouches for nothing
    assert hold_back(claims, [0, 1], {0, 5}, graph, groups) == ([], [0, 1])
    # nor does support from the claim's own independence group
    assert hold_back(claims, [0, 1], {0}, graph, np.array([0, 0])) == ([1], [0])


def test_the_callers_embeddings_are_not_modified(fake_embedder):
    texts = PLANTED + HONEST
    emb = np.asarray(fake_embedder.embed(texts))
    before = emb.copy()
    for task in ("single_hop", "multi_hop"):
        redundant_passages(texts, emb, task)
    assert np.array_equal(emb, before)


def test_defend_many_and_adefend_apply_the_filter_as_defend(fake_nli, fake_embedder):
    import asyncio

    mirage = engine(fake_nli, fake_embedder, redundancy_filter="single_hop")
    docs = passages(PLANTED + HONEST)
    one = mirage.defend(QUERY, docs)
    many = mirage.defend_many([QUERY, QUERY], [docs, docs[3:]])
    again = asyncio.run(mirage.adefend(QUERY, docs))
    for v in (many[0], again):
        assert v.selected == one.selected and v.extras["redundancy"] == one.extras["redundancy"]
    assert "redundancy" not in many[1].extras  # two passages: under the filter's floor
