"""The NLI pair budget: each claim keeps its best m partners, best per other source first."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.config import MethodSettings
from mirage_core.evidence import Evidence
from mirage_core.pair_budget import apply_budget, budget_cut, partner_ranks, source_ids
from mirage_core.pairs import build_pairs, candidate_pairs, rank_by_similarity
from mirage_core.types import Claim
from tests.conftest import NO_SIGNALS, entail_all


def claim(i: int, tokens: str, source: str) -> Claim:
    return Claim(
        i, tokens, i, 0, len(tokens), source, source, 1.0, frozenset(tokens.split()), source
    )


def pair_set(pairs) -> set[tuple[int, int]]:
    return set(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True))


# Unit vectors that reverse the lexical order of `two_per_source`: 0 is closest to 3, 1 to 2.
REVERSING = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 0], [1, 0, 0], [0.6, 0.8, 0]], dtype=float)


@pytest.fixture
def two_per_source():
    """Claims 0, 1 in s1 and 2, 3 in s2 overlap strongly crosswise; 4 (s3) weakly with all."""
    return [
        claim(0, "a b c d", "s1"),
        claim(1, "a b c e", "s1"),
        claim(2, "a b c d", "s2"),
        claim(3, "a b c e", "s2"),
        claim(4, "a x y z", "s3"),
    ]


def test_partner_ranks_put_each_other_source_before_a_second_partner(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    ranks = {
        p: r for p, r in zip(zip(pairs.left, pairs.right), partner_ranks(pairs, two_per_source))
    }
    # Claim 0: best in s2 is (0, 2) (1.0), best in s3 is (0, 4) (.25), then (0, 3) (.75).
    assert ranks[(0, 2)][0] == 0
    assert ranks[(0, 4)][0] == 1
    assert ranks[(0, 3)][0] == 2
    # Claim 4 (the right end of its pairs; all overlap .25): its first partner in s1 (0) and
    # in s2 (2) before the second ones (1, 3).
    assert [ranks[(i, 4)][1] for i in range(4)] == [0, 2, 1, 3]


def test_one_partner_per_claim_keeps_every_claims_first_choice(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    kept = apply_budget(pairs, two_per_source, partners_per_claim=1, max_pairs=None)
    # 0→(0,2), 1→(1,3), 2→(0,2), 3→(1,3), 4→(0,4): three distinct pairs.
    assert pair_set(kept) == {(0, 2), (1, 3), (0, 4)}
    assert kept.overlap.tolist() == sorted(kept.overlap.tolist(), reverse=True)
    two = apply_budget(pairs, two_per_source, partners_per_claim=2, max_pairs=None)
    assert pair_set(kept) < pair_set(two)
    assert (0, 4) in pair_set(two) and (1, 4) in pair_set(two)  # each claim now reaches s3


def test_budget_is_linear_and_every_claim_keeps_min_m_or_all_its_partners():
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(12)]
    claims = [
        claim(i, " ".join(rng.choice(vocab, size=5, replace=False)), f"s{i % 9}") for i in range(90)
    ]
    pairs = candidate_pairs(claims, tau=0.4)
    degree = np.bincount(np.r_[pairs.left, pairs.right], minlength=len(claims))
    for m in (1, 2, 3):
        kept = apply_budget(pairs, claims, partners_per_claim=m, max_pairs=None)
        assert len(kept) <= m * len(claims) < len(pairs)
        kept_degree = np.bincount(np.r_[kept.left, kept.right], minlength=len(claims))
        assert np.all(kept_degree >= np.minimum(degree, m))


def test_budget_cut_keeps_what_the_budget_keeps_and_floors_each_claim(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    sources = source_ids(two_per_source)
    for m in (1, 2):
        kept, floor = budget_cut(pairs.left, pairs.right, pairs.overlap, sources, m)
        assert pair_set(pairs.take(np.flatnonzero(kept))) == pair_set(
            apply_budget(pairs, two_per_source, m, None)
        )
        # claim 0's first pairs by partner source: s2 (0, 2) at 1.0, then s3 (0, 4) at .25;
        # claim 4's: s1 (0, 4) and s2 (2, 4), both .25
        assert floor[0] == [1.0, 0.25][m - 1]
        assert floor[4] == 0.25
    # with three partner sources, no claim has met a third: no floor
    _, floor = budget_cut(pairs.left, pairs.right, pairs.overlap, sources, 3)
    assert np.all(floor == -np.inf)


def test_max_pairs_keeps_the_most_relevant_pairs_first(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    relevance = np.array([0.1, 1.0, 0.1, 1.0, 1.0])
    kept = apply_budget(pairs, two_per_source, None, max_pairs=3, relevance=relevance)
    # Pairs among the relevant claims 1, 3, 4 come first, whatever their overlap.
    assert pair_set(kept) == {(1, 3), (1, 4), (3, 4)}
    by_priority = apply_budget(pairs, two_per_source, None, max_pairs=3)
    assert pair_set(by_priority) == set(zip(pairs.left[:3].tolist(), pairs.right[:3].tolist()))


def test_no_limit_returns_the_candidates_unchanged(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    assert apply_budget(pairs, two_per_source, None, None) is pairs
    assert apply_budget(pairs, two_per_source, 99, None) is pairs


class RecordingNLI:
    """Calls every pair an entailment and records each (premise, hypothesis) it is sent; no
    cache, so every pair the engine sends is seen."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def predict(self, premises, hypotheses):
        self.seen.extend(zip(premises, hypotheses, strict=True))
        return entail_all(premises, hypotheses)


