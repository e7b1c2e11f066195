"""Whether a pass whose S* no second source corroborates falls back
(``MethodSettings.uncorroborated_delivery="fallback"``).

Token soup, "blind" misleading passages and other evidence that asserts things no independent
source states still pass the gate: every claim of such a set has n = 0, S* holds them, and
delivery hands S* on whole because no corroborated part reaches ``d_min``. With
``"fallback"`` such a verdict falls back instead; where a corroborated part exists and only
missed S*'s most relevant claims (``corroborated_relevant``), S* is still delivered whole.

Candidate (a change to ``MirageConfig()``, declared before it ran): ``uncorroborated-fallback``.
Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows): against
the committed scoreboard, on the fit split, no row of the main table with a goal worse, no
attack family figure worse, no biogen clean or MIXED pass lower, no biogen MIXED
contamination more than a point higher, and a gain in biogen pass or in the families'
blocked − wrong + correct only.

    python -m research.uncorroborated_fallback write
    bash research/run_full_round.sh research/results/uncorroborated-fallback research/candidates/uncorroborated-fallback.json
    python -m research.uncorroborated_fallback report research/results/uncorroborated-fallback/*.json
"""

from __future__ import annotations

from typing import Any

from research.quarantine_conflicts import complete_rows_main

FALLBACK: dict[str, dict[str, Any]] = {
    "uncorroborated-fallback": {"method": {"uncorroborated_delivery": "fallback"}},
}


main = complete_rows_main(__doc__, FALLBACK)


if __name__ == "__main__":
    raise SystemExit(main())
