"""Several pages that survive a quarantine and vouch for none of each other fall back
(``uncorroborated_delivery="fallback_after_quarantine"``).

Once the coordination signals quarantine a planted group, the gate asks S* for
``coordinated_d_min`` (1) source: a lone honest page may answer, as the gold passage does
beside five PoisonedRAG poisons. The same concession hands on whatever several surviving pages
say when none of them corroborates another. In the `gemini_100_x` family (fit, NQ MIXED,
``python -m research.family_reasons poisonedrag-nq:gemini_100_x --show 8``) two of the six
passing sets are such verdicts: three pages survive, "delivered whole: 0 of the 12 verified
claims an independent source corroborates", and one of them states the planted answer. The
candidate keeps the concession for one surviving source and falls back where S* spans
``d_min`` sources of its own after a quarantine with nothing of it corroborated; evidence
nothing was quarantined in is unchanged (``"fallback"`` for every verdict lost most honest
short evidence, 2026-12-04).

Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`, against the committed
scoreboard, fit split.

    python -m research.quarantine_survivors write
    bash research/run_full_round.sh research/results/quarantine-survivors \\
        research/candidates/survivors-uncorroborated-fallback.json
    python -m research.quarantine_survivors report research/results/quarantine-survivors/*.json
"""

from __future__ import annotations

import sys
from typing import Any

from research.quarantine_conflicts import garag_round

CANDIDATES: dict[str, dict[str, Any]] = {
    "survivors-uncorroborated-fallback": {
        "method": {"uncorroborated_delivery": "fallback_after_quarantine"}
    },
}


def main(argv: list[str] | None = None) -> int:
    return garag_round(list(argv if argv is not None else sys.argv[1:]), __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
