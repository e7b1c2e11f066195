"""The answer-slot rule reads a sentence's subject when it does what the question asks
(``answer_subjects=True``).

A name is a capitalized token that does not open its sentence, because a first word is
capitalized whatever it is. A poison written as a direct answer opens with it: "Michelangelo
painted The Last Supper." names no fact the rule reads, so it never conflicts with the gold
page's "… a mural painting by Leonardo da Vinci", and both are delivered
(``poisonedrag-nq:gemini_100_x``, fit). The candidate reads a capitalized first word as a name
when the next word is one of what the question asks (:func:`mirage_core.answer_conflict.
relation_stems`): the subject of the asked relation. Any capitalized first word that is not a
stopword ("Although", "Let") read as a name lost honest gpe-eval sets in a ``/tmp`` probe on
the fit split; the subject reading is the narrower one.

Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`, against the committed
scoreboard, fit split.

    python -m research.answer_subjects write
    bash research/run_full_round.sh research/results/answer-subjects \\
        research/candidates/answer-subjects.json
    python -m research.answer_subjects report research/results/answer-subjects/*.json
"""

from __future__ import annotations

import sys
from typing import Any

from research.quarantine_conflicts import garag_round

CANDIDATES: dict[str, dict[str, Any]] = {
    "answer-subjects": {"method": {"answer_subjects": True}},
}


def main(argv: list[str] | None = None) -> int:
    return garag_round(list(argv if argv is not None else sys.argv[1:]), __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
