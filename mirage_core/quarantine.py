"""Quarantine of coordinated passages: a gate rule beside the contradiction and diversity gates.

Planted passages corroborate only each other, so support counts cannot tell them from honest
coverage (five planted "sources" are five supporters). When the coordination signals
(:mod:`mirage_core.coordination`) flag a group of passages as planted, their claims are
quarantined: with ``coordinated_min_support = None`` (the default) they never enter S*; with a
number, only with support from that many independence groups *outside* the flagged passages
(an honest outlet that says the same thing lets the claim through, the planted copies never
vouch for each other).

Three settings of :class:`~mirage_core.method_settings.MethodSettings` refine it:

- *A group that contradicts itself is released* (``coordination_self_conflict``,
  :func:`self_contradicting`). Planted copies push one story; pages that share phrasing but
  contradict each other on a fact are not one story copied. Off by default: planted passages
  that each list different decoys beside one answer contradict each other too. (A request for
  an account quarantines nothing: its request settings hold ``coordination="none"``.)
- *Corroboration after a quarantine* (``coordinated_d_min``): the planted passages took the
  retrieval slots that independent corroboration would fill, so the gate may ask fewer
  sources of what remains (:func:`gate_d_min`).
- *Conflicts of quarantined passages* (``quarantined_conflicts``): with ``"ignore"`` the
  contradiction gate leaves out every edge that touches a quarantined passage's claim
  (:func:`conflict_weight`); with ``"count"`` (the default) they stay in r_contr, so a
  question whose planted answer contradicts the honest one still blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mirage_core.config import MirageConfig
from mirage_core.graph import ClaimGraph, support_counts
from mirage_core.records import CoordinationRecord
from mirage_core.types import Claim

__all__ = [
    "apply_quarantine",
    "claims_of",
    "conflict_weight",
    "gate_d_min",
    "outside_support",
    "quarantine_eligible",
    "release_self_contradicting",
    "self_contradicting",
]


def outside_support(graph: ClaimGraph, groups: np.ndarray, quarantined: np.ndarray) -> np.ndarray:
    """For each claim: distinct independence groups of *non-quarantined* claims supporting it."""
    return support_counts(graph, groups, excluded=quarantined)


def claims_of(claims: Sequence[Claim], passages: Sequence[int] | set[int]) -> np.ndarray:
    """Mask over ``claims``: whether each comes from one of ``passages`` (caller indices)."""
    wanted = set(passages)
    return np.array([c.passage_index in wanted for c in claims], dtype=bool)


def quarantine_eligible(
    claims: Sequence[Claim],
    graph: ClaimGraph,
    groups: np.ndarray,
    flagged_passages: set[int],
    min_support: int | None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(eligible, quarantined)`` masks over claims: a claim of a flagged passage is eligible
    for S* only with ``min_support`` outside supporters (``None``: never); every other claim
    is eligible."""
    quarantined = claims_of(claims, flagged_passages)
    if min_support is None:
        return ~quarantined, quarantined
    if min_support <= 0 or not quarantined.any():
        return np.ones(len(claims), dtype=bool), quarantined
    return ~quarantined | (outside_support(graph, groups, quarantined) >= min_support), quarantined


def _edge_passages(claims: Sequence[Claim], graph: ClaimGraph) -> tuple[np.ndarray, np.ndarray]:
    """The passage of each edge's premise and hypothesis."""
    of = np.array([c.passage_index for c in claims], dtype=np.int64)
    return of[graph.premise], of[graph.hypothesis]


def _contradicts_within(
    passages: Sequence[int], a: np.ndarray, b: np.ndarray, w_contr: np.ndarray, threshold: float
) -> bool:
    members = np.asarray(list(passages), dtype=np.int64)
    inside = np.isin(a, members) & np.isin(b, members) & (a != b)
    return bool((inside & (w_contr >= threshold)).any())


def self_contradicting(
    passages: Sequence[int], claims: Sequence[Claim], graph: ClaimGraph, threshold: float
) -> bool:
    """Whether two different passages of ``passages`` hold claims that contradict each other
    with weight ``w_contr >= threshold`` (in either direction)."""
    if not len(graph.premise):
        return False
    a, b = _edge_passages(claims, graph)
    return _contradicts_within(passages, a, b, graph.w_contr, threshold)


def release_self_contradicting(
    flagged: Sequence[Any], claims: Sequence[Claim], graph: ClaimGraph, threshold: float | None
) -> tuple[list[Any], list[Any]]:
    """``(kept, released)``: the flagged groups (anything with ``.passages``) split by
    :func:`self_contradicting` at ``threshold`` (``None``: nothing is released)."""
    if threshold is None or not flagged or not len(graph.premise):
        return list(flagged), []
    a, b = _edge_passages(claims, graph)  # once for every group
    released = [
        g for g in flagged if _contradicts_within(g.passages, a, b, graph.w_contr, threshold)
    ]
    return [g for g in flagged if g not in released], released


def gate_d_min(d_min: int, coordinated_d_min: int | None, quarantined_any: bool) -> int:
    """The source count the gate asks of S*: ``coordinated_d_min`` once planted passages were
    quarantined (when set), else ``d_min``."""
    if quarantined_any and coordinated_d_min is not None:
        return coordinated_d_min
    return d_min


def conflict_weight(graph: ClaimGraph, quarantined: np.ndarray) -> np.ndarray:
    """Per directed edge: 0.0 when either claim is quarantined (the claim mask
    :func:`quarantine_eligible` returns), else 1.0: the contradiction gate's edge weight under
    ``quarantined_conflicts="ignore"``."""
    return (~(quarantined[graph.premise] | quarantined[graph.hypothesis])).astype(np.float64)


def apply_quarantine(
    flagged: Sequence[Any],
    claims: Sequence[Claim],
    graph: ClaimGraph,
    groups: np.ndarray,
    config: MirageConfig,
    garbled: Sequence[int] = (),
    garbled_copies: Sequence[int] = (),
) -> tuple[np.ndarray, np.ndarray, CoordinationRecord]:
    """``(eligible, quarantined, record)``: groups that contradict themselves are released,
    the claims of the remaining flagged passages and of the ``garbled`` ones
    (:mod:`mirage_core.garbled`) need ``coordinated_min_support`` supporters outside them to be
    eligible for S*. ``garbled_copies``: the garbled passages that copy a readable one (the
    record says which, for :attr:`CoordinationRecord.relaxes_d_min`)."""
    m = config.method
    kept, released = release_self_contradicting(
        flagged, claims, graph, m.coordination_self_conflict
    )
    eligible = np.ones(len(claims), dtype=bool)
    quarantined = np.zeros(len(claims), dtype=bool)
    passages: tuple[int, ...] = ()
    if (kept or garbled) and m.coordinated_min_support != 0:
        flagged_passages = {p for g in kept for p in g.passages} | set(garbled)
        eligible, quarantined = quarantine_eligible(
            claims, graph, groups, flagged_passages, m.coordinated_min_support
        )
        passages = tuple(sorted(flagged_passages))
    record = CoordinationRecord(
        signals=tuple(kept),
        released=tuple(tuple(g.passages) for g in released),
        passages=passages,
        quarantined_claims=int(quarantined.sum()),
        garbled=tuple(sorted(garbled)),
        garbled_copies=tuple(sorted(garbled_copies)),
    )
    return eligible, quarantined, record
