"""The redundancy rule: hold back the passages RAGDefender's estimate marks as the adversarial
majority, and block only when nothing verified remains.

A passage the coordination signals miss still reaches the answer once the gate passes; this
rule takes the most mutually similar passages out of the delivered evidence
(:mod:`mirage_core.redundancy_filter`) and keeps a claim that an independent page outside them
supports. It is opt-in (``redundancy_filter``), needs the passages' embeddings, runs last and
only while the verdict passes, and may pass with fewer claims delivered than S*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mirage_core.gate_state import GateState
from mirage_core.records import HeldBack, RuleOutcome
from mirage_core.redundancy_filter import hold_back, redundant_passages

__all__ = ["Redundancy"]


@dataclass
class Redundancy:
    """Hold back the passages RAGDefender's estimate marks as the adversarial majority; block
    only when nothing verified remains (:mod:`mirage_core.redundancy_filter`)."""

    name: str = "redundancy"
    held: HeldBack | None = field(default=None, init=False)

    def check(self, state: GateState) -> RuleOutcome | None:
        evidence = state.evidence
        if state.config.redundancy_filter == "none" or evidence.embeddings is None:
            return None
        n_adv, kept_held = redundant_passages(
            evidence.texts, evidence.embeddings, state.config.redundancy_filter
        )
        if not kept_held:
            return None
        passages = tuple(evidence.passage_ids[i] for i in kept_held)  # the caller's indices
        sourced = state.sourced
        delivered, held = hold_back(
            state.claims, list(state.selected), set(passages), sourced.graph, sourced.groups
        )
        self.held = HeldBack(n_adv, passages, tuple(held))
        if not delivered:
            return RuleOutcome(
                self.name,
                True,
                f"every verified claim came from passages {list(passages)}, which the "
                f"redundancy filter held back (N_adv={n_adv})",
            )
        return RuleOutcome(
            self.name,
            False,
            f"passages {list(passages)} held back by the redundancy filter (N_adv={n_adv})",
        )
