"""The gate's measures: which claims' edges r_contr counts under each contradiction scope."""

from __future__ import annotations

import pytest

from mirage_core.gate_state import _r_contr_members
from tests.conftest import claim_graph

# S* = {0, 1}; 2 contradicts 0 and 3 contradicts 2; 1 entails 4, which is outside S*
GRAPH = claim_graph(5, contradicts=((0, 2), (2, 3)), entails=((0, 1), (1, 4)))


@pytest.mark.parametrize(
    ("scope", "members"),
    [
        ("graph", None),  # every edge
        ("selected", [0, 1]),  # S* alone
        ("contested", [0, 1, 2]),  # S* and what contradicts it, not what that contradicts
    ],
)
def test_r_contr_counts_the_edges_of_its_scope(scope, members):
    got = _r_contr_members(GRAPH, [0, 1], scope)
    assert (got if got is None else got.tolist()) == members


def test_an_empty_selection_has_no_contested_claims():
    assert _r_contr_members(GRAPH, [], "contested").tolist() == []
