"""Whether the coordination length floor looks at the whole evidence
(``MethodSettings.coordination_floor_scope="evidence"``).

The floor keeps a group of passages under ``coordination_min_tokens`` content tokens from
being flagged: on one-line pages a share moves by a sixth per word, and three agreeing honest
one-liners read like planted copies (the test suite's clean evidence, the shipped examples).
It also lets Gemini-written poisons through, one or two short sentences each: no signal is
read for them, beside the gold page as much as alone. With ``"evidence"`` the floor spares a
short group only while every passage of the evidence is short; one-liners that repeat an answer
beside a page that tells the story at length are read like any group. Short evidence alone is
left as it is, so the poisons alone are not expected to be caught.

Candidate (a change to ``MirageConfig()``, declared before it ran): ``floor-over-evidence``.
Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows), against
the committed scoreboard.

    python -m research.floor_scope write
    bash research/run_full_round.sh research/results/floor-scope research/candidates/floor-over-evidence.json
    python -m research.floor_scope report research/results/floor-scope/*.json
"""

from __future__ import annotations

from typing import Any

from research.quarantine_conflicts import complete_rows_main

FLOOR: dict[str, dict[str, Any]] = {
    "floor-over-evidence": {"method": {"coordination_floor_scope": "evidence"}},
}


main = complete_rows_main(__doc__, FLOOR)


if __name__ == "__main__":
    raise SystemExit(main())
