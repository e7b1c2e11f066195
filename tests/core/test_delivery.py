"""Delivery: under ``corroborated_only="delivery"`` the gate weighs the whole S* and a passing
verdict delivers its corroborated part, where the sources behind that part reach d_min."""

from __future__ import annotations

import pytest

from mirage_core import Mirage, MirageConfig
from tests.conftest import LONE_DETAIL_QUERY as QUERY
from tests.conftest import flagged_group


def engine(
    fake_nli,
    corroborated_only: str = "delivery",
    coordination: str = "none",
    relevant=False,
    uncorroborated: str = "selected",
    requests_need_relevant: bool = True,
) -> Mirage:
    config = MirageConfig(coordination=coordination).replace(
        corroborated_only=corroborated_only,
        fact_coverage=True,
        corroborated_relevant=relevant,
        uncorroborated_delivery=uncorroborated,
        request_overrides={} if requests_need_relevant else {"corroborated_relevant": False},
    )
    return Mirage(config, nli=fake_nli)


def narrowed(verdict) -> bool:
    """Whether delivery handed on only part of S* (its reason names the part)."""
    return "; delivered: the " in verdict.reason


#: A question whose answer one page tells and no other vouches for (``lift_pages``).
LIFT_QUERY = "Who supplied the lift machinery of the tower?"
#: The same subject asked for as an account: no one sentence answers it.
LIFT_REQUEST = "Tell me about the lift machinery of the tower?"


@pytest.fixture
def lift_pages():
    """Two pages corroborate the completion year; only the first names who supplied the lifts."""
    from mirage_core import Passage

    return [
        Passage(text, source=f"https://{host}/eiffel", score=0.9)
        for text, host in (
            ("The tower was completed in 1889. Otis supplied the lift machinery.", "a.example"),
            ("The tower was completed in 1889 for the World's Fair.", "b.example"),
        )
    ]


def _texts(verdict) -> set[str]:
    return {verdict.claims[i].text for i in verdict.selected}


def test_a_passing_verdict_delivers_only_the_corroborated_part(fake_nli, lone_detail_pages):
    plain = engine(fake_nli, "none").defend(QUERY, lone_detail_pages)
    delivered = engine(fake_nli).defend(QUERY, lone_detail_pages)
    assert plain.decision == delivered.decision == "verified"
    assert any("Otis" in t for t in _texts(plain))
    assert _texts(delivered) == {"The tower was completed in 1889."}
    assert f"the 1 of {len(plain.selected)} verified claims" in delivered.reason
    assert set(delivered.selected) <= set(plain.selected)


@pytest.mark.parametrize("evidence", ["clean_passages", "polluted_passages", "lone_detail_pages"])
def test_the_route_is_the_gates_own(fake_nli, evidence, request):
    passages = request.getfixturevalue(evidence)
    plain = engine(fake_nli, "none").defend(QUERY, passages)
    delivered = engine(fake_nli).defend(QUERY, passages)
    assert delivered.decision == plain.decision
    assert (delivered.r_contr, delivered.d_src) == (plain.r_contr, plain.d_src)
    assert set(delivered.selected) <= set(plain.selected)


def test_without_enough_corroboration_s_star_is_delivered_as_it_is(fake_nli, lone_detail_pages):
    lone = [lone_detail_pages[0], lone_detail_pages[2]]
    plain = engine(fake_nli, "none").defend(QUERY, lone)
    delivered = engine(fake_nli).defend(QUERY, lone)
    assert delivered.selected == plain.selected
    # the reason says the claims are handed on though no second source vouches for them
    n = len(plain.selected)
    assert delivered.reason == (
        f"{plain.reason}; delivered whole: 0 of the {n} verified claims an independent source "
        "corroborates"
    )


