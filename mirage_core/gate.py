"""The gate: does S* reach the generator, or does the query fall back to no retrieval?

Each blocking rule is one object with one interface: a ``name`` and ``check(state)``, which
returns a :class:`~mirage_core.records.RuleOutcome` (blocks or not, and why) or ``None`` when
it has nothing to say. The core rules (contradiction ratio, source diversity) are judged
together and their problems reported together; the rules after them run only while the
verdict still passes, the first that blocks decides. The redundancy filter may pass with
fewer claims delivered than S*.

The rules live in :mod:`mirage_core.gate_rules`, one module each, and the state they read in
:mod:`mirage_core.gate_state`; this module keeps their order and the decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mirage_core.gate_rules.answer_slot import AnswerSlot
from mirage_core.gate_rules.contradiction_ratio import ContradictionRatio
from mirage_core.gate_rules.redundancy import Redundancy
from mirage_core.gate_rules.source_diversity import SourceDiversity

# re-exported: callers weigh a tie with tie_sides from the gate
from mirage_core.gate_rules.tie import TieRule, tie_sides  # noqa: F401
from mirage_core.gate_state import GateRule, GateState, measure
from mirage_core.majority import MajorityRule
from mirage_core.records import CoordinationRecord, HeldBack, RuleOutcome, Tie

__all__ = [
    "AnswerSlot",
    "ContradictionRatio",
    "GateDecision",
    "GateRule",
    "GateState",
    "Redundancy",
    "SourceDiversity",
    "TieRule",
    "decide",
    "measure",
]


@dataclass(frozen=True)
class GateDecision:
    """The route, its one-line reason, what is delivered and every rule's outcome."""

    decision: str
    reason: str
    delivered: tuple[int, ...]
    outcomes: tuple[RuleOutcome, ...]
    answer_conflicts: tuple[Any, ...] = ()
    tie: Tie | None = None
    held_back: HeldBack | None = None
    #: Delivered claims held back for a fact no other source states, with those facts
    #: (:mod:`mirage_core.lone_facts`).
    lone_facts: tuple[tuple[int, tuple[str, ...]], ...] = ()

    def blocked_by(self, outcome: RuleOutcome) -> GateDecision:
        """This passing decision turned to a fallback by a step after the gate: nothing is
        delivered, and the reason keeps what the gate had found."""
        return replace(
            self,
            decision="fallback",
            reason=f"blocked: {outcome.reason}; the gate had {self.reason}",
            delivered=(),
            outcomes=(*self.outcomes, outcome),
        )


def _quarantine_note(coordination: CoordinationRecord | None) -> str:
    if coordination is None or not coordination.passages:
        return ""
    fired = sorted({s for g in coordination.signals for s in g.fired})
    garbled = set(coordination.garbled)
    planted = [p for p in coordination.passages if p not in garbled]
    parts = []
    if planted:
        parts.append(
            f"passages {planted} look planted" + (f" ({', '.join(fired)})" if fired else "")
        )
    if garbled:
        parts.append(f"passages {sorted(garbled)} are garbled")
    return "; " + " and ".join(parts) + " and were quarantined"


def decide(state: GateState, coordination: CoordinationRecord | None) -> GateDecision:
    """Run the rules in order: S* empty, then the core rules together, then answer slot, tie
    and redundancy while the verdict passes."""
    if not state.selected:
        empty = RuleOutcome("selection", True, "no claim had a positive gain (S* is empty)")
        return GateDecision(
            "fallback", "blocked: " + empty.reason + _quarantine_note(coordination), (), (empty,)
        )
    outcomes: list[RuleOutcome] = [
        ContradictionRatio().check(state),
        SourceDiversity().check(state),
    ]
    problems = [o.reason for o in outcomes if o.blocks]
    if problems:
        decision, reason = "fallback", "blocked: " + "; ".join(problems)
    else:
        decision = "verified"
        reason = (
            f"passed: {outcomes[0].reason}, {outcomes[1].reason}; "
            f"{len(state.selected)} verified claims"
            + (", each corroborated by an independent source" if state.corroborated else "")
        )
    reason += _quarantine_note(coordination)
    answer_slot, redundancy = AnswerSlot(), Redundancy()
    tie: TieRule | MajorityRule = (
        MajorityRule() if state.config.method.conflict_rule == "majority" else TieRule()
    )
    delivered = state.selected
    rules: Sequence[GateRule] = (answer_slot, tie)
    for rule in rules:
        if decision != "verified":
            break
        outcome = rule.check(state)
        if outcome is not None:
            outcomes.append(outcome)
            if outcome.blocks:
                decision, reason = "fallback", "blocked: " + outcome.reason
            else:
                reason += "; " + outcome.reason
    if decision == "verified":
        outcome = redundancy.check(state)
        if outcome is not None:
            outcomes.append(outcome)
            assert redundancy.held is not None
            held = set(redundancy.held.held_claims)
            delivered = tuple(i for i in state.selected if i not in held)
            if outcome.blocks:
                decision, delivered = "fallback", ()
                reason = "blocked: " + outcome.reason + "; the gate had " + reason
            else:
                reason += "; " + outcome.reason
    return GateDecision(
        decision,
        reason,
        delivered,
        tuple(outcomes),
        answer_slot.found,
        tie.tie,
        redundancy.held,
    )
