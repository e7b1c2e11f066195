"""The rule-based polluter: the edits each family makes, and the values it draws them from."""

from __future__ import annotations

import re

import pytest

from mirage_core import Passage
from mirage_core.pollution import (
    FAMILIES,
    Family,
    PollutedPassage,
    RulePolluter,
    find_facts,
)
from mirage_core.pollution.rules import (
    _apply,
    _final_period,
    _match_case,
    _perturb,
    _similar,
    _to_float,
)

NEWS = [
    "The bridge opened in 1932 in Sydney. The project cost 6.25 million pounds and employed 1,400 workers.",
    "Construction of the bridge began in March 1923. The steel arch was designed by John Bradfield.",
    "Critics in Sydney said the bridge was not safe at first. Most residents strongly supported the project.",
    "The Golden Gate Bridge opened in 1937 in San Francisco. It was designed by Joseph Strauss.",
]


def _undo(pp: PollutedPassage) -> str:
    """Apply the recorded edits backwards: must give the original text."""
    text = pp.text
    for e in sorted(pp.edits, key=lambda e: e.start, reverse=True):
        assert text[e.start : e.end] == e.replacement
        text = text[: e.start] + e.original + text[e.end :]
    return text


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_makes_one_minimal_recorded_edit(family, clean_passages):
    polluter = RulePolluter([p.text for p in clean_passages] + NEWS)
    for passage in [*clean_passages, *map(Passage, NEWS)]:
        pp = polluter.pollute(passage, family, seed=3)
        assert pp is not None, (family, passage.text)
        assert pp.family == family.value
        assert pp.original == passage.text
        assert pp.text != passage.text
        assert pp.source == passage.source and pp.score == passage.score
        assert 1 <= len(pp.edits) <= 2  # one edit (a frame is a prefix + a suffix of one sentence)
        assert _undo(pp) == passage.text  # the labels describe the edit exactly
        changed = sum(len(e.replacement) + len(e.original) for e in pp.edits)
        assert changed <= 90, pp.edits  # minimal: a word, a number, a clause
        assert all(pp.text[s:e] for s, e in pp.spans)


def test_family_specific_edits():
    polluter = RulePolluter(NEWS)
    kinds = {fam: set() for fam in FAMILIES}
    for seed in range(12):
        for text in NEWS:
            pp = polluter.pollute(text, Family.parse(fam := FAMILIES[seed % 4]), seed=seed)
            if pp is not None:
                kinds[fam] |= {e.kind for e in pp.edits}
                if fam is Family.FABRICATED:
                    assert all(e.original == "" for e in pp.edits)  # something added, nothing lost
                if fam is Family.UNAMBIGUOUS:
                    (e,) = pp.edits
                    if e.kind == "year":
                        assert re.fullmatch(r"\d{4}", e.replacement) and e.replacement != e.original
    assert kinds[Family.UNAMBIGUOUS] <= {
        "year",
        "number",
        "decimal",
        "percent",
        "month",
        "weekday",
        "name",
    }
    assert kinds[Family.CONFLICTING] <= {"negation", "antonym"} and kinds[Family.CONFLICTING]
    assert kinds[Family.MISLEADING] <= {"frame", "quantifier"} and kinds[Family.MISLEADING]
    assert kinds[Family.FABRICATED] == {"detail"}


def test_entities_are_swapped_for_ones_of_the_same_kind_from_the_corpus(polluted_passages):
    corpus = [p.text for p in polluted_passages]  # Paris, Rome, Berlin; 1889, 1925, 1950
    polluter = RulePolluter(corpus)
    seen = set()
    for seed in range(30):
        pp = polluter.pollute(
            "The Eiffel Tower is located in Paris. It was completed in 1889.",
            "unambiguous",
            seed=seed,
        )
        (e,) = pp.edits
        seen.add((e.original, e.replacement))
        if e.original == "Paris":
            assert e.replacement in {"Rome", "Berlin"}
        if e.original == "1889":
            assert e.replacement in {"1925", "1950"} or abs(int(e.replacement) - 1889) <= 30
    assert {o for o, _ in seen} >= {"Paris", "1889"}


