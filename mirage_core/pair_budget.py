"""The NLI pair budget: each claim keeps its best ``m`` partners, so NLI work grows with the
number of claims, not with its square.

Candidate pairs (:mod:`mirage_core.pairs`) grow quadratically with the evidence: on real web
passages the τ prefilter keeps ×134 more pairs for ×10 more passages. What the graph needs is
a few good comparisons per claim — is it corroborated, is it contradicted — not all of them.
So every claim ranks its candidate partners and keeps the first ``partners_per_claim``:

1. its best partner in each *other source* first (corroboration counts independent sources,
   so a second partner from a source already compared with adds the least), then
2. the rest by the pair's priority: token overlap (the cosine for a paraphrase pair), or with
   ``partner_ranking="embedding"`` the cosine of the two claims' sentence embeddings.

A pair is kept when either of its claims keeps it, so a query with ``n`` claims sends at most
``m · n`` pairs to NLI (``2 · m · n`` directed). ``max_pairs`` then caps the query's total,
keeping the pairs whose claims are most relevant to the query first (the gate weighs a conflict
by the lower relevance of its two claims, so those are the pairs that can decide a verdict).
Both directions of a kept pair are still scored. All of it is vectorized over pairs.

The per-claim budget can be applied while the candidates are listed
(:func:`~mirage_core.pairs.candidate_pairs` with ``partners_per_claim``), holding only what it
keeps of the pairs listed so far, and still keep exactly the pairs it keeps of all of them,
because with the pairs' priority order fixed:

* a pair it leaves out of some pairs, it leaves out of any set holding them: more pairs only
  put more partners before it at each of its claims (a partner source's first pair can only
  be replaced by a better one, and the sources met before it only grow in number), so neither
  of its ranks falls;
* of any set between the pairs it keeps of a larger set and that set, it keeps the same
  pairs: at each claim its chosen pairs are still there, each still the first of its partner
  source where it was, and every other pair still ranks after them.

So what the claims keep of the pairs seen so far is all that can matter of them, and the pairs
held stay at most ``m · n`` plus one listing block, however many the candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from mirage_core.types import Claim

if TYPE_CHECKING:  # pairs.build_pairs applies the budget: no import at run time
    from mirage_core.pairs import CandidatePairs

__all__ = ["apply_budget", "budget_cut", "partner_ranks", "source_ids"]


def source_ids(claims: Sequence[Claim]) -> np.ndarray:
    """Each claim's source as a small integer (the sources numbered in sorted order)."""
    if not claims:
        return np.empty(0, dtype=np.int64)
    _, ids = np.unique([c.source for c in claims], return_inverse=True)
    return ids.astype(np.int64)


def partner_ranks(pairs: CandidatePairs, claims: Sequence[Claim]) -> np.ndarray:
    """``(len(pairs), 2)`` array: the rank of each pair among the partners of its left and of
    its right claim (0 = that claim's first choice), in the order of the module docstring."""
    rank, _ = _ranks(pairs.left, pairs.right, source_ids(claims))
    return rank


def budget_cut(
    left: np.ndarray,
    right: np.ndarray,
    priority: np.ndarray,
    sources: np.ndarray,
    partners_per_claim: int,
) -> tuple[np.ndarray, np.ndarray]:
    """For the pairs ``(left[k], right[k])``, listed in descending ``priority`` (then by
    index), of claims from ``sources`` (a source id per claim): the mask of the pairs either
    claim keeps among its best ``partners_per_claim``, and a floor per claim. A pair of claim
    ``c`` whose priority is below ``floor[c]`` is not kept by ``c`` from these pairs or any set
    holding them: the first pairs of ``c``'s best ``partners_per_claim`` partner sources all
    rank before it (``-inf`` where ``c`` has fewer partner sources)."""
    floor = np.full(sources.size, -np.inf)
    rank, tier = _ranks(left, right, sources)
    if rank.size:
        # tier 0 ranks first: a first pair at rank m − 1 is the m-th partner source's
        ends = np.concatenate([left, right])
        last = np.flatnonzero((tier == 0) & (rank.T.ravel() == partners_per_claim - 1))
        floor[ends[last]] = priority[last % left.size]
    return rank.min(axis=1) < partners_per_claim, floor


def _ranks(
    left: np.ndarray, right: np.ndarray, source_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`partner_ranks` of the pairs ``(left[k], right[k])``, listed in priority order,
    and the tier of each rank (0: the pair is the first of its partner source; ``2 · k``
    values, each pair from its left claim, then each from its right)."""
    m = int(left.size)
    if m == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    n_sources = int(source_ids.max()) + 1
    # Each undirected pair seen from both of its claims.
    ends = np.concatenate([left, right])
    partner_src = np.concatenate([source_ids[right], source_ids[left]])
    position = np.concatenate([np.arange(m), np.arange(m)])  # pairs are in priority order
    # Tier 0: the first (best) pair of each (claim, partner source) group; tier 1: the rest.
    group = ends * n_sources + partner_src
    order = np.lexsort((position, group))
    first = np.ones(order.size, dtype=bool)
    first[1:] = group[order][1:] != group[order][:-1]
    tier = np.ones(order.size, dtype=np.int64)
    tier[order[first]] = 0
    # Rank within each claim: by tier, then priority (position).
    order = np.lexsort((position, tier, ends))
    sorted_ends = ends[order]
    starts = np.flatnonzero(np.r_[True, sorted_ends[1:] != sorted_ends[:-1]])
    run_start = np.repeat(starts, np.diff(np.r_[starts, sorted_ends.size]))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size) - run_start
    return np.stack([rank[:m], rank[m:]], axis=1), tier


def apply_budget(
    pairs: CandidatePairs,
    claims: Sequence[Claim],
    partners_per_claim: int | None,
    max_pairs: int | None,
    relevance: np.ndarray | None = None,
    exempt: np.ndarray | None = None,
) -> CandidatePairs:
    """Keep each claim's best ``partners_per_claim`` pairs and the pairs ``exempt`` marks (a
    mask over the pairs), then at most ``max_pairs`` pairs, the most query-relevant first
    (``relevance``: one value per claim; ``None`` = priority order). ``None`` disables either
    limit; with both ``None`` the input is returned as is. The kept pairs stay in priority
    order."""
    if len(pairs) == 0 or (partners_per_claim is None and max_pairs is None):
        return pairs
    keep = np.ones(len(pairs), dtype=bool)
    if partners_per_claim is not None:
        keep = partner_ranks(pairs, claims).min(axis=1) < partners_per_claim
        if exempt is not None:
            keep |= exempt
    kept = np.flatnonzero(keep)
    if max_pairs is not None and kept.size > max_pairs:
        if relevance is None:
            kept = kept[:max_pairs]
        else:
            pair_relevance = np.minimum(relevance[pairs.left[kept]], relevance[pairs.right[kept]])
            # Stable: among equally relevant pairs, priority order decides.
            kept = np.sort(kept[np.argsort(-pair_relevance, kind="stable")[:max_pairs]])
    if kept.size == len(pairs):
        return pairs
    return pairs.take(kept)
