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

__all__ = ["CoordinatedGroup", "coordination_report", "independence_groups", "publishers_of"]


def publishers_of(
    sources: Sequence[str], domains: Sequence[str], mode: str, single_domain: str
) -> tuple[list[str], str | None]:
    """Who counts as one publisher: each passage's domain, or each document (its source) when
    the whole evidence comes from one domain and ``single_domain == "documents"`` (a
    single-publisher corpus, such as a Wikipedia dump, could never reach ``d_min`` otherwise).
    Returns the publishers and, when documents were chosen, the warning for the verdict."""
    if (
        mode != "none"
        and single_domain == "documents"
        and len(set(domains)) == 1
        and len(set(sources)) > 1
    ):
        warning = (
            f"every passage comes from {domains[0]}: each document counts as a source "
            "(single_domain='documents')"
        )
        return list(sources), warning
    return list(domains), None


def independence_groups(
    sources: Sequence[str],
    domains: Sequence[str],
    mode: str,
    embeddings: np.ndarray | None = None,
    threshold: float = 0.8,
    linkage: str = "average",
) -> list[str]:
    """A group label per passage.

    ``"none"``: every source on its own (the paper). ``"domain"``: one group per domain.
    ``"embedding"``: passages of one domain form a group, then groups are merged
    agglomeratively while the most similar pair of groups reaches ``threshold`` by
    ``linkage``: ``"average"`` (mean cosine between their passages), ``"complete"`` (the
    least similar pair) or ``"single"`` (the most similar pair).

    Why average linkage by default: single linkage chains — coverage of one story by five
    outlets has a few close pairs (A~B, B~C, ...) and collapses into one "source" although
    most pairs are far apart — while planted passages are close *on average* to each other.
    """
    n = len(sources)
    if mode == "none":
        return list(sources)
    if mode not in ("domain", "embedding"):
        raise ValueError(f"unknown independence mode {mode!r}")
    if linkage not in _LINKAGES:
        raise ValueError(f"unknown linkage {linkage!r}; expected one of {sorted(_LINKAGES)}")
    first: dict[str, int] = {}  # one publisher is one source, whatever it says
    label = np.array([first.setdefault(dom, i) for i, dom in enumerate(domains)], dtype=np.int64)
    if mode == "embedding":
        if embeddings is None:
            raise ValueError("independence='embedding' needs passage embeddings")
        _merge_near_duplicates(label, np.asarray(embeddings, np.float64), threshold, linkage)
    counts = np.bincount(label, minlength=n)
    return [
        domains[label[i]] + (f" (+{counts[label[i]] - 1})" if counts[label[i]] > 1 else "")
        for i in range(n)
    ]


def _merge_near_duplicates(
    label: np.ndarray, embeddings: np.ndarray, threshold: float, linkage: str
) -> None:
    """Agglomerate the domain groups in ``label`` (each passage's group root, the group's first
    passage) while the closest pair of groups reaches ``threshold``; updates ``label`` in place."""
    n = label.size
    sims = embeddings @ embeddings.T
    sizes = np.ones(n)
    active = np.ones(n, dtype=bool)
    update = _LINKAGES[linkage]

    def merge(a: int, b: int) -> None:  # b into a; Lance–Williams row update
        row = update(sims[a], sims[b], sizes[a], sizes[b])
        sims[a, :] = row
        sims[:, a] = row
        sizes[a] += sizes[b]
        active[b] = False
        label[label == b] = a

    for i in range(n):  # the domain groups first: the linkage then sees whole groups
        if label[i] != i:
            merge(int(label[i]), i)
    while active.sum() > 1:
        view = np.where(active[:, None] & active[None, :], sims, -np.inf)
        np.fill_diagonal(view, -np.inf)
        a, b = np.unravel_index(int(np.argmax(view)), view.shape)
        if view[a, b] < threshold:
            break
        merge(int(min(a, b)), int(max(a, b)))


def _average(a: np.ndarray, b: np.ndarray, na: float, nb: float) -> np.ndarray:
    return (na * a + nb * b) / (na + nb)


_LINKAGES = {
    "average": _average,
    "complete": lambda a, b, na, nb: np.minimum(a, b),
    "single": lambda a, b, na, nb: np.maximum(a, b),
}


@dataclass(frozen=True, slots=True)
class CoordinatedGroup:
    """A group of passages tighter than this query's evidence usually is.

    ``z`` compares the group's mean internal cosine (between its passages of different
    domains; NaN for a one-publisher group) with the median and MAD of the query's
    other passage pairs (NaN baseline when the group is all the evidence); ``tight`` means
    ``z`` reached the threshold; ``contradicts`` lists the groups its claims contradict.
    ``flagged`` means both: unusually tight *and* in conflict with other sources.
    """

    group: str
    passages: tuple[int, ...]
    mean_cosine: float
    query_median: float
    query_mad: float
    z: float
    contradicts: tuple[str, ...]
    tight: bool
    flagged: bool


def coordination_report(
    group_of_passage: Sequence[str],
    passage_ids: Sequence[int],
    embeddings: np.ndarray,
    contradicting: dict[str, set[str]],
    z_threshold: float,
    domains: Sequence[str] | None = None,
) -> list[CoordinatedGroup]:
    """Score every multi-passage group: a robust z of its internal similarity against the
    query's other passage pairs (those not both inside the group), so a group that makes up
    most of the evidence cannot set its own baseline.

    With ``domains``, internal similarity is measured over pairs of *different* domains only:
    pages of one publisher share templates and topics, and are one source anyway; a group
    of one publisher is never called coordinated."""
    n = len(group_of_passage)
    sims = embeddings @ embeddings.T
    labels = np.asarray(group_of_passage)
    iu, ju = np.triu_indices(n, k=1)
    if domains is None:
        cross_domain = np.ones(iu.size, dtype=bool)
    else:
        dom = np.asarray(domains)
        cross_domain = dom[iu] != dom[ju]
    out = []
    for group in dict.fromkeys(group_of_passage):
        inside = labels == group
        members = np.flatnonzero(inside)
        if members.size < 2:
            continue
        both = inside[iu] & inside[ju]
        internal, baseline = (
            sims[iu[both & cross_domain], ju[both & cross_domain]],
            sims[iu[~both], ju[~both]],
        )
        if internal.size == 0:  # one publisher: nothing to call coordinated
            mean, median, mad, z = float("nan"), float("nan"), float("nan"), 0.0
        elif baseline.size:
            mean = float(internal.mean())
            median = float(np.median(baseline))
            mad = float(np.median(np.abs(baseline - median))) * 1.4826
            z = (mean - median) / max(mad, 0.02)  # floor: evidence whose passages are all alike
        else:  # the group is all the evidence: nothing to compare with
            mean = float(internal.mean())
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
                tight=bool(z >= z_threshold),
                flagged=bool(z >= z_threshold and others),
            )
        )
    return out