@pytest.fixture
def recording_nli() -> RecordingNLI:
    return RecordingNLI()


@pytest.mark.model
def test_defend_scores_only_budgeted_pairs_in_both_directions(recording_nli):
    seen = recording_nli.seen
    text = "The bridge opened in 1932 over the river. The bridge carries eight lanes of traffic."
    passages = [Passage(text, source=f"https://site{i}.example/a") for i in range(8)]
    passages = [
        Passage(p.text.replace("eight", w), source=p.source)
        for p, w in zip(passages, ["eight", "six", "four", "ten", "two", "nine", "five", "three"])
    ]
    unbounded = Mirage(MirageConfig(partners_per_claim=None), nli=recording_nli).defend(
        "When did the bridge open?", passages
    )
    n_all = len(seen)
    seen.clear()
    budgeted = Mirage(MirageConfig(partners_per_claim=1), nli=recording_nli).defend(
        "When did the bridge open?", passages
    )
    n_claims = budgeted.candidate_stats["claims"]
    assert (
        budgeted.candidate_stats["nli_pairs"] <= n_claims < unbounded.candidate_stats["nli_pairs"]
    )
    assert len(seen) == 2 * budgeted.candidate_stats["nli_pairs"] < n_all
    assert {(h, p) for p, h in seen} == set(seen)  # every kept pair in both directions


