"""Pairing: candidate pairs of claims from different sources, by token containment overlap.

overlap(i, j) = |T_i ∩ T_j| / min(|T_i|, |T_j|), computed for all claims at once: the claims
that hold each token are paired with each other and the pairs counted
(:class:`~mirage_core.adjacency.TokenIncidence`), so only pairs that share a token appear.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mirage_core.adjacency import TokenIncidence
from mirage_core.config import MirageConfig
from mirage_core.evidence import EmbedFn, Evidence, embed_under_policy
from mirage_core.pair_budget import apply_budget, budget_cut, source_ids
from mirage_core.types import Claim

__all__ = [
    "CandidatePairs",
    "add_paraphrase_pairs",
    "build_pairs",
    "candidate_pairs",
    "pair_cosine",
    "rank_by_similarity",
]

#: A mask over candidate pairs ``(left, right)``: which to keep.
PairFilter = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: Candidate pairs :func:`candidate_pairs` holds before it cuts them to the pair budget's (a few
#: MB): fewer are left whole to the budget itself, so ordinary evidence pays nothing for the cut.
CUT_ABOVE = 1 << 16


@dataclass(frozen=True)
class CandidatePairs:
    """Undirected candidate pairs ``(left[k], right[k])`` with ``left < right``.

    ``total_cross_source`` counts every cross-source claim pair before the τ prefilter;
    ``prefiltered`` how many passed τ (plus paraphrase pairs); ``left``/``right``/``overlap``
    are what survives the budget. ``priority`` orders pairs for the budget: the overlap, or the
    embedding cosine for a paraphrase pair (or for every pair, :func:`rank_by_similarity`);
    pairs are stored in descending priority. ``is_paraphrase`` marks the pairs added by
    :func:`add_paraphrase_pairs` (``None``: none).
    """

    left: np.ndarray
    right: np.ndarray
    overlap: np.ndarray
    total_cross_source: int
    prefiltered: int
    priority: np.ndarray | None = None
    is_paraphrase: np.ndarray | None = None

    @property
    def rank_key(self) -> np.ndarray:
        return self.overlap if self.priority is None else self.priority

    @property
    def paraphrase(self) -> int:
        """How many of the pairs are paraphrase pairs."""
        return 0 if self.is_paraphrase is None else int(np.count_nonzero(self.is_paraphrase))

    def take(self, index: np.ndarray, priority: np.ndarray | None = None) -> CandidatePairs:
        """The pairs at ``index`` (in that order), with a new ``priority`` if given (aligned
        with ``index``); the counts of the whole candidate set are kept."""
        if priority is None and self.priority is not None:
            priority = self.priority[index]
        return CandidatePairs(
            self.left[index],
            self.right[index],
            self.overlap[index],
            self.total_cross_source,
            self.prefiltered,
            priority,
            None if self.is_paraphrase is None else self.is_paraphrase[index],
        )

    def __len__(self) -> int:
        return int(self.left.size)


def _overlap(sizes: np.ndarray, left: np.ndarray, right: np.ndarray, shared: np.ndarray):
    """|T_i ∩ T_j| / min(|T_i|, |T_j|) in float32 (the τ prefilter compares in float32)."""
    sizes = sizes.astype(np.float32)
    smaller = np.maximum(np.minimum(sizes[left], sizes[right]), np.float32(1.0))
    return shared.astype(np.float32) / smaller


def candidate_pairs(
    claims: Sequence[Claim],
    tau: float,
    *,
    keep: PairFilter | None = None,
    partners_per_claim: int | None = None,
) -> CandidatePairs:
    """All cross-source pairs whose overlap reaches ``tau`` (no Python loop over pairs), in
    priority order (overlap desc, then left, then right).

    ``keep`` (a mask over pairs ``(left, right)``) drops the pairs it fails as they are listed.
    With ``partners_per_claim``, the pairs held are cut, whenever they pass
    :data:`CUT_ABOVE`, to those the pair budget keeps of them
    (:func:`~mirage_core.pair_budget.budget_cut`), and pairs that no claim can keep any more
    are dropped as they are listed: :func:`~mirage_core.pair_budget.apply_budget` with that
    many partners per claim then keeps exactly the pairs it would keep of every candidate (the
    module docstring there says why), while the pairs held stay within ``CUT_ABOVE`` or
    ``partners_per_claim · n``, whichever is larger, plus one block, however many reach τ.
    ``total_cross_source`` and ``prefiltered`` count before either cut."""
    n = len(claims)
    empty = np.empty(0, dtype=np.int64)
    if n < 2:
        return CandidatePairs(empty, empty, np.empty(0), 0, 0)
    sources = source_ids(claims)
    source_sizes = np.bincount(sources)
    total_cross = int((n * n - np.sum(source_sizes.astype(np.int64) ** 2)) // 2)

    tokens = TokenIncidence.of([c.tokens for c in claims])
    lefts, rights, overlaps = [], [], []
    prefiltered = held = 0
    floor = np.full(n, -np.inf)  # per claim: below it, a pair is no longer kept by that claim
    # only pairs sharing ≥ 1 token appear; listed a run of claims at a time, each part cut to
    # the pairs that reach τ before the next, so memory follows the pairs kept, not n²
    for left, right, shared in tokens.shared_blocks():
        overlap = _overlap(tokens.sizes, left, right, shared)
        passed = (sources[left] != sources[right]) & (overlap >= tau - 1e-12)
        prefiltered += int(np.count_nonzero(passed))
        left, right, overlap = left[passed], right[passed], overlap[passed].astype(np.float64)
        if keep is not None and left.size:
            kept = keep(left, right)
            left, right, overlap = left[kept], right[kept], overlap[kept]
        if partners_per_claim is not None and left.size:
            # a pair below both of its claims' floors is out before it is sorted (most are,
            # once each claim has met enough sources)
            kept = (overlap >= floor[left]) | (overlap >= floor[right])
            left, right, overlap = left[kept], right[kept], overlap[kept]
        if not left.size:
            continue
        lefts.append(left)
        rights.append(right)
        overlaps.append(overlap)
        held += int(left.size)
        if partners_per_claim is not None and held > CUT_ABOVE:
            # what the budget keeps of the pairs so far is all it can keep of them in the end
            listed = _in_priority_order(lefts, rights, overlaps)
            kept, held_floor = budget_cut(*listed, sources, partners_per_claim)
            lefts, rights, overlaps = ([part[kept]] for part in listed)
            held = int(np.count_nonzero(kept))
            floor = np.maximum(floor, held_floor)
    left, right, overlap = _in_priority_order(lefts, rights, overlaps)
    return CandidatePairs(left, right, overlap, total_cross, prefiltered)


def _in_priority_order(
    lefts: list[np.ndarray], rights: list[np.ndarray], overlaps: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of the parts, in one array each, by overlap desc, then left, then right."""
    if not lefts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0)
    left, right, overlap = (np.concatenate(p) for p in (lefts, rights, overlaps))
    order = np.lexsort((right, left, -overlap))  # deterministic: overlap desc, then index
    return left[order], right[order], overlap[order]


