"""Quarantine of coordinated passages: a gate rule beside the contradiction and diversity gates.

Planted passages corroborate only each other, so support counts cannot tell them from honest
coverage (five planted "sources" are five supporters). When the coordination signals
(:mod:`mirage_core.coordination`) flag a group of passages as planted, their claims enter S*
only with support from at least ``min_support`` independence groups *outside* the flagged
passages: an honest outlet that says the same thing lets the claim through, the planted copies
never vouch for each other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mirage_core.graph import ClaimGraph, support_counts
from mirage_core.types import Claim

__all__ = ["outside_support", "quarantine_eligible"]


def outside_support(graph: ClaimGraph, groups: np.ndarray, quarantined: np.ndarray) -> np.ndarray:
    """For each claim: distinct independence groups of *non-quarantined* claims supporting it."""
    return support_counts(graph, groups, excluded=quarantined)


def quarantine_eligible(
    claims: Sequence[Claim],
    graph: ClaimGraph,
    groups: np.ndarray,
    flagged_passages: set[int],
    min_support: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``(eligible, quarantined)`` masks over claims: a claim of a flagged passage is eligible
    for S* only with ``min_support`` outside supporters; every other claim is eligible."""
    quarantined = np.array([c.passage_index in flagged_passages for c in claims], dtype=bool)
    if min_support <= 0 or not quarantined.any():
        return np.ones(len(claims), dtype=bool), quarantined
    return ~quarantined | (outside_support(graph, groups, quarantined) >= min_support), quarantined
