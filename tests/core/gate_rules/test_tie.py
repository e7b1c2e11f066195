"""The tie rule on claim graphs built by hand: each side of the conflicts with S* counts its
claims' independence groups and those of the claims on its own side that support them."""

from __future__ import annotations

import numpy as np

from mirage_core.gate_rules.tie import tie_sides
from mirage_core.graph import SourcedGraph
from mirage_core.records import Tie
from tests.conftest import claim_graph


def sides(graph, selected: tuple[int, ...]) -> Tie | None:
    """The tie over ``graph`` with every claim in a group of its own."""
    groups = np.arange(graph.n_claims)
    sourced = SourcedGraph(graph, groups, np.zeros(graph.n_claims))
    return tie_sides(sourced, np.array(selected), None)


def test_s_star_backed_by_more_groups_than_its_contradictor_is_no_tie():
    # S* = {0, 1}: 1 supports 0, and 2 (outside S*, alone) contradicts 0
    graph = claim_graph(3, contradicts=((0, 2),), entails=((1, 0),))
    assert sides(graph, (0, 1)) is None


def test_a_tie_counts_the_rejected_claims_and_their_supporters():
    # S* = {0}; 2 contradicts it, 3 supports 2, 4 is only related to 2 (neutral)
    graph = claim_graph(5, contradicts=((0, 2),), entails=((3, 2),), neutral=((4, 2),))
    assert sides(graph, (0,)) == Tie(selected_side=1, rejected_side=2)


def test_supporters_count_on_their_own_side_only():
    # S* = {0, 1}; 2 contradicts 0. 1 (in S*) entails 2 and 3 (outside S*) entails 0:
    # neither is evidence for the side it does not belong to.
    graph = claim_graph(4, contradicts=((0, 2),), entails=((1, 2), (3, 0)))
    assert sides(graph, (0, 1)) == Tie(selected_side=1, rejected_side=1)
