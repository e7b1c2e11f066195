"""Whether the coordination length floor stays (``MethodSettings.coordination_min_tokens``).

A group whose median passage holds fewer than 14 content tokens is never flagged as planted.
On 2026-12-04 (``research/results/ablation-2/no-length-floor-snippets.md``) the floor kept no
scoreboard row: gpe-eval query snippets (one or two sentences per page) passed as often
without it, and the attack families gained most without it (leave-one-family-out 80.5 / 13.5
/ 46.8 on fourteen families). It stayed for a specification: three agreeing one-line pages
(the test suite's clean evidence, ``examples/llamaindex_workflow.py``) pass. Those pages share
whole sentences word for word, as copies do; Gemini-written poisons are such one-liners
(``gemini`` and ``gemini_100_x`` are the worst families: the signals never read them).

Candidate (a change to ``MirageConfig()``, declared before it ran): ``no-length-floor``
(``coordination_min_tokens=0``). Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`,
against the committed scoreboard.

    python -m research.length_floor write
    bash research/run_full_round.sh research/results/length-floor \\
        research/candidates/no-length-floor.json
    python -m research.length_floor report research/results/length-floor/*.json
"""

from __future__ import annotations

from typing import Any

from research.candidate_cli import candidates_main
from research.quarantine_conflicts import no_loss_gain

LENGTH_FLOOR: dict[str, dict[str, Any]] = {
    "no-length-floor": {"method": {"coordination_min_tokens": 0.0}},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    return no_loss_gain(runs, list(LENGTH_FLOOR), complete_rows=True, with_garag=True)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, LENGTH_FLOOR, report)


if __name__ == "__main__":
    raise SystemExit(main())
