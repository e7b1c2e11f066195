"""Corroboration: support from another independence group, by NLI or paraphrase, fact by fact."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.claims import content_tokens
from mirage_core.corroboration import claim_facts, configured_corroboration, corroborate
from mirage_core.graph import build_graph
from mirage_core.types import Claim
from tests.conftest import worded_claims


def _claims(texts_groups: list[tuple[str, str]]) -> list[Claim]:
    return [
        Claim(i, t, i, 0, len(t), g, g, 1.0, frozenset(), group=g)
        for i, (t, g) in enumerate(texts_groups)
    ]


def _paged_claims(texts_groups_pages: list[tuple[str, str, int]]) -> list[Claim]:
    """Claims of (text, group, passage index): several sentences of one page."""
    return [
        Claim(i, t, p, 0, len(t), g, g, 1.0, frozenset(), group=g)
        for i, (t, g, p) in enumerate(texts_groups_pages)
    ]


def agree_all(premises, hypotheses):
    """A sloppy model: every pair entails (it misses changed facts)."""
    return np.tile([0.9, 0.05, 0.05], (len(premises), 1))


def _sourced(claims, left, right):
    probs = agree_all([None] * (2 * len(left)), None)
    return build_graph(claims, np.array(left), np.array(right), probs, MirageConfig())


def _read_once(claims, *readings):
    """The claim graph with the one pair (0, 1) read: both directions alike, or each its own."""
    rows = readings if len(readings) == 2 else readings * 2
    return build_graph(claims, np.array([0]), np.array([1]), np.array(rows), MirageConfig())


def test_claim_facts_are_numbers_months_and_names():
    assert claim_facts("Lyon is the capital of France.") == {"lyon", "france"}
    assert claim_facts("The tower was completed in March 1889.") == {"march", "1889"}
    assert claim_facts("It has 1,665 steps.") == {"1665"}


def test_support_counts_only_other_groups():
    claims = _claims(
        [
            ("The tower is in Paris.", "a"),
            ("The tower is in Paris.", "a"),
            ("The tower stands in Paris.", "b"),
        ]
    )
    sourced = _sourced(claims, [0, 0], [1, 2])
    c = corroborate(claims, sourced)
    assert c.counts.tolist() == [1, 0, 1]
    assert c.supporters[2] == (0,)


def test_fact_coverage_rejects_a_supporter_that_states_another_fact():
    claims = _claims([
        ("The Eiffel Tower was completed in 1887.", "a"),
        ("The Eiffel Tower was completed in 1889.", "b"),
        ("The Eiffel Tower was finished in 1889 in Paris.", "c"),
    ])  # fmt: skip
    sourced = _sourced(claims, [0, 0, 1], [1, 2, 2])
    loose = corroborate(claims, sourced)
    strict = corroborate(claims, sourced, fact_coverage=True)
    assert loose.counts.tolist() == [2, 2, 2]  # the sloppy model vouches for 1887
    assert strict.counts[0] == 0  # no other source states 1887
    assert strict.counts[1] == 1  # "… 1889 in Paris" states 1889 (and Eiffel, Tower)
    assert strict.counts[2] == 0  # nobody else says Paris


def test_passage_fact_scope_reads_the_facts_the_supporters_page_states():
    texts = [
        ("The Eiffel Tower was completed in 1889.", "a", 0),
        ("The Eiffel Tower stands in Paris.", "b", 1),
        ("The tower was completed in 1889 for the fair.", "b", 1),
        ("The tower was completed in 1925 for the fair.", "c", 2),
    ]
    claims = _paged_claims(texts)
    sourced = _sourced(claims, [0, 0], [2, 3])  # the sloppy model: 2 and 3 both "support" 0
    sentence = corroborate(claims, sourced, fact_coverage=True)
    passage = corroborate(claims, sourced, fact_coverage=True, fact_scope="passage")
    assert sentence.counts[0] == 0  # "the tower" names no Eiffel
    assert passage.counts[0] == 1 and passage.supporters[0] == (2,)  # its page does; 1925 never


def test_names_in_passage_reads_names_on_the_page_and_numbers_in_the_sentence():
    texts = [
        ("The Eiffel Tower was completed in 1889.", "a", 0),
        ("The Eiffel Tower stands in Paris; work ended in 1925 on its lift.", "b", 1),
        ("The tower was completed in 1889 for the fair.", "b", 1),
        ("The tower was completed for the fair.", "b", 1),
    ]
    claims = _paged_claims(texts)
    sourced = _sourced(claims, [0, 0], [2, 3])  # the sloppy model: 2 and 3 both "support" 0
    names = corroborate(claims, sourced, fact_coverage=True, fact_scope="names_in_passage")
    # "Eiffel" is on sentence 2's page and 1889 in sentence 2 itself; sentence 3 states no
    # year itself (its page does, in sentence 2), and a number must be in the sentence
    assert names.counts[0] == 1 and names.supporters[0] == (2,)
    passage = corroborate(claims, sourced, fact_coverage=True, fact_scope="passage")
    assert passage.supporters[0] == (2, 3)  # the whole page states 1889 for sentence 3 too


@pytest.mark.parametrize("scope", ["sentence", "passage", "names_in_passage"])
def test_fact_coverage_is_the_subset_test_on_every_edge(scope):
    from mirage_core.corroboration import _facts_stated, stated_words

    rng = np.random.default_rng(0)
    names = ["Paris", "Rome", "Eiffel", "1889", "1925", "March", "Otis", "the", "tower", "was"]
    texts = [
        "It " + " ".join(rng.choice(names, size=int(rng.integers(1, 6)))) + "." for _ in range(40)
    ]
    claims = [
        Claim(i, t, i // 3, 0, len(t), "g", "g", 1.0, frozenset()) for i, t in enumerate(texts)
    ]
    premise, hypothesis = rng.integers(0, 40, size=300), rng.integers(0, 40, size=300)

    def stated(p: int) -> frozenset[str]:
        if scope == "sentence":
            return stated_words(texts[p])
        return frozenset().union(
            *(stated_words(c.text) for c in claims if c.passage_index == p // 3)
        )

    def covered(p: int, h: int) -> bool:
        facts = claim_facts(texts[h])
        if scope != "names_in_passage":
            return facts <= stated(p)
        numbers = {f for f in facts if f[0].isdigit() or f == "march"}
        return numbers <= stated_words(texts[p]) and facts - numbers <= stated(p)

    expected = [covered(p, h) for p, h in zip(premise, hypothesis)]
    assert _facts_stated(claims, premise, hypothesis, scope).tolist() == expected
    assert 0 < sum(expected) < len(expected)  # both outcomes occur


def test_a_question_vouches_for_nothing_when_questions_do_not_count():
    claims = _claims(
        [
            ("Who wrote Waiting for Godot?", "a"),
            ("Who wrote Waiting for Godot?", "b"),
            ("Samuel Beckett wrote Waiting for Godot.", "c"),
            ("Beckett wrote Waiting for Godot.", "d"),
        ]
    )
    sourced = _sourced(claims, [0, 0, 2], [1, 2, 3])  # the sloppy model: all "support"
    counted = corroborate(claims, sourced)
    asserted = corroborate(claims, sourced, questions_vouch=False)
    assert counted.counts[0] > 0 and counted.counts[1] > 0  # a heading "corroborates" another
    assert asserted.counts.tolist() == [0, 0, 1, 1]  # only the two statements vouch


def test_the_configured_step_reads_the_question_and_fact_form_settings():
    query = content_tokens("Which theatre staged the first production?")
    default = MirageConfig()

    def counts(claims, sourced, **settings) -> list[int]:
        config = default.replace(**settings)
        return configured_corroboration(claims, sourced, config, query_tokens=query).counts.tolist()

    questions = worded_claims(
        [
            ("Who wrote Waiting for Godot?", "a"),
            ("Who wrote Waiting for Godot?", "b"),
            ("Samuel Beckett wrote Waiting for Godot.", "c"),
        ]
    )
    asked = _sourced(questions, [0, 0], [1, 2])  # the sloppy model: all "support"
    assert counts(questions, asked) == [0, 0, 0]  # a question vouches for nothing by default
    assert counts(questions, asked, questions_vouch=True)[0] > 0

    centuries = worded_claims(
        [("Built in the thirteenth century.", "a"), ("Built in the 13th century.", "b")]
    )
    dated = _sourced(centuries, [0], [1])
    assert counts(centuries, dated) == [1, 1]
    assert counts(centuries, dated, fact_forms="tokens") == [1, 0]  # "thirteenth": no number


def test_the_configured_step_reads_the_scope_and_veto_settings():
    default = MirageConfig()
    paged = [
        dataclasses.replace(
            c, tokens=content_tokens(c.text)
        )  # a claim of no words vouches for none
        for c in _paged_claims(
            [
                ("The Eiffel Tower was completed in 1889.", "a", 0),
                ("The Eiffel Tower stands in Paris.", "b", 1),
                ("The tower was completed in 1889 for the fair.", "b", 1),
            ]
        )
    ]
    sourced = _sourced(paged, [0], [2])
    assert configured_corroboration(paged, sourced, default).counts[0] == 0
    by_page = configured_corroboration(paged, sourced, default.replace(fact_scope="passage"))
    assert by_page.counts[0] == 1  # "Eiffel" is on the supporter's page

    near = worded_claims([("Sales rose sharply in May.", "a"), ("Sales fell sharply in May.", "b")])
    leaning = _read_once(near, [0.30, 0.25, 0.45])
    emb = np.array([[1.0, 0.0], [0.96, 0.28]])
    paraphrase = default.replace(paraphrase_support=0.9)

    def counts(config) -> list[int]:
        return configured_corroboration(near, leaning, config, embeddings=emb).counts.tolist()

    assert counts(paraphrase) == [1, 1]
    assert counts(paraphrase.replace(paraphrase_veto="leaning")) == [0, 0]


def test_corroboration_is_computed_only_when_a_step_reads_it():
    claims = worded_claims([("The tower is 330 metres tall.", "a"), ("It is 330 m.", "b")])
    sourced = _sourced(claims, [0], [1])
    off = MirageConfig().replace(corroborated_only="none", block_on_tie=False)
    assert configured_corroboration(claims, sourced, off) is None
    for reader in (
        {"min_support": 1},  # the selection reads it, with fact coverage
        {"min_support": 1, "fact_coverage": False, "paraphrase_support": 0.9},
        {"corroborated_only": "delivery"},
        {"source_count": "corroborating"},
        {"block_on_tie": True, "conflict_rule": "majority"},
    ):
        assert configured_corroboration(claims, sourced, off.replace(**reader)) is not None
    for idle in (
        {"min_support": 1, "fact_coverage": False},  # the selection reads n(c) then
        {"block_on_tie": True, "conflict_rule": "tie"},
        {"conflict_rule": "majority"},
    ):
        assert configured_corroboration(claims, sourced, off.replace(**idle)) is None


def test_a_sentence_of_the_query_s_own_words_vouches_for_nothing():
    query = "who played the oldest brother in 7th heaven"
    claims = worded_claims(
        [
            (query, "a"),  # a question glued onto a page without its "?"
            (query, "b"),
            ("Barry Watson played the oldest brother in 7th Heaven.", "c"),
            ("Watson played the oldest brother on 7th Heaven.", "d"),
        ]
    )
    sourced = _sourced(claims, [0, 0, 2], [1, 2, 3])  # the sloppy model: all "support"
    counted = corroborate(claims, sourced)
    asserted = corroborate(claims, sourced, restating=content_tokens(query))
    assert counted.counts[0] > 0 and counted.counts[1] > 0
    assert asserted.counts.tolist() == [0, 0, 1, 1]


def test_paraphrase_neighbours_of_another_group_corroborate():
    claims = _claims(
        [("Paris is the capital.", "a"), ("The capital is Paris.", "b"), ("Cats purr.", "c")]
    )
    sourced = _sourced(claims, [], [])
    emb = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]])
    assert corroborate(claims, sourced).counts.tolist() == [0, 0, 0]
    near = corroborate(claims, sourced, embeddings=emb, paraphrase_support=0.9)
    assert near.counts.tolist() == [1, 1, 0]


def test_paraphrase_support_reads_the_cosine_block_by_block_from_the_threshold_up(monkeypatch):
    import mirage_core.corroboration as corroboration

    claims = _claims(
        [
            ("Cats purr.", "c"),
            ("Paris is the capital.", "a"),
            ("Dogs bark.", "d"),
            ("The capital is Paris.", "b"),
            ("Paris, the capital.", "e"),
        ]
    )
    sourced = _sourced(claims, [], [])
    # claims 3 and 4 each lie at cosine 0.96 from claim 1, exactly the threshold, and 0.92 apart
    emb = np.array([[0, 0, 1.0], [1.0, 0, 0], [0, 1.0, 0], [0.96, 0.28, 0], [0.96, 0, 0.28]])
    whole = corroborate(claims, sourced, embeddings=emb, paraphrase_support=0.96)
    monkeypatch.setattr(corroboration, "_BLOCK", 2)  # the claims' rows in three blocks
    blocked = corroborate(claims, sourced, embeddings=emb, paraphrase_support=0.96)
    assert whole.counts.tolist() == blocked.counts.tolist() == [0, 2, 0, 1, 1]


def test_a_paraphrase_the_nli_model_contradicts_corroborates_nothing():
    claims = _claims(
        [("Paris is the capital.", "a"), ("Paris is not the capital.", "b"), ("Cats purr.", "c")]
    )
    emb = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]])
    unread = _sourced(claims, [], [])
    near = corroborate(claims, unread, embeddings=emb, paraphrase_support=0.9)
    assert near.counts.tolist() == [1, 1, 0]  # close in embedding space, facts the same
    contradicted = _read_once(claims, [0.01, 0.01, 0.98])
    assert contradicted.graph.w_contr.max() > 0
    read = corroborate(claims, contradicted, embeddings=emb, paraphrase_support=0.9)
    assert read.counts.tolist() == [0, 0, 0]


def test_a_paraphrase_the_nli_model_leans_to_contradict_corroborates_nothing_when_leaning_vetoes():
    claims = _claims(
        [("Sales rose in May.", "a"), ("Sales fell in May.", "b"), ("Cats purr.", "c")]
    )
    emb = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]])
    # read, one direction leaning to contradiction below κ: no counted contradiction
    leaning = _read_once(claims, [0.30, 0.25, 0.45], [0.50, 0.30, 0.20])
    assert leaning.graph.w_contr.max() == 0
    counted = corroborate(claims, leaning, embeddings=emb, paraphrase_support=0.9)
    assert counted.counts.tolist() == [1, 1, 0]
    vetoed = corroborate(
        claims, leaning, embeddings=emb, paraphrase_support=0.9, paraphrase_veto="leaning"
    )
    assert vetoed.counts.tolist() == [0, 0, 0]
    # a reading too weak for an NLI support edge, leaning away from contradiction, still lets
    # the paraphrase corroborate under "leaning"
    agreeing = _read_once(claims, [0.45, 0.40, 0.15])
    assert agreeing.graph.w_supp.max() == 0
    kept = corroborate(
        claims, agreeing, embeddings=emb, paraphrase_support=0.9, paraphrase_veto="leaning"
    )
    assert kept.counts.tolist() == [1, 1, 0]
    # leaning means contradiction above entailment: not a tie, not above neutral alone
    for reading in ([0.40, 0.20, 0.40], [0.50, 0.20, 0.30]):
        graph = _read_once(claims, reading)
        assert graph.graph.w_contr.max() == 0
        even = corroborate(
            claims, graph, embeddings=emb, paraphrase_support=0.9, paraphrase_veto="leaning"
        )
        assert even.counts.tolist() == [1, 1, 0], reading


@pytest.fixture
def eiffel() -> list[Passage]:
    return [
        Passage("The Eiffel Tower was completed in 1889. It is 330 metres tall.", source="https://a.example/"),
        Passage("The Eiffel Tower was completed in 1889 for the World's Fair.", source="https://b.example/"),
        Passage("The Eiffel Tower was completed in 1889. Its designer was Gustave Eiffel.", source="https://c.example/"),
    ]  # fmt: skip


def test_min_support_with_fact_coverage_delivers_only_corroborated_facts(eiffel):
    engine = Mirage(
        MirageConfig(coordination="none", min_support=1).replace(fact_coverage=True),
        nli=CallableNLI(agree_all),
    )
    v = engine.defend("When was the Eiffel Tower completed?", eiffel)
    assert v.passed
    delivered = " ".join(c.text for c in v.verified_claims)
    assert "1889" in delivered
    # each page's own detail is stated by no other page: not verified
    assert "330" not in delivered and "Gustave" not in delivered and "World's Fair" not in delivered


def _paraphrase_counts(claims, sourced, embeddings, veto) -> list[int]:
    return corroborate(
        claims, sourced, embeddings=embeddings, paraphrase_support=0.9, paraphrase_veto=veto
    ).counts.tolist()


def test_an_unread_paraphrase_corroborates_nothing_when_unread_vetoes():
    claims = _claims(
        [("Sales rose in May.", "a"), ("Sales rose in May again.", "b"), ("Cats purr.", "c")]
    )
    emb = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]])
    unread = _sourced(claims, [], [])
    # "leaning" can only veto what was read
    assert _paraphrase_counts(claims, unread, emb, "leaning") == [1, 1, 0]
    assert _paraphrase_counts(claims, unread, emb, "unread_or_leaning") == [0, 0, 0]
    # a reading of one pair vetoes nothing beyond it: the unread pairs stay vetoed
    third = _claims(
        [("Sales rose in May.", "a"), ("Sales fell in May.", "b"), ("Sales rose in May.", "c")]
    )
    one_read = _read_once(third, [0.30, 0.25, 0.45])
    close = np.array([[1.0, 0.0], [0.96, 0.28], [0.99, 0.14]])
    assert _paraphrase_counts(third, one_read, close, "unread_or_leaning") == [0, 0, 0]
    agreeing = _read_once(claims, [0.45, 0.40, 0.15])
    assert _paraphrase_counts(claims, agreeing, emb, "unread_or_leaning") == [1, 1, 0]
