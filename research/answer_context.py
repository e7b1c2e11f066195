"""Whether the answer-slot rule reads a claim with its page's context
(``MethodSettings.answer_conflict_context="lead+previous"``).

The rule (:mod:`mirage_core.answer_conflict`) compares claims that restate the question
(``answer_conflict`` of its content words). A page names its subject once and refers back to
it: "A global stage. Scotland last graced it before the new millennium, specifically in 1994."
restates "when did scotland last qualify for world cup" only with its page's first sentence
("The World Cup."), so the rule never compares its 1994 with the gold page's 1998. With the
context, a claim counts the words of its page's first claim and of the claim before it towards
the question's share; the word of what the question asks must still be its own.

The option lost on 2026-12-02 (``ac-ctx``: honest shortqa fit sets 76.7% → 70.0%), on a default
that has since changed (coordination, delivery, the answer-slot names).

Candidate (a change to ``MirageConfig()``, declared before it ran):
``answer-context-lead-previous``. Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`,
against the committed scoreboard.

    python -m research.answer_context write
    bash research/run_full_round.sh research/results/answer-context \\
        research/candidates/answer-context-lead-previous.json
    python -m research.answer_context report research/results/answer-context/*.json
"""

from __future__ import annotations

from typing import Any

from research.quarantine_conflicts import garag_round

ANSWER_CONTEXT: dict[str, dict[str, Any]] = {
    "answer-context-lead-previous": {"method": {"answer_conflict_context": "lead+previous"}},
}


def main(argv: list[str] | None = None) -> int:
    return garag_round(argv, __doc__, ANSWER_CONTEXT)


if __name__ == "__main__":
    raise SystemExit(main())
