"""The gate as the seed states it, on the current default: r_contr inside S*, and each conflict
of S* with what it rejected weighed on its own (``conflict_rule="majority"``).

On the README's Eiffel example (four agreeing pages, one that moves the tower to 1925) the
default falls back on r_contr 0.605, counted over every edge, the polluted page's included.
An earlier round (2026-12-04, "candidates for the gate as the seed states it") tried the
majority rule with paraphrase support and lost attack families, because planted paraphrases
corroborated each other. These candidates keep NLI-only corroboration, and delivery now hands
on S*'s corroborated part with the majority weighing only that part's conflicts.

Candidates (changes to ``MirageConfig()``, declared before they ran):

- ``majority-in-selected``: ``contradiction_scope="selected"``, ``conflict_rule="majority"``.
- ``majority-in-selected-release``: the same, and a flagged group two of whose passages hold a
  contradiction the gate counts (``w_contr`` ≥ κ = 0.8) is released
  (``coordination_self_conflict=0.8``): a group that disagrees about the answer is not one
  planted story. On the Eiffel example the polluted page is grouped with two honest pages
  whose 1889 it contradicts at 0.80.

Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows), against
the committed scoreboard; among those that qualify, the largest gain.

    python -m research.majority_gate write
    bash research/run_full_round.sh research/results/majority-gate \
        research/candidates/majority-in-selected*.json
    python -m research.majority_gate report research/results/majority-gate/*.json
"""

from __future__ import annotations

from typing import Any

from research.quarantine_conflicts import complete_rows_main

MAJORITY: dict[str, dict[str, Any]] = {
    "majority-in-selected": {
        "method": {"contradiction_scope": "selected", "conflict_rule": "majority"}
    },
    "majority-in-selected-release": {
        "method": {
            "contradiction_scope": "selected",
            "conflict_rule": "majority",
            "coordination_self_conflict": 0.8,
        }
    },
}


main = complete_rows_main(__doc__, MAJORITY)


if __name__ == "__main__":
    raise SystemExit(main())
