"""Redundancy filter: hold back the mutually most similar passages before evidence is delivered.

A gate rule beside the coordination signals (:mod:`mirage_core.coordination`). Those flag a
group of passages as planted and quarantine it; a passage the signals miss, or one that only
part of a planted group's signals fire on, still reaches the answer once the gate passes. This
filter is RAGDefender's (Kim et al., ACSAC 2025; MIT) two-stage estimate, run on the engine's
own passage embeddings: it estimates how many passages are adversarial, takes that many of the
most mutually similar ones out of the *delivered* evidence (a claim an independent page
outside them supports stays: :func:`hold_back`), and blocks only when nothing verified
remains. It decides nothing about the gate: r_contr and d_src are the gate's figures before
the filter, and the verdict lists what was held back. Off by default (measured trade:
``docs/independence.md``).

**Stage 1 — how many passages are adversarial** (``N_adv``), by task type
(``MirageConfig.redundancy_filter``):

- ``"single_hop"`` (clustering-based grouping, the paper's §4.1 Eq. 1–2): an agglomerative
  2-cluster split of the passages' sentence embeddings (Ward linkage, Euclidean, scikit-learn)
  and a TF-IDF vote — the ``m`` = 5 terms with the highest summed TF-IDF over the passages
  (English stop words removed), and ``N_TF-IDF`` = the passages containing more than ⌊m/2⌋ of
  them. ``N_adv`` is the smaller cluster's size when the vote stays within half the passages,
  else the larger cluster's.
- ``"multi_hop"`` (concentration-based grouping): each passage's mean and (lower) median cosine
  to all passages, compared with their means over the passages; the count of passages above
  either mark, flipped to its complement unless mean < median — exactly the artifact's
  computation.

**Stage 2 — which ones** (§4.2, Eq. 4–7): the ``max(1, C(N_adv, 2))`` most similar passage
pairs each add ``sgn(sim)·|sim|^p`` (p = 2) to both passages' frequency score; the ``N_adv``
passages with the highest scores are held back (ties: lower index first).

Re-implemented from the RAGDefender paper and its artifact (github.com/SecAI-Lab/RAGDefender:
``artifacts/main.py`` and the ``ragdefender`` package's ``grouping`` / ``identification``
modules), with scikit-learn where the artifact uses it. Kept as in the artifact: the TF-IDF
term presence test is a substring test, and the medians are torch's lower medians. One
departure, ``case_sensitive=False`` by default: the artifact tests the (lowercase) terms
against the raw passage, which works there because its poisons start with the lowercase
question, but misses every capitalized name in passages that do not (on 30 PoisonedRAG NQ
queries, gold + five poisons: the vote then undercounts and N_adv = 1 in 17 of 30); the paper's
Eq. 1 counts passages that *contain* the terms, so the test here is on the lowercased passage
(``case_sensitive=True`` restores the artifact's test).
The same functions are the ``ragdefender`` baseline of ``mirage bench``
(:mod:`mirage_core.evaluation.baselines.ragdefender`), so the baseline and the filter are one
implementation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mirage_core.graph import ClaimGraph
from mirage_core.quarantine import claims_of, outside_support
from mirage_core.types import Claim

__all__ = [
    "TASK_TYPES",
    "estimate_n_adv",
    "hold_back",
    "n_tfidf",
    "redundant_passages",
    "require_sklearn",
    "select_most_similar",
]

TASK_TYPES: tuple[str, ...] = ("single_hop", "multi_hop")
#: Fewer passages than this are never filtered: a 2-cluster split of two passages always
#: finds a one-passage "minority" (the coordination signals' floor is the same).
MIN_PASSAGES = 3


def _sklearn() -> Any:
    try:
        from sklearn.cluster import AgglomerativeClustering
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "RAGDefender's single-hop estimate (MirageConfig.redundancy_filter='single_hop', "
            "the ragdefender baseline of mirage bench) needs scikit-learn: "
            "pip install scikit-learn, or the [bench] extra"
        ) from exc
    return AgglomerativeClustering, ENGLISH_STOP_WORDS, TfidfVectorizer


def require_sklearn() -> None:
    """Raise the filter's ImportError now when scikit-learn is missing (``"single_hop"``)."""
    _sklearn()


