"""Stage 2: candidate pairs of claims from different sources, by token containment overlap.

overlap(i, j) = |T_i ∩ T_j| / min(|T_i|, |T_j|), computed for all claims at once from a sparse
token-incidence matrix X (claims × vocabulary): X·Xᵀ holds every intersection size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from mirage_core.types import Claim

__all__ = ["CandidatePairs", "add_paraphrase_pairs", "apply_budget", "candidate_pairs"]


@dataclass(frozen=True)
class CandidatePairs:
    """Undirected candidate pairs ``(left[k], right[k])`` with ``left < right``.

    ``total_cross_source`` counts every cross-source claim pair before the τ prefilter;
    ``prefiltered`` how many passed τ (plus paraphrase pairs); ``left``/``right``/``overlap``
    are what survives the budget. ``priority`` orders pairs for the budget: the overlap, or the
    embedding cosine for a paraphrase pair; pairs are stored in descending priority.
    """

    left: np.ndarray
    right: np.ndarray
    overlap: np.ndarray
    total_cross_source: int
    prefiltered: int
    priority: np.ndarray | None = None
    paraphrase: int = 0

    @property
    def rank_key(self) -> np.ndarray:
        return self.overlap if self.priority is None else self.priority

    def __len__(self) -> int:
        return int(self.left.size)


def _incidence(claims: Sequence[Claim]) -> sparse.csr_matrix:
    vocab: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    for claim in claims:
        indices.extend(vocab.setdefault(tok, len(vocab)) for tok in claim.tokens)
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return sparse.csr_matrix(
        (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
        shape=(len(claims), max(len(vocab), 1)),
    )


def candidate_pairs(claims: Sequence[Claim], tau: float) -> CandidatePairs:
    """All cross-source pairs whose overlap reaches ``tau`` (no Python loop over pairs)."""
    n = len(claims)
    empty = np.empty(0, dtype=np.int64)
    if n < 2:
        return CandidatePairs(empty, empty, np.empty(0), 0, 0)
    _, source_ids = np.unique([c.source for c in claims], return_inverse=True)
    source_sizes = np.bincount(source_ids)
    total_cross = int((n * n - np.sum(source_sizes.astype(np.int64) ** 2)) // 2)

    x = _incidence(claims)
    sizes = np.asarray(x.sum(axis=1)).ravel()
    inter = sparse.triu(x @ x.T, k=1).tocoo()  # only pairs sharing ≥ 1 token appear
    left, right, shared = inter.row.astype(np.int64), inter.col.astype(np.int64), inter.data
    overlap = shared / np.maximum(np.minimum(sizes[left], sizes[right]), 1.0)
    keep = (source_ids[left] != source_ids[right]) & (overlap >= tau - 1e-12)
    left, right, overlap = left[keep], right[keep], overlap[keep].astype(np.float64)
    order = np.lexsort((right, left, -overlap))  # deterministic: overlap desc, then index
    left, right, overlap = left[order], right[order], overlap[order]
    return CandidatePairs(left, right, overlap, total_cross, int(left.size))


def apply_budget(
    pairs: CandidatePairs,
    claims: Sequence[Claim],
    pairs_per_claim: int | None,
    max_pairs: int | None,
) -> CandidatePairs:
    """Bound the NLI work of a query to ``min(max_pairs, pairs_per_claim * n_claims)`` pairs.

    Priority: for every claim, its best (highest-overlap) partner in each other source; then
    every other pair by overlap. Within each tier pairs are ordered by overlap, so the budget
    cuts the least lexically related pairs first.
    """
    limits = [
        b
        for b in (max_pairs, None if pairs_per_claim is None else pairs_per_claim * len(claims))
        if b is not None
    ]
    if not limits or len(pairs) <= min(limits):
        return pairs
    budget = min(limits)
    _, source_ids = np.unique([c.source for c in claims], return_inverse=True)
    n_sources = int(source_ids.max()) + 1
    m = len(pairs)
    # Each undirected pair seen from both ends: (claim, partner's source) groups.
    ends = np.concatenate([pairs.left, pairs.right])
    partner_src = np.concatenate([source_ids[pairs.right], source_ids[pairs.left]])
    pair_id = np.concatenate([np.arange(m), np.arange(m)])
    group = ends * n_sources + partner_src
    # Pairs are already sorted by priority desc, so the first occurrence per group is its best.
    order = np.argsort(group, kind="stable")
    first = np.ones(order.size, dtype=bool)
    first[1:] = group[order][1:] != group[order][:-1]
    preferred = np.zeros(m, dtype=bool)
    preferred[pair_id[order][first]] = True
    tier = np.where(preferred, 0, 1)
    ranked = np.lexsort((np.arange(m), tier))[:budget]  # stable within tier = overlap order
    ranked.sort()  # back to priority order
    return CandidatePairs(
        pairs.left[ranked],
        pairs.right[ranked],
        pairs.overlap[ranked],
        pairs.total_cross_source,
        pairs.prefiltered,
        None if pairs.priority is None else pairs.priority[ranked],
        int(np.count_nonzero(pairs.overlap[ranked] < pairs.rank_key[ranked])),
    )


def add_paraphrase_pairs(
    pairs: CandidatePairs, claims: Sequence[Claim], embeddings: np.ndarray, threshold: float
) -> CandidatePairs:
    """Add cross-source pairs whose claim embeddings have cosine ≥ ``threshold`` although
    their token overlap missed τ (paraphrased pollution). Their budget priority is the cosine."""
    n = len(claims)
    if n < 2:
        return pairs
    _, source_ids = np.unique([c.source for c in claims], return_inverse=True)
    sims = embeddings @ embeddings.T
    left, right = np.triu_indices(n, k=1)
    cos = sims[left, right]
    keep = (cos >= threshold) & (source_ids[left] != source_ids[right])
    if len(pairs):  # drop those already paired lexically
        have = pairs.left * n + pairs.right
        keep &= ~np.isin(left * n + right, have)
    if not keep.any():
        return pairs
    left, right, cos = left[keep], right[keep], cos[keep].astype(np.float64)
    x = _incidence(claims)
    sizes = np.asarray(x.sum(axis=1)).ravel()
    shared = np.asarray(x[left].multiply(x[right]).sum(axis=1)).ravel()
    overlap = shared / np.maximum(np.minimum(sizes[left], sizes[right]), 1.0)
    all_left = np.concatenate([pairs.left, left])
    all_right = np.concatenate([pairs.right, right])
    all_overlap = np.concatenate([pairs.overlap, overlap])
    priority = np.concatenate([pairs.rank_key, cos])
    order = np.lexsort((all_right, all_left, -priority))
    return CandidatePairs(
        all_left[order],
        all_right[order],
        all_overlap[order],
        pairs.total_cross_source,
        pairs.prefiltered + int(left.size),
        priority[order],
        int(left.size),
    )
