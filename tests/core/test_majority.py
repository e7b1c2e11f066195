"""The majority rule: S* is delivered without a contradicting minority, and blocked when
contested; r_contr over S* and its contradictors."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.corroboration import Corroboration
from mirage_core.gate import tie_sides
from mirage_core.graph import SourcedGraph
from mirage_core.majority import Conflicts, conflicts, side_groups
from mirage_core.records import Tie
from tests.conftest import claim_graph, flagged_group

MAJORITY = dict(conflict_rule="majority", contradiction_scope="selected")
QUERY = "When was the Eiffel Tower completed?"


def _page(text: str, host: str) -> Passage:
    return Passage(text, source=f"https://{host}/eiffel", score=0.9)


def engine(fake_nli, **settings) -> Mirage:
    return Mirage(MirageConfig(coordination="none").replace(**settings), nli=fake_nli)


def test_a_minority_page_is_outvoted_and_named(fake_nli, outvoted_pages):
    v = engine(fake_nli, **MAJORITY).defend(QUERY, outvoted_pages)
    assert v.decision == "verified"
    delivered = " ".join(v.claims[i].text for i in v.selected)
    assert "1889" in delivered and "1925" not in delivered
    majority = [o for o in v.gate if o.rule == "majority"]
    assert majority and not majority[0].blocks
    assert "1 claim(s) of passages [3]" in majority[0].reason and "outvoted" in v.reason
    assert v.reason.startswith("passed: r_contr=")  # the outvoted minority is added, not instead


def test_the_tie_rule_blocks_the_same_evidence_when_its_aggregate_sides_tie(fake_nli):
    pages = [
        _page("The Eiffel Tower was completed in 1889.", "a.example"),
        _page("The Eiffel Tower was completed in 1925.", "d.example"),
    ]
    tie = engine(fake_nli, d_min=1).defend(QUERY, pages)
    majority = engine(fake_nli, d_min=1, **MAJORITY).defend(QUERY, pages)
    assert tie.decision == "fallback" and majority.decision == "fallback"
    assert majority.tie == Tie(selected_side=1, rejected_side=1)
    assert "contested" in majority.reason  # one page against one page: no clear majority


def test_majority_ratio_asks_for_a_wider_margin(fake_nli):
    pages = [
        _page("The Eiffel Tower was completed in 1889.", "a.example"),
        _page("In 1889 the Eiffel Tower was completed.", "b.example"),
        _page("The Eiffel Tower was completed in 1925.", "d.example"),
    ]
    two_to_one = engine(fake_nli, **MAJORITY).defend(QUERY, pages)
    assert two_to_one.decision == "verified"
    wide = engine(fake_nli, majority_ratio=2.0, **MAJORITY).defend(QUERY, pages)
    assert wide.decision == "fallback" and "contested" in wide.reason


@pytest.mark.parametrize(
    ("in_s", "against_s", "supports", "expected"),
    [
        # claims 0, 1 in S*; 2 rejected contradicts 0; 3 (outside S*) supports 2 and 0, and
        # 1 (in S*) supports 2 as well. S* claim 0: itself + 1 and 3 (neither contradicts
        # S*); rejected 2: itself + 3 only.
        ([1, 1, 0, 0], [0, 0, 1, 0], [(1, 0), (3, 2), (1, 2), (3, 0)], [3, 1, 2, 1]),
        # 0 in S*; 1 rejected, supported by 2 and 3 (outside S*) and by 0 (in S*)
        ([1, 0, 0, 0], [0, 1, 0, 0], [(2, 1), (3, 1), (0, 1)], [1, 3, 1, 1]),
    ],
)
def test_corroboration_counts_on_its_own_side_only(in_s, against_s, supports, expected):
    premise, hypothesis = (np.array(side) for side in zip(*supports, strict=True))
    support = Corroboration(np.zeros(4, dtype=np.int64), premise, hypothesis)
    weight = side_groups(support, np.arange(4), np.array(in_s, bool), np.array(against_s, bool))
    assert weight.tolist() == expected


def test_a_claim_that_contradicts_s_star_vouches_for_none_of_it():
    # 2 contradicts S* claim 0 and, read the other way, also entails it
    graph = claim_graph(3, contradicts=((0, 2),))
    support = Corroboration(np.zeros(3, dtype=np.int64), np.array([2]), np.array([0]))
    found = conflicts(graph, np.arange(3), np.array([0]), None, support)
    assert found.selected_groups.tolist() == found.rejected_groups.tolist() == [1, 1]


def test_a_conflict_is_contested_up_to_ratio_times_the_rejected_groups():
    found = Conflicts(
        selected=np.array([0, 1, 2]),
        rejected=np.array([3, 3, 3]),
        selected_groups=np.array([4, 5, 2]),
        rejected_groups=np.array([2, 2, 1]),
    )
    assert found.contested(2.0).tolist() == [True, False, True]
    assert found.contested(1.0).tolist() == [False, False, False]


def test_conflicts_skip_edges_without_relevance():
    graph = claim_graph(2, contradicts=((0, 1),))
    none = Corroboration(np.zeros(2, dtype=np.int64), np.empty(0, int), np.empty(0, int))
    groups = np.array([0, 1])
    assert conflicts(graph, groups, np.array([0]), None, none).selected.size == 2
    assert conflicts(graph, groups, np.array([0]), np.zeros(2), none).selected.size == 0


def test_contested_scope_counts_the_contradictors_of_s_star(fake_nli, outvoted_pages):
    inside = engine(fake_nli, contradiction_scope="selected").defend(QUERY, outvoted_pages)
    contested = engine(fake_nli, contradiction_scope="contested").defend(QUERY, outvoted_pages)
    assert inside.r_contr == 0.0  # S* never holds both sides
    assert contested.r_contr > 0.0  # the 1925 claim contradicts S*


def test_a_quarantine_that_excludes_leaves_no_claim_of_the_planted_passages(
    fake_nli, agreeing_pages, monkeypatch
):
    import mirage_core.coordination as coordination

    monkeypatch.setattr(
        coordination, "detect_coordination", lambda *a, **k: [flagged_group((0, 1))]
    )
    settings = dict(coordinated_min_support=None, coordinated_d_min=None)
    v = Mirage(MirageConfig(coordination="text").replace(**settings), nli=fake_nli).defend(
        QUERY, agreeing_pages
    )
    assert all(v.claims[i].passage_index == 2 for i in v.selected)
    assert v.d_min_applied == 2  # the quarantine does not lower d_min
    assert v.decision == "fallback"


@pytest.mark.parametrize("rule", ["tie", "majority"])
def test_a_defended_part_weighs_only_its_conflicts_with_claims_outside_s_star(rule):
    # S* = {0, 1, 2}, claim 3 outside it; 1 contradicts 3, 0 contradicts 2 (inside S*).
    graph = claim_graph(4, contradicts=((1, 3), (0, 2)))
    groups = np.array([0, 1, 2, 3])
    sourced = SourcedGraph(graph, groups, np.zeros(4))
    selected = np.array([0, 1, 2])
    none = Corroboration(np.zeros(4, dtype=np.int64), np.empty(0, int), np.empty(0, int))

    def found(defended):
        if rule == "tie":
            tie = tie_sides(sourced, selected, None, defended)
            return None if tie is None else (tie.selected_side, tie.rejected_side)
        c = conflicts(graph, groups, selected, None, none, defended)
        return sorted(set(zip(c.selected.tolist(), c.rejected.tolist(), strict=True))) or None

    whole = found(None)
    assert whole == ((1, 1) if rule == "tie" else [(1, 3)])  # 1 against 3, one group each
    assert found(np.array([0])) is None  # 0's conflict is inside S*; 1 is not defended
    assert found(np.array([1])) == whole


def test_conflict_scope_delivered_passes_when_only_an_undelivered_claim_is_contested(fake_nli):
    # three pages agree on the completion; one sentence no other page vouches for (Otis)
    # is contradicted by one page (Schindler): one group against one
    pages = [
        _page(
            "The tower was completed in 1889. The tower was completed for the World's Fair. "
            "The tower was completed in two years.",
            "a.example",
        ),
        _page(
            "The tower was completed in 1889 for the World's Fair. The tower was completed in "
            "two years and two months.",
            "b.example",
        ),
        _page(
            "The tower's lifts were supplied by Otis. The tower was completed in 1889.", "c.example"
        ),
        _page("The tower's lifts were supplied by Schindler.", "d.example"),
    ]
    selected = engine(fake_nli, conflict_scope="selected").defend(QUERY, pages)
    scoped = engine(fake_nli, conflict_scope="delivered").defend(QUERY, pages)
    assert selected.decision == "fallback" and "(1 groups vs 1)" in selected.reason
    assert scoped.decision == "verified" and scoped.r_contr == selected.r_contr
    delivered = [scoped.claims[i].text for i in scoped.selected]
    assert delivered and not any("lifts" in t for t in delivered)
