"""How long the honest passages were that the coordination model was calibrated on:
`python -m research.coordination_length`.

The coordination signals are shares of a passage's content tokens, and their centers and
scales are the median / MAD of honest gpe-eval groups whose pages were cut to 1,200 characters
(``research/coordination_signals.py``, fit half). A group of longer pages lies outside what the
model has seen: ten full web pages about one person all carry the person's name (answer
focus), resemble each other (cosine), and leave each page few words no other page has
(novelty), so such a group scores as planted although nothing was fit on its like.

This prints the distribution of ``GroupSignals.tokens`` (the median content tokens of a
group's passages) over the candidate groups of the honest fit half, with the same seeded split
of keys as ``research/coordination_signals.py``; its maximum is the length ceiling the
candidate ``coordination-calibrated-length`` reads (``MethodSettings.coordination_max_tokens``).

    python -m research.coordination_length            # the distribution and its maximum
    python -m research.coordination_length --write    # research/candidates/coordination-*.json
    bash research/corroborated_first_run.sh
    python -m research.coordination_length --report research/results/corroborated-first/*.json
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from mirage_core.claims import content_tokens
from mirage_core.group_signals import candidate_groups, evidence_profile
from research.coordination_data import honest_sets, planted_sets


def fit_half_lengths(seed: int = 0) -> tuple[list[float], list[int]]:
    """(median content tokens of each honest fit-half candidate group, content tokens of each
    honest fit-half passage)."""
    honest = honest_sets()
    planted = planted_sets(None)
    keys = sorted({e.key for e in honest} | {e.key for e in planted})
    rng = random.Random(f"{seed}:coordination-split")
    rng.shuffle(keys)
    fit_keys = set(keys[: len(keys) // 2])
    groups: list[float] = []
    passages: list[int] = []
    for e in honest:
        if e.key not in fit_keys:
            continue
        profile = evidence_profile(e.query, e.texts, e.domains)
        lengths = [len(content_tokens(t)) for t in e.texts]
        passages += lengths
        for members, _ in candidate_groups(profile):
            groups.append(float(np.median([lengths[i] for i in members])))
    return groups, passages


#: The ceiling: the largest median of the honest fit-half groups (printed by ``main``).
CEILING = 96.0

#: Candidates (declared before any of them ran; chosen by ``research.corroborated_first``'s
#: third-round rule: leave-one-family-out among the default and the candidates that lose no
#: guarded row, short-QA guard included): the ceiling alone, and with each corroborated
#: delivery that keeps the answer sentence.
CANDIDATES: dict[str, dict[str, Any]] = {
    "coordination-calibrated-length": {"method": {"coordination_max_tokens": CEILING}},
    "coordination-calibrated-length-delivery": {
        "method": {
            "coordination_max_tokens": CEILING,
            "corroborated_only": "delivery",
            "fact_coverage": True,
            "corroborated_relevant": True,
        }
    },
    "coordination-calibrated-length-delivery-nli": {
        "method": {
            "coordination_max_tokens": CEILING,
            "corroborated_only": "delivery",
            "corroborated_relevant": True,
        }
    },
}
#: Declared after the candidates above ran (they lose gpe-k5 rows of the short-QA guard: the
#: scoreboard's gpe-eval pages are cut at the same 1,200 characters as the calibration pool,
#: and groups of its attack pages reach medians of 96 to 119 content tokens). A group median
#: beyond the longest passage of the pool is outside it whatever the grouping: 119, printed by
#: ``main``. Same rule, its own choice between it and the default.
LONGEST_PASSAGE = 119.0
LATER: dict[str, dict[str, Any]] = {
    "coordination-longest-passage": {"method": {"coordination_max_tokens": LONGEST_PASSAGE}},
}
ORDER = ("default", *CANDIDATES)
ORDER_LATER = ("default", *LATER)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--write", action="store_true", help="write the candidates' JSON")
    p.add_argument("--report", nargs="+", help="the choice, from scoreboard JSON files")
    args = p.parse_args(argv)
    if args.write:
        for name, change in {**CANDIDATES, **LATER}.items():
            path = Path("research/candidates") / f"{name}.json"
            path.write_text(json.dumps(change, indent=1) + "\n")
        return 0
    if args.report:
        from research.corroborated_first import report
        from research.longform_candidates import load_runs

        runs = load_runs(args.report)
        lines = report(runs, ORDER, short_guard=True)
        if any(name in runs for name in LATER):
            lines += ["", "later candidate", "", *report(runs, ORDER_LATER, short_guard=True)]
        print("\n".join(lines))
        return 0
    tokens, passages = fit_half_lengths(args.seed)
    pct = np.percentile(tokens, [50, 90, 95, 99, 100])
    print(f"honest fit-half candidate groups: {len(tokens)}")
    print(
        "median content tokens of a group's passages, percentiles 50 / 90 / 95 / 99 / max: "
        + " / ".join(f"{v:.1f}" for v in pct)
    )
    pct = np.percentile(passages, [50, 90, 95, 99, 100])
    print(
        f"content tokens of a passage ({len(passages)} honest fit-half passages), percentiles "
        "50 / 90 / 95 / 99 / max: " + " / ".join(f"{v:.1f}" for v in pct)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
