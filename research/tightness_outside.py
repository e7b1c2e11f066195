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

from typing import Any

from research.candidate_cli import candidates_main
from research.quarantine_conflicts import no_loss_gain

TIGHTNESS: dict[str, dict[str, Any]] = {
    "tightness-two-outside": {"method": {"coordination_tightness_outside": 2}},
}


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        argv, __doc__, TIGHTNESS, lambda runs: no_loss_gain(runs, tuple(TIGHTNESS), True)
    )


if __name__ == "__main__":
    raise SystemExit(main())