def test_a_quarantined_corroborator_vouches_for_nothing(fake_nli, lone_detail_pages, monkeypatch):
    import mirage_core.coordination as coordination

    monkeypatch.setattr(coordination, "detect_coordination", lambda *a, **k: [flagged_group((1,))])
    plain = engine(fake_nli, "none", coordination="text").defend(QUERY, lone_detail_pages)
    delivered = engine(fake_nli, coordination="text").defend(QUERY, lone_detail_pages)
    assert delivered.selected == plain.selected and not narrowed(delivered)


def test_a_quarantined_passage_vouches_for_no_claim_it_repeats(fake_nli, lift_pages, monkeypatch):
    import mirage_core.coordination as coordination
    from mirage_core import Passage

    repeat = Passage(
        "Otis supplied the lift machinery.", source="https://c.example/eiffel", score=0.9
    )
    pages = [*lift_pages, repeat]
    kept = engine(fake_nli, coordination="text").defend(LIFT_QUERY, pages)
    monkeypatch.setattr(coordination, "detect_coordination", lambda *a, **k: [flagged_group((2,))])
    quarantined = engine(fake_nli, coordination="text").defend(LIFT_QUERY, pages)
    # the third page alone vouches for the lift sentence of the first
    assert any("Otis" in t for t in _texts(kept))
    assert narrowed(quarantined) and not any("Otis" in t for t in _texts(quarantined))
    assert _texts(quarantined) >= {"The tower was completed in 1889."}


def test_corroborated_relevant_keeps_an_uncorroborated_answer_sentence(fake_nli, lift_pages):
    query, pages = LIFT_QUERY, lift_pages
    plain = engine(fake_nli).defend(query, pages)
    relevant = engine(fake_nli, relevant=True).defend(query, pages)
    # corroborated delivery alone drops the answer, which one page tells
    assert not any("Otis" in t for t in _texts(plain)) and narrowed(plain)
    # the answer sentence is S*'s most relevant claim and no other source vouches for it
    assert any("Otis" in t for t in _texts(relevant)) and not narrowed(relevant)


def test_async_and_batched_verdicts_deliver_the_same_part(fake_nli, lone_detail_pages):
    import asyncio

    mirage = engine(fake_nli)
    alone = mirage.defend(QUERY, lone_detail_pages)
    batched = mirage.defend_many([QUERY, QUERY], [lone_detail_pages, lone_detail_pages[:2]])[0]
    awaited = asyncio.run(mirage.adefend(QUERY, lone_detail_pages))
    assert alone.selected == batched.selected == awaited.selected
    assert alone.reason == batched.reason == awaited.reason


def test_the_default_delivers_corroborated_claims_and_paper_delivers_s_star(
    fake_nli, lone_detail_pages
):
    default = Mirage(MirageConfig(coordination="none"), nli=fake_nli)
    paper = Mirage(MirageConfig.paper(), nli=fake_nli)
    assert _texts(default.defend(QUERY, lone_detail_pages)) == {"The tower was completed in 1889."}
    assert any("Otis" in t for t in _texts(paper.defend(QUERY, lone_detail_pages)))


def test_most_relevant_delivery_keeps_the_answer_sentence_without_a_corroborated_part(
    fake_nli, lift_pages
):
    query, pages = LIFT_QUERY, lift_pages
    whole = engine(fake_nli, relevant=True).defend(query, pages)  # uncorroborated: "selected"
    narrowed = engine(fake_nli, relevant=True, uncorroborated="most_relevant").defend(query, pages)
    assert narrowed.decision == whole.decision == "verified"
    assert set(narrowed.selected) < set(whole.selected)  # S* was handed on whole before
    assert _texts(narrowed) == {"Otis supplied the lift machinery."}
    assert "most relevant to the query" in narrowed.reason


