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
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core.config import MirageConfig
from mirage_core.defense import Mirage
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.measures import claim_pollution, contains_answer, corroborated_clean
from mirage_core.pollution.families import rng_for
from mirage_core.quarantine import gate_d_min

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

#: Grid parameters that change S* (one engine run per combination); r_max and d_min only gate.
ENGINE_PARAMS: tuple[str, ...] = (
    "tau",
    "kappa",
    "coordination_threshold",
    "coordination_isolated_threshold",
)
#: Grid parameters that take one of a config field's named choices, not a number (engine runs
#: too); a point records them only when the grid varies them.
CHOICE_PARAMS: tuple[str, ...] = ("answer_conflict_context", "redundancy_filter")
GRID_PARAMS: tuple[str, ...] = (*ENGINE_PARAMS, "r_max", "d_min")

OBJECTIVES: dict[str, str] = {
    "pass_gap": "CLEAN pass rate − FULL pass rate",
    "exposure_gap": "CLEAN pass rate − share of MIXED/FULL queries that deliver a polluted claim",
}


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


@dataclass
class GridPoint:
    tau: float
    kappa: float
    r_max: float
    d_min: int
    fit: dict[str, Any]
    held_out: dict[str, Any] = field(default_factory=dict)
    # None: the coordination model's own threshold (the grid did not vary it).
    coordination_threshold: float | None = None
    coordination_isolated_threshold: float | None = None
    #: the :data:`CHOICE_PARAMS` the grid varied, with this point's value
    choices: dict[str, str] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tau": self.tau,
            "kappa": self.kappa,
            "r_max": self.r_max,
            "d_min": self.d_min,
        }
        for name in ("coordination_threshold", "coordination_isolated_threshold"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        out.update(self.choices)
        return out

    def key(self) -> tuple:
        return tuple(getattr(self, name) for name in GRID_PARAMS) + tuple(
            self.choices.get(name) for name in CHOICE_PARAMS
        )

    def to_dict(self) -> dict[str, Any]:
        return {**self.params, "fit": self.fit, "held_out": self.held_out}


@dataclass
class CalibrationResult:
    config: MirageConfig
    best: GridPoint
    base: GridPoint
    table: list[GridPoint]  # every grid point, best first
    objective: str
    min_retention: float | None
    feasible: bool
    split: dict[str, Any]
    nli: dict[str, Any]
    dataset: dict[str, Any]

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "calibration": {
                "objective": self.objective,
                "objective_definition": OBJECTIVES[self.objective],
                "min_mixed_retention": self.min_retention,
                "feasible": self.feasible,
                "best": self.best.to_dict(),
                "base": self.base.to_dict(),
                "split": self.split,
                "nli": self.nli,
                "dataset": self.dataset,
                "grid": [p.to_dict() for p in (self.table if top is None else self.table[:top])],
            },
        }

    def write(self, path: str | Path) -> None:
        """A JSON file that :meth:`MirageConfig.from_file` loads (fields under ``"config"``)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, default=_json_default) + "\n")

    def table_markdown(self, top: int = 15) -> str:
        shown = list(self.table[:top])
        if all(p is not self.base for p in shown):
            shown.append(self.base)
        # The coordination thresholds and each varied choice get a column.
        coord = any(
            p.coordination_threshold is not None or p.coordination_isolated_threshold is not None
            for p in self.table
        )
        chosen = [name for name in CHOICE_PARAMS if any(name in p.choices for p in self.table)]
        head = (
            "| τ | κ | "
            + ("coordination (group / whole) | " if coord else "")
            + "".join(f"{name} | " for name in chosen)
            + "r_max | d_min | pass CLEAN | pass MIXED | pass FULL | retention MIXED | "
            "contamination MIXED | objective (fit) | objective (held-out) |\n"
            + "|---" * (11 + coord + len(chosen))
            + "|"
        )
        lines = [head]
        for p in shown:
            tag = " (best)" if p is self.best else (" (base)" if p is self.base else "")
            f = p.fit
            c = (
                f"{_thr(p.coordination_threshold)} / {_thr(p.coordination_isolated_threshold)} | "
                if coord
                else ""
            ) + "".join(f"{p.choices.get(name, '—')} | " for name in chosen)
            lines.append(
                f"| {p.tau:g} | {p.kappa:g} | {c}{p.r_max:g}{tag} | {p.d_min} | {_pct(f.get('pass_clean'))} | "
                f"{_pct(f.get('pass_mixed'))} | {_pct(f.get('pass_full'))} | {_pct(f.get('retention_mixed'))} | "
                f"{_pct(f.get('contamination_mixed'))} | {_num(f.get('objective'))} | "
                f"{_num(p.held_out.get('objective')) if p.held_out else '—'} |"
            )
        return "\n".join(lines)


def _thr(x: float | None) -> str:
    return "model" if x is None else f"{x:g}"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:+.3f}"


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer | np.floating):
        return o.item()
    if isinstance(o, set):
        return sorted(o)
    return str(o)


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


def _batched(
    engine: Mirage, instances: Sequence[Any], batch_size: int, tick: Callable[[int], None] | None
):
    out = []
    for start in range(0, len(instances), batch_size):
        batch = instances[start : start + batch_size]
        out += engine.defend_many([i.query for i in batch], [i.passages for i in batch])
        if tick is not None:
            tick(len(batch))
    return out


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
    fit_ids, test_ids = split_queries([i.qid for i in instances], fit_fraction, seed)

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
        return (
            not feasible(p),
            -(f.get("objective") if f.get("objective") is not None else -np.inf),
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


def _score_config(
    cfg, instances, polluted, corr, backend, embedder, split, objective, qa, batch_size, varied=()
) -> GridPoint:
    verdicts = _batched(Mirage(cfg, nli=backend, embedder=embedder), instances, batch_size, None)
    n = len(verdicts)
    passed = np.array([v.passed for v in verdicts])
    sel = [np.asarray(v.selected if v.passed else (), dtype=np.int64) for v in verdicts]
    stats = dict(
        passed=passed,
        n_deliv=np.array([s.size for s in sel], dtype=np.float64),
        n_poll=np.array(
            [polluted[j][s].sum() if s.size else 0 for j, s in enumerate(sel)], dtype=np.float64
        ),
        kept=np.array(
            [corr[j][s].sum() if s.size else 0 for j, s in enumerate(sel)], dtype=np.float64
        ),
        corr_total=np.array([c.sum() for c in corr], dtype=np.float64),
        regime=np.array([i.regime for i in instances]),
        correct=np.array(
            [
                qa
                and contains_answer(
                    " ".join(verdicts[j].claims[i].text for i in sel[j]), instances[j].correct
                )
                for j in range(n)
            ]
        ),
        wrong=np.array(
            [
                qa
                and contains_answer(
                    " ".join(verdicts[j].claims[i].text for i in sel[j]),
                    instances[j].incorrect,
                    instances[j].correct,
                )
                for j in range(n)
            ]
        ),
        qa=qa,
    )
    fit = _score(stats, split, objective)
    held = _score(stats, ~split, objective) if (~split).any() else {}
    return GridPoint(
        cfg.method.tau,
        cfg.method.kappa,
        cfg.r_max,
        cfg.d_min,
        fit,
        held,
        cfg.method.coordination_threshold,
        cfg.method.coordination_isolated_threshold,
        {name: cfg.flat()[name] for name in varied},  # the choices the grid varied
    )


def _score(stats: Mapping[str, Any], mask: np.ndarray, objective: str) -> dict[str, Any]:
    passed = stats["passed"] & mask
    regime = stats["regime"]
    out: dict[str, Any] = {}
    for name in ("clean", "mixed", "full"):
        m = mask & (regime == name)
        out[f"n_{name}"] = int(m.sum())
        out[f"pass_{name}"] = float(passed[m].mean()) if m.any() else None
        if name != "clean":
            deliv = (stats["n_deliv"] * passed)[m].sum()
            out[f"contamination_{name}"] = (
                float((stats["n_poll"] * passed)[m].sum() / deliv) if deliv else None
            )
            out[f"exposure_{name}"] = (
                float((passed & (stats["n_poll"] > 0))[m].mean()) if m.any() else None
            )
        if name != "full":
            total = stats["corr_total"][m].sum()
            out[f"retention_{name}"] = (
                float((stats["kept"] * passed)[m].sum() / total) if total else None
            )
        if stats["qa"] and m.any():
            c, w = stats["correct"] & passed, stats["wrong"] & passed
            out[f"correct_only_{name}"] = float((c & ~w)[m].mean())
            out[f"incorrect_in_evidence_{name}"] = float(w[m].mean())
    clean = out.get("pass_clean")
    if objective == "pass_gap":
        full = out.get("pass_full")
        out["objective"] = None if clean is None or full is None else clean - full
    else:  # exposure_gap
        m = mask & (regime != "clean")
        exposure = float((passed & (stats["n_poll"] > 0))[m].mean()) if m.any() else None
        out["objective"] = None if clean is None or exposure is None else clean - exposure
    return out
