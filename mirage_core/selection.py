"""Selection: greedy maximization of F(S) = Σ s(c) + Σ_{edges in S} (w_supp − w_contr).

With ``corroborated_first`` the greedy pass runs first over the corroborated claims alone: where
independent sources corroborate enough of the evidence, only what they corroborate is
delivered, and evidence too short for corroboration keeps the selection under ``min_support``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from mirage_core.adjacency import Adjacency
from mirage_core.config import MirageConfig
from mirage_core.corroboration import Corroboration, selection_corroborates
from mirage_core.graph import SourcedGraph, claim_scores
from mirage_core.sources import source_count
from mirage_core.types import Claim

__all__ = ["Selection", "greedy_select", "select_claims"]


class Selection(NamedTuple):
    """S* in pick order, s(c) of every claim, and whether S* holds corroborated claims only
    (chosen by ``corroborated_first``)."""

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
    corroboration: Corroboration | None = None,
    quarantined: np.ndarray | None = None,
) -> Selection:
    """S*: claims with ``min_support`` corroborating groups that the quarantine ``allowed``,
    picked greedily. Corroboration is n(c) (NLI support), or with ``paraphrase_support`` /
    ``fact_coverage`` set, ``corroboration``
    (:func:`~mirage_core.corroboration.configured_corroboration`). With ``corroborated_first``,
    the S* picked among corroborated claims alone wins when the sources behind it (its own and
    its corroborators', never a ``quarantined`` passage's) reach ``d_min``."""
    scores = claim_scores(claims, sourced.support, config)
    support = sourced.support
    needs_corroboration = selection_corroborates(config) or config.method.corroborated_first
    if needs_corroboration and corroboration is None:
        raise ValueError("corroboration by paraphrase or fact coverage needs corroboration")
    if selection_corroborates(config):
        assert corroboration is not None
        support = corroboration.counts
    eligible = (support >= config.min_support) & allowed
    interaction = sourced.graph.interaction_matrix()
    if config.method.corroborated_first:
        assert corroboration is not None
        planted = np.zeros(len(claims), dtype=bool) if quarantined is None else quarantined
        # corroborated by a passage the quarantine kept: a planted one vouches for nothing
        vouched = np.zeros(len(claims), dtype=bool)
        vouched[corroboration.hypothesis[~planted[corroboration.premise]]] = True
        first = greedy_select(scores, interaction, eligible & vouched)
        backing = source_count(claims, first, planted, config, corroboration, "corroborating")
        if first and backing >= config.d_min:
            return Selection(first, scores, corroborated=True)
    return Selection(greedy_select(scores, interaction, eligible), scores)
