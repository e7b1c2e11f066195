"""Model time per query against the batch size: ``python -m benchmarks.batch_size``.

Both packaged models sort their inputs by length before cutting them into batches, so a batch
pads each input only to the longest beside it; a smaller batch pads less and runs more forward
passes. For the default config on the perf_engine queries (gpe-eval claims and their evidence)
at each ``--ks`` passages, this records what each query sends to the model (``--model nli``:
its claim pairs; ``--model embedder``: its passages; one call per query, as ``defend`` makes
it, or with ``--pooled`` every query's in one call, as ``defend_many`` makes it), then times every batch size on every query's inputs, the sizes interleaved query by query
so that machine load hits them alike, on each runtime of ``--runtimes`` (fp32, caches off). It
prints the median time per query, its ratio to ``--base``'s, and how far each size's outputs
are from ``--base``'s (NLI: max |Δp| and labels changed; embedder: max |Δ| of a coordinate).
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
from mirage_core import Mirage, MirageConfig
from mirage_core.embeddings import CallableEmbedder
from mirage_core.nli import CallableNLI


def backend(model: str, runtime: str, batch_size: int):
    """The packaged ``model`` ("nli" or "embedder") on ``runtime`` ("torch" or "onnx"), no
    cache."""
    if model == "embedder":
        if runtime == "onnx":
            from mirage_core.embeddings import OnnxEmbedder

            return OnnxEmbedder(batch_size=batch_size, cache_size=0)
        from mirage_core.embeddings import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=batch_size, cache_size=0)
    if runtime == "onnx":
        from mirage_core.nli.onnx_nli import OnnxNLI

        return OnnxNLI(batch_size=batch_size, cache_size=0)
    from mirage_core.nli import TransformersNLI

    return TransformersNLI(batch_size=batch_size, cache_size=0)


def per_query_inputs(model: str, n: int, k: int, seed: int) -> list[tuple[list[str], ...]]:
    """Each query's model inputs as the default engine sends them: (premises, hypotheses) for
    NLI, (texts,) for the embedder."""
    out: list[tuple[list[str], ...]] = []
    for q, passages in queries(n, k, seed):
        if model == "nli":
            out.append(recorded_pairs([q], [passages[:k]]))
            continue
        texts: list[str] = []

        def record(batch: list[str], texts: list[str] = texts) -> np.ndarray:
            texts.extend(batch)
            return np.ones((len(batch), 8), dtype=np.float32)

        Mirage(
            MirageConfig(),
            nli=CallableNLI(lambda p, h: np.tile([0.1, 0.8, 0.1], (len(p), 1))),
            embedder=CallableEmbedder(record),
        ).defend(q, passages[:k])
        out.append((texts,))
    return out


def run(model, inputs: tuple[list[str], ...]) -> np.ndarray:
    if len(inputs) == 2:
        return model.predict(*inputs)
    return np.asarray(model.embed(inputs[0]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="nli", choices=("nli", "embedder"))
    p.add_argument("--ks", default="5,20,50")
    p.add_argument("--queries", type=int, default=8)
    p.add_argument("--sizes", default="8,16,32,64")
    p.add_argument("--base", type=int, default=64)
    p.add_argument("--runtimes", default="torch,onnx")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--pooled",
        action="store_true",
        help="all queries' inputs in one call, as defend_many makes it (timed --repeats times)",
    )
    p.add_argument("--repeats", type=int, default=5, help="with --pooled: timed calls per size")
    argv = sys.argv[1:] if argv is None else argv
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.base not in sizes:
        p.error("--base must be one of --sizes")
    print(f"`python -m benchmarks.batch_size {' '.join(argv)}`".replace(" `", "`"))
    what = (
        f"{args.queries} queries per k, pooled into one call, {args.repeats} calls per size"
        if args.pooled
        else f"{args.queries} queries per k, one call per query"
    )
    print(f"\n{what}; {os.cpu_count()} CPUs; one run, ratios in one loop\n")
    unit = "pairs" if args.model == "nli" else "texts"
    per = "call" if args.pooled else "query"
    print(
        f"| runtime | k | {unit} / {per} | " + " | ".join(f"b={s}: p50 ms" for s in sizes), end=""
    )
    print(" | " + " | ".join(f"b={s} / b={args.base}" for s in sizes if s != args.base), end="")
    print(" | max abs Δ vs base | labels changed |")
    print("|---" * (3 + 2 * len(sizes) - 1 + 2) + "|")
    for runtime in args.runtimes.split(","):
        models = {s: backend(args.model, runtime, s) for s in sizes}
        for k in (int(x) for x in args.ks.split(",")):
            items = per_query_inputs(args.model, args.queries, k, args.seed)
            if args.pooled:
                pooled = tuple(
                    [x for inputs in items for x in inputs[j]] for j in range(len(items[0]))
                )
                items = [pooled] * args.repeats
            times: dict[int, list[float]] = {s: [] for s in sizes}
            probs: dict[int, list[np.ndarray]] = {s: [] for s in sizes}
            for inputs in items:
                for s in sizes:
                    t = time.perf_counter()
                    probs[s].append(run(models[s], inputs))
                    times[s].append(time.perf_counter() - t)
            base = np.concatenate(probs[args.base])
            worst, changed = 0.0, 0
            for s in sizes:
                got = np.concatenate(probs[s])
                worst = max(worst, float(np.abs(got - base).max()))
                if args.model == "nli":
                    changed += int((got.argmax(1) != base.argmax(1)).sum())
            p50 = {s: statistics.median(times[s]) for s in sizes}
            n_pairs = statistics.median(len(inputs[0]) for inputs in items)
            cells = [f"{1e3 * p50[s]:.0f}" for s in sizes]
            ratios = [f"{p50[s] / p50[args.base]:.2f}×" for s in sizes if s != args.base]
            print(
                f"| {runtime} | {k} | {n_pairs:.0f} | "
                + " | ".join(cells + ratios)
                + f" | {worst:.1e} | {changed if args.model == 'nli' else '—'} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
