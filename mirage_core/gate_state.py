"""The gate's state: what every gate rule reads, measured once per query, and the interface each
rule implements.

:func:`measure` computes the gate's two measures: r_contr, the contradiction share of the edge
weight among the claims it counts (every claim, S*, or S* and the claims that contradict it;
each edge weighed by its claims' relevance to the query, so an off-topic conflict cannot
block), and d_src, the independent sources behind S*. It returns them in a :class:`GateState`
with the evidence, the graph and S*, which the rules (:mod:`mirage_core.gate_rules`) and the
decision (:mod:`mirage_core.gate`) both read; keeping it apart from both lets each rule import
it without importing the gate. A rule is any :class:`GateRule`: a ``name`` and
``check(state)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from mirage_core.config import MirageConfig
from mirage_core.corroboration import Corroboration
from mirage_core.evidence import Evidence
from mirage_core.graph import ClaimGraph, SourcedGraph
from mirage_core.quarantine import claims_of, conflict_weight, gate_d_min
from mirage_core.records import CoordinationRecord, RuleOutcome
from mirage_core.relevance import edge_relevance
from mirage_core.sources import source_count, source_unit
from mirage_core.types import Claim

__all__ = ["GateRule", "GateState", "measure"]

_EPS = 1e-9


@dataclass(frozen=True)
class GateState:
    """What the rules read: the evidence, the graph, S* and the gate's measures."""

    evidence: Evidence
    sourced: SourcedGraph
    selected: tuple[int, ...]
    r_contr: float
    d_src: int
    d_min: int
    n_units: int  # independent units (domains or groups) in the whole evidence
    edge_weight: np.ndarray | None  # per directed edge: what it weighs in r_contr
    config: MirageConfig
    #: who corroborates each claim, when a step reads it (``configured_corroboration``)
    corroboration: Corroboration | None = None
    #: S* holds corroborated claims only (``corroborated_only="selection"`` found enough)
    corroborated: bool = False
    #: The claims of S* whose conflicts with claims outside S* the tie / majority rule weighs
    #: (``None``: all of S*); the part delivery hands on, under ``conflict_scope="delivered"``.
    conflict_side: tuple[int, ...] | None = None

    @property
    def claims(self) -> list[Claim]:
        return self.evidence.claims

    @property
    def defended(self) -> np.ndarray | None:
        """:attr:`conflict_side` as claim indices (``None``: all of S*)."""
        return None if self.conflict_side is None else np.asarray(self.conflict_side, np.int64)


def measure(
    evidence: Evidence,
    sourced: SourcedGraph,
    selected: list[int],
    quarantined: np.ndarray,
    coordination: CoordinationRecord,
    config: MirageConfig,
    corroboration: Corroboration | None = None,
    corroborated: bool = False,
) -> tuple[GateState, CoordinationRecord]:
    """The gate's measures: r_contr (each edge weighed by its claims' relevance to the query;
    over S* or the whole graph) and d_src (distinct domains, or independence groups). Returns
    the state and the coordination record with the conflicts it left out, if any."""
    claims, graph, m = evidence.claims, sourced.graph, config.method
    members = _r_contr_members(graph, selected, m.contradiction_scope)
    # Off-topic conflicts cannot block: each edge weighs by its claims' relevance.
    weight = (
        None
        if evidence.relevance is None
        else edge_relevance(evidence.relevance, graph.premise, graph.hypothesis)
    )
    left_out = None  # claims whose contradiction edges leave r_contr
    if m.quarantined_conflicts == "ignore" and coordination.passages:
        left_out = quarantined
    elif m.garbled_conflicts == "ignore" and coordination.garbled:
        # the NLI model cannot read a garbled passage: its "contradictions" are noise
        left_out = claims_of(claims, coordination.garbled)
    if left_out is not None:
        mask = conflict_weight(graph, left_out)
        weight = mask if weight is None else weight * mask
        ignored = int(((graph.w_contr > 0) & (mask == 0)).sum())
        coordination = replace(coordination, conflicts_ignored=ignored)
    e_supp, e_contr = graph.mass(members, weight)
    unit = source_unit(config)
    state = GateState(
        evidence=evidence,
        sourced=sourced,
        selected=tuple(selected),
        r_contr=e_contr / (e_supp + e_contr + _EPS),
        # an S* of corroborated claims only has its corroborators behind it as well
        d_src=source_count(
            claims,
            selected,
            quarantined,
            config,
            corroboration,
            "corroborating" if corroborated else None,
        ),
        d_min=gate_d_min(config.d_min, m.coordinated_d_min, coordination.relaxes_d_min),
        n_units=len({unit(c) for c in claims}),
        edge_weight=weight,
        config=config,
        corroboration=corroboration,
        corroborated=corroborated,
    )
    return state, coordination


def _r_contr_members(graph: ClaimGraph, selected: list[int], scope: str) -> np.ndarray | None:
    """The claims whose edges r_contr counts: every claim (``None``), S*, or S* and the claims
    that contradict it."""
    if scope == "graph":
        return None
    members = np.asarray(selected, dtype=np.int64)
    if scope == "contested" and members.size:
        in_s = np.zeros(graph.n_claims, dtype=bool)
        in_s[members] = True
        edge = (graph.w_contr > 0) & (in_s[graph.premise] != in_s[graph.hypothesis])
        ends = np.concatenate([graph.premise[edge], graph.hypothesis[edge]])
        members = np.union1d(members, ends)
    return members


class GateRule(Protocol):
    """One blocking rule."""

    name: str

    def check(self, state: GateState) -> RuleOutcome | None: ...