def _lower_median(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """torch.median: the lower of the two middle values for an even count."""
    s = np.sort(x, axis=axis)
    n = s.shape[axis] if axis is not None else s.size
    k = (n - 1) // 2
    return np.take(s, k, axis=axis) if axis is not None else s.reshape(-1)[k]


def n_tfidf(texts: Sequence[str], m: int = 5, case_sensitive: bool = False) -> int:
    """Eq. 1: passages holding more than ⌊m/2⌋ of the top-``m`` summed-TF-IDF terms."""
    _, stop, vectorizer = _sklearn()
    tfidf = vectorizer(stop_words=list(stop))
    try:
        x = tfidf.fit_transform(list(texts))
    except ValueError:  # empty vocabulary (only stop words): no vote
        return 0
    names = tfidf.get_feature_names_out()
    totals = np.asarray(x.sum(axis=0)).ravel()
    order = sorted(range(len(names)), key=lambda i: (-totals[i], names[i]))[:m]
    top = [names[i] for i in order]
    need = math.floor(len(top) / 2)
    seen = texts if case_sensitive else [t.lower() for t in texts]
    return sum(sum(w in t for w in top) > need for t in seen)


def _concentration(embeddings: np.ndarray) -> int:
    emb = np.asarray(embeddings, np.float64)
    cos = emb @ emb.T
    n = cos.shape[0]
    avg = cos.mean(axis=0)
    med = _lower_median(cos, axis=0)
    avg_avg = float(avg.mean())
    avg_median = float(_lower_median(med))
    final = (avg > avg_avg) | (med > (avg_median + avg_avg) / 2)
    count = int(final.sum())
    return count if count > 0 and avg_avg < avg_median else n - count


def estimate_n_adv(
    texts: Sequence[str],
    embeddings: np.ndarray,
    task_type: str = "single_hop",
    m: int = 5,
    case_sensitive: bool = False,
) -> int:
    """Stage 1: how many of ``texts`` look adversarial (0 for fewer than two)."""
    if task_type not in TASK_TYPES:
        raise ValueError(f"task_type must be one of {list(TASK_TYPES)}, got {task_type!r}")
    n = len(texts)
    if n < 2:
        return 0
    if task_type == "multi_hop":
        return _concentration(embeddings)
    agglomerative, _, _ = _sklearn()
    labels = agglomerative(n_clusters=2).fit(np.asarray(embeddings, np.float64)).labels_
    n1 = int(labels.sum())
    if n1 > 0 and n_tfidf(texts, m, case_sensitive) <= n // 2:
        return min(n1, n - n1)
    return max(n1, n - n1)


def select_most_similar(n_adv: int, embeddings: np.ndarray, p: int = 2) -> list[int]:
    """Stage 2: indices of the ``n_adv`` passages with the highest frequency score, best first."""
    emb = np.asarray(embeddings, np.float64)
    n = emb.shape[0]
    if n_adv <= 0 or n == 0:
        return []
    if n_adv >= n:
        return list(range(n))
    sims = emb @ emb.T
    iu, ju = np.triu_indices(n, k=1)
    vals = sims[iu, ju]
    order = sorted(range(vals.size), key=lambda k: (-vals[k], iu[k], ju[k]))
    f = np.zeros(n)
    for k in order[: max(1, n_adv * (n_adv - 1) // 2)]:
        w = math.copysign(abs(vals[k]) ** p, vals[k])
        f[iu[k]] += w
        f[ju[k]] += w
    return sorted(range(n), key=lambda i: (-f[i], i))[:n_adv]


def redundant_passages(
    texts: Sequence[str], embeddings: np.ndarray, task_type: str = "single_hop"
) -> tuple[int, tuple[int, ...]]:
    """``(N_adv, held-back indices)`` for one query's passages (both stages, the filter's
    :data:`MIN_PASSAGES` floor applied). An estimate of *every* passage (the concentration
    estimate's answer when all passages are equally alike, e.g. mutually unrelated) finds no
    majority to hold back: nothing is held back, where the artifact would remove them all."""
    if len(texts) < MIN_PASSAGES:
        return 0, ()
    n_adv = estimate_n_adv(texts, embeddings, task_type)
    if n_adv >= len(texts):
        return n_adv, ()
    return n_adv, tuple(sorted(select_most_similar(n_adv, embeddings)))


def hold_back(
    claims: Sequence[Claim],
    selected: Sequence[int],
    passages: set[int],
    graph: ClaimGraph,
    groups: np.ndarray,
) -> tuple[list[int], list[int]]:
    """``(delivered, held)``: the S* claims split by whether they are held back, pick order
    kept. A claim of a held-back passage is delivered when a claim of another independence
    group *outside* the held-back passages supports it (the quarantine's rule,
    :func:`mirage_core.quarantine.outside_support`): honest coverage of one story is as alike
    as planted copies, and an independent page that says the same thing vouches for it."""
    in_held = claims_of(claims, passages)
    vouched = outside_support(graph, groups, in_held) >= 1 if in_held.any() else in_held
    delivered = [i for i in selected if not in_held[i] or vouched[i]]
    held = [i for i in selected if in_held[i] and not vouched[i]]
    return delivered, held
