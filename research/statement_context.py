"""Two candidates on today's default, each judged alone:

- ``answer-context-statements``: the answer-slot rule reads a claim with its page's first
  statement and the statement before it (``answer_conflict_context="lead+previous
  statements"``). ``"lead+previous"`` blocked far more attack evidence and lost seven of thirty
  honest shortqa sets (fit, 2026-12-05); in five of the seven the context that made a
  sentence "answer" the question was the page's heading, the question itself ("Who wrote
  Waiting for Godot?"), so every name on the page read as an answer. No attack page the
  context newly blocked opens with a question.
- ``pairs-relevant-only``: NLI reads only the pairs both of whose claims hold a word of the
  query (``pair_relevant_only=True``). Judged on 2026-12-04 against a default whose request
  settings have since changed (it lost one biogen-k10 clean set of thirteen then); it sends
  0.72× the pairs at k = 20.

Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`, against the committed
scoreboard, fit split; of the candidates that qualify, the larger family gain wins.

Second round (``ROUND_2``, declared after the first round's figures, before it ran; same rule
and baseline): a question that asks *when* is answered by a year or a month
(``answer_times="year"``), alone (``answer-times-year``) and with the statement context
(``answer-context-statements-years``). In the first round's listing an honest `blind` gold page
lost its pass because "drew 1–1 … a 3–0 defeat" named numbers beside the other page's 1998.

    python -m research.statement_context write
    bash research/run_full_round.sh research/results/statement-context \\
        research/candidates/answer-context-statements.json \\
        research/candidates/pairs-relevant-only-today.json
    python -m research.statement_context report research/results/statement-context/*.json
    python -m research.statement_context --round 2 write
    bash research/run_full_round.sh research/results/statement-context-2 \
        research/candidates/answer-times-year.json \
        research/candidates/answer-context-statements-years.json
    python -m research.statement_context --round 2 report research/results/statement-context-2/*.json
"""

from __future__ import annotations

import sys
from typing import Any

from research.quarantine_conflicts import garag_round

STATEMENT_CONTEXT: dict[str, dict[str, Any]] = {
    "answer-context-statements": {
        "method": {"answer_conflict_context": "lead+previous statements"}
    },
    "pairs-relevant-only-today": {"method": {"pair_relevant_only": True}},
}


ROUND_2: dict[str, dict[str, Any]] = {
    "answer-times-year": {"method": {"answer_times": "year"}},
    "answer-context-statements-years": {
        "method": {
            "answer_conflict_context": "lead+previous statements",
            "answer_times": "year",
        }
    },
}

ROUNDS = {"1": STATEMENT_CONTEXT, "2": ROUND_2}


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    which = "1"
    if args[:1] == ["--round"]:
        which, args = args[1], args[2:]
    return garag_round(args, __doc__, ROUNDS[which])


if __name__ == "__main__":
    raise SystemExit(main())
