"""The majority rule: S* against each claim that contradicts it, weighed in independent sources.

A *conflict* is a contradiction edge between a claim of S* and a claim left out of it (its
weight, the claims' relevance to the query, above 0). Each side of a conflict weighs the
independence groups behind its claim: the claim's own group plus the other groups that
corroborate it (:mod:`mirage_core.corroboration`: NLI support, and paraphrase and fact
coverage when configured). A rejected claim counts no corroboration from S*, and a claim of
S* none from the claims that contradict S*: a sentence on one side is no evidence for the
other.

S* wins a conflict when its side has more than ``majority_ratio`` times the groups of the
rejected side. When S* wins every conflict, it is delivered without the minority and the rule
names what it rejected; when any conflict is contested, the rule blocks. Four pages that agree
on a date against one page that changed it deliver the date; one page against one page is
contested.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mirage_core.corroboration import Corroboration
from mirage_core.graph import ClaimGraph
from mirage_core.records import RuleOutcome, Tie

if TYPE_CHECKING:
    from mirage_core.gate_state import GateState

__all__ = ["Conflicts", "MajorityRule", "conflict_edges", "conflicts"]


@dataclass(frozen=True)
class Conflicts:
    """Every conflict with S*: its S* claim and rejected claim, and each side's groups."""

    selected: np.ndarray
    rejected: np.ndarray
    selected_groups: np.ndarray
    rejected_groups: np.ndarray

    def contested(self, ratio: float) -> np.ndarray:
        """Per conflict: whether S*'s side lacks a clear majority."""
        return self.selected_groups <= ratio * self.rejected_groups


def side_groups(
    support: Corroboration, groups: np.ndarray, in_s: np.ndarray, against_s: np.ndarray
) -> np.ndarray:
    """Per claim: 1 (its own group) + the other groups corroborating it, a rejected claim's
    from outside S*, an S* claim's from claims that do not contradict S*."""
    premise, hypothesis = support.premise, support.hypothesis
    same_side = np.where(in_s[hypothesis], ~against_s[premise], ~in_s[premise])
    counts = np.zeros(len(groups), dtype=np.int64)
    if same_side.any():
        pairs = np.unique(np.stack([hypothesis[same_side], groups[premise[same_side]]]), axis=1)
        counts = np.bincount(pairs[0], minlength=len(groups)).astype(np.int64)
    return 1 + counts


def conflict_edges(
    graph: ClaimGraph,
    selected: np.ndarray,
    edge_weight: np.ndarray | None,
    defended: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(edge mask, S* mask, defended mask): the contradiction edges of positive weight between
    a ``defended`` claim (claims of S*; ``None``: all of S*) and a claim outside S*. The tie
    and majority rules both weigh these."""
    in_s = np.zeros(graph.n_claims, dtype=bool)
    in_s[selected] = True
    in_d = in_s
    if defended is not None:
        in_d = np.zeros(graph.n_claims, dtype=bool)
        in_d[defended] = True
    w_contr = graph.w_contr if edge_weight is None else graph.w_contr * edge_weight
    p, h = graph.premise, graph.hypothesis
    edge = (w_contr > 0) & ((in_d[p] & ~in_s[h]) | (~in_s[p] & in_d[h]))
    return edge, in_s, in_d


def conflicts(
    graph: ClaimGraph,
    groups: np.ndarray,
    selected: np.ndarray,
    edge_weight: np.ndarray | None,
    support: Corroboration,
    defended: np.ndarray | None = None,
) -> Conflicts:
    """The conflicts between ``defended`` (claims of S*; ``None``: all of S*) and the claims
    outside S*."""
    edge, in_s, in_d = conflict_edges(graph, selected, edge_weight, defended)
    premise, hypothesis = graph.premise[edge], graph.hypothesis[edge]
    s_end = np.where(in_d[premise], premise, hypothesis)
    r_end = np.where(in_d[premise], hypothesis, premise)
    against_s = np.zeros(graph.n_claims, dtype=bool)
    against_s[r_end] = True
    weight = side_groups(support, groups, in_s, against_s)
    return Conflicts(s_end, r_end, weight[s_end], weight[r_end])


@dataclass
class MajorityRule:
    """Block when a claim that contradicts S* has no clear minority of independent groups
    against it; otherwise pass and name the outvoted claims' passages."""

    name: str = "majority"
    tie: Tie | None = field(default=None, init=False)

    def check(self, state: GateState) -> RuleOutcome | None:
        if not state.config.block_on_tie:
            return None
        sourced, support = state.sourced, state.corroboration
        if support is None:
            raise ValueError("the majority rule needs the query's corroboration")
        found = conflicts(
            sourced.graph,
            sourced.groups,
            np.asarray(state.selected, dtype=np.int64),
            state.edge_weight,
            support,
            state.defended,
        )
        if not found.selected.size:
            return None
        contested = found.contested(state.config.method.majority_ratio)
        claims = state.claims
        if contested.any():
            k = int(np.flatnonzero(contested)[0])
            s_side, r_side = int(found.selected_groups[k]), int(found.rejected_groups[k])
            self.tie = Tie(s_side, r_side)
            r_claim = claims[int(found.rejected[k])]
            return RuleOutcome(
                self.name,
                True,
                f"S* is contested: a claim of passage {r_claim.passage_index} with {r_side} "
                f"independent group(s) behind it contradicts S* claims with {s_side} "
                "(no clear majority)",
            )
        outvoted = sorted({claims[int(i)].passage_index for i in np.unique(found.rejected)})
        n_claims = int(np.unique(found.rejected).size)
        return RuleOutcome(
            self.name,
            False,
            f"{n_claims} claim(s) of passages {outvoted} contradict S* and were outvoted "
            f"(at most {int(found.rejected_groups.max())} group(s) against at least "
            f"{int(found.selected_groups.min())})",
        )
