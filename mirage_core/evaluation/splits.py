"""The seeded split of a dataset's query ids into a fit part and a held-out part.

``mirage calibrate`` fits the gate's thresholds on the fit part and reports on the held-out
part; the scoreboard and the research probes choose on the same fit part, so that a question
sits on the same side wherever it is used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mirage_core.evaluation.instances import Dataset
from mirage_core.pollution.families import rng_for

__all__ = ["dataset_split", "split_queries"]


def split_queries(
    qids: Sequence[str], fit_fraction: float, seed: int | str
) -> tuple[set[str], set[str]]:
    """Seeded split of the distinct query ids into (fit, held-out)."""
    if not 0 < fit_fraction <= 1:
        raise ValueError(f"fit_fraction must be in (0, 1], got {fit_fraction}")
    unique = sorted(set(qids))
    rng_for(seed, "calibration-split").shuffle(unique)
    n_fit = max(1, math.ceil(len(unique) * fit_fraction)) if unique else 0
    if fit_fraction < 1 and len(unique) > 1:
        n_fit = min(n_fit, len(unique) - 1)
    return set(unique[:n_fit]), set(unique[n_fit:])


def dataset_split(
    dataset: Dataset, fit_fraction: float, seed: int | str
) -> tuple[set[str], set[str]]:
    """:func:`split_queries` of a dataset's query ids. A set grown beyond a pinned subsample
    (``settings["pinned_qids"]``, :func:`~mirage_core.evaluation.instances.subsample`) keeps
    the pinned questions' split as they had it alone, and splits the added ones apart: a
    question chosen on stays on the fit side."""
    qids = {i.qid for i in dataset.instances}
    pinned = set(dataset.settings.get("pinned_qids") or ()) & qids
    if not pinned:
        return split_queries(sorted(qids), fit_fraction, seed)
    fit, held = split_queries(sorted(pinned), fit_fraction, seed)
    if qids - pinned:
        more_fit, more_held = split_queries(sorted(qids - pinned), fit_fraction, seed)
        fit, held = fit | more_fit, held | more_held
    return fit, held
