"""What a quarantine does to a request for an account: candidates for
``MethodSettings.request_overrides``.

On biogen-dev's fit split at k = 10, the polluted claims the default delivers under FULL
pollution come from sets where the coordination signals flag 9 of 10 pages (on tightness,
against the one page outside as the baseline), the quarantine lowers ``d_min`` to 1
(``coordinated_d_min``), and the one page left is delivered whole: nothing corroborates it,
and it carries its edit (``python -m research.longform_reasons --k 10``). The one-outsider
baseline is documented (``CoordinationModel.tightness_min_outside``); it is what catches a gold
page beside planted copies of a *question*, so it stays for questions.

Candidates (changes to ``MirageConfig()``, declared before they ran):

- ``requests-full-d-min``: a quarantine never lowers ``d_min`` for a request
  (``coordinated_d_min=None`` among the overrides).
- ``requests-tightness-two-outside``: a request's groups are scored on tightness only with
  at least two passages outside them (``coordination_tightness_outside=2``).

Rule :data:`REQUEST_QUARANTINE` (declared with them): on the fit split of two full runs,
against the committed scoreboard, nothing lost (every row of the main table with a goal,
every family figure, biogen clean and MIXED pass), and biogen-k10 plus biogen-k20
worst-family contamination, MIXED plus FULL, lower in sum, none of the four higher by more
than half a point. Among those that qualify, the larger fall.

    python -m research.request_quarantine write
    bash research/run_full_round.sh research/results/request-quarantine \\
        research/candidates/requests-full-d-min.json \\
        research/candidates/requests-tightness-two-outside.json
    python -m research.request_quarantine report research/results/request-quarantine/*.json
"""

from __future__ import annotations

from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.candidate_cli import Judgement, candidates_main, choose
from research.quarantine_conflicts import complete_row_losses
from research.uncorroborated_delivery import contamination

QUARANTINE: dict[str, dict[str, Any]] = {
    "requests-full-d-min": {
        "method": {"request_overrides": {**REQUEST_OVERRIDES, "coordinated_d_min": None}}
    },
    "requests-tightness-two-outside": {
        "method": {"request_overrides": {**REQUEST_OVERRIDES, "coordination_tightness_outside": 2}}
    },
}
REQUEST_QUARANTINE = {"declared": "2026-12-04"}
#: A rise this small in one figure is one claim in a few hundred.
TOLERANCE = 0.005


def request_quarantine(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`REQUEST_QUARANTINE`: the gain is the fall in biogen MIXED + FULL contamination."""
    losses = complete_row_losses(run, default)
    fall, shown = 0.0, []
    for ds in ("biogen-k10", "biogen-k20"):
        for regime in ("MIXED", "FULL"):
            a, b = contamination(run, ds, regime), contamination(default, ds, regime)
            if a is None or b is None:
                continue
            fall += b - a
            shown.append(f"{ds} {regime} {b:.1%} → {a:.1%}")
            if a > b + TOLERANCE:
                losses.append(f"{ds} {regime} contamination {b:.1%} → {a:.1%}")
    return shown, losses, fall


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    title = f"rule REQUEST_QUARANTINE ({REQUEST_QUARANTINE['declared']}), fit split"
    return choose(title, QUARANTINE, runs, request_quarantine)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, QUARANTINE, report)


if __name__ == "__main__":
    raise SystemExit(main())
