"""The gate's rules, one module each. Each is a :class:`~mirage_core.gate_state.GateRule`:
a ``name`` and ``check(state)``, which returns a :class:`~mirage_core.records.RuleOutcome`
(blocks or not, and why) or ``None`` when it has nothing to say. The order they run in, and
how their outcomes combine into a route, is the gate's (:func:`mirage_core.gate.decide`).
"""

from mirage_core.gate_rules.answer_slot import AnswerSlot
from mirage_core.gate_rules.contradiction_ratio import ContradictionRatio
from mirage_core.gate_rules.redundancy import Redundancy
from mirage_core.gate_rules.source_diversity import SourceDiversity
from mirage_core.gate_rules.tie import TieRule, tie_sides

__all__ = [
    "AnswerSlot",
    "ContradictionRatio",
    "Redundancy",
    "SourceDiversity",
    "TieRule",
    "tie_sides",
]
