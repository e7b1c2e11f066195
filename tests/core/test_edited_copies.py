"""Edited copies: a supporter in nearly the claim's words vouches only for the words it states."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.claims import content_tokens
from mirage_core.corroboration import corroborate
from mirage_core.edited_copies import copy_words, edited_copies
from mirage_core.graph import build_graph
from mirage_core.method_settings import REQUEST_OVERRIDES
from mirage_core.types import Claim

TRUE = "McGinniss gained recognition with his first book, The Selling of the President."
EDITS = {
    "antonym": "McGinniss lost recognition with his first book, The Selling of the President.",
    "negation": "McGinniss didn't gain recognition with his first book, The Selling of the President.",
    "frame": "Early reports claimed that McGinniss gained recognition with his first book, "
    "The Selling of the President, but this was later disputed.",
    "degree": "McGinniss gained little recognition with his first book, The Selling of the President.",
}
PARAPHRASE = (
    "His book about the Nixon campaign, The Selling of the President, made McGinniss famous."
)
SHORTER = "McGinniss gained recognition with his first book."


def _claims(texts: list[str]) -> list[Claim]:
    return [
        Claim(i, t, i, 0, len(t), f"s{i}", f"s{i}", 1.0, content_tokens(t), group=f"s{i}")
        for i, t in enumerate(texts)
    ]


def test_negations_and_quantifiers_are_words_of_a_copy():
    negation, degree = _claims([EDITS["negation"], EDITS["degree"]])
    assert "not" in copy_words(negation)
    assert "little" in copy_words(degree)
    assert "not" not in negation.tokens  # the stopword list drops it


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_true_sentence_does_not_vouch_for_its_edited_copy(edit):
    claims = _claims([TRUE, EDITS[edit]])
    hit = edited_copies(claims, np.array([0]), np.array([1]), 0.5)
    assert hit.tolist() == [True]


def test_a_paraphrase_and_a_longer_copy_still_vouch():
    claims = _claims([TRUE, PARAPHRASE, SHORTER, EDITS["frame"]])
    # the paraphrase shares too few words to be a copy; the shorter sentence is all in TRUE;
    # the framed copy states every word of the plain sentence
    premise, hypothesis = np.array([0, 0, 3]), np.array([1, 2, 0])
    assert edited_copies(claims, premise, hypothesis, 0.5).tolist() == [False, False, False]
    assert edited_copies(claims, premise[:0], hypothesis[:0], 0.5).size == 0
    for outside in (0.0, 1.01):
        with pytest.raises(ValueError, match="min_overlap"):
            edited_copies(claims, premise, hypothesis, outside)
    # at 1 only a copy in the very same words would count, and such a copy lacks no word
    assert not edited_copies(claims, premise, hypothesis, 1.0).any()


def test_corroboration_drops_an_edited_copys_support():
    claims = _claims([TRUE, EDITS["antonym"], SHORTER])
    probs = np.tile([0.9, 0.05, 0.05], (6, 1))  # a sloppy model: every pair entails
    sourced = build_graph(claims, np.array([0, 0, 1]), np.array([1, 2, 2]), probs, MirageConfig())
    loose = corroborate(claims, sourced)
    strict = corroborate(claims, sourced, copy_overlap=0.5)
    assert loose.counts[1] == 2  # both true sentences "support" the antonym copy
    assert strict.counts[1] == 0
    # the shorter true sentence keeps the true one's support, not the antonym copy's
    assert loose.supporters[2] == (0, 1) and strict.supporters[2] == (0,)


def test_a_request_delivers_no_edited_copy(fake_embedder):
    pages = [
        Passage(TRUE + " He was born in New York in 1942.", source="https://a.example/x"),
        Passage(
            "Born in 1942 in New York, he became a writer. " + TRUE, source="https://b.example/y"
        ),
        Passage(
            EDITS["antonym"] + " He grew up in New York after 1942.", source="https://c.example/z"
        ),
    ]
    query = "Tell me about Joe McGinniss."
    sloppy = CallableNLI(lambda p, h: np.tile([0.9, 0.05, 0.05], (len(p), 1)))
    loose = Mirage(MirageConfig(), nli=sloppy, embedder=fake_embedder).defend(query, pages)
    strict = Mirage(
        MirageConfig.from_dict(
            {"method": {"request_overrides": {**REQUEST_OVERRIDES, "copy_overlap": 0.5}}}
        ),
        nli=sloppy,
        embedder=fake_embedder,
    ).defend(query, pages)
    assert loose.passed and strict.passed
    assert EDITS["antonym"] in {c.text for c in loose.verified_claims}
    delivered = {c.text for c in strict.verified_claims}
    assert EDITS["antonym"] not in delivered and TRUE in delivered