def test_part_and_most_relevant_keeps_the_corroborated_part_and_the_answer(fake_nli, lift_pages):
    query, pages = LIFT_QUERY, lift_pages
    whole = engine(fake_nli, relevant=True).defend(query, pages)
    both = engine(fake_nli, relevant=True, uncorroborated="part_and_most_relevant").defend(
        query, pages
    )
    assert both.decision == whole.decision == "verified"
    assert set(both.selected) < set(whole.selected)
    # the part the second page vouches for, and the answer no other page states
    assert _texts(both) == {"The tower was completed in 1889.", "Otis supplied the lift machinery."}
    assert "corroborates or most relevant" in both.reason


def test_a_glued_on_question_is_no_corroborated_part(fake_nli):
    from mirage_core import Passage

    query = "who played the oldest brother in 7th heaven"
    pages = [
        Passage(f"{query}. {text}", source=f"https://{host}/show", score=0.9)
        for text, host in (
            ("Barry Watson played Matt Camden, the oldest brother.", "a.example"),
            ("Barry Watson was cast as Matt Camden in 1996.", "b.example"),
            ("The show ran on The WB for eleven seasons.", "c.example"),
        )
    ]

    def run(restatements_vouch: bool):
        config = MirageConfig(coordination="none").replace(restatements_vouch=restatements_vouch)
        return Mirage(config, nli=fake_nli).defend(query, pages)

    echoed, asserted = run(True), run(False)
    # the three copies of the question corroborate each other and become the delivered part
    assert _texts(echoed) == {f"{query}."} and narrowed(echoed)
    # a sentence of the query's own words vouches for nothing: no part, S* as the gate passed it
    assert any("Barry Watson" in t for t in _texts(asserted))
    assert not narrowed(asserted)


@pytest.mark.parametrize("requests_need_it", [True, False])
def test_a_request_for_an_account_can_deliver_its_corroborated_part(
    fake_nli, lift_pages, requests_need_it
):
    mirage = engine(fake_nli, relevant=True, requests_need_relevant=requests_need_it)
    question = mirage.defend(LIFT_QUERY, lift_pages)
    request = mirage.defend(LIFT_REQUEST, lift_pages)
    assert question.decision == request.decision == "verified"
    # a question keeps its answer sentence whatever the setting
    assert any("Otis" in t for t in _texts(question)) and not narrowed(question)
    if requests_need_it:
        assert _texts(request) == _texts(question)
    else:  # the request gets only what a second page vouches for
        assert _texts(request) == {"The tower was completed in 1889."}
        assert narrowed(request)


def test_fallback_mode_blocks_what_no_second_source_vouches_for(fake_nli, lone_detail_pages):
    lone = [lone_detail_pages[0], lone_detail_pages[2]]
    whole = engine(fake_nli).defend(QUERY, lone)
    gate = engine(fake_nli, "none").defend(QUERY, lone)
    blocked = engine(fake_nli, uncorroborated="fallback").defend(QUERY, lone)
    assert whole.decision == "verified" and whole.selected
    assert "delivered whole: 0 of the" in whole.reason
    assert blocked.decision == "fallback" and not blocked.selected
    assert "no independent source corroborates" in blocked.reason
    assert blocked.reason.endswith(gate.reason)  # the gate's own reason stays readable


def test_fallback_mode_keeps_s_star_where_only_relevance_was_missing(fake_nli, lift_pages):
    whole = engine(fake_nli, relevant=True).defend(LIFT_QUERY, lift_pages)
    kept = engine(fake_nli, relevant=True, uncorroborated="fallback").defend(LIFT_QUERY, lift_pages)
    assert kept.decision == whole.decision == "verified"
    assert kept.selected == whole.selected and kept.reason == whole.reason


