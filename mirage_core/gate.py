"""The gate: does S* reach the generator, or does the query fall back to no retrieval?

Each blocking rule is one object with one interface: a ``name`` and ``check(state)``, which
returns a :class:`~mirage_core.records.RuleOutcome` (blocks or not, and why) or ``None`` when
it has nothing to say. The core rules (contradiction ratio, source diversity) are judged
together and their problems reported together; the rules after them run only while the
verdict still passes, the first that blocks decides. The redundancy filter may pass with
fewer claims delivered than S*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from mirage_core.answer_conflict import answer_conflicts, topic_context
from mirage_core.config import MirageConfig
from mirage_core.corroboration import Corroboration
from mirage_core.evidence import Evidence
from mirage_core.graph import ClaimGraph, SourcedGraph
from mirage_core.majority import MajorityRule, conflict_edges
from mirage_core.quarantine import claims_of, conflict_weight, gate_d_min
from mirage_core.records import CoordinationRecord, HeldBack, RuleOutcome, Tie
from mirage_core.redundancy_filter import hold_back, redundant_passages
from mirage_core.relevance import edge_relevance
from mirage_core.sources import source_count, source_unit
from mirage_core.types import Claim

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
        d_min=gate_d_min(config.d_min, m.coordinated_d_min, coordination.quarantined_claims > 0),
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
        self.found = tuple(
            answer_conflicts(
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
            )
        )
        if not self.found:
            return None
        more = f" (and {len(self.found) - 1} more pairs)" if len(self.found) > 1 else ""
        return RuleOutcome(self.name, True, self.found[0].describe(claims) + more)


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