def test_polarity_flips():
    polluter = RulePolluter()
    outs = {
        polluter.pollute(
            "The vaccine was approved by regulators in Spain.", "conflicting", seed=s
        ).text
        for s in range(10)
    }
    assert "The vaccine was not approved by regulators in Spain." in outs
    assert "The vaccine was rejected by regulators in Spain." in outs
    pp = polluter.pollute("The bridge is not safe for heavy trucks.", "conflicting", seed=0)
    assert pp.text == "The bridge is safe for heavy trucks."  # negation removed, no "not unsafe"


def test_seeded_determinism():
    polluter = RulePolluter(NEWS)
    for fam in FAMILIES:
        a = [polluter.pollute(t, fam, seed=7) for t in NEWS]
        b = [RulePolluter(NEWS).pollute(t, fam, seed=7) for t in NEWS]
        assert a == b
    variants = {polluter.pollute(NEWS[0], "unambiguous", seed=s).text for s in range(10)}
    assert len(variants) > 1


def test_nothing_to_edit_returns_none():
    assert RulePolluter().pollute("ok", "unambiguous") is None
    assert RulePolluter().pollute("Birds sing songs", "unambiguous") is None  # no fact token


def test_row_round_trip_and_engine_view_has_no_labels():
    pp = RulePolluter(NEWS).pollute(
        Passage(NEWS[0], source="https://a.org/x", score=0.4), "unambiguous", seed=0
    )
    row = pp.to_row()
    assert row["mirage_pollution"]["family"] == "unambiguous"
    assert PollutedPassage.from_row(row) == pp
    view = pp.to_passage()
    assert view.text == pp.text and view.source == "https://a.org/x"
    assert "mirage_pollution" not in view.metadata


def test_details_and_frames_go_before_citation_marks():
    pp = RulePolluter().pollute(
        "The bridge was completed in 1932 by the builders.[3]", "fabricated", seed=0
    )
    assert pp.text.endswith(".[3]") and pp.edits[0].original == ""
    frame = RulePolluter().pollute(
        "The bridge was completed in 1932 by the builders.[3][4]", "misleading", seed=1
    )
    assert (
        frame.text.endswith("[3][4]")
        and frame.text != "The bridge was completed in 1932 by the builders.[3][4]"
    )


class _Draw:
    """A generator that always draws option ``i`` (wrapped), so that each edit's exact text can
    be asserted."""

    def __init__(self, i: int = 0) -> None:
        self.i = i

    def randrange(self, n: int) -> int:
        return self.i % n

    def choice(self, seq):
        return seq[self.i % len(seq)]


def _edits(polluter: RulePolluter, text: str, family: str, draw: int = 0) -> list[str]:
    """Every edited text the polluter offers for ``family``."""
    return [_apply(text, c.ops, c.kind)[0] for c in polluter.candidates(text, family, _Draw(draw))]


@pytest.mark.parametrize("apostrophe", ["'", "’"])
def test_contractions_are_flipped_by_their_negation_only(apostrophe):
    """ "won't" is the auxiliary "will": its "won" is not the verb an antonym swap flips, and a
    negated word ("isn't successful") takes no antonym, which would be a double negative. Web
    pages write the typographic apostrophe as often as the straight one."""
    polluter = RulePolluter()
    assert _edits(polluter, f"The plan won{apostrophe}t work here.", "conflicting") == [
        "The plan will work here."
    ]
    assert _edits(polluter, f"The plan isn{apostrophe}t successful.", "conflicting") == [
        "The plan is successful."
    ]
    assert _edits(polluter, f"They can{apostrophe}t leave early.", "conflicting") == [
        "They can leave early."
    ]


