"""Evaluation: dataset loaders, the benchmark harness, offline calibration and reports.

Submodules are imported on first use so that ``mirage --help`` (which imports
``mirage_core.evaluation.cli``) stays instant.

>>> from mirage_core.evaluation import load_dataset, run_benchmark, write_report
>>> result = run_benchmark(load_dataset("poisonedrag-nq", limit=20), nli)
>>> write_report(result, "out/")
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Dataset": "instances",
    "Instance": "instances",
    "find_data_dir": "instances",
    "find_gpe_file": "gpe",
    "load_dataset": "datasets",
    "load_gpe": "gpe",
    "load_jsonl": "datasets",
    "load_poisonedrag": "poisonedrag",
    "SYSTEMS": "harness",
    "BenchResult": "records",
    "aggregate": "records",
    "generate_answers": "harness",
    "run_benchmark": "harness",
    "CalibrationResult": "calibration_result",
    "calibrate": "calibrate",
    "write_report": "report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mirage_core.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(f"mirage_core.evaluation.{module}"), name)