def add_paraphrase_pairs(
    pairs: CandidatePairs, claims: Sequence[Claim], embeddings: np.ndarray, threshold: float
) -> CandidatePairs:
    """Add cross-source pairs whose claim embeddings have cosine ≥ ``threshold`` although
    their token overlap missed τ (paraphrased pollution). Their budget priority is the cosine."""
    n = len(claims)
    if n < 2:
        return pairs
    sources = source_ids(claims)
    sims = embeddings @ embeddings.T
    left, right = np.triu_indices(n, k=1)
    cos = sims[left, right]
    keep = (cos >= threshold) & (sources[left] != sources[right])
    if len(pairs):  # drop those already paired lexically
        have = pairs.left * n + pairs.right
        keep &= ~np.isin(left * n + right, have)
    if not keep.any():
        return pairs
    left, right, cos = left[keep], right[keep], cos[keep].astype(np.float64)
    tokens = TokenIncidence.of([c.tokens for c in claims])
    overlap = _overlap(tokens.sizes, left, right, tokens.shared_of(left, right))
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
        np.r_[np.zeros(len(pairs), dtype=bool), np.ones(left.size, dtype=bool)][order],
    )


def pair_cosine(pairs: CandidatePairs, embeddings: np.ndarray) -> np.ndarray:
    """The cosine of each pair's two claims (``embeddings``: L2-normalized rows)."""
    return np.einsum("ij,ij->i", embeddings[pairs.left], embeddings[pairs.right])


