"""One fact written two ways: accents, number words, scale words, percentages, units, dates."""

from __future__ import annotations

import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.answer_conflict import answer_conflicts
from mirage_core.config import MethodSettings
from mirage_core.corroboration import claim_facts, corroborate
from mirage_core.fact_forms import (
    added_forms,
    approximate_facts,
    fold,
    number_form,
    scaled_facts,
    stated_forms,
)
from tests.conftest import entail_all
from tests.core.test_answer_conflict import QUERY, _claim
from tests.core.test_corroboration import _claims, _sourced


def test_fold_drops_accents_and_trailing_decimal_zeros():
    assert fold("márquez") == "marquez"
    assert fold("zoë") == "zoe"
    assert fold("3.50") == "3.5"
    assert fold("3.0") == "3"
    assert fold("1889") == "1889"
    assert fold("40%") == "40%"
    assert number_form(1_500_000.0) == "1500000"
    assert number_form(3.1) == "3.1"
    assert number_form(0.125) == "0.125"
    assert number_form(1e16) == "10000000000000000"
    assert number_form(float("inf")) == "inf"


def test_a_measure_states_no_value_below_a_thousandth_and_zero_only_itself():
    assert added_forms("It is 5 mm wide.") == {"5", "0.5", "0.005", "~5"}  # not 0.000005 km
    assert added_forms("It scored 0 points.") == {"~0"}
    # a metric value is stated when exact to three decimals: 0.0012345 km is not 0.001 km
    assert "0.001" not in added_forms("It is 1.2345 m long.")
    assert "97.88" not in added_forms("Body heat is 36.6 °C.")  # one decimal at most


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("It is 3 km away.", {"3000", "3"}),
        ("It is 3,000 metres away.", {"3"}),
        ("Everest is 8,849 m high.", {"29032"}),  # feet, rounded
        ("The summit is 29,032 feet up.", {"8849"}),  # metres, rounded
        ("They had twenty-five cows and two dogs.", {"25", "2"}),
        ("Built in the thirteenth century.", {"13"}),
        ("The twenty-first century began.", {"21"}),
        ("It drew 1.5 million visitors.", {"1500000"}),
        ("A $28m deal.", {"28000000"}),
        ("Turnout was 40 percent.", {"40%"}),
        ("Turnout was 40%.", {"40"}),
        ("Landed on 1969-07-20.", {"july"}),
        ("Gabriel García Márquez wrote it.", {"garcia", "marquez"}),
        ("It was 100 °F outside.", {"38"}),
        ("Water boils at 100 °C.", {"212"}),
        ("Body heat is 37 °C.", {"98.6", "99"}),
        ("It is 98.6 degrees Fahrenheit.", {"37"}),
        ("It weighs 5 kg.", {"5000", "0.005", "11", "176"}),  # g, tonnes, lb, oz
        ("It is 2 m tall.", {"200", "2000", "6.6", "78.7", "2.2"}),  # one decimal under 100
        ("It is 330 feet tall.", {"101", "110", "3960"}),  # metres, yards, inches
        ("It is 1 m long.", {"0.001"}),  # kilometres, down to a thousandth
        ("A yard is 0.9144 m.", {"1", "3", "36"}),  # yards, feet, inches
        ("Body heat is 36.6 °C.", {"97.9", "98"}),
        ("A ratio of 0.47 holds.", {"~0.5", "~0.47"}),
        ("1234 people came.", {"~1000", "~1200", "~1230", "~1234"}),
    ],
)
def test_a_text_states_its_facts_in_their_other_forms(text, states):
    assert states <= stated_forms(text)


def test_forms_are_added_never_made_of_plain_words():
    assert "2" not in claim_facts("They have two dogs.", "equivalent")
    assert "m" not in scaled_facts("It is 5 m tall.")  # metres, not millions
    assert scaled_facts("It is 5 m tall.") == {}
    # "twenty-first" is 21, not also 20; a lone "first" or "second" is no rank
    assert "20" not in stated_forms("the twenty-first century")
    assert added_forms("At first it took a second.") == frozenset()
    # a number in a text states itself in every reading
    assert {"5", "330"} <= stated_forms("5 ships, 330 crew")


def test_claim_facts_read_scaled_numbers_as_their_value():
    assert claim_facts("It drew 1.5 million visitors.", "equivalent") == {"1500000"}
    assert claim_facts("It drew 1,500,000 visitors.", "equivalent") == {"1500000"}
    assert claim_facts("It drew 1.5 million visitors.") == {"1.5"}


def test_fact_coverage_reads_a_fact_in_another_form_as_stated():
    claims = _claims([
        ("The trail runs 3 km along the river to Márquez Bridge.", "a"),
        ("The trail runs 3,000 metres along the river to Marquez Bridge.", "b"),
        ("The trail runs 4,000 metres along the river to Marquez Bridge.", "c"),
    ])  # fmt: skip
    sourced = _sourced(claims, [0, 0], [1, 2])  # a sloppy model: every pair supports
    tokens = corroborate(claims, sourced, fact_coverage=True)
    forms = corroborate(claims, sourced, fact_coverage=True, fact_forms="equivalent")
    assert tokens.counts.tolist() == [0, 0, 0]  # "3" / "3000" and "Márquez" / "Marquez" differ
    assert forms.counts[0] == 1 and forms.supporters[0] == (1,)  # 3 km = 3,000 metres
    assert forms.counts[1] == 1  # and the other way round
    assert forms.counts[2] == 0  # 4,000 metres is not 3 km in any form


