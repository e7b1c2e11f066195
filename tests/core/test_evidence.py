"""Evidence intake: the limits on what is read, and passages skipped as empty or as copies,
never at the cost of the passages after them."""

from __future__ import annotations

from mirage_core import Mirage, MirageConfig, Passage

QUERY = "What is the capital of France?"
PAGES = [
    Passage("Paris is the capital of France.", source="https://a.example/1"),
    Passage("The capital of France is Paris.", source="https://b.example/2"),
    Passage("France has its capital in Paris.", source="https://c.example/3"),
]


def engine(fake_nli, **config) -> Mirage:
    return Mirage(MirageConfig(coordination="none", **config), nli=fake_nli)


def _read(verdict) -> list[int]:
    """The caller's indices of the passages whose claims were read."""
    return sorted({c.passage_index for c in verdict.claims})


def test_an_empty_passage_or_a_copy_is_skipped_and_the_rest_is_read(fake_nli):
    blank = Passage("   ", source="https://d.example/4")
    copy = Passage("PARIS is the capital of France.", source="https://e.example/5")
    v = engine(fake_nli).defend(QUERY, [PAGES[0], blank, copy, PAGES[1], PAGES[2]])
    assert _read(v) == [0, 3, 4]
    assert "passage 1 is empty or whitespace; skipped" in v.warnings
    assert "passage 2 duplicates passage 0; counted once" in v.warnings


def test_the_character_budget_counts_every_passage_read_so_far(fake_nli):
    sizes = [len(p.text) for p in PAGES]
    exact = engine(fake_nli, max_total_chars=sizes[0] + sizes[1]).defend(QUERY, PAGES)
    assert _read(exact) == [0, 1]  # the budget reached exactly is not exceeded
    assert any("passages 2–2 left out" in w for w in exact.warnings)
    one = engine(fake_nli, max_total_chars=sizes[0] + sizes[1] - 1).defend(QUERY, PAGES)
    assert _read(one) == [0]
