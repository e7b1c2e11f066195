"""Source independence: which passages count as one source, and which groups look coordinated.

PoisonedRAG-style attacks plant several passages written together that push one falsehood;
they corroborate each other, so majority-by-documents selects them. Two signals separate them
from independent sources: the same publisher (domain), and near-duplicate wording (sentence
embeddings with cosine ≥ a threshold). Passages linked by either form one *independence group*;
n(c) and d_src count groups, and support inside a group is no corroboration.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mirage_core.types import UNSOURCED

__all__ = ["independence_groups", "publishers_of"]


def publishers_of(
    sources: Sequence[str], domains: Sequence[str], mode: str, single_domain: str
) -> tuple[list[str], str | None]:
    """Who counts as one publisher: each passage's domain, or each document (its source) when
    the whole evidence comes from one domain and ``single_domain == "documents"`` (a
    single-publisher corpus, such as a Wikipedia dump, could never reach ``d_min`` otherwise).
    Returns the publishers and, when documents were chosen, the warning for the verdict.
    Passages without a source (:data:`~mirage_core.types.UNSOURCED`) stay one publisher."""
    if (
        mode != "none"
        and single_domain == "documents"
        and len(set(domains)) == 1
        and domains[0] != UNSOURCED
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

    ``"none"``: every source on its own (the published method). ``"domain"``: one group per domain.
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
