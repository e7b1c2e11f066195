"""HTML markup read as the text a reader sees (:mod:`mirage_core.markup`).

Raw HTML chunks glue sentences across paragraphs (``1889.</p><p>It``), carry tags into claims,
the NLI model and the prompt, and write names with character references (``AT&amp;T``).
Normalization now reads a tag, a comment or a script or style element as a space and a
character reference as its character, with offsets into the caller's text. It is part of
normalization, which every configuration reads, so the candidate is the default config run on
the engine with the reading.

Rule (declared with the candidate, before it ran), against the committed scoreboard on the fit
split: :data:`research.equivalent_forms.NO_LOSS_ASKED`: adopted when nothing of any kind is
lost (:func:`research.relevant_pairs.every_loss`); no gain is asked. The pick of
:data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` is printed beside it and not chosen on.

    python -m research.markup_reading write
    bash research/run_full_round.sh research/results/markup-reading \\
        research/candidates/markup-as-text.json
    python -m research.markup_reading report research/results/markup-reading/*.json
"""

from __future__ import annotations

from typing import Any

from research.equivalent_forms import asked_round

CANDIDATES: dict[str, dict[str, Any]] = {"markup-as-text": {}}


def main(argv: list[str] | None = None) -> int:
    return asked_round(argv, __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
