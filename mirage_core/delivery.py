"""Delivery: what a passing verdict hands to the generator.

Under ``corroborated_only="delivery"`` the gate weighs the whole S* (its contradictions, its
answer slot, its sources), and a passing verdict delivers only the part of it that a passage
the quarantine kept corroborates, when the sources behind that part reach ``d_min``. Where
delivery narrows S*, the tie and majority rules weigh only that part's conflicts with claims
outside S* (:func:`scope_conflicts`, ``conflict_scope="delivered"``): a sentence that is not
handed on cannot tie. Evidence too short for corroboration delivers S* as the gate passed it,
and with ``corroborated_relevant`` so does evidence whose claims most relevant to the query no
other source corroborates (``uncorroborated_delivery`` can hand on less there); the reason of
such a verdict says how many of the claims it hands on an independent source corroborates.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mirage_core.corroboration import Corroboration
from mirage_core.gate import GateDecision
from mirage_core.gate_state import GateState
from mirage_core.records import RuleOutcome
from mirage_core.sources import reaches_d_min, source_count

__all__ = ["corroborated_part", "deliver_corroborated", "scope_conflicts"]


def corroborated_part(
    state: GateState,
    corroboration: Corroboration | None,
    quarantined: np.ndarray,
    delivered: tuple[int, ...],
    require_relevant: bool | None = None,
) -> tuple[int, ...] | None:
    """The claims of ``delivered`` that a kept passage corroborates, when their sources reach
    ``d_min`` (and, with ``corroborated_relevant`` or ``require_relevant``, one of them is
    among the most relevant); ``None`` when delivery leaves ``delivered`` whole."""
    if require_relevant is None:
        require_relevant = state.config.method.corroborated_relevant
    if corroboration is None:
        raise ValueError('corroborated_only="delivery" needs corroboration')
    vouched = corroboration.vouched(quarantined)
    part = tuple(i for i in delivered if vouched[i])
    if not reaches_d_min(state.claims, part, quarantined, state.config, corroboration):
        return None
    if require_relevant and not _holds_most_relevant(part, delivered, state.evidence.relevance):
        return None
    return part


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
    part = corroborated_part(state, corroboration, quarantined, decision.delivered)
    if part is None:
        out = _uncorroborated(decision, state, corroboration, quarantined)
        if out.decision == "verified" and out.delivered == decision.delivered:
            out = _delivered_whole(out, corroboration, quarantined)
        return out
    reason = (
        f"{decision.reason}; delivered: the {len(part)} of {len(decision.delivered)} verified "
        "claims an independent source corroborates"
    )
    return replace(decision, reason=reason, delivered=part)


def _delivered_whole(
    decision: GateDecision, corroboration: Corroboration | None, quarantined: np.ndarray
) -> GateDecision:
    """``decision`` (delivering S* whole) whose reason says how much of it an independent
    source corroborates: a claim no second source vouches for is still handed on, and the
    verdict must not let it pass for corroborated."""
    if corroboration is None or not decision.delivered:
        return decision
    n = len(decision.delivered)
    m = int(corroboration.vouched(quarantined)[np.asarray(decision.delivered)].sum())
    reason = (
        f"{decision.reason}; delivered whole: {m} of the {n} verified claims an independent "
        "source corroborates"
    )
    return replace(decision, reason=reason)


def scope_conflicts(
    state: GateState, corroboration: Corroboration | None, quarantined: np.ndarray
) -> GateState:
    """``state`` whose tie / majority rule defends only the part delivery will hand on, under
    ``conflict_scope="delivered"`` with ``corroborated_only="delivery"``; else unchanged."""
    m = state.config.method
    if m.corroborated_only != "delivery" or m.conflict_scope != "delivered":
        return state
    part = corroborated_part(state, corroboration, quarantined, state.selected)
    return state if part is None else replace(state, conflict_side=part)


def _uncorroborated(
    decision: GateDecision,
    state: GateState,
    corroboration: Corroboration | None,
    quarantined: np.ndarray,
) -> GateDecision:
    """What ``decision`` delivers when no corroborated part qualifies
    (``uncorroborated_delivery``): S* whole; its claims most relevant to the query; or the
    corroborated part that missed them, with them; or a fallback (always, or only when
    several pages survived a quarantine). Unchanged without relevance scores."""
    mode = state.config.method.uncorroborated_delivery
    if mode == "fallback" or (
        mode == "fallback_after_quarantine"
        and _survivors_of_quarantine(decision, state, quarantined)
    ):
        return _fallback_if_uncorroborated(decision, state, corroboration, quarantined)
    relevance = state.evidence.relevance
    if (
        mode in ("selected", "fallback_after_quarantine")
        or relevance is None
        or not decision.delivered
    ):
        return decision
    best = _most_relevant(decision.delivered, relevance)
    what = "most relevant to the query"
    if mode == "part_and_most_relevant":
        part = corroborated_part(
            state, corroboration, quarantined, decision.delivered, require_relevant=False
        )
        if part is None:
            return decision
        best |= set(part)
        what = "an independent source corroborates or most relevant to the query"
    kept = tuple(i for i in decision.delivered if i in best)
    reason = (
        f"{decision.reason}; delivered: the {len(kept)} of {len(decision.delivered)} verified "
        f"claims {what}"
    )
    return replace(decision, reason=reason, delivered=kept)


def _survivors_of_quarantine(
    decision: GateDecision, state: GateState, quarantined: np.ndarray
) -> bool:
    """Whether passages were quarantined and what ``decision`` delivers still spans ``d_min``
    sources of its own: not the lone page ``coordinated_d_min`` lets answer alone."""
    if not quarantined.any():
        return False
    own = source_count(
        state.claims, decision.delivered, quarantined, state.config, count="selected"
    )
    return own >= state.config.d_min


def _fallback_if_uncorroborated(
    decision: GateDecision,
    state: GateState,
    corroboration: Corroboration | None,
    quarantined: np.ndarray,
) -> GateDecision:
    """``decision`` turned to a fallback when no corroborated part of what it delivers reaches
    ``d_min``, relevant or not; unchanged (S* whole) when only the relevance requirement
    kept its corroborated part from being delivered."""
    part = corroborated_part(
        state, corroboration, quarantined, decision.delivered, require_relevant=False
    )
    if part is not None:
        return decision
    outcome = RuleOutcome(
        "corroboration",
        True,
        f"no independent source corroborates the {len(decision.delivered)} verified claims "
        f"(their sources do not reach d_min={state.config.d_min})",
    )
    return decision.blocked_by(outcome)


def _holds_most_relevant(
    part: tuple[int, ...], delivered: tuple[int, ...], relevance: np.ndarray | None
) -> bool:
    """Whether ``part`` holds one of ``delivered``'s claims most relevant to the query (always,
    without relevance scores): the sentence that answers a short question is the one that
    restates it, and delivery must not leave it out for want of a second source."""
    if relevance is None or not delivered:
        return True
    return not _most_relevant(delivered, relevance).isdisjoint(part)


def _most_relevant(delivered: tuple[int, ...], relevance: np.ndarray) -> set[int]:
    """The claims of ``delivered`` (non-empty) at its highest relevance to the query."""
    scores = relevance[np.asarray(delivered, dtype=np.int64)]
    top = float(np.max(scores))
    return {i for i, r in zip(delivered, scores.tolist(), strict=True) if r >= top - 1e-9}
