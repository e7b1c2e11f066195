"""Whether the answer-slot rule tells names apart by their last word
(``MethodSettings.answer_names``).

The rule (:mod:`mirage_core.answer_conflict`) blocks when two sources restate the question and
name different answers of the kind it asks for, and two claims agree when they share a fact.
A name is read word by word, so "the New York Mets" (a poison) and "the Houston Astros
against the New York Yankees" (the gold page) share "new" and "york" and agree. Read by its
last word, the most specific, a name differs from another that only shares its first words,
and still agrees with a shorter form of itself ("Dix" and "William Chatterton Dix").

Candidate (a change to ``MirageConfig()``, declared before it ran): ``answer-names-last-word``
(``answer_names="last_word"``). Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`,
against the committed scoreboard.

    python -m research.answer_names write
    bash research/run_full_round.sh research/results/answer-names \\
        research/candidates/answer-names-last-word.json
    python -m research.answer_names report research/results/answer-names/*.json
"""

from __future__ import annotations

from typing import Any

from research.quarantine_conflicts import garag_round

ANSWER_NAMES: dict[str, dict[str, Any]] = {
    "answer-names-last-word": {"method": {"answer_names": "last_word"}},
}


def main(argv: list[str] | None = None) -> int:
    return garag_round(argv, __doc__, ANSWER_NAMES)


if __name__ == "__main__":
    raise SystemExit(main())
