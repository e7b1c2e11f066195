"""Facts compared in their equivalent forms (``fact_forms="equivalent"``).

Fact coverage and the answer-slot rule compare fact tokens as written, so "3 km" and "3,000
metres", "two" and "2", "García" and "Garcia" are different facts: two honest pages that give
one fact in different forms neither corroborate each other in it nor agree on it
(``research/results/value_conflicts.md`` lists such honest pairs: units, number words).
:mod:`mirage_core.fact_forms` reads accents, number words, scale words, percentages, units and
ISO dates alike; it only ever adds forms to what a text states.

Rules (declared with the candidate, before it ran), each against the committed scoreboard on
the fit split: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` and
:data:`research.request_gate.DELIVERED_SHARE`. Both ask that nothing be lost; the first reads
the gain on the attack families, the second in claims delivered per passing clean query on
biogen. The candidate is adopted if it qualifies under either; otherwise ``"tokens"`` stays.

    python -m research.equivalent_forms write
    bash research/run_full_round.sh research/results/equivalent-forms \\
        research/candidates/facts-equivalent-forms.json
    python -m research.equivalent_forms report research/results/equivalent-forms/*.json
"""

from __future__ import annotations

import sys
from typing import Any

from research.candidate_cli import candidates_main, choose
from research.quarantine_conflicts import no_loss_gain
from research.request_gate import DELIVERED_SHARE, delivered_share

CANDIDATES: dict[str, dict[str, Any]] = {
    "facts-equivalent-forms": {"method": {"fact_forms": "equivalent"}},
    "facts-approximate-numbers": {},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    names = [name for name in CANDIDATES if name in runs]
    out = no_loss_gain(runs, names, complete_rows=True, with_garag=True)
    title = f"rule DELIVERED_SHARE ({DELIVERED_SHARE['declared']}), fit split"
    return [*out, "", *choose(title, names, runs, delivered_share)]


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        list(argv if argv is not None else sys.argv[1:]), __doc__, CANDIDATES, report
    )


if __name__ == "__main__":
    raise SystemExit(main())
