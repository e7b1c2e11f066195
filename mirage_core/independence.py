"""Source independence: which passages count as one source, and which groups look coordinated.

PoisonedRAG-style attacks plant several passages written together that push one falsehood;
they corroborate each other, so majority-by-documents selects them. Two signals separate them
from independent sources: the same publisher (domain), and near-duplicate wording (sentence
embeddings with cosine ≥ a threshold). Passages linked by either form one *independence group*;
n(c) and d_src count groups, and support inside a group is no corroboration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

__all__ = ["CoordinatedGroup", "coordination_report", "independence_groups"]


def independence_groups(
    sources: Sequence[str],
    domains: Sequence[str],
    mode: str,
    embeddings: np.ndarray | None = None,
    threshold: float = 0.8,
) -> list[str]:
    """A group label per passage.

    ``"none"``: every source on its own (the paper). ``"domain"``: one group per domain.
    ``"embedding"``: connected components of "same domain or cosine ≥ threshold".
    """
    n = len(sources)
    if mode == "none":
        return list(sources)
    _, dom_ids = np.unique(list(domains), return_inverse=True)
    same = dom_ids[:, None] == dom_ids[None, :]
    if mode == "embedding":
        if embeddings is None:
            raise ValueError("independence='embedding' needs passage embeddings")
        same = same | (embeddings @ embeddings.T >= threshold)
    elif mode != "domain":
        raise ValueError(f"unknown independence mode {mode!r}")
    _, comp = connected_components(sparse.csr_matrix(same), directed=False)
    first: dict[int, int] = {}
    sizes = np.bincount(comp)
    labels = []
    for i in range(n):
        root = first.setdefault(int(comp[i]), i)
        extra = sizes[comp[i]] - 1
        labels.append(domains[root] + (f" (+{extra})" if extra else ""))
    return labels


@dataclass(frozen=True, slots=True)
class CoordinatedGroup:
    """A group of passages tighter than this query's evidence usually is.

    ``z`` compares the group's mean internal cosine with the median and MAD of the query's
    other passage pairs (NaN baseline when the group is all the evidence); ``contradicts`` lists the groups its claims contradict. ``flagged``
    means both: unusually tight *and* in conflict with other sources.
    """

    group: str
    passages: tuple[int, ...]
    mean_cosine: float
    query_median: float
    query_mad: float
    z: float
    contradicts: tuple[str, ...]
    flagged: bool


def coordination_report(
    group_of_passage: Sequence[str],
    passage_ids: Sequence[int],
    embeddings: np.ndarray,
    contradicting: dict[str, set[str]],
    z_threshold: float,
) -> list[CoordinatedGroup]:
    """Score every multi-passage group: a robust z of its internal similarity against the
    query's other passage pairs (those not both inside the group), so a group that makes up
    most of the evidence cannot set its own baseline."""
    n = len(group_of_passage)
    sims = embeddings @ embeddings.T
    labels = np.asarray(group_of_passage)
    iu, ju = np.triu_indices(n, k=1)
    out = []
    for group in dict.fromkeys(group_of_passage):
        inside = labels == group
        members = np.flatnonzero(inside)
        if members.size < 2:
            continue
        both = inside[iu] & inside[ju]
        internal, baseline = sims[iu[both], ju[both]], sims[iu[~both], ju[~both]]
        mean = float(internal.mean())
        if baseline.size:
            median = float(np.median(baseline))
            mad = float(np.median(np.abs(baseline - median))) * 1.4826
            z = (mean - median) / max(mad, 0.02)  # floor: evidence whose passages are all alike
        else:  # the group is all the evidence: nothing to compare with
            median, mad, z = float("nan"), float("nan"), 0.0
        others = tuple(sorted(contradicting.get(group, set())))
        out.append(
            CoordinatedGroup(
                group=group,
                passages=tuple(int(passage_ids[m]) for m in members),
                mean_cosine=round(mean, 4),
                query_median=round(median, 4),
                query_mad=round(mad, 4),
                z=round(float(z), 3),
                contradicts=others,
                flagged=bool(z >= z_threshold and others),
            )
        )
    return out
