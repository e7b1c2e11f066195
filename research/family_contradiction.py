"""What the NLI model sees in the attack families the default passes most: per evidence set,
the strongest contradiction among its scored claim pairs (p_contra, the two directions
averaged as the default combines them), against honest gpe-eval pages; fit split only (a
diagnostic; it changes nothing and chooses nothing).

    python -m research.family_contradiction
"""

from __future__ import annotations

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import family_dataset, gpe
from mirage_core import MirageConfig
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.harness import run_benchmark
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.splits import split_queries
from mirage_core.graph import symmetric_contra


def row(ds: Dataset, regime: str, label: str, nli, embedder) -> str:
    config = MirageConfig()
    fit, _ = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)
    ds.instances = [i for i in ds.instances if i.qid in fit and i.regime == regime]
    res = run_benchmark(
        ds, nli, config=config, systems=["mirage"], cold_cache=False, embedder=embedder
    )
    strongest, edges, passed = [], [], []
    for r in res.records:
        g = r.verdicts["mirage"].graph
        p = symmetric_contra(g.probs, config.method.contradiction_symmetry)
        strongest.append(float(p.max()) if len(p) else 0.0)
        edges.append(len(p))
        passed.append(r.routes["mirage"].passed)
    s = np.array(strongest)
    q = np.percentile(s, [25, 50, 75])
    return (
        f"| {label} | {len(s)} | {np.mean(passed):.0%} | {np.median(edges):.0f} | "
        f"{q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f} | {np.mean(s >= 0.5):.0%} | "
        f"{np.mean(s >= config.method.kappa):.0%} |"
    )


def main() -> int:
    nli, embedder = stored_models()
    print("# Strongest contradiction per evidence set, fit split\n")
    print(
        "| evidence | sets | passed | directed edges (median) | strongest p_contra: "
        "quartiles | ≥ 0.5 | ≥ κ |"
    )
    print("|---|---|---|---|---|---|---|")
    print(row(gpe(5, 100, 0), "clean", "gpe-k5 CLEAN (honest pages)", nli, embedder))
    for base in ("poisonedrag-nq", "poisonedrag-hotpotqa"):
        for family, regime in (("blind", "full"), ("gemini_100_x", "mixed")):
            ds = load_dataset(family_dataset(base, family), limit=20, seed=0)
            print(row(ds, regime, f"{base}:{family} {regime.upper()}", nli, embedder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
