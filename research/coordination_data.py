"""Shared inputs of research/adaptive_poisons.py and research/coordination_signals.py.

- planted groups: PoisonedRAG NQ + HotpotQA (all 100 queries each), gold + five poisons (the
  MIXED evidence), for the original poisons and each adaptive rewrite;
- honest coverage: gpe-eval claims with at least ten benign passages (k = 10, first 1,200
  characters of whole sentences each, publisher = URL host);
- embeddings from the offline all-MiniLM-L6-v2 (mirage's default embedder), cached on disk by
  text so reruns cost nothing (``$MIRAGE_CACHE`` or ``~/.cache/mirage``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mirage_core.evaluation.gpe import load_gpe
from mirage_core.evaluation.poisonedrag import load_poisonedrag

VARIANTS: tuple[str, ...] = ("original", "paraphrase", "synonym", "dispersed")


@dataclass
class Evidence:
    """One query's evidence; ``planted`` marks the poisons (empty for honest coverage)."""

    key: str
    source: str  # "nq" / "hotpotqa" / "gpe"
    variant: str  # poison variant, or "honest"
    query: str
    texts: list[str]
    domains: list[str]
    planted: list[bool]


def planted_sets(
    limit: int | None = None,
    seed: int = 0,
    variants: tuple[str, ...] = VARIANTS,
    regime: str = "mixed",
) -> list[Evidence]:
    """Gold + five poisons (``regime="mixed"``) or the five poisons alone (``"full"``)."""
    out = []
    for name in ("nq", "hotpotqa"):
        for variant in variants:
            ds = load_poisonedrag(
                name, limit=limit, seed=seed, adaptive=None if variant == "original" else variant
            )
            for inst in ds.instances:
                if inst.regime != regime:
                    continue
                ps = inst.passages
                out.append(
                    Evidence(
                        key=f"{name}:{inst.qid}",
                        source=name,
                        variant=variant if regime == "mixed" else f"{variant}, poisons only",
                        query=inst.query,
                        texts=[p.text for p in ps],
                        domains=[p.resolved_domain(i) for i, p in enumerate(ps)],
                        planted=[bool(s) for s in inst.spans],
                    )
                )
    return out


def honest_evidence(instances, source: str, variant: str = "honest") -> list[Evidence]:
    """Honest evidence sets from clean dataset instances (key ``source:qid``, publisher = each
    passage's resolved domain)."""
    out = []
    for inst in instances:
        ps = inst.passages
        out.append(
            Evidence(
                key=f"{source}:{inst.qid}",
                source=source,
                variant=variant,
                query=inst.query,
                texts=[p.text for p in ps],
                domains=[p.resolved_domain(i) for i, p in enumerate(ps)],
                planted=[False] * len(ps),
            )
        )
    return out


def honest_sets(k: int = 10, max_chars: int = 1200) -> list[Evidence]:
    return honest_evidence(load_gpe(k=k, attacks=(), max_chars=max_chars).instances, "gpe")


class DiskCachedEmbedder:
    """mirage's MiniLMEmbedder behind an on-disk cache keyed by the text's SHA-1."""

    def __init__(self, name: str = "minilm-l6-v2") -> None:
        root = Path(os.environ.get("MIRAGE_CACHE", Path.home() / ".cache" / "mirage"))
        root.mkdir(parents=True, exist_ok=True)
        self.path = root / f"bench-embeddings-{name}.npz"
        self._store: dict[str, np.ndarray] = {}
        if self.path.is_file():
            with np.load(self.path) as z:
                self._store = {k: z[k] for k in z.files}
        self._model = None

    def embed(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in self._store]
        if missing:
            if self._model is None:
                from mirage_core.embeddings import MiniLMEmbedder

                self._model = MiniLMEmbedder()
            uniq = list(dict.fromkeys(missing))
            rows = self._model.embed(uniq)
            for t, r in zip(uniq, rows, strict=True):
                self._store[hashlib.sha1(t.encode("utf-8")).hexdigest()] = r
            np.savez(self.path, **self._store)
        return np.stack([self._store[k] for k in keys])


def mean_pairwise_cosine(emb: np.ndarray) -> float:
    sims = emb @ emb.T
    iu = np.triu_indices(len(emb), k=1)
    return float(sims[iu].mean())
