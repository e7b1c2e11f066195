"""d_src: how many independent sources stand behind S*.

``source_count="selected"`` counts the units (domains, or independence groups) that S*'s
claims come from. ``"corroborating"`` adds the units whose claims corroborate a claim of S*
(:func:`~mirage_core.corroboration.corroborate`, with the same paraphrase and fact-coverage
settings as the selection). Corroboration is often one-way: "Edison was born in Milan, Ohio,
in 1847" entails "He was born in Milan", not the reverse, so only the shorter claim enters S*
and counting S*'s own units alone would see one source where two state the fact. A claim of a
quarantined passage never counts: a planted passage contributes nothing to the delivered
evidence, its standing included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mirage_core.corroboration import Corroboration
from mirage_core.types import Claim

if TYPE_CHECKING:
    from mirage_core.config import MirageConfig
    from mirage_core.method_settings import SourceCount

__all__ = ["reaches_d_min", "source_count", "source_unit"]


def source_unit(config: MirageConfig) -> Callable[[Claim], object]:
    """What one independent source is: a claim's domain, or its independence group."""
    return (lambda c: c.domain) if config.independence == "none" else (lambda c: c.group)


def source_count(
    claims: Sequence[Claim],
    selected: Sequence[int],
    quarantined: np.ndarray,
    config: MirageConfig,
    corroboration: Corroboration | None = None,
    count: SourceCount | None = None,
) -> int:
    """d_src of S* (``selected``) under ``count`` (``None``: ``config.method.source_count``;
    ``"corroborating"`` reads ``corroboration``,
    :func:`~mirage_core.corroboration.configured_corroboration`)."""
    unit = source_unit(config)
    units = {unit(claims[i]) for i in selected}
    mode = count or config.method.source_count
    if mode not in ("selected", "corroborating"):
        raise ValueError(f'source_count must be "selected" or "corroborating", got {mode!r}')
    if mode == "selected" or not selected:
        return len(units)
    if corroboration is None:
        raise ValueError('source_count="corroborating" needs corroboration')
    in_s = np.zeros(len(claims), dtype=bool)
    in_s[np.asarray(selected, dtype=np.int64)] = True
    backing = in_s[corroboration.hypothesis] & ~quarantined[corroboration.premise]
    units.update(unit(claims[int(i)]) for i in np.unique(corroboration.premise[backing]))
    return len(units)


def reaches_d_min(
    claims: Sequence[Claim],
    part: Sequence[int],
    quarantined: np.ndarray,
    config: MirageConfig,
    corroboration: Corroboration | None,
) -> bool:
    """Whether the sources behind ``part`` (its own units and those of its corroborators
    outside ``quarantined``) reach ``d_min``; an empty part never does."""
    if not part:
        return False
    return (
        source_count(claims, part, quarantined, config, corroboration, "corroborating")
        >= config.d_min
    )
