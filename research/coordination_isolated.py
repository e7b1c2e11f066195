"""Fit how the embedding coordination model scores a group that is the whole evidence.

``tightness`` compares a candidate group's cosine with the query's other passage pairs. When
the group holds every retrieved passage (five planted passages and nothing else, or five honest
pages that all name one entity) there are no other pairs and ``tightness`` is undefined, so
such a group is scored on its own signals (:data:`~mirage_core.coordination.ISOLATED_SIGNALS`,
standardized with :data:`DEFAULT_MODEL`'s honest centers and scales) with its own threshold.
An evidence set has at most one such group (its member set is every passage).

Two rules, both on the scoreboard's fit split:

1. **Which signals** (2026-12-01): every combination of the isolated signals is compared at one
   honest cost, the number of honest evidence sets of the fit split (gpe-eval CLEAN pages and
   snippets, k = 5 and 10) that the isolated scoring shipped before it flagged
   (``--budget answer_focus,cosine@0.8``: 11 of 300);
   the combination that catches the largest mean share of the attack evidence kinds (each
   dataset's attack-only sets: gpe-eval FULL pages and snippets, PoisonedRAG poisons alone,
   original and adaptive; equal weight) wins, ties to the fewer signals. This rule was
   written after a first look at both splits. The ``restatement`` signal (2026-12-02) was
   added and the rule rerun at the honest cost of the scoring it had picked
   (``--budget answer_focus,novelty,cosine@0.572``: 11 of 300): that combination
   still wins. (An earlier form of the signal, the plain share of the query, won at 0.276 and
   was withdrawn: it flagged honest direct answers to short questions; see
   ``research/results/scoreboard-choice.md``.)
   ``insistence`` and ``detail`` were added later and the rule rerun at the same honest cost,
   with and without shortqa's honest sets in the pool (``--shortqa``); the scoreboard decides
   between the two picks and the shipped scoring (``research/results/scoreboard-choice.md``).
2. **Which threshold** (2026-12-01; ``--signals answer_focus,cosine --budget 0.02``): the lowest
   at which at most ``--budget`` of the honest fit sets would be flagged. It gave 1.169;
   a later sweep lowered the shipped threshold on the scoreboard
   (``research/choose_default.py``, rule J3; ``research/results/scoreboard-choice.md``), so a threshold printed here is an
   honest-evidence bound, not the shipped value.

Only honest evidence sets the threshold; attack sets are counted, on both splits.

    python -m research.coordination_isolated \
        --budget answer_focus,novelty,cosine@0.572 > research/results/coordination_isolated.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path

import numpy as np

from benchmarks._pair_store import PACKAGED_VECTORS, PersistentEmbedder
from benchmarks.scoreboard import add_dataset_args, dataset_loaders
from mirage_core.coordination import (
    DEFAULT_MODEL,
    ISOLATED_SIGNALS,
    candidate_groups,
    evidence_profile,
    group_signals,
)
from mirage_core.evaluation.splits import split_queries

Key = tuple[str, str, str]  # dataset, regime, split


def isolated_signals(query: str, passages: list, embedder) -> dict[str, float] | None:
    """The standardized signals of the evidence set's whole-evidence group (as
    :meth:`CoordinationModel.standardize` gives them), or ``None`` when it has none over the
    model's length floor."""
    texts = [p.text for p in passages]
    domains = [p.resolved_domain(i) for i, p in enumerate(passages)]
    profile = evidence_profile(query, texts, domains, embedder.embed(texts))
    for members, anchors in candidate_groups(profile, DEFAULT_MODEL.min_publishers):
        g = group_signals(profile, members, anchors)
        if g.isolated and not g.tokens < DEFAULT_MODEL.min_tokens:
            return DEFAULT_MODEL.standardize(g)
    return None


def combined(z: dict[str, float] | None, signals: tuple[str, ...]) -> float:
    """The isolated score with ``signals`` (-inf: no group, or a signal undefined, which
    :meth:`CoordinationModel.score` would not score as isolated)."""
    if z is None or not all(s in z for s in signals):
        return -math.inf
    return float(np.mean([z[s] for s in signals]))


