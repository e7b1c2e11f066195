"""The calibration grid's parameters and objectives, its points and the calibration result.

A :class:`GridPoint` is one combination of the grid's parameters (:data:`GRID_PARAMS`, and the
:data:`CHOICE_PARAMS` the grid varies) with its scores on the fit and held-out splits. A
:class:`CalibrationResult` holds the fitted configuration, the best and base points and the
whole table; it writes a JSON file that :meth:`MirageConfig.from_file` loads and renders the
table in Markdown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core.config import MirageConfig

__all__ = [
    "CHOICE_PARAMS",
    "ENGINE_PARAMS",
    "GRID_PARAMS",
    "OBJECTIVES",
    "CalibrationResult",
    "GridPoint",
]

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
