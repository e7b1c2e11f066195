"""Delivery: what a passing verdict hands to the generator.

Under ``corroborated_only="delivery"`` the gate weighs the whole S* (its contradictions, its
answer slot, its sources), and a passing verdict delivers only the part of it that a passage
the quarantine kept corroborates, when the sources behind that part reach ``d_min``. The check
sees every conflict S* holds; the generator sees only what independent sources vouch for.
Evidence too short for corroboration delivers S* as the gate passed it, and with
``corroborated_relevant`` so does evidence whose claims most relevant to the query no other
source corroborates.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mirage_core.corroboration import Corroboration
from mirage_core.gate import GateDecision, GateState
from mirage_core.sources import reaches_d_min

__all__ = ["deliver_corroborated"]


def deliver_corroborated(
    decision: GateDecision,
    state: GateState,
    corroboration: Corroboration | None,
    quarantined: np.ndarray,
) -> GateDecision:
    """``decision`` delivering only its corroborated claims, where their sources reach
    ``d_min``; ``decision`` unchanged otherwise (or when it does not pass)."""
    if decision.decision != "verified":
        return decision
    if corroboration is None:
        raise ValueError('corroborated_only="delivery" needs corroboration')
    vouched = corroboration.vouched(quarantined)
    part = tuple(i for i in decision.delivered if vouched[i])
    if not reaches_d_min(state.claims, part, quarantined, state.config, corroboration):
        return decision
    if state.config.method.corroborated_relevant and not _holds_most_relevant(
        part, decision.delivered, state.evidence.relevance
    ):
        return decision
    reason = (
        f"{decision.reason}; delivered: the {len(part)} of {len(decision.delivered)} verified "
        "claims an independent source corroborates"
    )
    return replace(decision, reason=reason, delivered=part)


def _holds_most_relevant(
    part: tuple[int, ...], delivered: tuple[int, ...], relevance: np.ndarray | None
) -> bool:
    """Whether ``part`` holds one of ``delivered``'s claims most relevant to the query (always,
    without relevance scores): the sentence that answers a short question is the one that
    restates it, and delivery must not leave it out for want of a second source."""
    if relevance is None or not delivered:
        return True
    scores = relevance[np.asarray(delivered, dtype=np.int64)]
    top = float(np.max(scores))
    return bool(np.any(relevance[np.asarray(part, dtype=np.int64)] >= top - 1e-9))
