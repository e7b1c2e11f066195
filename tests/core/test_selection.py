"""Selection: the greedy S*, and with ``corroborated_first`` the S* of corroborated claims
wherever the sources behind it reach d_min."""

from __future__ import annotations

import pytest

from mirage_core import Mirage, MirageConfig, Passage
from tests.conftest import flagged_group

QUERY = "When was the Eiffel Tower completed?"


def _page(text: str, host: str) -> Passage:
    return Passage(text, source=f"https://{host}/eiffel", score=0.9)


@pytest.fixture
def pages() -> list[Passage]:
    """Two sources state the completion year; the third adds a detail no other source states."""
    return [
        _page("The tower was completed in 1889. It stands in Paris.", "a.example"),
        _page("The tower was completed in 1889 for the World's Fair.", "b.example"),
        _page("Its lift machinery was supplied by Otis of New York.", "c.example"),
    ]


def engine(fake_nli, corroborated_first: bool, coordination: str = "none") -> Mirage:
    config = MirageConfig(coordination=coordination).replace(
        corroborated_first=corroborated_first, fact_coverage=True
    )
    return Mirage(config, nli=fake_nli)


def _texts(verdict) -> set[str]:
    return {verdict.claims[i].text for i in verdict.selected}


def test_where_sources_corroborate_only_corroborated_claims_are_delivered(fake_nli, pages):
    plain = engine(fake_nli, False).defend(QUERY, pages)
    first = engine(fake_nli, True).defend(QUERY, pages)
    assert any("Otis" in t for t in _texts(plain))  # the default delivers the lone detail
    assert first.decision == "verified" and first.d_src >= 2
    assert _texts(first) == {"The tower was completed in 1889."}
    assert "each corroborated by an independent source" in first.reason


def test_without_enough_corroboration_the_selection_stands(fake_nli, pages):
    lone = [pages[0], pages[2]]  # nothing is stated twice
    plain = engine(fake_nli, False).defend(QUERY, lone)
    first = engine(fake_nli, True).defend(QUERY, lone)
    assert first.selected == plain.selected and first.decision == plain.decision
    assert "each corroborated" not in first.reason


def test_a_quarantined_passage_corroborates_nothing(fake_nli, pages, monkeypatch):
    import mirage_core.coordination as coordination

    monkeypatch.setattr(coordination, "detect_coordination", lambda *a, **k: [flagged_group((1,))])
    first = engine(fake_nli, True, coordination="text").defend(QUERY, pages)
    plain = engine(fake_nli, False, coordination="text").defend(QUERY, pages)
    # the only corroborator of page 0's year is planted: no corroborated S*, the selection stands
    assert "each corroborated" not in first.reason
    assert first.selected == plain.selected


def test_the_selection_leaves_the_callers_passages_alone(fake_nli, pages):
    before = [(p.text, p.source) for p in pages]
    engine(fake_nli, True).defend(QUERY, pages)
    assert [(p.text, p.source) for p in pages] == before