def test_embedding_ranking_keeps_each_claims_semantically_closest_partner(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    ranked = rank_by_similarity(pairs, REVERSING)
    assert pair_set(ranked) == pair_set(pairs)  # same pairs, new priority
    assert ranked.rank_key.tolist() == sorted(ranked.rank_key.tolist(), reverse=True)
    kept = apply_budget(ranked, two_per_source, partners_per_claim=1, max_pairs=None)
    assert {(0, 3), (1, 2)} <= pair_set(kept)
    assert (0, 2) not in pair_set(kept) and (1, 3) not in pair_set(kept)


def test_defend_ranks_partners_by_embedding_only_when_asked(fake_nli, fake_embedder):
    calls: list[int] = []
    embedded: set[str] = set()

    def counting(texts):
        calls.append(len(texts))
        embedded.update(texts)
        return fake_embedder.embed(texts)

    passages = [
        Passage(
            f"The {adj} bridge opened in 1932 over the river. It carries {n} lanes of traffic.",
            source=f"https://s{i}.example/",
        )
        for i, (adj, n) in enumerate([("old", "two"), ("long", "four"), ("steel", "six")])
    ]
    # Coordination by text signals: only the partner ranking could ask for embeddings.
    Mirage(MirageConfig(coordination="text"), nli=fake_nli, embedder=counting).defend(
        "bridge?", passages
    )
    assert calls == []  # the default ranks by overlap: no embedder
    v = Mirage(
        MirageConfig(coordination="text", method=MethodSettings(partner_ranking="embedding")),
        nli=fake_nli,
        embedder=counting,
    ).defend("bridge?", passages)
    assert calls and {c.text for c in v.claims} <= embedded  # the claims, not only the pages


def test_config_names_an_unknown_budget_field():
    with pytest.raises(ValueError, match="unknown MirageConfig fields: \\['pairs_per_claim'\\]"):
        MirageConfig.from_dict({"pairs_per_claim": 8})
    with pytest.raises(ValueError, match="partner_ranking"):
        MirageConfig(method=MethodSettings(partner_ranking="cosine"))


def test_pair_relevant_only_sends_no_pair_with_a_claim_off_the_query(recording_nli):
    """With ``pair_relevant_only`` (the default for questions) every pair NLI sees holds a
    word of the query on both sides; without it, the pairs between the two off-query sentences
    are scored too, as they are for a request for an account."""
    seen = recording_nli.seen

    query = "When did the bridge open?"
    texts = [
        "The bridge opened in 1932 over the river. Its painters used red lead paint in spring.",
        "The bridge over the river opened in 1932. Its painters used red lead paint every year.",
        "In 1932 the bridge opened. Its painters used red lead paint on the towers.",
    ]
    passages = [Passage(t, source=f"https://site{i}.example/a") for i, t in enumerate(texts)]
    config = MirageConfig(coordination="none", partners_per_claim=None)
    assert config.method.pair_relevant_only
    Mirage(config, nli=recording_nli).defend(query, passages)
    assert seen
    assert all("bridge" in p.lower() and "bridge" in h.lower() for p, h in seen)
    seen.clear()
    Mirage(config.replace(pair_relevant_only=False), nli=recording_nli).defend(query, passages)
    off_query = [(p, h) for p, h in seen if "painters" in p and "painters" in h]
    assert off_query  # the off-query sentences are paired with each other
    seen.clear()
    # a request for an account reads every pair: its claims corroborate each other off the query
    Mirage(config, nli=recording_nli).defend("Tell me about the bridge.", passages)
    assert [(p, h) for p, h in seen if "painters" in p and "painters" in h]


def test_pair_min_relevance_reads_only_pairs_that_bear_on_more_of_the_query(recording_nli):
    """A pair is read only when its less relevant claim weighs more than the floor: "Tyne"
    alone (one of three query words, relevance 2/3) passes 0.5 but not 0.7."""
    seen = recording_nli.seen
    query = "When did the Tyne bridge open?"
    texts = [
        "The Tyne bridge opened in 1928. Crowds lined the Tyne that day in their thousands.",
        "The Tyne bridge opened in 1928 to traffic. Crowds lined the Tyne banks in the sun.",
    ]
    passages = [Passage(t, source=f"https://site{i}.example/a") for i, t in enumerate(texts)]
    config = MirageConfig(coordination="none", partners_per_claim=None)
    read = {}
    for floor in (0.0, 0.5, 0.7):
        seen.clear()
        method = config.method.replace(pair_min_relevance=floor)
        Mirage(config.replace(method=method), nli=recording_nli).defend(query, passages)
        read[floor] = {(p, h) for p, h in seen}
    crowds = {(p, h) for p, h in read[0.0] if "Crowds" in p or "Crowds" in h}
    assert crowds and crowds <= read[0.5]  # "Tyne" is one word of three: 2/3 > 0.5
    assert not {(p, h) for p, h in read[0.7] if "Crowds" in p or "Crowds" in h}
    assert read[0.7]  # the pairs of the two answer sentences are still read


def test_exempt_pairs_are_kept_beyond_each_claims_partners(two_per_source):
    pairs = candidate_pairs(two_per_source, tau=0.2)
    one_each = pair_set(apply_budget(pairs, two_per_source, partners_per_claim=1, max_pairs=None))
    left_out = [i for i, p in enumerate(zip(pairs.left, pairs.right)) if p not in one_each]
    assert left_out
    exempt = np.zeros(len(pairs), dtype=bool)
    exempt[left_out[0]] = True
    kept = apply_budget(pairs, two_per_source, partners_per_claim=1, max_pairs=None, exempt=exempt)
    assert pair_set(kept) == one_each | {(pairs.left[left_out[0]], pairs.right[left_out[0]])}


def test_defend_reads_every_close_pair_when_paraphrases_are_exempt(recording_nli, fake_embedder):
    """Under ``paraphrase_budget="exempt"`` every cross-source pair at the paraphrase
    threshold is scored, whatever the partner budget leaves out."""
    seen = recording_nli.seen
    words = ["wide", "cold", "slow", "deep", "old", "brown"]
    passages = [
        Passage(
            f"The bridge opened in 1932 over the {w} river. The bridge carries {w} lanes of "
            "traffic to the city.",
            source=f"https://site{i}.example/a",
        )
        for i, w in enumerate(words)
    ]
    config = MirageConfig(coordination="none", partners_per_claim=1).replace(
        paraphrase_pairs=True, paraphrase_threshold=0.8
    )
    verdict = Mirage(config, nli=recording_nli, embedder=fake_embedder).defend("bridge?", passages)
    texts = [c.text for c in verdict.claims]
    vectors = np.asarray(fake_embedder.embed(texts))
    cos = vectors @ vectors.T
    sources = [c.source for c in verdict.claims]
    close = {
        (texts[i], texts[j])
        for i in range(len(texts))
        for j in range(len(texts))
        if sources[i] != sources[j] and cos[i, j] >= 0.8
    }
    assert len(close) > 2 * len(texts)  # more partners per claim than the budget's one
    assert not close <= set(seen)  # the shared budget leaves some close pairs unread
    seen.clear()
    Mirage(
        config.replace(paraphrase_budget="exempt"), nli=recording_nli, embedder=fake_embedder
    ).defend("bridge?", passages)
    assert close <= set(seen)


def test_max_pairs_keeps_the_pairs_of_the_claims_most_relevant_to_the_query(
    fake_nli, clean_passages
):
    query = "When was the Eiffel Tower completed?"

    def defended(max_pairs):
        engine = Mirage(NO_SIGNALS.replace(max_pairs=max_pairs), fake_nli)
        v = engine.defend(query, clean_passages)
        return v, {tuple(sorted((e.premise, e.hypothesis))) for e in v.edges}

    every, all_pairs = defended(None)
    capped, kept = defended(len(all_pairs) - 1)
    assert capped.candidate_stats["nli_pairs"] == len(kept) == len(all_pairs) - 1
    weight = {p: min(every.relevance[p[0]], every.relevance[p[1]]) for p in all_pairs}
    [dropped] = all_pairs - kept
    assert all(weight[dropped] < weight[p] for p in kept)


@pytest.mark.parametrize("ranking", ["overlap", "embedding"])
def test_build_pairs_ranks_partners_the_way_the_config_asks(two_per_source, ranking):
    # Paraphrase pairs are on under both rankings, so the claims are embedded either way and
    # only the ranking setting can decide which partner each claim keeps.
    config = MirageConfig(
        partners_per_claim=1,
        method=MethodSettings(
            tau=0.2,
            partner_ranking=ranking,
            paraphrase_pairs=True,
            paraphrase_threshold=0.95,
            pair_relevant_only=False,
        ),
    )
    evidence = Evidence("q", 3, claims=two_per_source)
    pairs = build_pairs(evidence, config, lambda texts: REVERSING[: len(texts)])
    assert evidence.claim_embeddings is not None and pairs.paraphrase == 0
    if ranking == "overlap":
        assert pair_set(pairs) == {(0, 2), (1, 3), (0, 4)}
    else:
        assert {(0, 3), (1, 2)} <= pair_set(pairs)
        assert not {(0, 2), (1, 3)} & pair_set(pairs)


def test_build_pairs_caps_by_the_evidence_relevance(two_per_source):
    config = MirageConfig(
        partners_per_claim=None,
        max_pairs=1,
        method=MethodSettings(tau=0.2, pair_relevant_only=False),
    )
    evidence = Evidence("q", 3, claims=two_per_source)
    evidence.relevance = np.array([0.1, 1.0, 0.1, 1.0, 1.0])
    # (0, 2) has the top overlap, but its claims are off the query: the cap keeps (1, 3).
    assert pair_set(build_pairs(evidence, config, None)) == {(1, 3)}
    evidence.relevance = None
    assert pair_set(build_pairs(evidence, config, None)) == {(0, 2)}
