"""Coordination signals read at the length they were fit on: a window of each passage
(``MethodSettings.coordination_window``, :mod:`mirage_core.signal_window`).

On biogen-dev the default falls back on most clean sets of ten honest pages because the whole
evidence is flagged as planted: the signals are shares of a passage's content tokens, fit on
pages cut to 1,200 characters, and full pages drift past what the model has seen
(``research/coordination_length.py``). A length ceiling stops the flag but lets padded poisons
through (``research/padded_poisons.py``); a window reads every passage at the calibration's
length instead, so padding is cut away too.

Candidates (changes to ``MirageConfig()``, declared before any of them ran), both at 119
content tokens, the longest honest passage of the calibration's fit half (printed by
``python -m research.coordination_length``):

- ``coordination-window-relevance``: the sentences holding most query words fill the window;
- ``coordination-window-lead``: the passage's first sentences fill it, as the calibration pages
  were cut.

Rule: the fourth round's of ``research/corroborated_first.py``: leave-one-family-out under
``benchmarks.families``' rule 2026-12-04 among the default and the candidates that lose no
guarded row on fit (``research.ablation.GUARDED`` and the short-QA guard), the default first;
the configuration picked in most folds replaces the default. The padded family is one of the
fifteen families, so the attack a ceiling invited is ruled on.

    python -m research.coordination_window write
    bash research/coordination_window_run.sh
    python -m research.coordination_window report research/results/coordination-window/*.json
"""

from __future__ import annotations

from typing import Any

from research.candidate_cli import candidates_main
from research.corroborated_first import DEFAULT_RUN, report

#: The longest honest fit-half passage of the coordination calibration, in content tokens.
LONGEST_CALIBRATION_PASSAGE = 119

WINDOW: dict[str, dict[str, Any]] = {
    "coordination-window-relevance": {
        "method": {"coordination_window": LONGEST_CALIBRATION_PASSAGE}
    },
    "coordination-window-lead": {
        "method": {
            "coordination_window": LONGEST_CALIBRATION_PASSAGE,
            "coordination_window_order": "lead",
        }
    },
}
ORDER = (DEFAULT_RUN, *WINDOW)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        argv, __doc__, WINDOW, lambda runs: report(runs, ORDER, short_guard=True)
    )


if __name__ == "__main__":
    raise SystemExit(main())
