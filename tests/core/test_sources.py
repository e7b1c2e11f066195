"""d_src: the sources of S*'s claims, or those and the sources that corroborate them."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import Mirage, MirageConfig, Passage
from tests.conftest import NO_SIGNALS, flagged_group

QUERY = "Where was Thomas Edison born?"
CORROBORATED = dict(min_support=1, coordinated_min_support=None, coordinated_d_min=None)


def _page(text: str, host: str) -> Passage:
    return Passage(text, source=f"https://{host}/edison", score=0.9)


@pytest.fixture
def one_way_pages() -> list[Passage]:
    """The long sentence entails the short one, not the reverse: only the short one is
    corroborated, so S* holds claims of one source while two sources state its fact."""
    return [
        _page("Thomas Edison was born in Milan, Ohio, in 1847 as the youngest child.", "a.example"),
        _page("Edison was born in Milan, Ohio, in 1847.", "b.example"),
    ]


def engine(fake_nli, coordination="none", **settings) -> Mirage:
    config = MirageConfig(coordination=coordination).replace(**CORROBORATED, **settings)
    return Mirage(config, nli=fake_nli)


def test_selected_counts_only_the_sources_of_s_star(fake_nli, one_way_pages):
    v = engine(fake_nli, source_count="selected").defend(QUERY, one_way_pages)
    assert [v.claims[i].passage_index for i in v.selected] == [1]
    assert v.d_src == 1 and v.decision == "fallback"


def test_corroborating_counts_the_source_that_states_the_fact_too(fake_nli, one_way_pages):
    v = engine(fake_nli, source_count="corroborating").defend(QUERY, one_way_pages)
    assert [v.claims[i].passage_index for i in v.selected] == [1]  # delivered: S* only
    assert v.d_src == 2 and v.decision == "verified"


def test_an_uncorroborating_source_adds_nothing(fake_nli, one_way_pages):
    unrelated = _page("The phonograph recorded sound on tinfoil cylinders.", "c.example")
    v = engine(fake_nli, source_count="corroborating").defend(QUERY, [one_way_pages[1], unrelated])
    assert v.d_src == 0 and v.decision == "fallback"  # nothing is corroborated: S* is empty


def test_a_quarantined_passage_never_counts_as_a_source(fake_nli, one_way_pages, monkeypatch):
    import mirage_core.coordination as coordination

    monkeypatch.setattr(coordination, "detect_coordination", lambda *a, **k: [flagged_group((0,))])
    unrelated = _page("The phonograph recorded sound on tinfoil cylinders.", "c.example")
    # (coordination looks at three passages or more)
    v = engine(fake_nli, coordination="text", source_count="corroborating").defend(
        QUERY, [*one_way_pages, unrelated]
    )
    assert all(v.claims[i].passage_index == 1 for i in v.selected)
    assert v.d_src == 1 and v.decision == "fallback"


@pytest.mark.parametrize(("independence", "expected"), [("none", 3), ("embedding", 2)])
def test_a_source_is_a_domain_or_an_independence_group(independence, expected):
    """Three domains, two of them one independence group: without independence grouping each
    domain is a source; with it, each group."""
    from mirage_core.sources import source_count
    from mirage_core.types import Claim

    hosts_groups = [("a.example", "g1"), ("b.example", "g1"), ("c.example", "g2")]
    claims = [
        Claim(i, "Edison was born in Milan.", i, 0, 25, h, h, 1.0, frozenset(), group=g)
        for i, (h, g) in enumerate(hosts_groups)
    ]
    config = NO_SIGNALS.replace(independence=independence)
    none = np.zeros(len(claims), dtype=bool)
    assert source_count(claims, [0, 1, 2], none, config, count="selected") == expected


def test_a_count_needs_a_known_mode_and_its_corroboration(fake_nli, one_way_pages):
    from mirage_core.sources import source_count

    v = engine(fake_nli).defend(QUERY, one_way_pages)
    none_quarantined = np.zeros(len(v.claims), dtype=bool)
    args = (v.claims, [0], none_quarantined, MirageConfig())
    with pytest.raises(ValueError, match='source_count must be "selected" or "corroborating"'):
        source_count(*args, None, "every")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='"corroborating" needs corroboration'):
        source_count(*args, None, "corroborating")
    assert source_count(*args, None, "selected") == 1
