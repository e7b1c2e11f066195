"""NLI time per query against the batch size: ``python -m benchmarks.nli_batch``.

Pairs are sorted by length before they are cut into batches, so a batch pads each pair only
to the longest pair beside it; a smaller batch pads less and runs more forward passes. For the
default config on the perf_engine queries (gpe-eval claims and their evidence) at each ``--ks``
passages, this records the pairs each query sends to NLI (one call per query, as ``defend``
makes it), then times every batch size on every query's pairs, the sizes interleaved query by
query so that machine load hits them alike, on each runtime of ``--runtimes`` (fp32, NLI cache
off). It prints the median time per query, its ratio to ``--base``'s, and how far each size's
probabilities are from ``--base``'s (max |Δp|, labels changed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from benchmarks.nli_runtime import recorded_pairs
from benchmarks.perf_engine import queries


def backend(runtime: str, batch_size: int):
    """The packaged NLI model on ``runtime`` ("torch" or "onnx"), no cache."""
    if runtime == "onnx":
        from mirage_core.nli.onnx_nli import OnnxNLI

        return OnnxNLI(batch_size=batch_size, cache_size=0)
    from mirage_core.nli import TransformersNLI

    return TransformersNLI(batch_size=batch_size, cache_size=0)


def per_query_pairs(n: int, k: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """Each query's (premises, hypotheses), as the default engine sends them."""
    out = []
    for q, passages in queries(n, k, seed):
        out.append(recorded_pairs([q], [passages[:k]]))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ks", default="5,20,50")
    p.add_argument("--queries", type=int, default=8)
    p.add_argument("--sizes", default="8,16,32,64")
    p.add_argument("--base", type=int, default=64)
    p.add_argument("--runtimes", default="torch,onnx")
    p.add_argument("--seed", type=int, default=0)
    argv = sys.argv[1:] if argv is None else argv
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.base not in sizes:
        p.error("--base must be one of --sizes")
    print(f"`python -m benchmarks.nli_batch {' '.join(argv)}`".replace(" `", "`"))
    print(f"\n{args.queries} queries per k; {os.cpu_count()} CPUs; one run, ratios in one loop\n")
    print("| runtime | k | pairs / query | " + " | ".join(f"b={s}: p50 ms" for s in sizes), end="")
    print(" | " + " | ".join(f"b={s} / b={args.base}" for s in sizes if s != args.base), end="")
    print(" | max abs Δp vs base | labels changed |")
    print("|---" * (3 + 2 * len(sizes) - 1 + 2) + "|")
    for runtime in args.runtimes.split(","):
        models = {s: backend(runtime, s) for s in sizes}
        for k in (int(x) for x in args.ks.split(",")):
            items = per_query_pairs(args.queries, k, args.seed)
            times: dict[int, list[float]] = {s: [] for s in sizes}
            probs: dict[int, list[np.ndarray]] = {s: [] for s in sizes}
            for prem, hyp in items:
                for s in sizes:
                    t = time.perf_counter()
                    probs[s].append(models[s].predict(prem, hyp))
                    times[s].append(time.perf_counter() - t)
            base = np.concatenate(probs[args.base])
            worst, changed = 0.0, 0
            for s in sizes:
                got = np.concatenate(probs[s])
                worst = max(worst, float(np.abs(got - base).max()))
                changed += int((got.argmax(1) != base.argmax(1)).sum())
            p50 = {s: statistics.median(times[s]) for s in sizes}
            n_pairs = statistics.median(len(prem) for prem, _ in items)
            cells = [f"{1e3 * p50[s]:.0f}" for s in sizes]
            ratios = [f"{p50[s] / p50[args.base]:.2f}×" for s in sizes if s != args.base]
            print(
                f"| {runtime} | {k} | {n_pairs:.0f} | "
                + " | ".join(cells + ratios)
                + f" | {worst:.1e} | {changed} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
