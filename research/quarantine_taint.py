"""Whether what passes after a quarantine is vouched for by the quarantined passages (a
diagnostic; it changes nothing).

    python -m research.quarantine_taint [--p-entail 0.5] > research/results/quarantine_taint.txt

For each set of the fit split, the default's verdict is counted as a fallback, a pass with no
passage quarantined, or a pass after a quarantine; the last is told by whether S* spans one
source ("lone": the ``coordinated_d_min`` concession) or several, and by whether a claim of a
quarantined passage supports (p_entail ≥ ``--p-entail`` on a scored edge) none, some or all of
S*'s claims ("tainted": a member of the planted group the signals missed would be).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.splits import split_queries

#: gpe-eval at the scoreboard's sizes (200 claims at k = 5, 100 at k = 10); PoisonedRAG 100
#: questions; a family's first 20 questions (the scoreboard's pinned ones; it runs 50).
SETS: dict[str, Callable[[], Dataset]] = {
    "gpe-k5": lambda: gpe(5, 200, 0),
    "gpe-k10": lambda: gpe(10, 100, 0),
    "gpe-snip-k5": lambda: gpe_snippets(5, 200, 0),
    "shortqa": lambda: load_shortqa(seed=0),
    "nq": lambda: load_dataset("poisonedrag-nq", limit=100, seed=0),
    "hotpotqa": lambda: load_dataset("poisonedrag-hotpotqa", limit=100, seed=0),
    "nq:gemini_100_x": lambda: load_dataset("poisonedrag-nq:gemini_100_x", limit=20, seed=0),
    "hotpotqa:gemini_100_x": lambda: load_dataset(
        "poisonedrag-hotpotqa:gemini_100_x", limit=20, seed=0
    ),
    "nq:gemini": lambda: load_dataset("poisonedrag-nq:gemini", limit=20, seed=0),
}


def kind(verdict, p_entail: float) -> str:
    """What the verdict is, in this diagnostic's terms."""
    if verdict.decision != "verified":
        return "fallback"
    flagged = set(verdict.coordination.passages) if verdict.coordination else set()
    if not flagged:
        return "pass, no quarantine"
    claims, g = verdict.claims, verdict.graph
    quarantined = np.array([c.passage_index in flagged for c in claims], dtype=bool)
    in_s = np.zeros(len(claims), dtype=bool)
    in_s[list(verdict.selected)] = True
    hit = quarantined[g.premise] & in_s[g.hypothesis] & (g.probs[:, 0] >= p_entail)
    tainted = set(g.hypothesis[hit].tolist())
    spans = "lone" if len({claims[i].source for i in verdict.selected}) < 2 else "several"
    if not tainted:
        return f"pass after a quarantine ({spans}), untainted"
    which = "all" if tainted >= set(verdict.selected) else "some"
    return f"pass after a quarantine ({spans}), {which} tainted"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--p-entail", type=float, default=0.5)
    p.add_argument("--sets", default=",".join(SETS))
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    print(f"# python -m research.quarantine_taint --p-entail {args.p_entail} (fit split)")
    for name in args.sets.split(","):
        ds = SETS[name]()
        fit = set(split_queries([i.qid for i in ds.instances], 0.5, 0)[0])
        counts: Counter[tuple[str, str]] = Counter()
        for inst in ds.instances:
            if inst.qid in fit:
                verdict = mirage.defend(inst.query, inst.passages)
                counts[(inst.regime, kind(verdict, args.p_entail))] += 1
        print(f"\n{name}")
        for (regime, what), n in sorted(counts.items()):
            print(f"  {regime:6s} {what:45s} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
