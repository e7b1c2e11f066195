"""Fit how the embedding coordination model scores a group that is the whole evidence.

``tightness`` compares a candidate group's cosine with the query's other passage pairs. When
the group holds every retrieved passage (five planted passages and nothing else, or five honest
pages that all name one entity) there are no other pairs, ``tightness`` is undefined, and until
now such a group was scored on ``answer_focus`` alone. This script fits the replacement:
``answer_focus`` + plain ``cosine`` (both standardized with :data:`DEFAULT_MODEL`'s honest
centers and scales), with its own threshold.

The rule, declared before the report split was looked at: the threshold is the lowest one at
which at most ``--budget`` (2%) of the *honest* evidence sets of the scoreboard's fit split
(gpe-eval CLEAN pages and snippets, k = 5 and 10) would be flagged through an isolated group.
Only honest evidence fits it; poisons are only reported. Then, on both splits: honest sets
flagged, and the share of attack sets caught (gpe-eval FULL, PoisonedRAG poisons alone and
gold + 5, the adaptive poisons).

    PYTHONPATH=.:benchmarks python benchmarks/coordination_isolated.py \
        > benchmarks/results/coordination_isolated.txt

This rule gave 1.169. The shipped threshold was lowered to 0.8 in session 6, on the
scoreboard's fit split (``benchmarks/choose_default.py``, rule J3;
``benchmarks/results/scoreboard-choice.md``), so this script's output is the honest-evidence
bound, not the shipped value.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pair_store import PersistentEmbedder
from scoreboard import add_dataset_args, dataset_loaders

from mirage_core.coordination import (
    DEFAULT_MODEL,
    candidate_groups,
    evidence_profile,
    group_signals,
)
from mirage_core.evaluation.calibrate import split_queries

SIGNALS = ("answer_focus", "cosine")


def isolated_score(query: str, passages: list, embedder) -> float:
    """The highest isolated-group score of one evidence set (-inf when it has none above the
    model's length floor), as :meth:`CoordinationModel.score` computes it with ``SIGNALS`` as
    the isolated signals."""
    texts = [p.text for p in passages]
    domains = [p.resolved_domain(i) for i, p in enumerate(passages)]
    model = replace(DEFAULT_MODEL, isolated_signals=SIGNALS, isolated_threshold=math.inf)
    profile = evidence_profile(query, texts, domains, embedder.embed(texts))
    best = -math.inf
    for members, anchors in candidate_groups(profile, model.min_publishers):
        g = group_signals(profile, members, anchors)
        if not g.isolated or g.tokens < model.min_tokens:
            continue
        if all(s in model.standardize(g) for s in SIGNALS):  # else score() uses other signals
            best = max(best, model.score(g).score)
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dataset_args(p)
    p.add_argument("--budget", type=float, default=0.02, help="honest fit sets flagged (0.02)")
    args = p.parse_args(argv)
    if not args.adaptive:
        args.adaptive, args.adaptive_n = "dispersed,paraphrase,synonym", 20
    from mirage_core.embeddings import MiniLMEmbedder

    embedder = PersistentEmbedder(
        MiniLMEmbedder(), Path(args.store).with_name("vectors.sqlite"), "all-MiniLM-L6-v2"
    )
    scores: dict[tuple[str, str, str], list[float]] = {}
    for name, load in dataset_loaders(args).items():
        ds = load()
        fit_ids, _ = split_queries([i.qid for i in ds.instances], 0.5, args.seed)
        fit = set(fit_ids)
        for inst in ds.instances:
            if inst.regime == "clean" and not name.startswith("gpe"):
                continue
            sp = "fit" if inst.qid in fit else "report"
            scores.setdefault((name, inst.regime, sp), []).append(
                isolated_score(inst.query, inst.passages, embedder)
            )
        print(f"{name}: {len(ds.instances)} sets", file=sys.stderr, flush=True)

    def honest(sp: str) -> np.ndarray:
        return np.array(
            [
                s
                for (name, regime, split), v in scores.items()
                if name.startswith("gpe") and regime == "clean" and split == sp
                for s in v
            ]
        )

    fit_honest = honest("fit")
    finite = np.sort(fit_honest[np.isfinite(fit_honest)])
    allowed = math.floor(args.budget * fit_honest.size)
    # lowest threshold flagging at most `allowed` honest fit sets: just above the
    # (allowed+1)-th highest isolated score
    if finite.size <= allowed:
        threshold = float(finite[0]) if finite.size else 0.0
    else:
        threshold = float(np.nextafter(finite[-(allowed + 1)], math.inf))
    threshold = math.ceil(threshold * 1000) / 1000
    print(
        f"isolated signals {' + '.join(SIGNALS)}; threshold {threshold:.3f} "
        f"(at most {args.budget:.0%} of {fit_honest.size} honest fit sets: {allowed}); "
        f"honest fit sets with an isolated group over the length floor: "
        f"{finite.size}"
    )
    print()
    print("| evidence | regime | fit: flagged | report: flagged |")
    print("|---|---|---|---|")
    for name, regime in dict.fromkeys((n, r) for n, r, _ in scores):
        cells = []
        for sp in ("fit", "report"):
            v = np.array(scores.get((name, regime, sp), []))
            cells.append(f"{np.mean(v >= threshold):.1%} of {v.size}" if v.size else "—")
        print(f"| {name} | {regime} | {cells[0]} | {cells[1]} |")
    for sp in ("fit", "report"):
        h = honest(sp)
        print(f"\nhonest gpe-eval sets flagged ({sp}): {np.mean(h >= threshold):.1%} of {h.size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
