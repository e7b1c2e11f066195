"""Whether a flagged group that answers the question two ways is released
(``MethodSettings.coordination_answer_release``).

Planted copies push one answer. When the coordination signals flag a group that also holds an
honest page (the gold reads like the poisons it contradicts: same question, same frame), the
quarantine takes the gold with them, and the gate asks one source of what remains: in
`gemini_100_x` (poisons pushing two different wrong answers) the gold is quarantined with one
answer's poisons and the other answer's poisons are delivered
(``python -m research.family_reasons poisonedrag-nq:gemini_100_x --regime mixed``). The
release by contradiction (``coordination_self_conflict``) is off for questions, because
planted passages that list different decoys contradict each other; they share the planted
answer, which the answer-slot rule reads as agreement.

Candidate (a change to ``MirageConfig()``, declared before it ran):
``answer-release`` (``coordination_answer_release=True``, every query). Rule:
:data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`, against the committed scoreboard.

    python -m research.answer_release write
    bash research/run_full_round.sh research/results/answer-release \
        research/candidates/answer-release.json
    python -m research.answer_release report research/results/answer-release/*.json

It lost (``research/results/answer-release/choice.md``) and the setting was removed; the runs
above need commit ded9101, which has it.
"""

from __future__ import annotations

from typing import Any

from research.candidate_cli import candidates_main
from research.quarantine_conflicts import no_loss_gain

ANSWER_RELEASE: dict[str, dict[str, Any]] = {
    "answer-release": {"method": {"coordination_answer_release": True}},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    return no_loss_gain(runs, list(ANSWER_RELEASE), complete_rows=True, with_garag=True)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, ANSWER_RELEASE, report)


if __name__ == "__main__":
    raise SystemExit(main())
