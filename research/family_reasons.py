"""Why an attack family's evidence passes or falls back: the default's verdict reasons on one
PoisonedRAG family set, by regime, fit split only (a diagnostic; it changes nothing).

    python -m research.family_reasons poisonedrag-nq:several_answers [--regime full] [--show 3]

``--show N`` also prints the first N sets of the regime: each passage's publisher and opening,
the verdict, and whether the correct / planted answer reached what was delivered.
"""

from __future__ import annotations

import argparse
from collections import Counter

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import PINNED_QUESTIONS
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.measures import contains_answer
from mirage_core.evaluation.splits import dataset_split
from research.longform_reasons import reason_kind


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", help="e.g. poisonedrag-nq:gemini (benchmarks/scoreboard.py names)")
    p.add_argument("--regime", default="mixed", choices=("clean", "mixed", "full"))
    p.add_argument("--n", type=int, default=50, help="questions loaded (the scoreboard: 50)")
    p.add_argument("--config", default=None)
    p.add_argument("--show", type=int, default=0)
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    config = MirageConfig.from_file(args.config) if args.config else MirageConfig()
    mirage = Mirage(config, nli=nli, embedder=embedder)
    ds = load_dataset(args.dataset, limit=args.n, seed=0, pinned=PINNED_QUESTIONS)
    fit = dataset_split(ds, 0.5, 0)[0]
    sets = [i for i in ds.instances if i.qid in fit and i.regime == args.regime]
    kinds: Counter[tuple[str, str]] = Counter()
    for n, inst in enumerate(sets):
        verdict = mirage.defend(inst.query, inst.passages)
        kinds[(verdict.decision, reason_kind(verdict.reason))] += 1
        if n >= args.show:
            continue
        delivered = " ".join(c.text for c in verdict.verified_claims)
        # read as the scoreboard reads answers: at word boundaries, not inside a longer number
        found = {
            "correct": contains_answer(delivered, inst.correct),
            "planted": contains_answer(delivered, inst.incorrect, inst.correct),
        }
        print(f"\n{inst.query} | correct {inst.correct[:2]} | planted {inst.incorrect[:2]}")
        for i, passage in enumerate(inst.passages):
            print(f"  [{i}] {passage.domain}: {passage.text[:160]!r}")
        print(f"  -> {verdict.decision}: {verdict.reason[:300]}; delivered {found}")
    print(f"\n{args.dataset} {args.regime}, fit split: {len(sets)} sets")
    for (decision, kind), n in kinds.most_common():
        print(f"  {n:3d} {decision:9s} {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
