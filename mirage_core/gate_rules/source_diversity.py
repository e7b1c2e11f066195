"""The source diversity rule: block when S* spans fewer than d_min independent sources.

d_src counts the independent units behind S*: publisher domains, or domains merged with
near-duplicate passages under ``independence="embedding"`` (docs/independence.md). Support
inside one unit corroborates nothing, so verified claims from too few of them are no evidence
that more than one source stands behind the answer. When passages were quarantined, d_min is
``coordinated_d_min`` (:func:`~mirage_core.quarantine.gate_d_min`). It is a core rule: the
gate judges it together with the contradiction ratio. The reason says whether the evidence
held only one unit at all or S* kept too few.
"""

from __future__ import annotations

from mirage_core.gate_state import GateState
from mirage_core.records import RuleOutcome

__all__ = ["SourceDiversity"]


class SourceDiversity:
    """Block when S* spans fewer than d_min independent sources."""

    name = "source_diversity"

    def check(self, state: GateState) -> RuleOutcome:
        if state.d_src >= state.d_min:
            return RuleOutcome(self.name, False, f"d_src={state.d_src} ≥ d_min={state.d_min}")
        unit = {
            "none": "domain",
            "domain": "domain",
            "embedding": "independent source (domain or near-duplicate group)",
        }[state.config.independence]
        plural = "domains" if unit == "domain" else "independent sources"
        why = (
            f"only one {unit} in the evidence"
            if state.n_units < 2
            else f"verified claims come from too few {plural}"
        )
        return RuleOutcome(self.name, True, f"d_src={state.d_src} < d_min={state.d_min} ({why})")
