"""Teacher targets: pairs of the mix whose training target is another model's probabilities.

A warm-started model taught something new (swapped-fact contradictions) can lose a reading the
shipped model has right: two honest sentences of one page that state different facts, which
the gate must not read as a contradiction. Pairs of a *teacher part* (:data:`TEACHER_PARTS`)
keep that reading by training towards the teacher's three probabilities (soft cross-entropy)
instead of a hand-given label; every other pair keeps its label (a one-hot target).

    python -m training --mix abr-swaps-teacher --init runs/nli-abr-cpu \
        --teacher mirage_core/models/mirage-nli-minilm-l6 --out runs/X ...
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from training.data import LABELS, NLIExample

__all__ = ["TEACHER_PARTS", "soft_targets", "teacher_probabilities", "teacher_rows"]

#: generated parts whose targets are the teacher's probabilities (their labels are placeholders)
TEACHER_PARTS: tuple[str, ...] = ("related-teacher",)


def teacher_rows(examples: Sequence[NLIExample]) -> list[int]:
    """Indices of the examples that come from a teacher part."""
    return [i for i, e in enumerate(examples) if e.source in TEACHER_PARTS]


def teacher_probabilities(
    teacher: str, examples: Sequence[NLIExample], *, batch_size: int = 64, threads: int = 2
) -> np.ndarray:
    """The teacher's (entailment, neutral, contradiction) probabilities of each pair, premise
    first, as :class:`mirage_core.nli.transformers_nli.TransformersNLI` reads a model folder
    (its label order comes from the folder's ``config.json``)."""
    from mirage_core.nli.transformers_nli import TransformersNLI

    if not examples:
        return np.zeros((0, len(LABELS)), dtype=np.float32)
    nli = TransformersNLI(teacher, batch_size=batch_size, torch_threads=threads)
    probs = np.asarray(
        nli.predict([e.premise for e in examples], [e.hypothesis for e in examples]),
        dtype=np.float32,
    )
    if probs.shape != (len(examples), len(LABELS)):
        raise ValueError(f"teacher {teacher}: expected ({len(examples)}, 3) probabilities")
    return probs


def soft_targets(
    labels: Sequence[int], rows: Sequence[int], probs: np.ndarray, smoothing: float = 0.0
) -> np.ndarray:
    """One (n, 3) target per pair: the one-hot label (smoothed as
    ``torch.nn.CrossEntropyLoss(label_smoothing=...)`` smooths it), or, for each of ``rows``,
    the teacher's probabilities in that row's place (never smoothed)."""
    if len(rows) != len(probs):
        raise ValueError(f"{len(rows)} teacher rows but {len(probs)} probability rows")
    k = len(LABELS)
    out = np.full((len(labels), k), smoothing / k, dtype=np.float32)
    out[np.arange(len(labels)), np.asarray(labels, dtype=np.int64)] += 1.0 - smoothing
    if len(rows):
        p = np.asarray(probs, dtype=np.float32)
        out[np.asarray(rows, dtype=np.int64)] = p / p.sum(axis=1, keepdims=True)
    return out
