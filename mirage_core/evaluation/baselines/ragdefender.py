"""RAGDefender (Kim et al., ACSAC 2025; MIT) as a baseline: a post-retrieval filter, no LLM calls.

The algorithm (both stages, re-implemented from the paper and its artifact with scikit-learn
where the artifact uses it) lives in :mod:`mirage_core.redundancy_filter`, which the engine
also runs as its redundancy filter; this module is the baseline system of ``mirage bench``:
it embeds the passages and delivers the ones the filter keeps. The embedder is mirage's
offline all-MiniLM-L6-v2 (the package's default model; the artifact's ``main.py`` used
paraphrase-MiniLM-L6-v2). Unlike the engine's filter it runs on two passages too, as the
artifact does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirage_core import redundancy_filter as rf
from mirage_core.redundancy_filter import TASK_TYPES

__all__ = ["TASK_TYPES", "RAGDefender", "RAGDefenderResult", "task_type_for"]


def task_type_for(dataset_name: str) -> str:
    """The paper's choice per dataset: multi-hop for HotpotQA, single-hop otherwise."""
    return "multi_hop" if "hotpot" in dataset_name.lower() else "single_hop"


@dataclass(frozen=True)
class RAGDefenderResult:
    """What the filter decided for one query's passages."""

    n_adv: int
    removed: tuple[int, ...]
    kept: tuple[int, ...]
    task_type: str


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

    def n_tfidf(self, texts: Sequence[str]) -> int:
        """Eq. 1: passages holding more than ⌊m/2⌋ of the top-``m`` summed-TF-IDF terms."""
        return rf.n_tfidf(texts, self.m, self.case_sensitive)

    def estimate_n_adv(self, texts: Sequence[str], embeddings: np.ndarray) -> int:
        return rf.estimate_n_adv(texts, embeddings, self.task_type, self.m, self.case_sensitive)

    def select(self, n_adv: int, embeddings: np.ndarray) -> list[int]:
        """Indices of the ``n_adv`` passages with the highest frequency score, best first."""
        return rf.select_most_similar(n_adv, embeddings, self.p)

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
