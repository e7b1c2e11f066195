"""The rule-based polluter and the regimes of the Retrieval Pollution Protocol."""

from __future__ import annotations

import re

import pytest

from mirage_core import Passage
from mirage_core.pollution import (
    FAMILIES,
    Edit,
    Family,
    PollutedPassage,
    Regime,
    RulePolluter,
    apply_regime,
    diff_edits,
    find_facts,
    mixed_count,
    polluted_spans,
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


@pytest.mark.parametrize("k", [1, 2, 4, 5, 6])
def test_regimes_keep_k_and_mixed_pollutes_half(k):
    passages = [
        Passage(f"Station {i} opened in {1900 + i} with {10 + i} platforms.", source=f"s{i}.org")
        for i in range(k)
    ]
    polluter = RulePolluter([p.text for p in passages])
    clean = apply_regime(passages, Regime.CLEAN, "unambiguous", polluter, seed=1)
    mixed = apply_regime(passages, "mixed", "unambiguous", polluter, seed=1)
    full = apply_regime(passages, "full", "unambiguous", polluter, seed=1)
    assert len(clean) == len(mixed) == len(full) == k
    assert clean == passages
    assert (
        sum(isinstance(x, PollutedPassage) for x in mixed)
        == mixed_count(k)
        == max(1, round(k / 2 + 1e-9))
    )
    assert all(isinstance(x, PollutedPassage) for x in full)
    for orig, item in zip(passages, mixed, strict=True):  # untouched passages are the originals
        assert item == orig or (isinstance(item, PollutedPassage) and item.original == orig.text)
    assert apply_regime(passages, "mixed", "unambiguous", polluter, seed=1) == mixed


def test_mixed_positions_are_seeded():
    passages = [Passage(f"Station {i} opened in {1900 + i}.", source=f"s{i}.org") for i in range(6)]
    polluter = RulePolluter([p.text for p in passages])

    def positions(seed):
        items = apply_regime(passages, "mixed", "unambiguous", polluter, seed=seed)
        return tuple(i for i, x in enumerate(items) if polluted_spans(x))

    assert positions(0) == positions(0)
    assert len({positions(s) for s in range(8)}) > 1
    assert mixed_count(6, 0.5) == 3 and mixed_count(5, 0.5) == 3 and mixed_count(0) == 0


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


def test_diff_edits_spans():
    edits = diff_edits(
        "The tower was completed in 1889.", "The tower was completed in 1925 by Gustave."
    )
    assert [(e.original, e.replacement) for e in edits] == [("1889", "1925 by Gustave")]
    e = edits[0]
    assert "The tower was completed in 1925 by Gustave."[e.start : e.end] == e.replacement
    assert Edit.from_dict(e.to_dict()) == e


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
