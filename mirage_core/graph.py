"""The directed claim graph (NLI edge weights), its independence groups, n(c) and s(c)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from mirage_core.adjacency import Adjacency
from mirage_core.config import MirageConfig
from mirage_core.types import Claim

__all__ = [
    "ClaimGraph",
    "SourcedGraph",
    "build_graph",
    "claim_scores",
    "edge_weights",
    "support_counts",
    "symmetric_contra",
]


def symmetric_contra(probs: np.ndarray, symmetry: str = "each") -> np.ndarray:
    """p_contra of each directed edge after combining the two directions of its pair.

    ``probs`` rows are every pair's ``a→b`` first, then every ``b→a`` (what
    :meth:`ClaimGraph.build` takes). ``"each"`` keeps each direction's own value (the published method);
    ``"min"`` / ``"mean"`` / ``"max"`` give both directions the combined value.
    """
    p = probs[:, 2]
    if symmetry == "each" or p.size == 0:
        return p
    m = p.size // 2
    fwd, back = p[:m], p[m:]
    if symmetry == "min":
        both = np.minimum(fwd, back)
    elif symmetry == "mean":
        both = (fwd + back) / 2.0
    elif symmetry == "max":
        both = np.maximum(fwd, back)
    else:
        raise ValueError(f"unknown contradiction symmetry {symmetry!r}")
    return np.concatenate([both, both])


def edge_weights(
    probs: np.ndarray, kappa: float, p_contra: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """w_supp = max(0, 2·p_entail − 1); w_contr = p_contra where p_contra ≥ κ, else 0.

    ``p_contra`` overrides ``probs[:, 2]`` (both directions combined, see
    :func:`symmetric_contra`).
    """
    pc = probs[:, 2] if p_contra is None else p_contra
    w_supp = np.maximum(0.0, 2.0 * probs[:, 0] - 1.0)
    w_contr = np.where(pc >= kappa, pc, 0.0)
    return w_supp, w_contr


@dataclass(frozen=True)
class ClaimGraph:
    """Directed edges premise → hypothesis with their NLI probabilities and weights."""

    n_claims: int
    premise: np.ndarray  # (E,) claim index
    hypothesis: np.ndarray  # (E,) claim index
    probs: np.ndarray  # (E, 3) [entail, neutral, contra]
    w_supp: np.ndarray  # (E,)
    w_contr: np.ndarray  # (E,)

    @classmethod
    def build(
        cls,
        n_claims: int,
        left: np.ndarray,
        right: np.ndarray,
        probs: np.ndarray,
        kappa: float,
        symmetry: str = "each",
    ) -> ClaimGraph:
        """``probs`` rows: first ``left→right`` for every pair, then ``right→left``.
        ``symmetry`` combines the two directions' p_contra (:func:`symmetric_contra`)."""
        premise = np.concatenate([left, right]).astype(np.int64)
        hypothesis = np.concatenate([right, left]).astype(np.int64)
        w_supp, w_contr = edge_weights(probs, kappa, symmetric_contra(probs, symmetry))
        return cls(n_claims, premise, hypothesis, probs, w_supp, w_contr)

    @classmethod
    def empty(cls, n_claims: int) -> ClaimGraph:
        e = np.empty(0, dtype=np.int64)
        f = np.empty(0)
        return cls(n_claims, e, e, np.empty((0, 3)), f, f)

    def __len__(self) -> int:
        return int(self.premise.size)

    def without_support_within(self, groups: np.ndarray) -> ClaimGraph:
        """The same graph with support between claims of one independence group set to 0
        (a source cannot corroborate itself; probabilities are kept for the record)."""
        same = groups[self.premise] == groups[self.hypothesis]
        if not same.any():
            return self
        return replace(self, w_supp=np.where(same, 0.0, self.w_supp))

    def interaction_matrix(self) -> Adjacency:
        """M[c, j] = w_supp(c,j) + w_supp(j,c) − w_contr(c,j) − w_contr(j,c) (symmetric)."""
        net = self.w_supp - self.w_contr
        return Adjacency.symmetric(self.n_claims, self.premise, self.hypothesis, net)

    def mass(
        self, members: np.ndarray | None = None, edge_weight: np.ndarray | None = None
    ) -> tuple[float, float]:
        """(E_supp, E_contr): summed edge weights, optionally only edges inside ``members``
        and each edge scaled by ``edge_weight`` (its relevance to the query)."""
        supp, contr = self.w_supp, self.w_contr
        if edge_weight is not None:
            supp, contr = supp * edge_weight, contr * edge_weight
        if members is None:
            return float(supp.sum()), float(contr.sum())
        inside = np.zeros(self.n_claims, dtype=bool)
        inside[members] = True
        mask = inside[self.premise] & inside[self.hypothesis]
        return float(supp[mask].sum()), float(contr[mask].sum())


def support_counts(
    graph: ClaimGraph, groups: np.ndarray, excluded: np.ndarray | None = None
) -> np.ndarray:
    """n(c): distinct other independence groups holding a claim that supports c.

    Only edges *into* c count (premise elsewhere, hypothesis c), and support from c's own
    group is no corroboration. Premises marked in ``excluded`` (claims) never count.
    """
    mask = (graph.w_supp > 0) & (groups[graph.premise] != groups[graph.hypothesis])
    if excluded is not None:
        mask &= ~excluded[graph.premise]
    if not mask.any():
        return np.zeros(graph.n_claims, dtype=np.int64)
    pairs = np.unique(np.stack([graph.hypothesis[mask], groups[graph.premise[mask]]]), axis=1)
    return np.bincount(pairs[0], minlength=graph.n_claims).astype(np.int64)


def claim_scores(
    claims: Sequence[Claim], n_support: np.ndarray, config: MirageConfig
) -> np.ndarray:
    """s(c) = log(1 + n(c)) + α·trust(dom(c)) + β·r̃(c), with r̃ min-max normalized over the
    query's claims (1.0 when scores are absent or all equal)."""
    trust = np.array([config.trust_of(c.domain) for c in claims], dtype=np.float64)
    raw = np.array([c.retrieval_score for c in claims], dtype=np.float64)
    with np.errstate(over="ignore"):
        overflow = raw.size > 0 and not np.isfinite(raw.max() - raw.min())
    if overflow:
        raw = raw / np.abs(raw).max()  # scores near ±1e308: their difference overflows
    lo, hi = (raw.min(), raw.max()) if raw.size else (0.0, 0.0)
    r_norm = (raw - lo) / (hi - lo) if hi - lo > 1e-12 else np.ones_like(raw)
    return np.log1p(n_support) + config.method.alpha * trust + config.method.beta * r_norm


@dataclass(frozen=True)
class SourcedGraph:
    """The claim graph with each claim's independence group (``groups``: an index per claim,
    equal for claims of one group) and n(c), its count of corroborating groups."""

    graph: ClaimGraph
    groups: np.ndarray
    support: np.ndarray


def build_graph(
    claims: Sequence[Claim],
    left: np.ndarray,
    right: np.ndarray,
    probs: np.ndarray,
    config: MirageConfig,
) -> SourcedGraph:
    """NLI edges of the scored pairs (``probs``: both directions, left→right first), support
    inside one independence group removed, and n(c)."""
    n = len(claims)
    m = config.method
    graph = (
        ClaimGraph.build(n, left, right, probs, m.kappa, m.contradiction_symmetry)
        if len(left)
        else ClaimGraph.empty(n)
    )
    _, groups = np.unique([c.group for c in claims], return_inverse=True)
    if config.independence != "none":
        graph = graph.without_support_within(groups)
    return SourcedGraph(graph, groups, support_counts(graph, groups))