def test_the_verdict_marks_each_claim_an_independent_source_corroborates(fake_nli, lift_pages):
    v = engine(fake_nli, relevant=True).defend(LIFT_QUERY, lift_pages)
    assert v.passed and v.corroborated is not None and len(v.corroborated) == len(v.claims)
    marked = {v.claims[i].text for i in v.selected if v.corroborated[i]}
    unmarked = {v.claims[i].text for i in v.selected if not v.corroborated[i]}
    # the second page states the year; no other page names the World's Fair or the lifts' maker
    assert marked == {"The tower was completed in 1889."}
    assert unmarked == {
        "Otis supplied the lift machinery.",
        "The tower was completed in 1889 for the World's Fair.",
    }
    m = sum(bool(v.corroborated[i]) for i in v.selected)
    assert f"delivered whole: {m} of the {len(v.selected)} verified claims" in v.reason
    rows = {c["index"]: c["corroborated"] for c in v.to_dict()["claims"]}
    assert rows == {i: bool(v.corroborated[i]) for i in range(len(v.claims))}
    for vp in v.verified_passages():
        assert set(vp.corroborated_claims) == {i for i in vp.claim_indices if v.corroborated[i]}


def test_without_corroboration_nothing_is_marked(fake_nli, lift_pages):
    v = Mirage(MirageConfig.paper(), nli=fake_nli).defend(LIFT_QUERY, lift_pages)
    assert v.corroborated is None
    assert all(c["corroborated"] is None for c in v.to_dict()["claims"])
    assert all(vp.corroborated_claims is None for vp in v.verified_passages())


#: A question every page of ``survivor_pages`` answers in part.
SURVIVOR_QUERY = "What is known about the tower?"
#: Pages that each state a detail of the tower no other page states (nothing corroborated).
SURVIVORS = (
    ("The tower was completed in 1925 by the architect Le Corbusier.", "planted.example"),
    ("The tower's lift machinery was supplied by Otis of New York.", "a.example"),
    ("The tower stands on the Champ de Mars beside the Seine.", "b.example"),
    ("The tower's design came from the engineers Nouguier and Koechlin.", "c.example"),
)


@pytest.fixture
def survivor_pages():
    from mirage_core import Passage

    return [Passage(t, source=f"https://{host}/tower", score=0.9) for t, host in SURVIVORS]


@pytest.mark.parametrize("flagged", [(0,), (0, 1), (0, 1, 2)])
def test_fallback_after_quarantine_blocks_surviving_pages_that_vouch_for_none_of_each_other(
    fake_nli, survivor_pages, monkeypatch, flagged
):
    import mirage_core.coordination as coordination

    monkeypatch.setattr(
        coordination, "detect_coordination", lambda *a, **k: [flagged_group(flagged)]
    )
    whole = engine(fake_nli, coordination="text").defend(SURVIVOR_QUERY, survivor_pages)
    after = engine(fake_nli, coordination="text", uncorroborated="fallback_after_quarantine")
    verdict = after.defend(SURVIVOR_QUERY, survivor_pages)
    survivors = {survivor_pages[i].source for i in range(4) if i not in flagged}
    assert whole.decision == "verified" and "delivered whole: 0 of the" in whole.reason
    assert {whole.claims[i].source for i in whole.selected} == survivors
    if len(survivors) >= 2:  # several pages, none vouching for another: not verified
        assert verdict.decision == "fallback" and not verdict.selected
        assert "no independent source corroborates" in verdict.reason
    else:  # one surviving page answers alone, as coordinated_d_min lets it
        assert (verdict.decision, verdict.selected, verdict.reason) == (
            whole.decision,
            whole.selected,
            whole.reason,
        )


def test_fallback_after_quarantine_leaves_evidence_nothing_was_quarantined_in(
    fake_nli, survivor_pages
):
    whole = engine(fake_nli).defend(SURVIVOR_QUERY, survivor_pages)
    after = engine(fake_nli, uncorroborated="fallback_after_quarantine").defend(
        SURVIVOR_QUERY, survivor_pages
    )
    assert whole.decision == "verified" and "delivered whole: 0 of the" in whole.reason
    assert (after.decision, after.selected, after.reason) == (
        whole.decision,
        whole.selected,
        whole.reason,
    )
