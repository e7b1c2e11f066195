"""Measure the activation ranges of the static int8 NLI graph: ``python scripts/calibrate_int8.py``.

Runs the packaged NLI model's fp32 graph (``model.onnx``) with one of ONNX Runtime's calibrators
(``--method``, :data:`METHODS`) over a seeded sample of ``--pairs`` pairs of the NLI **training**
sources (the split of ``training/data.py``: never a pair or sentence of a held-out set), and
writes the range of every tensor entering a MatMul or Gemm to ``int8-ranges.json`` beside the
model, with the digest of the graph they were measured on. :mod:`mirage_core.nli.int8` builds
the int8 graph from them. Needs onnxruntime and onnx (``pip install 'mirage-rag[onnx-int8]'``)
and the NLI data.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

NLI_DIR = REPO / "mirage_core" / "models" / "mirage-nli-minilm-l6"

#: calibration methods: ONNX Runtime's calibrator and its options. "minmax" takes each tensor's
#: extremes over every pair; the others clip rare outliers (the 0.01% / 0.001% tails, a moving
#: average of per-batch extremes, or the range that keeps the most information), so the int8
#: steps of the common values are finer.
METHODS: dict[str, tuple[str, dict]] = {
    "minmax": ("MinMax", {}),
    "minmax-moving-average": ("MinMax", {"moving_average": True}),
    "percentile-99.99": ("Percentile", {"percentile": 99.99, "symmetric": False}),
    "percentile-99.999": ("Percentile", {"percentile": 99.999, "symmetric": False}),
    "entropy": ("Entropy", {"symmetric": False}),
}


def calibrate(
    model_dir: Path,
    pairs: Sequence[tuple[str, str]],
    batch_size: int = 16,
    max_length: int = 256,
    method: str = "minmax",
) -> dict[str, tuple[float, float]]:
    """Ranges (:data:`METHODS` ``method``) of the tensors entering MatMul / Gemm nodes of
    ``model_dir/model.onnx`` over ``pairs`` (tokenized as :class:`~mirage_core.nli.OnnxNLI`
    tokenizes them)."""
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod
    from onnxruntime.quantization.calibrate import create_calibrator

    from mirage_core.nli.int8 import SETTINGS, preprocess
    from mirage_core.onnx_models import PairTokenizer, resolve_max_length

    calibrator_name, options = METHODS[method]
    tokenizer = PairTokenizer(model_dir, resolve_max_length(model_dir, max_length))

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(
                [
                    tokenizer([p for p, _ in chunk], [h for _, h in chunk])
                    for chunk in (
                        pairs[i : i + batch_size] for i in range(0, len(pairs), batch_size)
                    )
                ]
            )

        def get_next(self) -> dict | None:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory(prefix="mirage-calibrate-") as tmp:
        pre = preprocess(model_dir, Path(tmp) / "fp32.onnx")
        calibrator = create_calibrator(
            pre,
            list(SETTINGS["op_types"]),
            augmented_model_path=str(Path(tmp) / "augmented.onnx"),
            calibrate_method=CalibrationMethod[calibrator_name],
            extra_options=options,
        )
        with _joined_batches() if calibrator_name != "MinMax" else nullcontext():
            calibrator.collect_data(Reader())
        data = calibrator.compute_data()
    return {
        name: (float(t.range_value[0].ravel()[0]), float(t.range_value[1].ravel()[0]))
        for name, t in data.data.items()
    }


@contextmanager
def _joined_batches():
    """ONNX Runtime's histogram calibrators stack a tensor's batches into one array, which fails
    when batches differ in length (pairs are padded to their batch's longest only); while this
    is open, each tensor's values are flattened and joined first."""
    from onnxruntime.quantization.calibrate import HistogramCollector

    collect = HistogramCollector.collect

    def joined(self, name_to_arr):
        flat = {
            k: np.concatenate([np.asarray(a).ravel() for a in v]) if isinstance(v, list) else v
            for k, v in name_to_arr.items()
        }
        return collect(self, flat)

    HistogramCollector.collect = joined
    try:
        yield
    finally:
        HistogramCollector.collect = collect


def training_pairs(n: int, seed: int, data_dir: str | None) -> list[tuple[str, str]]:
    """A seeded sample of ``n`` pairs of the training sources (held-out sets excluded)."""
    from training.data import build_splits, sample

    train = build_splits(data_dir).train_examples()
    return [(e.premise, e.hypothesis) for e in sample(train, n, seed)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=NLI_DIR)
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--method", choices=list(METHODS), default="minmax")
    parser.add_argument("--data-dir", default=None, help="NLI data (default ../shared/data/nli)")
    args = parser.parse_args(argv)
    from mirage_core.nli.int8 import write_ranges

    pairs = training_pairs(args.pairs, args.seed, args.data_dir)
    ranges = calibrate(args.model_dir, pairs, method=args.method)
    about = (
        f"{args.method} over {len(pairs)} pairs of the NLI training sources (seeded sample, seed "
        f"{args.seed}; training/data.py's split): scripts/calibrate_int8.py"
    )
    path = write_ranges(args.model_dir, ranges, about)
    print(f"{path}: {len(ranges)} tensors, {path.stat().st_size / 1e3:.1f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
