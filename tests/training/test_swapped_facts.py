"""Swapped-fact pairs: a reworded hypothesis with a stated value swapped contradicts."""

from __future__ import annotations

import random

from training.augment import Augmenter
from training.data import NLIExample
from training.swapped_facts import swapped_fact, swapped_fact_pairs

CORPUS = [
    "The tower was completed in 1889 for the World's Fair in Paris.",
    "The festival moved from Berlin to Vienna after the war.",
    "The museum in Madrid holds more than 40 paintings by the artist.",
    "Most of the bridge was rebuilt in 1925 after the flood.",
]

ENTAILMENTS = [
    NLIExample(
        "Construction of the tower in Paris was finished in 1889, in time for the fair.",
        "The tower was completed in 1889.",
        0,
        "src",
    ),
    NLIExample(
        "After the war the festival left Berlin and has been held in Vienna ever since.",
        "The festival is now held in Vienna.",
        0,
        "src",
    ),
    NLIExample(
        "More than 40 of the artist's paintings hang in the museum in Madrid.",
        "The museum in Madrid holds over 40 of his paintings.",
        0,
        "src",
    ),
    # not an entailment: never used
    NLIExample("The bridge was rebuilt in 1925.", "The bridge was rebuilt in 1931.", 2, "src"),
    # the hypothesis states nothing the premise states that can be swapped
    NLIExample("A dog runs in the park.", "An animal is outside.", 0, "src"),
]


def _words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


def test_the_swap_changes_a_value_the_premise_states():
    aug = Augmenter(CORPUS)
    rng = random.Random(0)
    premise, hypothesis = ENTAILMENTS[0].premise, ENTAILMENTS[0].hypothesis
    text, kind = swapped_fact(premise, hypothesis, aug, rng)
    assert kind == "year"
    removed = _words(hypothesis) - _words(text)
    assert removed == {"1889"}
    assert "1889" not in text and text.startswith("The tower was completed in ")


def test_a_value_the_premise_does_not_state_is_not_swapped():
    aug = Augmenter(CORPUS)
    # 1925 is in the hypothesis only: swapping it would not contradict the premise
    assert (
        swapped_fact(
            "The bridge was rebuilt.", "The bridge was rebuilt in 1925.", aug, random.Random(0)
        )
        is None
    )


def test_pairs_are_contradictions_from_entailments_only_and_seeded():
    aug = Augmenter(CORPUS)
    pairs = swapped_fact_pairs(ENTAILMENTS, aug, 10, seed=3)
    assert pairs and all(p.label == 2 for p in pairs)
    assert all(p.source.startswith("swapped-facts:") for p in pairs)
    premises = {e.premise for e in ENTAILMENTS if e.label == 0}
    for p in pairs:
        original = p.premise if p.premise in premises else p.hypothesis
        assert original in premises
        assert "1931" not in p.premise + p.hypothesis  # the contradiction pair is never a source
    assert len({p.premise + p.hypothesis for p in pairs}) == len(pairs)
    assert swapped_fact_pairs(ENTAILMENTS, aug, 10, seed=3) == pairs
    assert len(swapped_fact_pairs(ENTAILMENTS, aug, 1, seed=3)) == 1


def test_with_originals_each_swap_is_followed_by_its_source_pair_in_the_same_order():
    aug = Augmenter(CORPUS)
    pairs = swapped_fact_pairs(ENTAILMENTS, aug, 10, seed=3, with_originals=True)
    assert len(pairs) % 2 == 0 and pairs
    by_premise = {e.premise: e.hypothesis for e in ENTAILMENTS if e.label == 0}
    for swap, original in zip(pairs[::2], pairs[1::2], strict=True):
        assert swap.label == 2 and original.source == "swapped-facts:original"
        if original.label == 0:  # premise first: entailment, the swap sits in the hypothesis
            assert swap.premise == original.premise
            assert by_premise[original.premise] == original.hypothesis != swap.hypothesis
        else:  # the hypothesis first: it states less than the premise
            assert original.label == 1 and swap.hypothesis == original.hypothesis
            assert by_premise[original.hypothesis] == original.premise != swap.premise
