"""Tightness only where the group leaves passages to compare it with
(``MethodSettings.coordination_tightness_outside``).

``tightness`` is the robust z of a group's mean cosine against the evidence's pairs not both
inside it. When the group is all the evidence but one passage, that baseline is the one
outsider's cosines to the members: on biogen-dev's fit split, nine honest biographies beside
one page about something else score tightness z 8 to 13 and are quarantined as planted (3 of 13
clean k = 10 sets).

Candidate (a change to ``MirageConfig()``, declared before it ran): ``tightness-two-outside``,
tightness counts only with at least two passages outside the group (so its baseline holds a
pair of the query's other passages); a group with one outsider is scored on its other signals.

Rule: ``NO_LOSS_GAIN`` as amended (``research/quarantine_conflicts.py``): on the fit split no
row of the full scoreboard's main table with a goal is worse, no attack family figure is
worse, no biogen clean or MIXED pass is lower and no biogen MIXED contamination rises by more
than a point; and biogen clean + MIXED pass or the families' blocked − wrong + correct only
gain. Both runs are full scoreboard runs (the default's is the committed
``benchmarks/results/scoreboard.json``).

    python -m research.tightness_outside write
    bash research/tightness_outside_run.sh
    python -m research.tightness_outside report research/results/tightness-outside/*.json
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from research.corroborated_first import CANDIDATES, DEFAULT_RUN
from research.longform_candidates import load_runs
from research.quarantine_conflicts import (
    every_row_losses,
    family_gain,
    family_losses,
    longform_gain,
    pass_losses,
)

TIGHTNESS: dict[str, dict[str, Any]] = {
    "tightness-two-outside": {"method": {"coordination_tightness_outside": 2}},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    default = runs[DEFAULT_RUN]
    lines = ["rule NO_LOSS_GAIN, complete rows (2026-12-04), fit split", ""]
    best, best_gain = DEFAULT_RUN, 0.0
    for name in TIGHTNESS:
        if name not in runs:
            continue
        run = runs[name]
        losses = every_row_losses(run, default) + family_losses(run, default)
        losses += pass_losses(run, default)
        long_gain, rises = longform_gain(run, default)
        fam_gain = family_gain(run, default)
        ok = not losses and not rises and (long_gain > 1e-9 or fam_gain > 1e-9)
        lines.append(
            f"- {name}: long-form gain {long_gain * 100:+.1f}, family gain {fam_gain * 100:+.1f} "
            f"points; losses: {'; '.join(losses + rises) or 'none'} → "
            f"{'qualifies' if ok else 'does not qualify'}"
        )
        if ok and long_gain + fam_gain > best_gain + 1e-9:
            best, best_gain = name, long_gain + fam_gain
    lines.append(f"\ndecision: {'adopt ' + best if best != DEFAULT_RUN else 'the default stays'}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("write", help="write the candidate's JSON")
    r = sub.add_parser("report", help="the choice, from full scoreboard JSON files")
    r.add_argument("runs", nargs="+")
    args = p.parse_args(argv)
    if args.cmd == "write":
        for name, change in TIGHTNESS.items():
            (CANDIDATES / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")
        return 0
    runs = load_runs(args.runs)
    if DEFAULT_RUN not in runs:
        p.error(f"one of the runs must be {DEFAULT_RUN}.json")
    print("\n".join(report(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
