"""Pollution records (edits, polluted passages, their JSONL rows) and how a regime builds the
evidence from clean passages."""

from __future__ import annotations

import pytest

from mirage_core import Passage
from mirage_core.pollution import (
    LABEL_KEY,
    Edit,
    Family,
    PollutedPassage,
    Regime,
    RulePolluter,
    apply_regime,
    diff_edits,
    mixed_count,
    polluted_spans,
)


class RecordingPolluter:
    """Pollutes every passage whose text lacks ``refuse`` (appending "!"), and records the family
    and seed of each call."""

    def __init__(self, refuse: str = "\0") -> None:
        self.refuse = refuse
        self.calls: list[tuple[object, object]] = []

    def pollute(self, passage, family, *, seed=0):
        self.calls.append((family, seed))
        if self.refuse in passage.text:
            return None
        edit = Edit(len(passage.text), len(passage.text) + 1, "", "!", "detail")
        return PollutedPassage.from_passage(
            passage, passage.text + "!", str(family), (edit,), polluter="test"
        )


def _passages(k: int, refuse_at: tuple[int, ...] = ()) -> list[Passage]:
    return [
        Passage(f"Station {i} opened{' (skip)' if i in refuse_at else ''}.", source=f"s{i}.org")
        for i in range(k)
    ]


def _positions(items) -> tuple[int, ...]:
    return tuple(i for i, x in enumerate(items) if polluted_spans(x))


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
        return _positions(apply_regime(passages, "mixed", "unambiguous", polluter, seed=seed))

    assert positions(0) == positions(0)
    assert len({positions(s) for s in range(8)}) > 1
    assert mixed_count(6, 0.5) == 3 and mixed_count(5, 0.5) == 3 and mixed_count(0) == 0


def test_each_passage_is_polluted_with_its_own_seed_under_the_query_key():
    polluter = RecordingPolluter()
    apply_regime(_passages(3), "full", "unambiguous", polluter, seed=5, key="q7")
    assert polluter.calls == [(Family.UNAMBIGUOUS, f"5:q7:{i}") for i in range(3)]
    polluter = RecordingPolluter()
    apply_regime(_passages(4), "mixed", "unambiguous", polluter, seed=5, key="q7")
    assert {seed for _, seed in polluter.calls} <= {f"5:q7:{i}" for i in range(4)}


def test_mixed_positions_vary_with_the_query_key_and_family():
    passages = _passages(6)

    def positions(key="", family="unambiguous"):
        return _positions(apply_regime(passages, "mixed", family, RecordingPolluter(), key=key))

    assert positions("q1") == positions("q1")
    assert len({positions(f"q{i}") for i in range(8)}) > 1
    assert len({positions("q1", f) for f in ("unambiguous", "conflicting", "misleading")}) > 1


def test_mixed_swaps_a_passage_the_polluter_cannot_edit_for_one_it_can():
    passages = _passages(6, refuse_at=(0, 1, 2))
    for key in range(10):
        items = apply_regime(passages, "mixed", "unambiguous", RecordingPolluter("skip"), key=key)
        assert set(_positions(items)) == {3, 4, 5}  # half of six, none of the refused ones
    # a rate other than one half
    items = apply_regime(_passages(4), "mixed", "unambiguous", RecordingPolluter(), rate=1.0)
    assert _positions(items) == (0, 1, 2, 3)


def test_full_leaves_a_passage_the_polluter_cannot_edit_clean():
    passages = _passages(3, refuse_at=(1,))
    items = apply_regime(passages, "full", "unambiguous", RecordingPolluter("skip"))
    assert _positions(items) == (0, 2) and items[1] == passages[1]


def test_a_family_label_outside_the_four_reaches_the_polluter_as_given():
    polluter = RecordingPolluter()
    apply_regime(_passages(2), "full", "fakegpt", polluter)
    assert [family for family, _ in polluter.calls] == ["fakegpt", "fakegpt"]
    polluter = RecordingPolluter()
    apply_regime(_passages(1), "full", " Conflicting ", polluter)
    assert polluter.calls[0][0] is Family.CONFLICTING


def test_a_row_without_provenance_or_labels_reads_with_defaults():
    row = {"text": "The tower is in Rome.", LABEL_KEY: {}}
    pp = PollutedPassage.from_row(row)
    assert (pp.original, pp.family, pp.edits, pp.polluter) == ("", "", (), "rules")
    assert (pp.source, pp.domain, pp.score, dict(pp.metadata)) == (None, None, None, {})
    # writing it back adds no provenance it does not have
    assert pp.to_row() == {
        "text": "The tower is in Rome.",
        LABEL_KEY: {"family": "", "polluter": "rules", "original": "", "edits": []},
    }