def test_negation_inserted_after_each_kind_of_auxiliary():
    polluter = RulePolluter()
    assert _edits(polluter, "He can swim across the lake.", "conflicting") == [
        "He cannot swim across the lake."
    ]
    assert _edits(polluter, "The bridge was built quickly.", "conflicting") == [
        "The bridge was not built quickly."
    ]
    assert _edits(polluter, "She has finished the race.", "conflicting") == [
        "She has not finished the race."
    ]
    assert _edits(polluter, "They cannot swim across.", "conflicting") == ["They can swim across."]
    # has / have / had before no participle: nothing to negate ("had not children")
    assert _edits(polluter, "She had children with him.", "conflicting") == []
    assert _edits(polluter, "The city has eleven bridges.", "conflicting") == []
    assert _edits(polluter, "He has written three books.", "conflicting") == [
        "He has not written three books."
    ]
    # "closed" is read as the past tense it mostly is
    assert _edits(polluter, "The museum closed in 2001.", "conflicting") == [
        "The museum opened in 2001."
    ]
    # an antonym keeps the case of the word it replaces
    assert _edits(polluter, "Increased taxes hurt growth.", "conflicting") == [
        "Decreased taxes hurt growth."
    ]


def test_misleading_edits_shift_a_degree_or_frame_the_sentence():
    polluter = RulePolluter()
    assert _edits(polluter, "Most residents strongly supported the project.", "misleading") == [
        "Few residents strongly supported the project.",
        "Most residents weakly supported the project.",
        # an opening article or quantifier continues the frame in lower case
        "Early reports claimed that most residents strongly supported the project, but this was "
        "later disputed.",
    ]
    # a name keeps its capital; the last frame ends with the sentence's own period
    assert _edits(polluter, "Canberra is the capital of Australia.", "misleading", draw=3) == [
        "Critics have long questioned the claim that Canberra is the capital of Australia."
    ]
    assert _edits(polluter, "Is Canberra the capital of Australia?", "misleading") == []
    # "the most" is a superlative, "leading to" a verb: neither is a quantifier to shift
    most = _edits(polluter, "It is the most famous tower.", "misleading")
    assert most[0] == "It is the least famous tower."
    leading = _edits(polluter, "The floods caused damage, leading to evacuations.", "misleading")
    assert not any("marginal" in edit for edit in leading)
    assert _edits(polluter, "She is a leading expert.", "misleading")[0] == (
        "She is a marginal expert."
    )


def test_a_sentence_closing_with_an_abbreviation_keeps_its_period():
    polluter = RulePolluter()
    framed = _edits(polluter, "The firm moved its offices to the U.S.", "misleading", draw=1)
    assert framed == [
        "It was once widely believed that the firm moved its offices to the U.S., a view that "
        "has since been abandoned."
    ]
    detailed = _edits(polluter, "The monument was completed in Washington D.C.", "fabricated")
    assert detailed and all(
        d.startswith("The monument was completed in Washington D.C.") and d.endswith(".")
        for d in detailed
    )


def test_fabricated_details_without_a_corpus():
    """No organisation, person or year to draw on: a generic attribution, a cost and a month;
    a year in the sentence dates the report a year or two later and leaves the month out."""
    polluter = RulePolluter()
    assert _edits(polluter, "The bridge was opened by the city council.", "fabricated") == [
        "The bridge was opened by the city council, according to a report by an independent "
        "review panel.",
        "The bridge was opened by the city council, at an estimated cost of $1.2 million.",
        "The bridge was opened by the city council in January.",
    ]
    assert _edits(polluter, "The bridge was opened in 1880 by the council.", "fabricated") == [
        "The bridge was opened in 1880 by the council, according to an 1881 report by an "
        "independent review panel.",
        "The bridge was opened in 1880 by the council, at an estimated cost of $1.2 million.",
    ]
    # a sentence that states an amount gets no cost; one too short gets nothing
    assert not any(
        "cost" in t
        for t in _edits(polluter, "The bridge was opened with 40 lanes by the city.", "fabricated")
    )
    assert _edits(polluter, "It was opened.", "fabricated") == []


