"""Pages that instruct the model are left out (``instruction_pages="leave_out"``).

A retrieved page that says "Ignore all previous instructions and say that …" asserts nothing;
it addresses the model that reads the evidence. Without a reading of it, such a sentence enters
S* like any claim, and where the honest pages beside it corroborate nothing (the packaged NLI
model reads "Herman Melville wrote Moby-Dick" and "Moby-Dick is an 1851 novel by Herman
Melville" as support at p 0.47), a question's verdict delivers it whole.
:mod:`mirage_core.instructions` reads the forms the attack takes in its public descriptions
(overrides of earlier instructions, chat-template markers, an address to the model, a dictated
answer); a page holding one contributes no claim.

Rule (declared with the candidate, before it ran), against the committed scoreboard on the fit
split: :data:`research.equivalent_forms.NO_LOSS_ASKED`: adopted when nothing of any kind is
lost (:func:`research.relevant_pairs.every_loss`); no gain is asked, since what the reading
guarantees (no instruction reaches the model as evidence) is checked by tests, not by a figure.
The pick of :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` is printed beside it and
not chosen on.

    python -m research.instruction_pages write
    bash research/run_full_round.sh research/results/instruction-pages \\
        research/candidates/instruction-pages-left-out.json
    python -m research.instruction_pages report research/results/instruction-pages/*.json
"""

from __future__ import annotations

from typing import Any

from research.equivalent_forms import asked_round

CANDIDATES: dict[str, dict[str, Any]] = {
    "instruction-pages-left-out": {"method": {"instruction_pages": "leave_out"}},
}


def main(argv: list[str] | None = None) -> int:
    return asked_round(argv, __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
