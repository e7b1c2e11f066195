"""``mirage calibrate``: fits the gate thresholds on a split of a dataset, prints the trade-off
table and the held-out results, and writes the best configuration as JSON.

Heavy imports (datasets, the NLI model) stay inside the handler so that ``mirage --help`` is
instant.
"""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from mirage_core.cli import say
from mirage_core.evaluation.cli_shared import _config, _load, _nli, _Progress


def _run_calibrate(args: argparse.Namespace) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.evaluation.calibrate import DEFAULT_GRID, calibrate
    from mirage_core.evaluation.calibration_result import CHOICE_PARAMS, ENGINE_PARAMS

    base = _config(args)
    dataset = _load(args)
    nli = _nli(args)
    grid: dict[str, Any] = {
        "r_max": args.r_max or DEFAULT_GRID["r_max"],
        "d_min": args.d_min or DEFAULT_GRID["d_min"],
    }
    if args.tau:
        grid["tau"] = args.tau
    if args.kappa:
        grid["kappa"] = args.kappa
    if args.coordination_threshold:
        grid["coordination_threshold"] = args.coordination_threshold
    if args.coordination_isolated_threshold:
        grid["coordination_isolated_threshold"] = args.coordination_isolated_threshold
    for name in CHOICE_PARAMS:
        if getattr(args, name):
            grid[name] = getattr(args, name)
    # engine runs
    n_te = math.prod(len(grid.get(name, [0])) for name in (*ENGINE_PARAMS, *CHOICE_PARAMS))
    bar = _Progress(len(dataset) * (1 + n_te), f"calibrate {dataset.name}", not args.no_progress)
    try:
        result = calibrate(
            dataset,
            nli,
            base=base,
            grid=grid,
            objective=args.objective,
            min_retention=None
            if args.min_retention is not None and args.min_retention < 0
            else args.min_retention,
            fit_fraction=args.fit_fraction,
            seed=args.seed,
            batch_size=args.batch_size,
            progress=bar,
        )
    finally:
        bar.close()
    result.write(args.out)
    b, base_pt = result.best, result.base
    say()
    say(
        f"dataset {dataset.name}: {dataset.n_queries} queries ({result.split['fit_queries']} fit, "
        f"{result.split['held_out_queries']} held out), {len(dataset)} inputs; objective {result.objective}"
        f" with MIXED retention ≥ {result.min_retention}"
    )
    say(
        f"NLI: {result.nli['prefill_pair_evaluations']} pair evaluations in the prefill; "
        f"grid: {result.nli['grid_cache_hits']} cache hits, {result.nli['grid_cache_misses']} cache misses"
    )
    say()
    say("trade-off (metrics on the fit split; the last column on the held-out split):")
    say(result.table_markdown(top=args.top))
    say()
    say(
        "best: "
        + ", ".join(f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}" for k, v in b.params.items())
        + ("" if result.feasible else "  (no point met the retention floor)")
    )
    for label, pt in (("best", b), ("base", base_pt)):
        if pt.held_out:
            h = pt.held_out
            say(
                f"held-out {label}: pass CLEAN {_pc(h.get('pass_clean'))}, MIXED {_pc(h.get('pass_mixed'))}, "
                f"FULL {_pc(h.get('pass_full'))}; MIXED retention {_pc(h.get('retention_mixed'))}, "
                f"contamination {_pc(h.get('contamination_mixed'))}; objective {h.get('objective') if h.get('objective') is None else round(h['objective'], 3)}"
            )
    say(f"wrote {args.out} (load with MirageConfig.from_file or `mirage defend --config`)")
    return 0


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"
