"""Fact tokens: the numbers, dates and names the rule-based polluter swaps, with their spans and
kinds."""

from __future__ import annotations

import pytest

from mirage_core.pollution.facts import _name_kind, find_facts


def _facts(text: str) -> list[tuple[str, str]]:
    facts = find_facts(text)
    assert all(text[f.start : f.end] == f.text for f in facts)  # every span is the fact's text
    return [(f.text, f.kind) for f in facts]


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("It rose by 12 percent.", [("12 percent", "percent")]),
        ("It rose by 5.5% in all.", [("5.5%", "percent")]),
        ("It was 3.5 times larger.", [("3.5", "decimal")]),
        ("They hired 2,000,000 staff.", [("2,000,000", "number")]),
        ("It was built in 1000 and 2099.", [("1000", "year"), ("2099", "year")]),
        ("It holds 999 or 2100 seats.", [("999", "number"), ("2100", "number")]),
        # glued to letters, hyphens, brackets, colons or another number part: not a fact
        ("COVID-19 and A4 sheets [3] at 10:30 with 12,34 and 1.2.3 and v2 too.", []),
    ],
)
def test_numbers(text, facts):
    assert _facts(text) == facts


def test_find_facts_kinds():
    facts = {
        (f.text, f.kind)
        for f in find_facts(
            "The bridge opened in March 1932 in Sydney at a cost of 6.25 million, 12% over budget [3]."
        )
    }
    assert {
        ("March", "month"),
        ("1932", "year"),
        ("Sydney", "place"),
        ("6.25", "decimal"),
        ("12%", "percent"),
    } <= facts
    assert not any(t == "3" for t, _ in facts)  # citation marks are not facts


def test_names_take_their_kind_from_their_words_and_context():
    assert _facts("It was founded by Dr. Jane Smith near Lake Geneva.") == [
        ("Jane Smith", "person"),  # a title before it
        ("Lake Geneva", "place"),  # a place word in it
    ]
    assert _facts("She studied at Stanford University and lived in Springfield.") == [
        ("Stanford University", "org"),
        ("Springfield", "place"),  # after a place preposition
    ]
    assert _facts("He joined the University of Oxford last year.") == [
        ("University of Oxford", "org")
    ]
    assert _facts("He works at Acme Corp. with NASA engineers.") == [
        ("Acme Corp", "org"),
        ("NASA", "acronym"),
    ]
    assert _facts("He met Ada Byron.") == [("Ada Byron", "name")]


def test_words_that_are_not_names_on_their_own():
    # a leading "The" is dropped and the span starts after it; a possessive is cut
    facts = find_facts("It said The Harbour Trust's plan worked.")
    assert [(f.text, f.start, f.tokens) for f in facts] == [("Harbour Trust", 12, 2)]
    # a sentence-initial capital, "I" and a two-letter capital are no evidence of a name
    assert _facts("Paris is big. I saw it. The UN met.") == []
    assert _facts("It opened in Paris.") == [("Paris", "place")]
    assert _facts("It said The Harbour Trust’s plan worked.") == [("Harbour Trust", "org")]
    assert _facts("He met Xi in Beijing.") == [("Xi", "name"), ("Beijing", "place")]
    # a run that holds a month is no name, and the names after it are still read
    assert _facts("They watched March Madness with Ada Byron.") == [("Ada Byron", "name")]


def test_months_and_weekdays():
    assert _facts("It opened on Mondays in May 2020.") == [
        ("Mondays", "weekday"),
        ("May", "month"),
        ("2020", "year"),
    ]
    assert _facts("It closed one Sunday in June.") == [("Sunday", "weekday"), ("June", "month")]


@pytest.mark.parametrize(
    ("name", "before", "kind"),
    [
        ("NASA", "", "acronym"),
        ("UN", "", "acronym"),
        ("Acme Corp.", "", "org"),
        ("A", "", "name"),  # one letter is no acronym
        ("Sydney Harbour Trust", "", "org"),
        ("University of Oxford", "", "org"),
        ("University Oxford", "", "name"),  # "University X" is an org only as "University of X"
        ("Hudson River", "", "place"),
        ("Jane Smith", "met Dr.", "person"),
        ("Jane Smith", "met Dr., ", "person"),  # punctuation after the title
        ("Paris", "flew to Paris via London and then from", "place"),
        ("Paris", "met", "name"),
    ],
)
def test_name_kind(name, before, kind):
    assert _name_kind(name, before) == kind


def test_a_run_of_names_joined_by_and_or_on_is_one_fact_per_name():
    """One swap replaces one name: a list of two names, or a name followed by its date, is two
    facts; the connectors inside one name still join it."""
    assert _facts("He toured with Fela Kuti and Chaka Demus in Lagos.") == [
        ("Fela Kuti", "name"),
        ("Chaka Demus", "name"),
        ("Lagos", "place"),
    ]
    assert _facts("It was signed by VP Records on February 3, 2005.") == [
        ("VP Records", "org"),
        ("February", "month"),
        ("3", "number"),
        ("2005", "year"),
    ]
    assert _facts("He played for Ludwig van Beethoven at the Center for Music.") == [
        ("Ludwig van Beethoven", "name"),
        ("Center for Music", "name"),
    ]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Renée Smith founded the Zoë Institute in 1999.", ["Renée Smith", "Zoë Institute"]),
        ("The poet lived in Iași near Botoșani.", ["Iași", "Botoșani"]),
        ("They met Dr Łukasz Nowak in Gödel Street.", ["Łukasz Nowak", "Gödel Street"]),
    ],
)
def test_a_name_with_letters_beyond_ascii_is_read_whole(text, names):
    assert [t for t, kind in _facts(text) if kind not in ("year", "number")] == names