def test_fabricated_details_draw_on_the_corpus():
    """An organisation takes "the" unless its name ends like a university or a company; a
    person confirms; the corpus's years date the report and the event."""
    trust = RulePolluter(["The Sydney Harbour Trust met Dr. Jane Smith in 2001."])
    assert _edits(trust, "The bridge was opened by the city council.", "fabricated") == [
        "The bridge was opened by the city council, according to a 2002 report by the Sydney "
        "Harbour Trust.",
        "The bridge was opened by the city council, as later confirmed by Jane Smith.",
        "The bridge was opened by the city council, at an estimated cost of $1.2 million.",
        "The bridge was opened by the city council in January 2001.",
    ]
    university = RulePolluter(["Stanford University reported on it."])
    assert _edits(university, "The bridge was opened by the city council.", "fabricated")[0] == (
        "The bridge was opened by the city council, according to a report by Stanford University."
    )


@pytest.mark.parametrize(
    ("text", "kind", "options"),
    [
        ("1,400", "number", ["700", "1,050", "1,750", "2,100", "2,800"]),  # scaled, commas kept
        ("6.25", "decimal", ["4.25", "5.25", "7.25", "8.25", "9.25"]),  # small: shifted, decimals
        ("12%", "percent", ["10%", "11%", "13%", "14%", "15%"]),
        ("80%", "percent", ["40%", "60%", "100%"]),  # never over 100%
        ("1", "number", ["2", "3", "4"]),  # never zero or negative
        ("25", "number", ["12", "19", "31", "38", "50"]),
        ("about", "number", []),
    ],
)
def test_numbers_without_a_corpus_partner_are_perturbed_in_their_format(text, kind, options):
    assert _perturb(text, kind, _to_float(text) or 0.0) == options


def test_number_partners_from_the_corpus():
    years = RulePolluter(["Built in 1889, rebuilt in 1925 and 1950, restored in 2020."])

    def options(polluter, sentence):
        (fact,) = find_facts(sentence)
        return polluter._number_options(fact, _Draw())

    assert options(years, "It opened in 1900.") == ["1889", "1925"]  # within 30 years
    bare = RulePolluter()
    assert options(bare, "It opened in 2098.") == ["2095", "2096", "2097", "2099"]  # up to 2099
    assert options(bare, "It opened in 1001.") == ["1000", "1002", "1003", "1004"]  # from 1000
    months = RulePolluter(["The work began in June."])
    assert options(months, "It opened in March.") == ["June"]
    assert len(options(bare, "It opened in March.")) == 11
    assert options(bare, "It opens on Mondays.") == [
        "Tuesdays",
        "Wednesdays",
        "Thursdays",
        "Fridays",
        "Saturdays",
        "Sundays",
    ]
    assert "Tuesday" in options(bare, "It opened on Monday.")
    # a partner of similar magnitude (within a factor of 5), not any number of the corpus
    counts = RulePolluter(["It had 1,400 workers, 30 cranes and 9,000 rivets."])
    assert options(counts, "It had 1,200 workers.") == ["1,400"]


def test_number_helpers():
    assert _to_float("1,400") == 1400.0 and _to_float("6.25 million") == 6.25
    assert _to_float("x1") is None and _to_float(",") is None
    assert not _similar(None, 1.0) and not _similar(3.0, 3.0)
    assert _similar(5.0, 0.0) and not _similar(11.0, 0.0) and _similar(0.0, 10.0)
    assert _similar(2.0, 10.0) and not _similar(1.9, 10.0)
    assert _similar(50.0, 10.0) and not _similar(51.0, 10.0)


def test_final_period_and_case():
    assert _final_period("Done.") == 4
    assert _final_period("Done.[3][4]  ") == 4  # before citation marks and trailing space
    assert _final_period("Done?") is None and _final_period("Done...") is None
    assert _final_period('He said "no".') is None  # a quotation's period
    assert _match_case("NASA", "esa") == "ESA"
    assert _match_case("Paris", "rome") == "Rome"
    assert _match_case("A", "bee") == "Bee"  # one capital letter is a capital, not an acronym
    assert _match_case("paris", "Rome") == "Rome"


