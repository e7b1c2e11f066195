"""torch vs ONNX Runtime for the packaged NLI model: `python benchmarks/nli_runtime.py`.

Takes the NLI pairs the engine sends for a seeded sample of gpe-eval queries (benign
evidence), runs them through `TransformersNLI` with runtime="torch" and runtime="onnx" (fp32,
and int8 with --int8), interleaved, best of --rounds runs each, in one process, and prints
pairs/s, the speed ratio and how far the probabilities and labels move. Ratios from one run are
what to compare on a shared machine; absolute pairs/s are not.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.datasets import load_gpe
from mirage_core.nli.base import CallableNLI
from mirage_core.nli.transformers_nli import TransformersNLI


def engine_pairs(limit: int, seed: int, max_pairs: int) -> tuple[list[str], list[str]]:
    """The (premise, hypothesis) lists the engine would score for these queries."""
    premises: list[str] = []
    hypotheses: list[str] = []

    def record(p: list[str], h: list[str]) -> np.ndarray:
        premises.extend(p)
        hypotheses.extend(h)
        return np.tile([0.1, 0.8, 0.1], (len(p), 1))

    ds = load_gpe(limit=limit, seed=seed, k=5, attacks=())
    Mirage(MirageConfig(), nli=CallableNLI(record)).defend_many(
        [i.query for i in ds.instances], [i.passages for i in ds.instances]
    )
    return premises[:max_pairs], hypotheses[:max_pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=12, help="gpe-eval queries")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--max-pairs", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--int8", action="store_true", help="also ONNX Runtime int8")
    args = parser.parse_args()

    premises, hypotheses = engine_pairs(args.limit, args.seed, args.max_pairs)
    workdir = tempfile.mkdtemp(prefix="mirage-onnx-")
    common = dict(cache_size=0, torch_threads=args.threads)
    runtimes = {
        "torch fp32": TransformersNLI(**common),
        "onnx fp32": TransformersNLI(**common, runtime="onnx", onnx_dir=workdir),
    }
    if args.int8:
        runtimes["onnx int8"] = TransformersNLI(
            **common, runtime="onnx", quantize=True, onnx_dir=workdir
        )
    for nli in runtimes.values():  # warm up outside the clock
        nli.predict(premises[:8], hypotheses[:8])
    seconds: dict[str, list[float]] = {name: [] for name in runtimes}
    probs: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for name, nli in runtimes.items():
            t0 = time.perf_counter()
            probs[name] = nli.predict(premises, hypotheses)
            seconds[name].append(time.perf_counter() - t0)

    print(
        f"{len(premises)} NLI pairs from {args.limit} gpe-eval queries (benign evidence); "
        f"{args.threads} threads; best of {args.rounds} interleaved runs"
    )
    base = probs["torch fp32"]
    for name in runtimes:
        best = min(seconds[name])
        agree = float((probs[name].argmax(1) == base.argmax(1)).mean())
        delta = float(np.abs(probs[name] - base).max())
        print(
            f"{name:<11} {len(premises) / best:6.1f} pairs/s  speed vs torch fp32 "
            f"{min(seconds['torch fp32']) / best:4.2f}x  labels as torch fp32 {100 * agree:5.1f}%  "
            f"max |Δp| {delta:.2g}"
        )


if __name__ == "__main__":
    main()