def threshold_at(honest: np.ndarray, allowed: int) -> float:
    """The lowest threshold (rounded up to 0.001) flagging at most ``allowed`` of ``honest``."""
    finite = np.sort(honest[np.isfinite(honest)])
    if finite.size <= allowed:
        return math.ceil(float(finite[0]) * 1000) / 1000 if finite.size else 0.0
    # just above the (allowed+1)-th highest honest score
    return math.ceil(float(np.nextafter(finite[-(allowed + 1)], math.inf)) * 1000) / 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dataset_args(p)
    p.add_argument(
        "--budget",
        default="shipped",
        help="honest fit sets flagged: a fraction (0.02); 'SIGNALS@THRESHOLD' = as many as "
        "that scoring flags (e.g. answer_focus,cosine@0.8); 'shipped' = as many as "
        "the shipped isolated signals and threshold flag (default)",
    )
    p.add_argument(
        "--shortqa",
        action="store_true",
        help="add shortqa (benchmarks/shortqa.py): its honest sets join the honest pool the "
        "thresholds are fit on, its poisons alone an attack kind; the budget stays the count "
        "of gpe-eval honest fit sets",
    )
    p.add_argument(
        "--signals",
        default=None,
        help="comma list of isolated signals to report (default: chosen by rule 1)",
    )
    args = p.parse_args(argv)
    if not args.adaptive:
        args.adaptive, args.adaptive_n = "dispersed,paraphrase,synonym", 20
    from mirage_core.embeddings import MiniLMEmbedder

    embedder = PersistentEmbedder(
        MiniLMEmbedder(), Path(args.store).with_name("vectors.sqlite"), PACKAGED_VECTORS
    )
    sets: dict[Key, list[dict[str, float] | None]] = {}
    for name, load in dataset_loaders(args, shortqa=args.shortqa).items():
        ds = load()
        fit_ids, _ = split_queries([i.qid for i in ds.instances], 0.5, args.seed)
        fit = set(fit_ids)
        for inst in ds.instances:
            if inst.regime == "clean" and name.startswith("poisonedrag"):
                continue
            sp = "fit" if inst.qid in fit else "report"
            sets.setdefault((name, inst.regime, sp), []).append(
                isolated_signals(inst.query, inst.passages, embedder)
            )
        print(f"{name}: {len(ds.instances)} sets", file=sys.stderr, flush=True)

    def scores(key: Key, signals: tuple[str, ...]) -> np.ndarray:
        return np.array([combined(z, signals) for z in sets.get(key, [])])

    def honest(sp: str, signals: tuple[str, ...], gpe_only: bool = False) -> np.ndarray:
        keys = [
            k
            for k in sets
            if k[1] == "clean" and k[2] == sp and (k[0].startswith("gpe") or not gpe_only)
        ]
        return np.concatenate([scores(k, signals) for k in keys])

    attack_kinds = [n for n, r, sp in sets if r == "full" and sp == "fit"]
    n_honest = honest("fit", DEFAULT_MODEL.isolated_signals).size
    if args.budget == "shipped" or "@" in args.budget:
        if args.budget == "shipped":
            ref_signals = DEFAULT_MODEL.isolated_signals
            ref_threshold = DEFAULT_MODEL.isolated_threshold
        else:
            names, _, value = args.budget.partition("@")
            ref_signals, ref_threshold = tuple(names.split(",")), float(value)
        # counted on gpe-eval's honest sets: with --shortqa the pool grows, the budget does not
        allowed = int(np.sum(honest("fit", ref_signals, gpe_only=True) >= ref_threshold))
        budget_text = (
            f"as many as {' + '.join(ref_signals)} at {ref_threshold:g} flag on gpe-eval: "
            f"{allowed} of {n_honest}"
        )
    else:
        allowed = math.floor(float(args.budget) * n_honest)
        budget_text = f"at most {float(args.budget):.0%} of {n_honest}: {allowed}"

    # Rule 1: every combination at the same honest cost.
    table = []
    for r in range(1, len(ISOLATED_SIGNALS) + 1):
        for combo in itertools.combinations(ISOLATED_SIGNALS, r):
            thr = threshold_at(honest("fit", combo), allowed)
            caught = {
                (n, sp): float(np.mean(scores((n, "full", sp), combo) >= thr))
                for n in attack_kinds
                for sp in ("fit", "report")
            }
            mean_fit = float(np.mean([caught[(n, "fit")] for n in attack_kinds]))
            table.append((mean_fit, -len(combo), combo, thr, caught))
    table.sort(key=lambda row: (row[0], row[1]), reverse=True)
    chosen = tuple(args.signals.split(",")) if args.signals else table[0][2]
    print(f"honest fit sets flagged: {budget_text}")
    print()
    print("Attack-only evidence caught at that honest cost, fit / report (rule 1 ranks by the")
    print("mean over the attack kinds on the fit split):")
    print()
    print("| isolated signals | threshold | mean fit | " + " | ".join(attack_kinds) + " |")
    print("|---|---|---|" + "---|" * len(attack_kinds))
    for mean_fit, _, combo, thr, caught in table:
        cells = " | ".join(
            f"{100 * caught[(n, 'fit')]:.0f} / {100 * caught[(n, 'report')]:.0f}"
            for n in attack_kinds
        )
        mark = " **(chosen)**" if combo == chosen else ""
        print(f"| {' + '.join(combo)}{mark} | {thr:.3f} | {100 * mean_fit:.1f}% | {cells} |")

    threshold = threshold_at(honest("fit", chosen), allowed)
    print()
    print(
        f"isolated signals {' + '.join(chosen)}; threshold {threshold:.3f} "
        f"(honest fit sets flagged: {budget_text}); honest fit sets with an isolated group "
        f"over the length floor: {int(np.isfinite(honest('fit', chosen)).sum())}"
    )
    print()
    print("| evidence | regime | fit: flagged | report: flagged |")
    print("|---|---|---|---|")
    for name, regime in dict.fromkeys((n, r) for n, r, _ in sets):
        cells = []
        for sp in ("fit", "report"):
            v = scores((name, regime, sp), chosen)
            cells.append(f"{np.mean(v >= threshold):.1%} of {v.size}" if v.size else "—")
        print(f"| {name} | {regime} | {cells[0]} | {cells[1]} |")
    for sp in ("fit", "report"):
        h = honest(sp, chosen, gpe_only=True)
        print(f"\nhonest gpe-eval sets flagged ({sp}): {np.mean(h >= threshold):.1%} of {h.size}")
    if args.shortqa:
        print("\nshortqa's honest sets flagged by each combination at its threshold, fit / report:")
        for _, _, combo, thr, _ in table[:12]:
            cells = [
                np.mean(scores(("shortqa", "clean", sp), combo) >= thr) for sp in ("fit", "report")
            ]
            print(f"- {' + '.join(combo)} at {thr:.3f}: {cells[0]:.0%} / {cells[1]:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
