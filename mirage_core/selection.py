"""Selection: greedy maximization of F(S) = Σ s(c) + Σ_{edges in S} (w_supp − w_contr)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mirage_core.adjacency import Adjacency
from mirage_core.config import MirageConfig
from mirage_core.corroboration import Corroboration, selection_corroborates
from mirage_core.graph import SourcedGraph, claim_scores
from mirage_core.types import Claim

__all__ = ["greedy_select", "select_claims"]


def greedy_select(
    scores: np.ndarray, interaction: Adjacency, eligible: np.ndarray | None = None
) -> list[int]:
    """Pick claims in order of largest marginal gain until no gain is positive.

    Δ(c|S) = s(c) + Σ_{j∈S} M[c, j]. The gain vector is kept and updated with one adjacency
    row per pick, so the whole selection costs O(n + edges) numpy work per pick. Ties go to the
    lower claim index (``argmax`` takes the first).
    """
    gain = np.asarray(scores, dtype=np.float64).copy()
    available = np.ones(gain.size, dtype=bool) if eligible is None else eligible.astype(bool).copy()
    picked: list[int] = []
    while available.any():
        masked = np.where(available & ~np.isnan(gain), gain, -np.inf)  # NaN is never a gain
        best = int(np.argmax(masked))
        if masked[best] <= 0:
            break
        picked.append(best)
        available[best] = False
        neighbours, weights = interaction.row(best)
        gain[neighbours] += weights
    return picked


def select_claims(
    claims: Sequence[Claim],
    sourced: SourcedGraph,
    allowed: np.ndarray,
    config: MirageConfig,
    corroboration: Corroboration | None = None,
) -> tuple[list[int], np.ndarray]:
    """``(S* in pick order, s(c))``: claims with ``min_support`` corroborating groups that the
    quarantine ``allowed``, picked greedily. Corroboration is n(c) (NLI support), or with
    ``paraphrase_support`` / ``fact_coverage`` set, ``corroboration``
    (:func:`~mirage_core.corroboration.configured_corroboration`)."""
    scores = claim_scores(claims, sourced.support, config)
    support = sourced.support
    if selection_corroborates(config):
        if corroboration is None:
            raise ValueError("min_support with paraphrase or fact coverage needs corroboration")
        support = corroboration.counts
    eligible = (support >= config.min_support) & allowed
    return greedy_select(scores, sourced.graph.interaction_matrix(), eligible), scores
