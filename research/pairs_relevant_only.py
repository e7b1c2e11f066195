"""NLI pairs per query with and without ``pair_relevant_only``:
`python -m research.pairs_relevant_only`.

The same queries as ``benchmarks/perf_engine.py`` (gpe-eval claims, k = 5 to 50 real web
pages), the default config with the option off and on; a counting NLI double, so nothing is
scored. The scoreboard run of the candidate (``research/candidates/pairs-relevant-only.json``)
decides whether it becomes the default: the third-round rule of ``research/corroborated_first``
(leave-one-family-out among the default and the candidates that lose no guarded row, the
short-QA guard included). A later candidate (declared after the first's figures, before it
ran) adds the coordination length ceiling at the calibration pool's longest passage
(``research/coordination_length.py``): the first loses one biogen-k10 clean set on fit, and the
ceiling keeps long honest pages from being flagged at all.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.perf_engine import CountingNLI, queries
from mirage_core import Mirage, MirageConfig


def pairs_per_query(items, k: int, relevant_only: bool) -> float:
    config = MirageConfig().replace(pair_relevant_only=relevant_only)
    verdicts = Mirage(config, nli=CountingNLI()).defend_many(
        [q for q, _ in items], [p[:k] for _, p in items]
    )
    return float(np.mean([2 * v.candidate_stats["nli_pairs"] for v in verdicts]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--report", nargs="+", help="the choice, from scoreboard JSON files")
    args = p.parse_args(argv)
    if args.report:
        from research.corroborated_first import report
        from research.longform_candidates import load_runs

        runs = load_runs(args.report)
        lines = report(runs, ("default", "pairs-relevant-only"), short_guard=True)
        if "pairs-relevant-only-longest-passage" in runs:
            later = ("default", "pairs-relevant-only-longest-passage")
            lines += ["", "later candidate", "", *report(runs, later, short_guard=True)]
        print("\n".join(lines))
        return 0
    ks = (5, 10, 20, 50)
    items = queries(args.queries, max(ks), args.seed)
    print("| k | default pairs / query | relevant only | ratio |")
    print("|---|---|---|---|")
    base5 = only5 = 0.0
    for k in ks:
        base, only = pairs_per_query(items, k, False), pairs_per_query(items, k, True)
        base5, only5 = (base, only) if k == 5 else (base5, only5)
        print(f"| {k} | {base:.1f} | {only:.1f} | {only / max(base, 1e-9):.2f} |")
        if k != 5:
            print(f"|   | growth from k = 5: ×{base / base5:.1f} | ×{only / only5:.1f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
