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

    ``z`` compares the group's mean internal cosine with the median and MAD of every passage
    pair of the query; ``contradicts`` lists the groups its claims contradict. ``flagged``
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
    """Score every multi-passage group; robust z of its tightness against the query's spread."""
    n = len(group_of_passage)
    if n < 3:
        return []
    sims = embeddings @ embeddings.T
    iu = np.triu_indices(n, k=1)
    all_pairs = sims[iu]
    median = float(np.median(all_pairs))
    mad = float(np.median(np.abs(all_pairs - median))) * 1.4826
    labels = np.asarray(group_of_passage)
    out = []
    for group in dict.fromkeys(group_of_passage):
        members = np.flatnonzero(labels == group)
        if members.size < 2:
            continue
        sub = sims[np.ix_(members, members)][np.triu_indices(members.size, k=1)]
        mean = float(sub.mean())
        z = (mean - median) / max(mad, 0.02)  # floor: a query whose passages are all alike
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