def _equivalent_coverage(texts: list[str], left: list[int], right: list[int]):
    """Claims of sources a, b, c and their corroboration in equivalent forms, under a sloppy
    model that reads every pair as support: fact coverage alone decides."""
    claims = _claims(list(zip(texts, "abc", strict=False)))
    forms = corroborate(
        claims, _sourced(claims, left, right), fact_coverage=True, fact_forms="equivalent"
    )
    return claims, forms


def test_a_century_in_words_vouches_for_the_century_in_digits():
    _, forms = _equivalent_coverage(
        [
            "The Terracotta Army was made in the 3rd century BC under Qin Shi Huang.",
            "Under Qin Shi Huang the Terracotta Army was made in the third century BC.",
            "Under Qin Shi Huang the Terracotta Army was made in the fourth century BC.",
        ],
        [0, 0],
        [1, 2],
    )
    assert forms.supporters[0] == (1,)  # "third" states 3; "fourth" does not


def test_the_answer_slot_reads_one_height_in_two_units_as_one_answer():
    claims = [
        _claim(0, "The Eiffel Tower in Paris is 330 metres tall."),
        _claim(1, "The Eiffel Tower in Paris is 1,083 feet tall."),
        _claim(2, "The Eiffel Tower in Paris is 410 metres tall."),
    ]
    tokens = answer_conflicts(QUERY, claims, [0, 1, 2], min_share=0.6)
    forms = answer_conflicts(QUERY, claims, [0, 1, 2], min_share=0.6, forms="equivalent")
    assert [(c.left, c.right) for c in tokens] == [(0, 1), (0, 2), (1, 2)]
    assert [(c.left, c.right) for c in forms] == [(0, 2), (1, 2)]  # 410 m stays a conflict


def test_the_setting_is_validated_and_reaches_the_gate():
    with pytest.raises(ValueError, match="fact_forms"):
        MethodSettings(fact_forms="loose")
    passages = [
        Passage("The Eiffel Tower in Paris is 330 metres tall.", domain="a.example"),
        Passage("The Eiffel Tower in Paris is 1,083 feet tall.", domain="b.example"),
    ]
    config = MirageConfig(independence="none", coordination="none", answer_conflict=0.6)
    written = config.replace(method=MethodSettings(fact_forms="tokens"))
    tokens = Mirage(written, nli=CallableNLI(entail_all)).defend(QUERY, passages)
    assert tokens.decision == "fallback" and "330 vs 1083" in tokens.reason
    assert config.method.fact_forms == "equivalent"  # the default reads one height
    assert Mirage(config, nli=CallableNLI(entail_all)).defend(QUERY, passages).passed


def test_a_plain_word_of_the_other_claim_is_no_fact_in_common():
    query = "Where were the 1936 Summer Olympics held?"
    claims = [
        _claim(0, "The 1936 Summer Olympics were held in Munich, where the games drew crowds."),
        _claim(
            1, "The 1936 Summer Olympics were held in Berlin, filmed by Leni Riefenstahl Games."
        ),
    ]
    for forms in ("tokens", "equivalent"):  # "games" is a word of claim 0, a name of claim 1
        found = answer_conflicts(query, claims, [0, 1], min_share=0.6, forms=forms)
        assert [(c.left, c.right, c.kind) for c in found] == [(0, 1, "name")]
    assert added_forms("the games drew crowds") == frozenset()
    assert added_forms("It is 330 metres tall.") >= {"1083", "33000"}


def test_an_approximate_number_agrees_with_the_numbers_it_rounds():
    assert approximate_facts("Built c. 500 AD, about 1,100 feet tall.") == {"500", "1100"}
    assert approximate_facts("It moved to Washington, D.C. 2005.") == frozenset()
    assert "~inf" not in added_forms("about " + "9" * 400 + " people")  # no float holds it
    assert {"~500", "~510", "~505"} <= added_forms("It was built in 505.")
    claims, forms = _equivalent_coverage(
        [
            "The abbey was built c. 500 by monks from Iona.",
            "The abbey was built in 505 by monks from Iona.",
            "The abbey was built in 500 by monks from Iona.",
        ],
        [0, 1],
        [1, 2],
    )
    assert forms.supporters[0] == (1,)  # 505 is "c. 500"
    assert forms.counts[2] == 0  # but not exactly 500: a perturbed number is not vouched for
    query = "When was the abbey built?"
    slot = [_claim(i, c.text) for i, c in enumerate(claims)]
    found = answer_conflicts(query, slot, [0, 1, 2], min_share=0.6, forms="equivalent")
    assert [(c.left, c.right) for c in found] == [(1, 2)]  # 505 vs 500; c. 500 agrees with both
    far = [
        _claim(0, "The abbey was built c. 500 by monks."),
        _claim(1, "The abbey was built in 1120 by monks."),
    ]
    assert answer_conflicts(query, far, [0, 1], min_share=0.6, forms="equivalent")
