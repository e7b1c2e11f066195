"""Whether the two models' passes gain from running at once: ``python -m benchmarks.model_overlap``.

A query's embedder pass (its passages, for the coordination signals) and its NLI pass (its
claim pairs) read nothing of each other, so they could run side by side in two threads (both
runtimes release the GIL in their forward passes). For the default config on the perf_engine
queries at ``--k`` passages, this records each query's passages and pairs, then times, query by
query and alternating the order, the two passes one after the other and the two at once in a
thread pool, on each runtime of ``--runtimes`` (default batch sizes, caches off). It prints the
median time per query of each and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from benchmarks.batch_size import backend, per_query_inputs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--queries", type=int, default=8)
    p.add_argument("--runtimes", default="torch,onnx")
    p.add_argument("--seed", type=int, default=0)
    argv = sys.argv[1:] if argv is None else argv
    args = p.parse_args(argv)
    print(f"`python -m benchmarks.model_overlap {' '.join(argv)}`".replace(" `", "`"))
    print(f"\n{args.queries} queries at k = {args.k}; {os.cpu_count()} CPUs; one run\n")
    print(
        "| runtime | one after the other: p50 ms | at once: p50 ms | at once / one after the other |"
    )
    print("|---|---|---|---|")
    pairs = per_query_inputs("nli", args.queries, args.k, args.seed)
    texts = per_query_inputs("embedder", args.queries, args.k, args.seed)
    for runtime in args.runtimes.split(","):
        nli = backend("nli", runtime, 16)
        embedder = backend("embedder", runtime, 8)
        serial: list[float] = []
        parallel: list[float] = []
        with ThreadPoolExecutor(max_workers=2) as pool:
            for n, ((premises, hypotheses), (passages,)) in enumerate(
                zip(pairs, texts, strict=True)
            ):
                for mode in ("serial", "parallel") if n % 2 == 0 else ("parallel", "serial"):
                    t = time.perf_counter()
                    if mode == "serial":
                        embedder.embed(passages)
                        nli.predict(premises, hypotheses)
                        serial.append(time.perf_counter() - t)
                    else:
                        jobs = [
                            pool.submit(embedder.embed, passages),
                            pool.submit(nli.predict, premises, hypotheses),
                        ]
                        for job in jobs:
                            job.result()
                        parallel.append(time.perf_counter() - t)
        a, b = statistics.median(serial), statistics.median(parallel)
        print(f"| {runtime} | {1e3 * a:.0f} | {1e3 * b:.0f} | {b / a:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
