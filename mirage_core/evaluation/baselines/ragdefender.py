"""RAGDefender (Kim et al., ACSAC 2025; MIT) as a baseline: a post-retrieval filter, no LLM calls.

Re-implemented from the paper and its artifact (github.com/SecAI-Lab/RAGDefender:
``artifacts/main.py`` and the ``ragdefender`` package's ``grouping`` / ``identification``
modules), with scikit-learn where the artifact uses it:

**Stage 1 — how many passages are adversarial** (``N_adv``), by task type:

- ``"single_hop"`` (NQ, MS MARCO; clustering-based grouping, paper §4.1 Eq. 1–2): an
  agglomerative 2-cluster split of the passages' sentence embeddings (sklearn's default: Ward
  linkage, Euclidean) and a TF-IDF vote — the ``m`` = 5 terms with the highest summed TF-IDF
  over the passages (English stop words removed), and ``N_TF-IDF`` = the passages containing
  more than ⌊m/2⌋ of them. ``N_adv`` is the smaller cluster's size when the vote stays within
  half the passages, else the larger cluster's.
- ``"multi_hop"`` (HotpotQA; concentration-based grouping): each passage's mean and (lower)
  median cosine to all passages, compared with their means over the passages; the count of
  passages above either mark, flipped to its complement unless mean < median — exactly the
  artifact's computation (its module docs note where it departs from the paper's text).

**Stage 2 — which ones** (§4.2, Eq. 4–7): the ``max(1, C(N_adv, 2))`` most similar passage
pairs each add ``sgn(sim)·|sim|^p`` (p = 2) to both passages' frequency score; the ``N_adv``
passages with the highest scores are removed (ties: lower index first).

Kept as in the artifact: the TF-IDF term presence test is a substring test, and the medians
are torch's lower medians. One departure, ``case_sensitive=False`` by default: the artifact
tests the (lowercase) terms against the raw passage, which works there because its poisons
start with the lowercase question, but misses every capitalized name in passages that do not
(on 30 PoisonedRAG NQ queries, gold + five poisons: the vote then undercounts and N_adv = 1 in
17 of 30); the paper's Eq. 1 counts passages that *contain* the terms, so the test here is on
the lowercased passage. ``case_sensitive=True`` restores the artifact's test. The embedder is mirage's offline all-MiniLM-L6-v2 (the package's default model;
the artifact's ``main.py`` used paraphrase-MiniLM-L6-v2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["TASK_TYPES", "RAGDefender", "RAGDefenderResult", "task_type_for"]

TASK_TYPES: tuple[str, ...] = ("single_hop", "multi_hop")


def task_type_for(dataset_name: str) -> str:
    """The paper's choice per dataset: multi-hop for HotpotQA, single-hop otherwise."""
    return "multi_hop" if "hotpot" in dataset_name.lower() else "single_hop"


def _sklearn() -> Any:
    try:
        from sklearn.cluster import AgglomerativeClustering
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the RAGDefender baseline needs scikit-learn: pip install 'mirage-rag[bench]'"
        ) from exc
    return AgglomerativeClustering, ENGLISH_STOP_WORDS, TfidfVectorizer


@dataclass(frozen=True)
class RAGDefenderResult:
    """What the filter decided for one query's passages."""

    n_adv: int
    removed: tuple[int, ...]
    kept: tuple[int, ...]
    task_type: str


def _lower_median(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """torch.median: the lower of the two middle values for an even count."""
    s = np.sort(x, axis=axis)
    n = s.shape[axis] if axis is not None else s.size
    k = (n - 1) // 2
    return np.take(s, k, axis=axis) if axis is not None else s.reshape(-1)[k]


class RAGDefender:
    """The two-stage filter. ``embedder``: any object with ``embed(texts) -> (n, d)`` rows
    (mirage's :class:`~mirage_core.embeddings.MiniLMEmbedder` in ``mirage bench``)."""

    def __init__(
        self,
        embedder: Any,
        task_type: str = "single_hop",
        m: int = 5,
        p: int = 2,
        case_sensitive: bool = False,
    ):
        if task_type not in TASK_TYPES:
            raise ValueError(f"task_type must be one of {list(TASK_TYPES)}, got {task_type!r}")
        self.embedder = embedder
        self.task_type = task_type
        self.m = m
        self.p = p
        self.case_sensitive = case_sensitive

    # -- stage 1 -------------------------------------------------------------------------------
    def n_tfidf(self, texts: Sequence[str]) -> int:
        """Eq. 1: passages holding more than ⌊m/2⌋ of the top-``m`` summed-TF-IDF terms."""
        _, stop, vectorizer = _sklearn()
        tfidf = vectorizer(stop_words=list(stop))
        try:
            x = tfidf.fit_transform(list(texts))
        except ValueError:  # empty vocabulary (only stop words): no vote
            return 0
        names = tfidf.get_feature_names_out()
        totals = np.asarray(x.sum(axis=0)).ravel()
        order = sorted(range(len(names)), key=lambda i: (-totals[i], names[i]))[: self.m]
        top = [names[i] for i in order]
        need = math.floor(len(top) / 2)
        seen = texts if self.case_sensitive else [t.lower() for t in texts]
        return sum(sum(w in t for w in top) > need for t in seen)

    def estimate_n_adv(self, texts: Sequence[str], embeddings: np.ndarray) -> int:
        n = len(texts)
        if n < 2:
            return 0
        if self.task_type == "multi_hop":
            return self._concentration(embeddings)
        agglomerative, _, _ = _sklearn()
        labels = agglomerative(n_clusters=2).fit(np.asarray(embeddings, np.float64)).labels_
        n1 = int(labels.sum())
        if n1 > 0 and self.n_tfidf(texts) <= n // 2:
            return min(n1, n - n1)
        return max(n1, n - n1)

    @staticmethod
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

    # -- stage 2 -------------------------------------------------------------------------------
    def select(self, n_adv: int, embeddings: np.ndarray) -> list[int]:
        """Indices of the ``n_adv`` passages with the highest frequency score, best first."""
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
            w = math.copysign(abs(vals[k]) ** self.p, vals[k])
            f[iu[k]] += w
            f[ju[k]] += w
        return sorted(range(n), key=lambda i: (-f[i], i))[:n_adv]

    # -- both --------------------------------------------------------------------------------
    def filter(self, query: str, texts: Sequence[str]) -> RAGDefenderResult:
        """Run both stages on one query's passages (the query is unused, as in the artifact)."""
        texts = list(texts)
        if len(texts) < 2:
            return RAGDefenderResult(0, (), tuple(range(len(texts))), self.task_type)
        emb = np.asarray(self.embedder.embed(texts), np.float64)
        n_adv = self.estimate_n_adv(texts, emb)
        removed = tuple(sorted(self.select(n_adv, emb)))
        kept = tuple(i for i in range(len(texts)) if i not in set(removed))
        return RAGDefenderResult(n_adv, removed, kept, self.task_type)
