"""Why evidence falls back: the default's verdict reasons and flagged groups on biogen-dev
(or, with ``--gpe``, gpe-eval's pages), by regime, fit split only (a diagnostic; it changes
nothing).

    python -m research.longform_reasons [--k 10] [--gpe] [--config C.json]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import biogen, gpe
from mirage_core import MirageConfig
from mirage_core.evaluation.harness import run_benchmark
from mirage_core.evaluation.splits import split_queries


def reason_kind(reason: str) -> str:
    """The reason with its numbers blanked, so that like reasons count together."""
    head = reason.split(";")[0]
    return re.sub(r"\d+(\.\d+)?", "#", head)[:110]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--config", default=None)
    p.add_argument("--biogen", default="../shared/data/biogen-dev/biogen-dev.jsonl")
    p.add_argument("--split", default="fit")
    p.add_argument("--gpe", action="store_true", help="gpe-eval pages (100 queries) at --k")
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    config = MirageConfig.from_file(args.config) if args.config else MirageConfig()
    ds = gpe(args.k, 100, 0) if args.gpe else biogen(Path(args.biogen), args.k, None, 0)
    fit, _ = split_queries([i.qid for i in ds.instances], 0.5, 0)
    want = set(fit) if args.split == "fit" else {i.qid for i in ds.instances} - set(fit)
    ds.instances = [i for i in ds.instances if i.qid in want and i.regime in ("clean", "mixed")]
    res = run_benchmark(
        ds, nli, config=config, systems=["mirage"], cold_cache=False, embedder=embedder
    )
    for regime in ("clean", "mixed"):
        recs = [r for r in res.records if r.regime == regime]
        kinds = Counter(
            (r.verdicts["mirage"].decision, reason_kind(r.verdicts["mirage"].reason)) for r in recs
        )
        print(f"\n{regime}: {len(recs)} sets")
        for (decision, kind), n in kinds.most_common():
            print(f"  {n:3d} {decision:9s} {kind}")
        for r in recs:
            coord = r.verdicts["mirage"].coordination
            for g in coord.signals if coord is not None else ():
                z = " ".join(f"{k}={v:.1f}" for k, v in sorted(g.standardized.items()))
                print(
                    f"    {r.qid} {r.verdicts['mirage'].decision[:4]} flagged "
                    f"{len(g.passages)}/{r.n_passages} isolated={g.isolated} "
                    f"outside={g.outside} tokens={g.tokens:.0f} score={g.score:.2f}: {z}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
