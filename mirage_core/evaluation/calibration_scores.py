"""The scores of a calibration grid point on the fit or the held-out split.

:func:`_score` turns per-query statistics (passed, delivered, polluted and kept claims, the
answers found in the delivered evidence) into the per-regime pass, contamination, exposure and
retention rates, the QA answer rates and the objective; :func:`_score_config` runs one
configuration over the instances and scores it (the base configuration when it lies outside
the grid); :func:`_batched` runs the engine over the instances in batches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from mirage_core.defense import Mirage
from mirage_core.evaluation.calibration_result import GridPoint
from mirage_core.evaluation.measures import contains_answer


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
