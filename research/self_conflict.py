"""Whether a question's planted-looking group is released when two of its passages contradict
each other (``MethodSettings.coordination_self_conflict``).

The release (0.9) frees a flagged group two of whose passages contradict each other: planted
copies of one falsehood agree, honest outlets disagree on some facts. It did not earn its
place by leave-one-family-out (``research/ablation.py``: without it, report, poisons alone
blocked 75.6% → 80.2%, wrong answer delivered 18.7% → 13.7%, correct answer only 44.8% →
48.3%), and stayed for biogen-k10's clean and MIXED pass, which dropped without it. Long form
is now a request for an account, gated with its own settings (``request_overrides``, which set
the release at 0.8 for it). Planted passages that list several candidate answers
(``several_answers``) contradict each other on the decoys and are released by it.

Candidate (a change to ``MirageConfig()``, declared before it ran):
``questions-no-self-conflict-release``: ``coordination_self_conflict=None``; a request keeps its
0.8. Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows),
against the committed scoreboard.

    python -m research.self_conflict write
    bash research/run_full_round.sh research/results/self-conflict \
        research/candidates/questions-no-self-conflict-release.json
    python -m research.self_conflict report research/results/self-conflict/*.json
"""

from __future__ import annotations

from typing import Any

from research.quarantine_conflicts import complete_rows_main

SELF_CONFLICT: dict[str, dict[str, Any]] = {
    "questions-no-self-conflict-release": {"method": {"coordination_self_conflict": None}},
}


main = complete_rows_main(__doc__, SELF_CONFLICT)


if __name__ == "__main__":
    raise SystemExit(main())
