"""Selection: greedy maximization of F(S) = Σ s(c) + Σ_{edges in S} (w_supp − w_contr).

With ``corroborated_only`` set, where independent sources corroborate enough of the evidence,
only what they corroborate is delivered: ``"selection"`` picks S* among the corroborated claims
alone (:func:`select_claims`), ``"delivery"`` keeps the gate's S* and delivers its corroborated
part (:func:`corroborated_part`). Evidence too short for corroboration keeps S* as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from mirage_core.adjacency import Adjacency
from mirage_core.config import MirageConfig
from mirage_core.corroboration import Corroboration, selection_corroborates
from mirage_core.graph import SourcedGraph, claim_scores
from mirage_core.sources import reaches_d_min
from mirage_core.types import Claim

__all__ = ["Selection", "greedy_select", "select_claims"]


class Selection(NamedTuple):
    """S* in pick order, s(c) of every claim, and whether S* holds corroborated claims only
    (``corroborated_only="selection"``)."""

    selected: list[int]
    scores: np.ndarray
    corroborated: bool = False


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
    corroboration: Corroboration | None,
    quarantined: np.ndarray,
) -> Selection:
    """S*: claims with ``min_support`` corroborating groups that the quarantine ``allowed``,
    picked greedily. Corroboration is n(c) (NLI support), or with ``paraphrase_support`` /
    ``fact_coverage`` set, ``corroboration``
    (:func:`~mirage_core.corroboration.configured_corroboration`). Under
    ``corroborated_only="selection"``, the S* picked among corroborated claims alone wins when
    the sources behind it (its own and its corroborators', never a ``quarantined`` passage's)
    reach ``d_min``."""
    scores = claim_scores(claims, sourced.support, config)
    support = sourced.support
    if selection_corroborates(config):
        support = _needed(corroboration).counts
    eligible = (support >= config.min_support) & allowed
    interaction = sourced.graph.interaction_matrix()
    if config.method.corroborated_only == "selection":
        vouched = _needed(corroboration).vouched(quarantined)
        first = greedy_select(scores, interaction, eligible & vouched)
        if reaches_d_min(claims, first, quarantined, config, corroboration):
            return Selection(first, scores, corroborated=True)
    return Selection(greedy_select(scores, interaction, eligible), scores)


def _needed(corroboration: Corroboration | None) -> Corroboration:
    if corroboration is None:
        raise ValueError("corroboration by paraphrase or fact coverage needs corroboration")
    return corroboration
