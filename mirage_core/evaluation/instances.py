"""Benchmark instances: one query's evidence in one regime, the datasets that hold them, and
how the benchmark data and seeded subsamples are found.

An :class:`Instance` is what a defense is run on (its passages) plus the labels a report scores
against (polluted spans, correct / incorrect answers); a :class:`Dataset` is the instances of one
benchmark and what a report says about how they were built. Every loader
(:mod:`~mirage_core.evaluation.gpe`, :mod:`~mirage_core.evaluation.poisonedrag`,
:mod:`~mirage_core.evaluation.datasets`) builds these and draws its queries with
:func:`subsample`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirage_core.pollution.families import (
    EvidenceItem,
    PollutedPassage,
    polluted_spans,
    rng_for,
)
from mirage_core.types import Passage

__all__ = [
    "CLEAN_FAMILY",
    "Dataset",
    "Instance",
    "find_data_dir",
    "subsample",
]

CLEAN_FAMILY = "none"


@dataclass
class Instance:
    """One defense input: a query and its evidence in one regime, with the pollution labels.

    ``items`` are clean :class:`~mirage_core.types.Passage` values or
    :class:`~mirage_core.pollution.PollutedPassage` values; the engine only ever sees
    :attr:`passages` (text and provenance, no labels).
    """

    qid: str
    query: str
    regime: str
    family: str
    items: list[EvidenceItem]
    correct: tuple[str, ...] = ()
    incorrect: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def passages(self) -> list[Passage]:
        return [it.to_passage() if isinstance(it, PollutedPassage) else it for it in self.items]

    @property
    def spans(self) -> list[list[tuple[int, int]]]:
        """Polluted character spans per passage (empty list: a clean passage)."""
        return [polluted_spans(it) for it in self.items]

    @property
    def n_polluted(self) -> int:
        return sum(isinstance(it, PollutedPassage) for it in self.items)

    @property
    def key(self) -> str:
        return f"{self.qid}|{self.regime}|{self.family}"


@dataclass
class Dataset:
    """Instances plus what a report needs to say about how they were built."""

    name: str
    instances: list[Instance]
    description: str = ""
    regimes: dict[str, str] = field(default_factory=dict)  # regime -> what it holds here
    families: list[str] = field(default_factory=list)  # pollution labels, in report order
    family_notes: dict[str, str] = field(default_factory=dict)
    qa: bool = False
    n_queries: int = 0
    n_available: int = 0
    settings: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.instances)

    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "regimes": dict(self.regimes),
            "families": list(self.families),
            "family_notes": dict(self.family_notes),
            "qa": self.qa,
            "n_queries": self.n_queries,
            "n_available": self.n_available,
            "n_instances": len(self.instances),
            "settings": dict(self.settings),
        }


# -- discovery -------------------------------------------------------------------------------

_REPO_ROOT = Path(__file__).resolve().parents[2]


def find_data_dir(required: bool = True) -> Path | None:
    """``$MIRAGE_DATA_DIR``, else ``../shared/data`` beside the repository (or the cwd)."""
    env = os.environ.get("MIRAGE_DATA_DIR")
    candidates = [Path(env).expanduser()] if env else []
    candidates += [
        _REPO_ROOT.parent / "shared" / "data",
        Path.cwd().parent / "shared" / "data",
        Path.cwd() / "data",
    ]
    for c in candidates:
        if c.is_dir():
            return c
    if required:
        raise FileNotFoundError(
            "benchmark data not found: set MIRAGE_DATA_DIR to the folder that holds poisonedrag/ "
            f"(looked in {[str(c) for c in candidates]})"
        )
    return None


def subsample(n: int, limit: int | None, seed: int | str, pinned: int | None = None) -> list[int]:
    """Seeded subsample of ``range(n)`` of size ``limit`` (all when None), in index order.

    Two sizes give unrelated subsamples (``random.sample`` draws differently for large
    ``limit``). With ``pinned``, a larger ``limit`` keeps the subsample of size ``pinned`` and
    adds seeded draws from the rest, so a set grows without its first questions changing."""
    if limit is None or limit >= n:
        return list(range(n))
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    if pinned is not None and 0 < pinned < limit:
        base = subsample(n, pinned, seed)
        rest = sorted(set(range(n)) - set(base))
        rng_for(seed, "subsample-beyond", n, pinned).shuffle(rest)
        return sorted(base + rest[: limit - pinned])
    return sorted(rng_for(seed, "subsample", n).sample(range(n), limit))
