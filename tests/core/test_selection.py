"""Selection: the greedy S*, and with ``corroborated_only="selection"`` the S* of corroborated
claims wherever the sources behind it reach d_min."""

from __future__ import annotations

from mirage_core import Mirage, MirageConfig
from tests.conftest import LONE_DETAIL_QUERY as QUERY
from tests.conftest import flagged_group


def engine(fake_nli, corroborated: bool, coordination: str = "none") -> Mirage:
    config = MirageConfig(coordination=coordination).replace(
        corroborated_only="selection" if corroborated else "none", fact_coverage=True
    )
    return Mirage(config, nli=fake_nli)


def _texts(verdict) -> set[str]:
    return {verdict.claims[i].text for i in verdict.selected}


def test_where_sources_corroborate_only_corroborated_claims_are_delivered(
    fake_nli, lone_detail_pages
):
    pages = lone_detail_pages
    plain = engine(fake_nli, False).defend(QUERY, pages)
    first = engine(fake_nli, True).defend(QUERY, pages)
    assert any("Otis" in t for t in _texts(plain))  # the default delivers the lone detail
    assert first.decision == "verified" and first.d_src >= 2
    assert _texts(first) == {"The tower was completed in 1889."}
    assert "each corroborated by an independent source" in first.reason


def test_without_enough_corroboration_the_selection_stands(fake_nli, lone_detail_pages):
    pages = lone_detail_pages
    lone = [pages[0], pages[2]]  # nothing is stated twice
    plain = engine(fake_nli, False).defend(QUERY, lone)
    first = engine(fake_nli, True).defend(QUERY, lone)
    assert first.selected == plain.selected and first.decision == plain.decision
    assert "each corroborated" not in first.reason


def test_a_quarantined_passage_corroborates_nothing(fake_nli, lone_detail_pages, monkeypatch):
    pages = lone_detail_pages
    import mirage_core.coordination as coordination

    monkeypatch.setattr(coordination, "detect_coordination", lambda *a, **k: [flagged_group((1,))])
    first = engine(fake_nli, True, coordination="text").defend(QUERY, pages)
    plain = engine(fake_nli, False, coordination="text").defend(QUERY, pages)
    # the only corroborator of page 0's year is planted: no corroborated S*, the selection stands
    assert "each corroborated" not in first.reason
    assert first.selected == plain.selected


def test_the_selection_leaves_the_callers_passages_alone(fake_nli, lone_detail_pages):
    pages = lone_detail_pages
    before = [(p.text, p.source) for p in pages]
    engine(fake_nli, True).defend(QUERY, pages)
    assert [(p.text, p.source) for p in pages] == before
