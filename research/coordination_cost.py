"""What the default's coordination signals cost: ``python -m research.coordination_cost``.

The default ``MirageConfig()`` loads the packaged all-MiniLM-L6-v2 embedder and embeds every
passage of a query (``coordination="embedding"``). On perf_engine's real gpe-eval evidence (the
claim as the query, its own pages first, 1,200 characters each) at k = 5, 10 and 20, this
times ``defend()`` with the default and with ``coordination="none"`` (everything else equal),
interleaved query by query, with the NLI cache and the embedder's text cache off, so every
NLI pair and every passage is a real forward pass. Also: the embedder's one-off load time.
Both models run on ONNX Runtime (the default on a CPU install), or on torch (``--runtime
torch``).

Timings are one run on a shared machine: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.perf_engine import queries
from mirage_core import Mirage, MirageConfig


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=12)
    p.add_argument("--ks", default="5,10,20")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--runtime",
        choices=("onnx", "torch"),
        default="onnx",
        help="both models on ONNX Runtime (a CPU install's default) or on torch",
    )
    args = p.parse_args(argv)
    ks = [int(k) for k in args.ks.split(",")]

    if args.runtime == "onnx":
        from mirage_core.embeddings import OnnxEmbedder as Embedder
        from mirage_core.nli import OnnxNLI as NLI
    else:
        from mirage_core.embeddings import MiniLMEmbedder as Embedder
        from mirage_core.nli.transformers_nli import TransformersNLI as NLI

    t = time.perf_counter()
    embedder = Embedder(cache_size=0)  # every passage is embedded every time
    load_s = time.perf_counter() - t
    nli = NLI(cache_size=0)
    nli.predict(["warm up the model"], ["the model is warm"])
    embedder.embed(["warm up the embedder"])
    configs = {
        "default": MirageConfig(),
        'coordination="none"': MirageConfig(coordination="none"),
    }
    engines = {name: Mirage(cfg, nli=nli, embedder=embedder) for name, cfg in configs.items()}
    items = queries(args.queries, max(ks), args.seed)
    print(f"runtime: {args.runtime} (both models, fp32)")
    print(f"embedder load (all-MiniLM-L6-v2, once per process): {load_s:.2f} s")
    print(f"{len(items)} gpe-eval queries per k; NLI and embedder caches off; interleaved\n")
    print(
        "| k | default p50 | none p50 | ratio (sum) | embed share of default | "
        "embed p50 | decisions that differ |"
    )
    print("|---|---|---|---|---|---|---|")
    for k in ks:
        total: dict[str, list[float]] = {n: [] for n in engines}
        embed: list[float] = []
        differ = 0
        for q, passages in items:
            routes = {}
            for name, mirage in engines.items():
                v = mirage.defend(q, passages[:k])
                total[name].append(v.timings["total"])
                routes[name] = v.decision
                if name == "default":
                    embed.append(v.timings.get("embed", 0.0))
            differ += len(set(routes.values())) > 1
        d, n = np.array(total["default"]), np.array(total['coordination="none"'])
        print(
            f"| {k} | {np.median(d):.2f} s | {np.median(n):.2f} s | {d.sum() / n.sum():.2f}× "
            f"| {np.sum(embed) / d.sum():.0%} | {1000 * np.median(embed):.0f} ms "
            f"| {differ} of {len(items)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
