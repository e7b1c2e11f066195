"""The contradiction ratio rule: block when the evidence contradicts itself, r_contr > r_max.

r_contr = E_contr / (E_supp + E_contr + ε) is the contradiction share of the edge weight that
:func:`~mirage_core.gate_state.measure` sums (over the claim graph, S*, or S* and the claims
that contradict it; each edge weighed by its claims' relevance to the query, so an off-topic
conflict cannot block). Evidence that contradicts itself this much settles nothing, so no
retrieved text reaches the generator. It is a core rule: the gate judges it together with
source diversity and reports both rules' problems together.
"""

from __future__ import annotations

from mirage_core.gate_state import GateState
from mirage_core.records import RuleOutcome

__all__ = ["ContradictionRatio"]


class ContradictionRatio:
    """Block when the evidence contradicts itself: r_contr > r_max."""

    name = "contradiction_ratio"

    def check(self, state: GateState) -> RuleOutcome:
        r_max = state.config.r_max
        blocks = state.r_contr > r_max
        reason = (
            f"r_contr={state.r_contr:.3f} > r_max={r_max:g} (retrieved evidence contradicts itself)"
            if blocks
            else f"r_contr={state.r_contr:.3f} ≤ r_max={r_max:g}"
        )
        return RuleOutcome(self.name, blocks, reason)
