"""The tie rule: block when the claims rejected for contradicting S* have at least as many
independence groups behind them as the S* claims they contradict.

Selection keeps one side of each conflict; when the side it rejected has as much independent
support, the evidence is contested rather than settled. Each side counts its claims' own groups
and those of the claims on its side that support them: a claim of S* that entails a rejected
claim is no evidence for the rejected side. Conflicts whose edge weight (query relevance) is 0
take no side. The gate runs it under ``block_on_tie`` with ``conflict_rule="tie"``; with
``conflict_rule="majority"`` it runs :class:`~mirage_core.majority.MajorityRule` instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mirage_core.gate_state import GateState
from mirage_core.graph import SourcedGraph
from mirage_core.majority import conflict_edges
from mirage_core.records import RuleOutcome, Tie

__all__ = ["TieRule", "tie_sides"]


@dataclass
class TieRule:
    """Block when the claims rejected for contradicting S* have at least as many independence
    groups behind them (their own and their rejected supporters') as the S* claims they
    contradict. Conflicts whose edge weight (query relevance) is 0 take no side."""

    name: str = "tie"
    tie: Tie | None = field(default=None, init=False)

    def check(self, state: GateState) -> RuleOutcome | None:
        if not state.config.block_on_tie:
            return None
        self.tie = tie_sides(
            state.sourced,
            np.asarray(state.selected, dtype=np.int64),
            state.edge_weight,
            state.defended,
        )
        if self.tie is None:
            return None
        return RuleOutcome(
            self.name,
            True,
            "S* is contradicted by claims with as much independent support "
            f"({self.tie.rejected_side} groups vs {self.tie.selected_side})",
        )


def tie_sides(
    sourced: SourcedGraph,
    selected: np.ndarray,
    edge_weight: np.ndarray | None,
    defended: np.ndarray | None = None,
) -> Tie | None:
    """The two sides of the conflicts between ``defended`` (claims of S*; ``None``: all of
    S*) and the claims outside S*, or None when S* wins clearly."""
    graph, groups = sourced.graph, sourced.groups
    conflict, in_s, in_d = conflict_edges(graph, selected, edge_weight, defended)
    p, h = graph.premise, graph.hypothesis
    if not conflict.any():
        return None
    ends = np.concatenate([p[conflict], h[conflict]])
    sides = {}
    for member, mask in ((True, in_d), (False, ~in_s)):
        side = ends[mask[ends]]
        # Supporters count on their own side only: a claim of S* that happens to entail a
        # rejected claim is no evidence for the rejected side.
        support_in = (graph.w_supp > 0) & np.isin(h, side) & (in_s[p] == member)
        sides[member] = len(
            set(groups[side].tolist()) | set(groups[graph.premise[support_in]].tolist())
        )
    return Tie(sides[True], sides[False]) if sides[False] >= sides[True] else None
