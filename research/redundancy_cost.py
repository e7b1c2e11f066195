"""What the opt-in redundancy filter costs a query, beside the coordination signals it runs with.

Both read the same inputs the engine gives them: each passage's cleaned text and its
all-MiniLM-L6-v2 embedding (the embeddings are computed once, outside the timings, from the
benchmarks' vector store when it has them). Timed in interleaved rounds in one run, reported as
medians and as ratios (this machine is noisy):

- ``redundant_passages(..., "single_hop")`` (scikit-learn's Ward 2-cluster split + TF-IDF vote),
- ``redundant_passages(..., "multi_hop")`` (numpy concentration estimate),
- ``detect_coordination`` with the default embedding model.

    python -m research.redundancy_cost > research/results/redundancy_cost.txt
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks._pair_store import PACKAGED_VECTORS, PersistentEmbedder
from benchmarks.scoreboard import gpe
from mirage_core.claims import clean_text
from mirage_core.coordination import detect_coordination, model_for
from mirage_core.redundancy_filter import redundant_passages


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", type=int, default=10, help="gpe-eval passages per query (10)")
    p.add_argument("--n", type=int, default=60, help="evidence sets timed (60)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--store", default="benchmarks/.cache/vectors.sqlite")
    args = p.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.embeddings import MiniLMEmbedder

    t0 = time.perf_counter()
    # the single_hop estimate's import, timed once
    for module in ("sklearn.cluster", "sklearn.feature_extraction.text"):
        importlib.import_module(module)

    t_import = time.perf_counter() - t0
    embedder = PersistentEmbedder(MiniLMEmbedder(), Path(args.store), PACKAGED_VECTORS)
    ds = gpe(args.k, 100, args.seed)
    items = []
    for inst in ds.instances[: args.n]:
        texts = [clean_text(it.text) for it in inst.passages]
        pubs = [f"p{i}" for i in range(len(texts))]
        items.append((inst.query, texts, np.asarray(embedder.embed(texts)), pubs))
    model = model_for(True, None, None, None, None)

    def single() -> None:
        for _, texts, emb, _ in items:
            redundant_passages(texts, emb, "single_hop")

    def multi() -> None:
        for _, texts, emb, _ in items:
            redundant_passages(texts, emb, "multi_hop")

    def coordination() -> None:
        for query, texts, emb, pubs in items:
            detect_coordination(query, texts, pubs, emb, model)

    runs = {"single_hop": single, "multi_hop": multi, "detect_coordination": coordination}
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.rounds):
        for name, fn in runs.items():
            t = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t) / len(items))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"# research/redundancy_cost.py: {len(items)} gpe-eval k = {args.k} evidence sets "
        f"(seed {args.seed}), median of {args.rounds} interleaved rounds, one run"
    )
    print(f"scikit-learn import: {t_import * 1000:.0f} ms (once per process)")
    for name, v in med.items():
        print(f"{name:<20} {v * 1000:8.2f} ms / query  (min {min(times[name]) * 1000:.2f})")
    base = med["detect_coordination"]
    print(
        f"ratio to detect_coordination: single_hop {med['single_hop'] / base:.3f}, "
        f"multi_hop {med['multi_hop'] / base:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
