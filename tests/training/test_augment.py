"""Augmentation: seeded, produces the claimed edit kinds, never an unchanged contradiction."""

from __future__ import annotations

import random

import pytest

from training.augment import Augmenter

CORPUS = [
    "The company was founded in 1998 in London by John Smith.",
    "Paris is the capital of France and has 2,100,000 inhabitants.",
    "Mary Jones moved to Berlin in March 2004 with her three children.",
    "The bridge is not open to traffic during the winter.",
    "In 2010, the population of the town increased to 4,500 people.",
    "A man in a red shirt is playing guitar on the street.",
    "The Italian team won the final against Germany on Sunday.",
    "Robert Brown was elected mayor of Toronto in 1991.",
    "The museum, which opened in 1950, holds a large collection of paintings.",
    "Officials said the river flooded the northern part of the city, and hundreds of homes were damaged.",
    "Two dogs are running through a field of tall grass.",
    "A French chef cooked dinner for the guests.",
    "The first train to Chicago leaves at 7 in the morning.",
]


@pytest.fixture(scope="module")
def aug() -> Augmenter:
    return Augmenter(CORPUS)


def _norm(s: str) -> str:
    return s.strip(" .").lower()


def test_generate_is_deterministic(aug: Augmenter) -> None:
    a = aug.generate(80, seed=5)
    b = aug.generate(80, seed=5)
    c = aug.generate(80, seed=6)
    assert a == b
    assert a != c
    assert len(a) > 0


def test_contradictions_never_unchanged(aug: Augmenter) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        for s in CORPUS:
            e = aug.contradiction(s, rng)
            if e is not None:
                assert e.label == 2
                assert _norm(e.text) != _norm(s)
    for ex in aug.generate(200, seed=1):
        if ex.label == 2:
            assert _norm(ex.premise) != _norm(ex.hypothesis)


@pytest.mark.parametrize(
    ("sentence", "kind", "must_change"),
    [
        ("Mary Jones moved there with her 14 children.", "number", "14"),
        ("The company was founded in 1998 in a small office.", "year", "1998"),
        ("The meeting took place on Sunday in the town hall.", "date", "Sunday"),
        ("The Italian team won the final easily yesterday.", "entity", "Italian"),
        ("The bridge is open to traffic all year.", "negation", None),
        ("The prices increased sharply.", "antonym", "increased"),
    ],
)
def test_each_edit_kind(aug: Augmenter, sentence: str, kind: str, must_change: str | None) -> None:
    e = aug.contradiction(sentence, random.Random(0), kinds=(kind,))
    assert e is not None, kind
    assert e.kind.split(":")[0] == kind
    assert _norm(e.text) != _norm(sentence)
    if must_change is not None:
        assert must_change not in e.text
    if kind == "negation":
        assert "not" in e.text
    if kind == "entity":
        # the substitute is another nationality seen in the corpus
        assert e.kind == "entity:nationality"
        assert any(n in e.text for n in aug.pools["nationality"])


def test_entity_substitutes_come_from_corpus(aug: Augmenter) -> None:
    assert set(aug.pools["city"]) <= {"London", "Paris", "Berlin", "Toronto", "Chicago"}
    assert "John Smith" in aug.pools["person"]
    rng = random.Random(3)
    e = aug.contradiction("Robert Brown visited the school.", rng, kinds=("entity",))
    assert e is not None and e.kind == "entity:person"
    assert e.text.split(" visited")[0] in aug.pools["person"]


def test_negation_removal(aug: Augmenter) -> None:
    seen = set()
    for seed in range(20):
        e = aug.contradiction(
            "The bridge is not open to traffic.", random.Random(seed), kinds=("negation",)
        )
        assert e is not None
        seen.add(e.text)
    assert "The bridge is open to traffic." in seen


def test_entailment_rewrites(aug: Augmenter) -> None:
    kinds = set()
    for seed in range(40):
        for s in CORPUS:
            e = aug.entailment(s, random.Random(seed))
            if e is not None:
                assert e.label == 0
                assert _norm(e.text) != _norm(s)
                kinds.add(e.kind)
    assert {"clause_drop", "reorder"} <= kinds
    e = aug.entailment(
        "In 2010, the population of the town increased to 4,500 people.", random.Random(0)
    )
    assert e is not None and "4,500" in e.text


def test_no_conditional_clause_drop(aug: Augmenter) -> None:
    for seed in range(20):
        e = aug.entailment(
            "If it rains tomorrow, the match will be cancelled.", random.Random(seed)
        )
        assert e is None or "if" in e.text.lower()


def test_generate_labels_and_kinds(aug: Augmenter) -> None:
    exs = aug.generate(300, seed=2)
    labels = {e.label for e in exs}
    assert labels == {0, 1, 2}
    kinds = {e.source.split(":", 1)[1] for e in exs}
    assert {"unrelated", "added_detail"} <= kinds
    for e in exs:
        if e.source.endswith(":unrelated"):
            assert e.label == 1 and e.premise != e.hypothesis


def test_minimal_edit_set(aug: Augmenter) -> None:
    a = aug.minimal_edit_set(8, seed=4)
    assert a == aug.minimal_edit_set(8, seed=4)
    assert sum(e.label == 2 for e in a) == 8
    assert all(e.source.startswith("minimal-edit:") for e in a)
