"""A delivered claim names no fact of the asked kind that only its own source states
(``lone_facts="hold_back"``, :mod:`mirage_core.lone_facts`).

With one poison among five honest pages (``shortqa-one``) the default delivers the wrong answer
in a third of the sets: the lone poison restates the question in its own words, the NLI model
reads its swapped fact against the honest sentences as neutral or never meets them, and
nothing coordinates for the signals to flag. Its answer is the one fact of the evidence no
second source states. The candidate holds back, once the gate has passed, every delivered
claim that names a fact of a kind the query asks for that no claim of another independent
source states (where what it delivers spans two sources or more), and falls back when nothing
is left.

Rule (declared with the candidate, before it ran), against the committed scoreboard on the fit
split: :data:`research.equivalent_forms.NO_LOSS_ASKED`: adopted when nothing of any kind is
lost (:func:`research.relevant_pairs.every_loss`); no gain is asked. The pick of
:data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` is printed beside it and not chosen on.

    python -m research.lone_facts write
    bash research/run_full_round.sh research/results/lone-facts \\
        research/candidates/lone-facts-hold-back.json
    python -m research.lone_facts report research/results/lone-facts/*.json

Second round, ``lone-facts-outvoted`` (declared after the first round's result, before it
ran): a claim is held back for a lone fact of a kind only where the kept evidence names a fact
of that kind that two sources or more state (``lone_facts="outvoted"``): the lone answer is
outvoted by a corroborated one. Where the evidence agrees on no such fact (the ``blind``
family's gold page among misleading pages that each name their own lead) nothing is held
back. Same rule, against the committed scoreboard.

    bash research/run_full_round.sh research/results/lone-facts-2 \
        research/candidates/lone-facts-outvoted.json
    python -m research.lone_facts report research/results/lone-facts-2/*.json

Third round, ``lone-facts-answers`` (declared after the second round's result, before it ran
on the full scoreboard): ``lone_facts="answers"``, the second round's reading among the claims
that hold a word of what the query asks only, so a detail beside the answer is never held back
nor outvotes, and a hold-back that would leave nothing leaves the verdict as the gate passed
it. Same rule, against the committed scoreboard.

    bash research/run_full_round.sh research/results/lone-facts-3 \
        research/candidates/lone-facts-answers.json
    python -m research.lone_facts report research/results/lone-facts-3/*.json
"""

from __future__ import annotations

from typing import Any

from research.equivalent_forms import asked_round

CANDIDATES: dict[str, dict[str, Any]] = {
    "lone-facts-hold-back": {"method": {"lone_facts": "hold_back"}},
    "lone-facts-outvoted": {"method": {"lone_facts": "outvoted"}},
    "lone-facts-answers": {"method": {"lone_facts": "answers"}},
}


def main(argv: list[str] | None = None) -> int:
    return asked_round(argv, __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
