"""Offline gate calibration: a grid over r_max, d_min (and τ, κ, the coordination thresholds,
the opt-in rules' choices) on cached NLI outputs.

The NLI model runs once per pair. A prefill pass runs the engine with the loosest τ of the grid
and no pair budget, which puts every pair any grid point can ask for into the backend's pair
cache; every grid point then re-runs the engine on cache hits only (the number of cache misses
during the grid is counted and must be 0). r_max and d_min act on the gate alone — S*, r_contr
and d_src do not depend on them — so the engine runs once per (τ, κ, coordination thresholds:
they change what is quarantined, not which pairs are scored; ``answer_conflict_context`` and
``redundancy_filter``: they change what the gate blocks or delivers after it has passed) with
the loosest gate
(r_max = 1, d_min = 1; any other blocking rule, such as ``block_on_tie``, still applies) and the
decision of each (r_max, d_min) is read off its verdicts: pass iff the loose run passed,
r_contr ≤ r_max and d_src ≥ d_min (``coordinated_d_min`` where the coordination signals
quarantined passages), exactly as ``Mirage._gate`` decides. Under corroborated delivery
(``corroborated_only="delivery"``) d_min also decides which part is delivered and whose
conflicts the tie rule weighs, so the engine runs once per d_min as well and only r_max is
read off.

Thresholds are fitted on a seeded split of the queries (``fit_fraction``) and reported on the
held-out rest. Objectives (:data:`OBJECTIVES`) are maximized subject to a floor on the MIXED
retention of corroborated clean claims:

- ``pass_gap`` (default): CLEAN pass rate − FULL pass rate;
- ``exposure_gap``: CLEAN pass rate − share of MIXED/FULL queries where a polluted claim is
  delivered.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from mirage_core.config import MirageConfig
from mirage_core.defense import Mirage
from mirage_core.evaluation.calibration_result import (
    CHOICE_PARAMS,
    ENGINE_PARAMS,
    GRID_PARAMS,
    OBJECTIVES,
    CalibrationResult,
    GridPoint,
)
from mirage_core.evaluation.calibration_scores import _batched, _score, _score_config
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.measures import claim_pollution, contains_answer, corroborated_clean
from mirage_core.evaluation.splits import dataset_split, split_queries
from mirage_core.quarantine import gate_d_min

# The split, the result types and the grid's names are part of this module's API too.
__all__ = [
    "CHOICE_PARAMS",
    "DEFAULT_GRID",
    "ENGINE_PARAMS",
    "GRID_PARAMS",
    "OBJECTIVES",
    "CalibrationResult",
    "GridPoint",
    "calibrate",
    "dataset_split",
    "split_queries",
]

DEFAULT_GRID: dict[str, tuple[float, ...]] = {
    "r_max": (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0),
    "d_min": (1, 2, 3),
}


def _as_cached(nli: Any) -> Any:
    if (
        hasattr(nli, "cache")
        and hasattr(nli.cache, "misses")
        and callable(getattr(nli, "predict", None))
    ):
        return nli
    from mirage_core.nli.base import CallableNLI

    if not callable(getattr(nli, "predict", None)):
        raise TypeError("nli must have predict(premises, hypotheses)")
    return CallableNLI(lambda p, h: nli.predict(p, h))


def calibrate(
    dataset: Dataset,
    nli: Any,
    *,
    base: MirageConfig | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
    objective: str = "pass_gap",
    min_retention: float | None = 0.5,
    fit_fraction: float = 0.5,
    seed: int | str = 0,
    batch_size: int = 16,
    embedder: Any = None,
    progress: Callable[[int], None] | None = None,
    log: Callable[[str], None] | None = print,
) -> CalibrationResult:
    """Fit r_max, d_min (and τ, κ and the coordination thresholds when the grid lists them) on
    a split of ``dataset``.

    Args:
        nli: the NLI backend; one with a pair cache (``CachedNLI``) is used as is, any other
            is wrapped in one. The cache is enlarged for the run if needed so nothing is evicted.
        base: the configuration whose other fields the result keeps (default ``MirageConfig()``).
        grid: values per parameter (``r_max``, ``d_min``, ``tau``, ``kappa``,
            ``coordination_threshold``, ``coordination_isolated_threshold``; and the named
            choices of ``answer_conflict_context`` and ``redundancy_filter``); parameters left
            out keep ``base``'s value. Default :data:`DEFAULT_GRID`.
        objective: a key of :data:`OBJECTIVES`.
        min_retention: floor on MIXED retention (``None``: no floor). When no grid point meets
            it, the point with the highest MIXED retention wins and ``feasible`` is False.
        fit_fraction: share of queries used to fit; the rest is the held-out report split.
        embedder: sentence embedder for configs that need one (``independence="embedding"``
            or ``paraphrase_pairs``); default: the packaged one, loaded once.
        progress: called with instance counts as engine runs finish (prefill and grid).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; expected one of {list(OBJECTIVES)}")
    base = base or MirageConfig()
    grid = dict(DEFAULT_GRID if grid is None else grid)
    unknown = set(grid) - set(GRID_PARAMS) - set(CHOICE_PARAMS)
    if unknown:
        raise ValueError(
            f"grid keys must be {', '.join((*GRID_PARAMS, *CHOICE_PARAMS))}; got {sorted(unknown)}"
        )
    values: dict[str, list[Any]] = {
        name: sorted({float(v) if name != "d_min" else int(v) for v in grid[name]})
        if name in grid
        else [base.flat()[name]]  # may be None: the coordination model's own threshold
        for name in GRID_PARAMS
    }
    # a named choice keeps the grid's order; None: not varied (the point does not record it)
    varied = [name for name in CHOICE_PARAMS if name in grid]
    for name in varied:
        values[name] = list(dict.fromkeys(str(v) for v in grid[name]))
        if not values[name]:
            raise ValueError(f"grid[{name!r}] lists no value")
    for name, vals in values.items():  # validate every value through MirageConfig
        for v in vals:
            base.replace(**{name: v})
    engine_params = (*ENGINE_PARAMS, *varied)
    instances = list(dataset.instances)
    if not instances:
        raise ValueError("calibration needs a non-empty dataset")
    # the split every tool reads (a pinned subsample keeps its questions' sides)
    fit_ids, test_ids = dataset_split(dataset, fit_fraction, seed)

    backend = _as_cached(nli)
    cache = backend.cache
    old_size = cache.maxsize
    cache.maxsize = max(cache.maxsize, 10_000_000)
    say = log or (lambda _m: None)
    try:
        # 1) Prefill: the loosest τ and no pair budget cover every pair the grid can ask for.
        prefill_cfg = base.replace(tau=min(values["tau"]), partners_per_claim=None, max_pairs=None)
        m0 = cache.misses
        shared = embedder
        if shared is None and (base.independence == "embedding" or base.method.paraphrase_pairs):
            shared = Mirage(base, nli=backend).embedder  # one embedder for every run
        reference = _batched(
            Mirage(prefill_cfg, nli=backend, embedder=shared), instances, batch_size, progress
        )
        prefill_misses = cache.misses - m0
        say(
            f"prefill: {len(instances)} inputs, {prefill_misses} NLI pair evaluations (cache misses)"
        )

        polluted = [
            claim_pollution(inst, v.claims) for inst, v in zip(instances, reference, strict=True)
        ]
        corr = [corroborated_clean(v, p) for v, p in zip(reference, polluted, strict=True)]
        regime = np.array([i.regime for i in instances])
        split = np.array([i.qid in fit_ids for i in instances])
        corr_total = np.array([c.sum() for c in corr], dtype=np.float64)
        qa = bool(dataset.qa)

        # 2) The grid: cache hits only.
        misses_before = cache.misses
        hits_before = cache.hits
        table: list[GridPoint] = []
        # Corroborated delivery asks its part to reach d_min, and the tie rule weighs that
        # part's conflicts: under it d_min changes the verdict itself, so the engine runs once
        # per d_min and only r_max is read off.
        per_d_min = base.method.corroborated_only == "delivery"
        engine_runs = itertools.product(
            itertools.product(*(values[name] for name in engine_params)),
            values["d_min"] if per_d_min else [1],
        )
        for combo, run_d_min in engine_runs:
            point = dict(zip(engine_params, combo, strict=True))
            # The loosest gate: a verdict then passes unless S* is empty or a gate condition
            # that does not depend on r_max / d_min blocks it (e.g. block_on_tie).
            engine = Mirage(
                base.replace(**point, r_max=1.0, d_min=run_d_min), nli=backend, embedder=shared
            )
            verdicts = _batched(engine, instances, batch_size, progress)
            n = len(verdicts)
            has_sel = np.zeros(n, dtype=bool)
            r = np.zeros(n)
            d = np.zeros(n, dtype=np.int64)
            n_deliv = np.zeros(n)
            n_poll = np.zeros(n)
            kept = np.zeros(n)
            correct = np.zeros(n, dtype=bool)
            wrong = np.zeros(n, dtype=bool)
            # After a quarantine the gate asks coordinated_d_min sources, not d_min.
            quarantined = np.zeros(n, dtype=bool)
            for j, (inst, v) in enumerate(zip(instances, verdicts, strict=True)):
                if [c.text for c in v.claims] != [c.text for c in reference[j].claims]:
                    raise RuntimeError(
                        "claims differ between grid points (only the grid's parameters may vary)"
                    )
                sel = np.asarray(v.selected, dtype=np.int64)
                has_sel[j] = v.passed and sel.size > 0 and v.nli_error is None
                r[j] = v.r_contr if math.isfinite(v.r_contr) else np.inf
                d[j] = v.d_src
                quarantined[j] = (
                    v.coordination is not None and v.coordination.quarantined_claims > 0
                )
                n_deliv[j] = sel.size
                n_poll[j] = polluted[j][sel].sum() if sel.size else 0
                kept[j] = corr[j][sel].sum() if sel.size else 0
                if qa:
                    text = " ".join(v.claims[i].text for i in sel)
                    correct[j] = contains_answer(text, inst.correct)
                    wrong[j] = contains_answer(text, inst.incorrect, inst.correct)
            read_d_min = [run_d_min] if per_d_min else values["d_min"]
            for r_max, d_min in itertools.product(values["r_max"], read_d_min):
                need = np.where(
                    quarantined, gate_d_min(int(d_min), base.method.coordinated_d_min, True), d_min
                )
                passed = has_sel & (r <= r_max) & (d >= need)  # as the gate's core rules decide
                stats = dict(
                    passed=passed,
                    n_deliv=n_deliv,
                    n_poll=n_poll,
                    kept=kept,
                    corr_total=corr_total,
                    regime=regime,
                    correct=correct,
                    wrong=wrong,
                    qa=qa,
                )
                fit = _score(stats, split, objective)
                held = _score(stats, ~split, objective) if (~split).any() else {}
                table.append(
                    GridPoint(
                        point["tau"],
                        point["kappa"],
                        r_max,
                        int(d_min),
                        fit,
                        held,
                        point["coordination_threshold"],
                        point["coordination_isolated_threshold"],
                        {name: point[name] for name in varied},
                    )
                )
        grid_misses = cache.misses - misses_before
        grid_hits = cache.hits - hits_before
        say(
            f"grid: {len(table)} points, {grid_hits} cache hits, {grid_misses} cache misses (NLI calls)"
        )
        if grid_misses:
            raise RuntimeError(
                f"the grid made {grid_misses} NLI calls; the prefill should have cached every pair"
            )
    finally:
        cache.maxsize = old_size

    base_key = tuple(base.flat()[name] for name in GRID_PARAMS) + tuple(
        base.flat()[name] if name in varied else None for name in CHOICE_PARAMS
    )

    def feasible(p: GridPoint) -> bool:
        ret = p.fit.get("retention_mixed")
        return min_retention is None or ret is None or ret >= min_retention - 1e-12

    def sort_key(p: GridPoint) -> tuple:
        f = p.fit
        objective = f.get("objective")
        return (
            not feasible(p),
            -(objective if objective is not None else -np.inf),
            -(f.get("retention_mixed") or 0.0),
            f.get("contamination_mixed") or 0.0,
            # the point nearest the base; a named choice is 1 away when it differs
            sum(
                float(a != b) if isinstance(a, str) else abs(a - b)
                for a, b in zip(p.key(), base_key, strict=True)
                if a is not None and b is not None
            ),
        )

    any_feasible = any(feasible(p) for p in table)
    if any_feasible:
        table.sort(key=sort_key)
    else:
        say(
            f"no grid point reaches MIXED retention ≥ {min_retention}; choosing the highest retention"
        )
        table.sort(key=lambda p: (-(p.fit.get("retention_mixed") or 0.0), sort_key(p)[1:]))
    best = table[0]
    base_point = next((p for p in table if p.key() == base_key), None)
    if base_point is None:  # the base is outside the grid: score it from a dedicated run
        base_point = _score_config(
            base,
            instances,
            polluted,
            corr,
            backend,
            shared,
            split,
            objective,
            qa,
            batch_size,
            varied,
        )
    config = base.replace(**best.params)
    return CalibrationResult(
        config=config,
        best=best,
        base=base_point,
        table=table,
        objective=objective,
        min_retention=min_retention,
        feasible=any_feasible,
        split={
            "fit_fraction": fit_fraction,
            "seed": seed,
            "fit_queries": len(fit_ids),
            "held_out_queries": len(test_ids),
        },
        nli={
            "prefill_pair_evaluations": prefill_misses,
            "grid_cache_hits": grid_hits,
            "grid_cache_misses": grid_misses,
            "backend": repr(nli),
        },
        dataset=dataset.info(),
    )
