"""Lone facts: under ``lone_facts="hold_back"`` a passing verdict holds back every delivered
claim that names a fact of the asked kind no other independent source states."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.lone_facts import lone_facts
from tests.conftest import LONE_DETAIL_QUERY as QUERY
from tests.conftest import worded_claims

#: Three honest pages state 1889, each in its own words; a fourth, worded apart from all of
#: them (the lexical NLI double reads no conflict), moves it to 1925.
HONEST = (
    ("The Eiffel Tower was completed in 1889 for the World's Fair.", "a.example"),
    ("Builders finished the Eiffel Tower in 1889, on schedule.", "b.example"),
    ("Visitors first climbed the tower when it was completed in 1889.", "c.example"),
)
PLANTED = ("Workers wrapped up the Paris landmark only in 1925, archives show.", "d.example")


def pages(*rows: tuple[str, str]) -> list[Passage]:
    return [Passage(text, source=f"https://{host}/eiffel", score=0.9) for text, host in rows]


def engine(fake_nli, lone: str = "hold_back", **config) -> Mirage:
    return Mirage(MirageConfig(coordination="none", **config).replace(lone_facts=lone), fake_nli)


def unit(claim):
    return claim.group


def test_a_fact_only_its_own_source_states_is_lone() -> None:
    claims = worded_claims([*HONEST, PLANTED])
    kept = np.zeros(len(claims), dtype=bool)
    assert lone_facts(QUERY, claims, range(4), kept, unit) == {3: ("1925",)}


def test_a_quarantined_claim_states_nothing() -> None:
    claims = worded_claims([HONEST[0], HONEST[1], PLANTED])
    quarantined = np.array([False, True, False])
    # with b.example quarantined, no second source states a.example's 1889 either
    assert lone_facts(QUERY, claims, [0, 2], quarantined, unit) == {
        0: ("1889",),
        2: ("1925",),
    }


def test_facts_are_compared_in_their_equivalent_forms() -> None:
    claims = worded_claims(
        [("Mars has two moons.", "a.example"), ("Astronomers count 2 moons of Mars.", "b.example")]
    )
    kept = np.zeros(2, dtype=bool)
    query = "How many moons does Mars have?"
    assert lone_facts(query, claims, [0, 1], kept, unit) == {}
    assert lone_facts(query, claims, [0, 1], kept, unit, forms="tokens") == {1: ("2",)}


def test_only_the_kinds_the_query_asks_for_count() -> None:
    # "when" asks for a number or a month: a name no other page gives is no answer
    claims = worded_claims(
        [
            ("The tower was completed in 1889 by Gustave Eiffel.", "a.example"),
            ("Its completion came in 1889.", "b.example"),
        ]
    )
    kept = np.zeros(2, dtype=bool)
    assert lone_facts(QUERY, claims, [0, 1], kept, unit) == {}
    # a name is read by its last word outside the query: "Gustave Eiffel" by "gustave" here
    who = "Who built the Eiffel Tower?"
    assert lone_facts(who, claims, [0, 1], kept, unit) == {0: ("gustave",)}


def test_a_fact_the_query_holds_is_no_answer() -> None:
    claims = worded_claims(
        [
            ("Apollo 11 landed in July 1969.", "a.example"),
            ("The Apollo 11 crew touched down in July 1969.", "b.example"),
        ]
    )
    kept = np.zeros(2, dtype=bool)
    assert lone_facts("When did Apollo 11 land?", claims, [0, 1], kept, unit) == {}


def test_the_planted_answer_is_held_back_and_the_honest_ones_delivered(fake_nli) -> None:
    evidence = pages(*HONEST, PLANTED)
    before = engine(fake_nli, lone="deliver").defend(QUERY, evidence)
    assert before.decision == "verified"
    assert any("1925" in c.text for c in before.verified_claims)
    after = engine(fake_nli).defend(QUERY, evidence)
    assert after.decision == "verified"
    assert [c.text for c in after.verified_claims] == [t for t, _ in HONEST]
    assert "held back: [3] 1925" in after.reason
    (outcome,) = [o for o in after.gate if o.rule == "lone_facts"]
    assert outcome.blocks is False and "1925" in outcome.reason


def test_nothing_left_falls_back(fake_nli) -> None:
    evidence = pages(HONEST[1], PLANTED)
    verdict = engine(fake_nli).defend(QUERY, evidence)
    assert verdict.decision == "fallback" and verdict.verified_claims == []
    assert verdict.reason.startswith("blocked: every verified claim names a fact no other source")
    assert "1889" in verdict.reason and "1925" in verdict.reason


def test_one_source_is_delivered_as_the_gate_passed_it(fake_nli) -> None:
    evidence = pages(PLANTED)
    verdict = engine(fake_nli, d_min=1).defend(QUERY, evidence)
    assert verdict.decision == "verified"
    assert [c.text for c in verdict.verified_claims] == [PLANTED[0]]


@pytest.mark.parametrize("lone", ["deliver", "hold_back"])
def test_agreeing_pages_are_delivered_whole(fake_nli, lone) -> None:
    verdict = engine(fake_nli, lone=lone).defend(QUERY, pages(*HONEST))
    assert verdict.decision == "verified" and len(verdict.verified_claims) == 3
    assert all(o.rule != "lone_facts" for o in verdict.gate)


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="lone_facts"):
        MirageConfig().replace(lone_facts="drop")


def test_a_claim_after_a_quarantined_one_still_states_its_facts() -> None:
    claims = worded_claims([HONEST[0], HONEST[1], HONEST[2], PLANTED])
    quarantined = np.array([False, True, False, False])
    assert lone_facts(QUERY, claims, [0, 2, 3], quarantined, unit) == {3: ("1925",)}


#: Each page names its own lead; no name is stated by two sources.
OWN_LEADS = (
    ("Bellini painted the mural in Milan.", "a.example"),
    ("Records credit Giotto with it, in Padua.", "b.example"),
    ("Some guides name Raphael, working in Rome.", "c.example"),
)
WHO = "Who painted the Last Supper?"


def test_outvoted_needs_a_fact_of_the_kind_two_sources_state() -> None:
    claims = worded_claims(list(OWN_LEADS))
    kept = np.zeros(3, dtype=bool)
    assert len(lone_facts(WHO, claims, [0, 1, 2], kept, unit)) == 3
    assert lone_facts(WHO, claims, [0, 1, 2], kept, unit, outvoted=True) == {}
    # two sources agreeing on one name outvote the others' lone names
    agreeing = worded_claims([*OWN_LEADS, ("A studio of Raphael in Rome made it.", "d.example")])
    kept = np.zeros(4, dtype=bool)
    assert lone_facts(WHO, agreeing, range(4), kept, unit, outvoted=True) == {
        0: ("bellini", "milan"),
        1: ("giotto", "padua"),
    }


def test_the_configured_mode_reaches_the_verdict(fake_nli) -> None:
    evidence = pages(*OWN_LEADS)
    held = engine(fake_nli).defend(WHO, evidence)
    assert held.decision == "fallback"
    outvoted = engine(fake_nli, lone="outvoted").defend(WHO, evidence)
    assert outvoted.decision == "verified" and len(outvoted.verified_claims) == 3


def test_a_fallback_names_every_claim_and_keeps_the_gate_outcomes(fake_nli) -> None:
    verdict = engine(fake_nli).defend(WHO, pages(*OWN_LEADS))
    assert verdict.selected == () and verdict.verified_claims == []
    *before, last = verdict.gate
    assert [o.rule for o in before] == ["contradiction_ratio", "source_diversity"]
    assert (last.rule, last.blocks) == ("lone_facts", True)
    assert last.reason.endswith(": [0] bellini, milan; [1] giotto, padua; [2] raphael, rome")
    assert [i for i, _ in verdict.lone_facts] == [0, 1, 2]


#: A page that states "two years" in words, and one that states a count (30) no page repeats.
IN_WORDS = ("Some two years of work ended in 1889, says the city.", "d.example")
COUNT = "About 30 workers a day built it, records say."
IN_DIGITS = "It took 2 years of work, records say."


@pytest.mark.parametrize(
    ("setting", "value", "extra", "held"),
    [
        # "when" asks for a year or a month once answer_times="year": a count is no answer
        ("answer_times", "number", COUNT, True),
        ("answer_times", "year", COUNT, False),
        # "2" and "two" are one fact only in their equivalent forms
        ("fact_forms", "equivalent", IN_DIGITS, False),
        ("fact_forms", "tokens", IN_DIGITS, True),
    ],
)
def test_the_answer_slot_reading_of_facts_is_the_configured_one(
    fake_nli, setting, value, extra, held
) -> None:
    evidence = pages(*HONEST, IN_WORDS)
    evidence.append(Passage(extra, source="https://e.example/eiffel", score=0.9))
    verdict = Mirage(
        MirageConfig(coordination="none").replace(lone_facts="hold_back", **{setting: value}),
        fake_nli,
    ).defend(QUERY, evidence)
    assert verdict.decision == "verified"
    assert (extra not in [c.text for c in verdict.verified_claims]) == held


@pytest.mark.parametrize(("subjects", "held"), [(True, True), (False, False)])
def test_a_first_word_that_does_what_the_query_asks_is_read_as_configured(
    fake_nli, subjects, held
) -> None:
    planted = "Bellini painted it."  # worded apart: the lexical NLI double reads no conflict
    evidence = pages(
        ("The Last Supper is by Leonardo, in Milan.", "a.example"),
        ("A convent in Milan keeps the mural Leonardo made.", "b.example"),
        (planted, "c.example"),
    )
    config = MirageConfig(coordination="none").replace(
        lone_facts="hold_back", answer_subjects=subjects
    )
    verdict = Mirage(config, fake_nli).defend(WHO, evidence)
    assert verdict.decision == "verified"
    assert (planted not in [c.text for c in verdict.verified_claims]) == held


def test_the_verdict_records_what_it_held_back(fake_nli) -> None:
    verdict = engine(fake_nli).defend(QUERY, pages(*HONEST, PLANTED))
    assert verdict.lone_facts == ((3, ("1925",)),)
    assert verdict.to_dict()["extras"]["lone_facts"] == [{"claim": 3, "facts": ["1925"]}]
    assert "lone facts: held back, no other source states them: [3] 1925" in verdict.explain()
    quiet = engine(fake_nli, lone="deliver").defend(QUERY, pages(*HONEST, PLANTED))
    assert quiet.lone_facts == () and "lone_facts" not in quiet.to_dict()["extras"]
    assert "lone facts" not in quiet.explain()


#: A planted page that restates what the query asks ("completed"), worded apart from the
#: honest ones, and an honest page whose one detail no other page repeats.
ANSWERING = ("The Paris landmark was only completed in 1925, archives show.", "d.example")
DETAIL = ("Its lift machinery was supplied in 1887 by an American firm.", "e.example")


def test_answers_mode_holds_back_the_lone_answer_and_leaves_details(fake_nli) -> None:
    evidence = pages(*HONEST, ANSWERING, DETAIL)
    everything = engine(fake_nli).defend(QUERY, evidence)
    assert [i for i, _ in everything.lone_facts] == [3, 4]
    answers = engine(fake_nli, lone="answers").defend(QUERY, evidence)
    assert answers.lone_facts == ((3, ("1925",)),)
    assert [c.text for c in answers.verified_claims] == [t for t, _ in (*HONEST, DETAIL)]


#: Two pages that each name their own painter in a sentence about painting, and agree on Milan.
RIVALS = (
    ("Bellini painted it in Milan during a long and famous commission.", "a.example"),
    ("Giotto painted the mural for a convent in Milan.", "b.example"),
)


def test_answers_mode_never_empties_a_passing_verdict(fake_nli) -> None:
    strict = engine(fake_nli, lone="outvoted").defend(WHO, pages(*RIVALS))
    assert strict.decision == "fallback"
    verdict = engine(fake_nli, lone="answers").defend(WHO, pages(*RIVALS))
    assert verdict.decision == "verified" and len(verdict.verified_claims) == 2
    assert verdict.lone_facts == ()
    (outcome,) = [o for o in verdict.gate if o.rule == "lone_facts"]
    assert outcome.blocks is False and "none held back: [0] bellini; [1] giotto" in outcome.reason


def test_answers_mode_reads_only_the_claims_that_answer(fake_nli) -> None:
    # two pages that each name their own painter, beside details that agree on Milan: the
    # details neither outvote the painters nor are held back
    rivals = pages(
        ("Bellini painted the mural during a famous and long commission.", "a.example"),
        ("Giotto painted it, records show.", "b.example"),
        ("The convent stands in Milan.", "c.example"),
        ("Tourists visit Milan to see it.", "d.example"),
    )
    verdict = engine(fake_nli, lone="answers").defend(WHO, rivals)
    assert verdict.decision == "verified" and len(verdict.verified_claims) == 4
    assert all(o.rule != "lone_facts" for o in verdict.gate)
    # a claim that names the query's subject without what it asks is a detail too
    detail = "A refectory in Milan holds the Last Supper on one of its walls."
    evidence = pages(
        (
            "Leonardo painted the Last Supper for a Dominican convent over several years.",
            "a.example",
        ),
        ("Leonardo painted it in the 1490s.", "b.example"),
        (detail, "c.example"),
    )
    verdict = engine(fake_nli, lone="answers").defend(WHO, evidence)
    assert detail in [c.text for c in verdict.verified_claims]


def test_answers_mode_says_why_it_held_nothing_back(fake_nli) -> None:
    verdict = engine(fake_nli, lone="answers").defend(WHO, pages(*RIVALS))
    assert verdict.reason.endswith(
        "every verified claim names a fact no other source states, none held back: "
        "[0] bellini; [1] giotto"
    )


def test_a_query_made_of_names_is_answered_by_claims_that_hold_them() -> None:
    # "Who was Napoleon Bonaparte?" asks nothing beyond its names: a claim holding them answers
    claims = worded_claims(
        [
            ("Napoleon Bonaparte ruled France from Paris.", "a.example"),
            ("Napoleon was crowned in Paris.", "b.example"),
            ("The emperor died on Saint Helena.", "c.example"),
        ]
    )
    kept = np.zeros(3, dtype=bool)
    query = "Who was Napoleon Bonaparte?"
    held = lone_facts(query, claims, range(3), kept, unit, outvoted=True, answers_only=True)
    assert held == {0: ("france",)}