def test_a_row_keeps_its_provenance_and_labels():
    edit = Edit(16, 20, "Paris", "Rome", "name")
    pp = PollutedPassage(
        "The tower is in Rome.",
        "The tower is in Paris.",
        "unambiguous",
        (edit,),
        source="https://a.org/x",
        domain="a.org",
        score=0.5,
        metadata={"rank": 1},
        polluter="llm",
    )
    row = pp.to_row()
    assert row["domain"] == "a.org" and row["metadata"] == {"rank": 1}
    assert row[LABEL_KEY]["polluter"] == "llm"
    back = PollutedPassage.from_row(row)
    assert back == pp and back.metadata is not pp.metadata
    # the engine's view keeps the provenance and drops the labels
    view = pp.to_passage()
    assert (view.text, view.source, view.domain, view.score) == (
        "The tower is in Rome.",
        "https://a.org/x",
        "a.org",
        0.5,
    )
    assert dict(view.metadata) == {"rank": 1} and view.metadata is not pp.metadata


def test_a_polluted_passage_keeps_the_clean_passages_provenance():
    clean = Passage(
        "The tower is in Paris.",
        source="https://a.org/x",
        domain="a.org",
        score=0.5,
        metadata={"rank": 1},
    )
    pp = PollutedPassage.from_passage(
        clean, "The tower is in Rome.", "unambiguous", (), polluter="x"
    )
    assert (pp.source, pp.domain, pp.score) == ("https://a.org/x", "a.org", 0.5)
    assert dict(pp.metadata) == {"rank": 1} and pp.metadata is not clean.metadata


@pytest.mark.parametrize("rate", [0.0, -0.5, 1.5])
def test_a_mixed_rate_outside_zero_to_one_is_refused(rate):
    with pytest.raises(ValueError, match="rate must be in"):
        mixed_count(4, rate)


def test_unknown_family_or_regime_names_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown pollution family 'x'; expected one of"):
        Family.parse("x")
    with pytest.raises(ValueError, match="unknown regime 'x'; expected one of"):
        Regime.parse("x")


def test_an_edit_read_with_defaults():
    assert Edit.from_dict({"start": "3", "end": 5.0}) == Edit(3, 5, "", "", "edit")


def test_a_whole_passage_rewritten_by_a_dataset():
    passage = Passage("The tower is in Rome.", source="https://a.org/x", score=0.2)
    pp = PollutedPassage.whole(passage, "fakegpt")
    assert pp.edits == (Edit(0, 21, "", "The tower is in Rome.", "rewrite"),)
    assert (pp.polluter, pp.original, pp.family) == ("dataset", "", "fakegpt")
    assert (pp.source, pp.score) == ("https://a.org/x", 0.2)
    assert pp.spans == [(0, 21)]
    known = PollutedPassage.whole(passage, "x", original="The tower is in Paris.", polluter="me")
    assert known.original == known.edits[0].original == "The tower is in Paris."
    assert known.polluter == "me"


def test_diff_edits_spans():
    edits = diff_edits(
        "The tower was completed in 1889.", "The tower was completed in 1925 by Gustave."
    )
    assert [(e.original, e.replacement) for e in edits] == [("1889", "1925 by Gustave")]
    e = edits[0]
    assert "The tower was completed in 1925 by Gustave."[e.start : e.end] == e.replacement
    assert Edit.from_dict(e.to_dict()) == e


@pytest.mark.parametrize(
    ("original", "edited", "expected"),
    [
        # a deletion is an empty span where the words were removed
        ("The tower was not built in 1889.", "The tower was built in 1889.", [(14, 14, "not", "")]),
        ("The tower was built.", "The tower was", [(13, 13, "built.", "")]),
        # an insertion at either end
        ("Built in 1889.", "Reportedly built in 1889.", [(0, 16, "Built", "Reportedly built")]),
        ("Built in 1889.", "Built in 1889. Or not.", [(15, 22, "", "Or not.")]),
    ],
)
def test_diff_edits(original, edited, expected):
    edits = diff_edits(original, edited, kind="rewrite")
    assert [(e.start, e.end, e.original, e.replacement) for e in edits] == expected
    assert all(e.kind == "rewrite" for e in edits)
    assert all(edited[e.start : e.end] == e.replacement for e in edits)


def test_a_deletion_marks_one_character_inside_the_text():
    text = "The tower was"
    deleted = PollutedPassage(text, text + " built.", "x", (Edit(13, 13, " built.", "", "edit"),))
    assert deleted.spans == [(12, 13)]  # at the end: the last character
    empty = PollutedPassage("", "Gone.", "x", (Edit(0, 0, "Gone.", "", "edit"),))
    assert empty.spans == [(0, 1)]