def rank_by_similarity(pairs: CandidatePairs, embeddings: np.ndarray) -> CandidatePairs:
    """The same pairs, their priority the cosine of the two claims' (L2-normalized)
    embeddings, in descending priority: the pair budget then keeps each claim's semantically
    closest partners."""
    if not len(pairs):
        return pairs
    cos = pair_cosine(pairs, embeddings).astype(np.float64)
    order = np.lexsort((pairs.right, pairs.left, -cos))
    return pairs.take(order, cos[order])


def build_pairs(
    evidence: Evidence, config: MirageConfig, embed: EmbedFn | None
) -> CandidatePairs | None:
    """Candidates by token overlap → paraphrase pairs and embedding ranking (when configured)
    → (with ``pair_relevant_only``) the pairs both of whose claims bear on the query → the pair
    budget. ``None`` when a failed claim embedding ended the query
    (``evidence.early_reason``).

    When the budget ranks the candidates as listed (:func:`_budget_reads_the_candidates`), the
    relevance filter and the per-claim budget cut them while they are listed: the same pairs
    come out, but hostile evidence with millions of candidates is paired in bounded memory."""
    t0 = time.perf_counter()
    embed_before = evidence.timings.get("embed", 0.0)
    m = config.method
    claims = evidence.claims
    relevant = _relevant_pairs(evidence, config)
    in_stream = _budget_reads_the_candidates(config, embed)
    if in_stream:
        pairs = candidate_pairs(
            claims, m.tau, keep=relevant, partners_per_claim=config.partners_per_claim
        )
    else:
        pairs = candidate_pairs(claims, m.tau)
    vectors = None
    rank_by_embedding = m.partner_ranking == "embedding" and config.partners_per_claim
    wanted = m.paraphrase_pairs or rank_by_embedding or m.paraphrase_support is not None
    if wanted and embed is not None:
        vectors = embed_under_policy(embed, [c.text for c in claims], config, evidence)
        if evidence.early_reason is not None:
            return None
        evidence.claim_embeddings = vectors
        if vectors is not None and m.paraphrase_pairs:
            pairs = add_paraphrase_pairs(pairs, claims, vectors, m.paraphrase_threshold)
        if vectors is not None and rank_by_embedding:
            pairs = rank_by_similarity(pairs, vectors)
    if relevant is not None and not in_stream and len(pairs):
        pairs = pairs.take(np.flatnonzero(relevant(pairs.left, pairs.right)))
    exempt = None
    if m.paraphrase_budget == "exempt" and vectors is not None and len(pairs):
        # every close pair, lexical or added, is read: paraphrase support vouches with these
        exempt = pair_cosine(pairs, vectors) >= m.paraphrase_threshold
    pairs = apply_budget(
        pairs, claims, config.partners_per_claim, config.max_pairs, evidence.relevance, exempt
    )
    claim_embed = evidence.timings.get("embed", 0.0) - embed_before
    evidence.timings["pairs"] = time.perf_counter() - t0 - claim_embed
    return pairs


def _budget_reads_the_candidates(config: MirageConfig, embed: EmbedFn | None) -> bool:
    """Whether the per-claim budget will rank exactly the token-overlap candidates, in their
    own order, less the pairs a per-pair filter drops: then it can be applied as they are
    listed. Not with no per-claim budget, nor where claim embeddings change what it ranks:
    paraphrase pairs add pairs, embedding ranking reorders them, and ``"exempt"`` keeps pairs
    beyond it (without an embedder none of these happens)."""
    if config.partners_per_claim is None:
        return False
    m = config.method
    reshaped = m.paraphrase_pairs or m.partner_ranking == "embedding"
    return embed is None or not (reshaped or m.paraphrase_budget == "exempt")


def _relevant_pairs(evidence: Evidence, config: MirageConfig) -> PairFilter | None:
    """With ``pair_relevant_only``, the mask of the pairs whose less relevant claim weighs more
    than ``pair_min_relevance`` (a pair weighs in r_contr by its less relevant claim: at 0 it can
    never decide a verdict); ``None`` when every pair is read."""
    m = config.method
    if not m.pair_relevant_only or evidence.relevance is None:
        return None
    rel, floor = evidence.relevance, m.pair_min_relevance
    return lambda left, right: np.minimum(rel[left], rel[right]) > floor
