"""The answer slot rule: block when two verified claims of different sources answer the question
with different facts.

A planted passage restates the question and puts its own fact where the answer goes; the honest
one restates it with the true fact. Worded independently, the NLI model rarely calls such a
pair a contradiction, so this rule reads the answer slot directly
(:mod:`mirage_core.answer_conflict`). It has nothing to say unless ``answer_conflict`` is set;
``found`` keeps the first :data:`RECORDED_CONFLICTS` conflicting pairs for the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mirage_core.answer_conflict import find_answer_conflicts, topic_context
from mirage_core.gate_state import GateState
from mirage_core.records import RuleOutcome

__all__ = ["RECORDED_CONFLICTS", "AnswerSlot"]

#: Conflicting pairs the verdict records (the first, in index order); the reason counts all.
#: Evidence whose every claim restates the question can hold one for nearly every pair.
RECORDED_CONFLICTS = 100


@dataclass
class AnswerSlot:
    """Block when two verified claims of different sources answer the question with different
    facts (:mod:`mirage_core.answer_conflict`). ``detail``: the conflicting pairs."""

    name: str = "answer_slot"
    found: tuple[Any, ...] = field(default=(), init=False)

    def check(self, state: GateState) -> RuleOutcome | None:
        cfg = state.config
        if cfg.answer_conflict is None:
            return None
        m = cfg.method
        context = m.answer_conflict_context
        claims = state.claims
        found, total = find_answer_conflicts(
            state.evidence.query,
            claims,
            list(state.selected),
            cfg.answer_conflict,
            m.answer_conflict_scope,
            topic_context(claims, context) if context != "claim" else None,
            m.answer_names,
            m.answer_times,
            m.answer_subjects,
            m.fact_forms,
            limit=RECORDED_CONFLICTS,
        )
        self.found = tuple(found)
        if not self.found:
            return None
        more = f" (and {total - 1} more pairs)" if total > 1 else ""
        return RuleOutcome(self.name, True, self.found[0].describe(claims) + more)