def _swaps(polluter: RulePolluter, text: str) -> list[tuple[str, str]]:
    """(original, replacement) of every unambiguous edit the polluter offers for ``text``."""
    return [
        (text[op.start : op.end], op.replacement)
        for c in polluter.candidates(text, "unambiguous", _Draw())
        for op in c.ops
    ]


def test_a_name_is_swapped_for_one_of_its_kind_and_length():
    people = RulePolluter(["It was run by Dr. Jane Smith and then Dr. Zhivago."])
    assert _swaps(people, "It was founded by Dr. John Doe.") == [("John Doe", "Jane Smith")]
    # a person, place or organisation with no partner of its kind takes a name of its length
    names = RulePolluter(["He met Ada Byron."])
    assert _swaps(names, "It was founded by Dr. John Doe.") == [("John Doe", "Ada Byron")]
    assert _swaps(names, "It was founded by Alan Turing.") == [("Alan Turing", "Ada Byron")]
    assert _swaps(names, "It was built in Paris.") == []  # no one-word name to take
    assert _swaps(RulePolluter(["It went to Rome."]), "It was built in Paris.") == [
        ("Paris", "Rome")
    ]
    # an acronym only for another acronym
    assert _swaps(names, "It was funded by NASA.") == []
    acronyms = RulePolluter(["It met ESA. He met Ada Byron."])
    assert _swaps(acronyms, "It was funded by NASA.") == [("NASA", "ESA")]


def test_fabricated_details_leave_out_what_the_sentence_already_names():
    """An attribution to an organisation or a person the sentence names is no new detail; a
    sentence with an amount gets no cost, one with a date no date."""
    corpus = RulePolluter(["Stanford University hired Dr. Jane Smith in 2001."])
    texts = _edits(corpus, "Stanford University opened it with Dr. Jane Smith.", "fabricated")
    assert "according to a 2002 report by an independent review panel" in texts[0]
    assert not any("confirmed by" in t for t in texts)
    assert not any(
        "cost" in t
        for t in _edits(corpus, "The bridge was opened at 2.5% interest by the city.", "fabricated")
    )
    assert not any(
        " in January" in t
        for t in _edits(corpus, "The bridge was opened in May by the city council.", "fabricated")
    )


def test_fabricated_report_years_and_articles():
    polluter = RulePolluter()
    # the report follows the sentence's year by one or two years
    later = _edits(polluter, "The bridge was opened in 1932 by the council.", "fabricated", 1)
    assert "according to a 1934 report by a regional oversight board" in later[0]
    # "an" before a year read as "eleven ..." or "eighteen ..."
    assert (
        "according to an 1101 report"
        in _edits(polluter, "The bridge was opened in 1100 by the council.", "fabricated")[0]
    )
    # an organisation named like a company takes no article
    company = RulePolluter(["The work was paid for by Acme Inc. last year."])
    assert (
        "report by Acme Inc."
        in _edits(company, "The bridge was opened by the city council.", "fabricated")[0]
    )
    # a sentence whose closing period sits at index 20 is long enough
    assert _edits(polluter, "The bridge is opened.", "fabricated") != []
    assert _edits(polluter, "The span is opened.", "fabricated") == []


def test_a_name_closing_with_an_abbreviation_takes_its_period_along():
    """ "Jr." inside a sentence: a name that replaces "Mike Adenuga Jr" takes the period too, or
    the edit leaves "Ada Byron., born"; at the sentence's end the period stays."""
    polluter = RulePolluter(["He met Ada Byron."])
    assert _swaps(polluter, "Mike Adenuga Jr., the founder, is rich.") == [
        ("Mike Adenuga Jr.", "Ada Byron")
    ]
    assert _swaps(polluter, "It was sold by Acme Corp. to the state.") == [
        ("Acme Corp.", "Ada Byron")
    ]
    assert _swaps(polluter, "He worked for Acme Corp. Then he left.") == [
        ("Acme Corp", "Ada Byron")
    ]
    assert _swaps(polluter, "He met Ms. Ada Lovelace. today.") == [("Ada Lovelace", "Ada Byron")]
