"""What a request for an account delivers once most of its pages are quarantined.

On biogen-dev's fit split (k = 10) the polluted claims the default still delivers come mostly
from one kind of pass: a planted-looking group takes in nearly every page (nine of ten in three
sets), a quarantine lowers ``d_min`` to 1 (``coordinated_d_min``), and the one page left is
delivered whole, none of its claims corroborated. The evidence behind such an account is one
page, and no second source vouches for it.

Candidates (changes to ``MirageConfig()``'s request settings only; questions are untouched,
so only the biogen rows can move), declared before they ran:

- ``requests-keep-d-min``: a quarantine does not lower a request's ``d_min``
  (``coordinated_d_min=None``);
- ``requests-uncorroborated-fallback``: a request whose S* no independent source corroborates
  falls back (``uncorroborated_delivery="fallback"``);
- ``requests-keep-d-min-uncorroborated-fallback``: both.

Rule :data:`GOAL_AWARE_CONTAMINATION` (declared with them): on the fit split, against the
committed scoreboard,

1. no row of the main table with a goal is worse, unless it still meets its goal;
2. no attack-family figure is worse (NQ and HotpotQA together), nor GARAG's correct passes;
3. biogen-k10's and biogen-k20's clean pass (goal ≥ 90%) and MIXED pass (goal ≥ 80%) are not
   lower unless they still meet their goal, and neither's worst-family MIXED or FULL
   contamination is higher;
4. a gain: biogen-k10 plus biogen-k20 worst-family MIXED plus FULL contamination lower.

The largest gain among those that qualify is adopted. :data:`NO_LOSS_CONTAMINATION`'s verdict
(a pass rate never lower) is printed beside it.

    python -m research.request_d_min write
    bash research/run_full_round.sh research/results/request-d-min \\
        research/candidates/requests-keep-d-min.json \\
        research/candidates/requests-uncorroborated-fallback.json \\
        research/candidates/requests-keep-d-min-uncorroborated-fallback.json
    python -m research.request_d_min report research/results/request-d-min/*.json

The second round (:data:`ROUND_2`) runs into the same folder:

    bash research/run_candidates.sh research/results/request-d-min full \
        research/candidates/requests-unflagged.json \
        research/candidates/requests-unflagged-uncorroborated-fallback.json
"""

from __future__ import annotations

from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.candidate_cli import Judgement, candidates_main, choose
from research.conflict_scope import family_losses
from research.longform_candidates import long_value
from research.quarantine_conflicts import garag_gain
from research.uncorroborated_delivery import contamination, no_loss_contamination

REQUESTS: dict[str, dict[str, Any]] = {
    name: {"method": {"request_overrides": {**REQUEST_OVERRIDES, **change}}}
    for name, change in {
        "requests-keep-d-min": {"coordinated_d_min": None},
        "requests-uncorroborated-fallback": {"uncorroborated_delivery": "fallback"},
        "requests-keep-d-min-uncorroborated-fallback": {
            "coordinated_d_min": None,
            "uncorroborated_delivery": "fallback",
        },
    }.items()
}

#: The second round (declared after the first's figures, before it ran; same rule): the one
#: clean set every first-round candidate lost is an honest bio whose pages the coordination
#: signals flag nine of ten. A request's pages are all about one person, and the signals were
#: fit on questions; biogen's pollution is one edit per page, which no group signal reads.
#: ``requests-unflagged``: a request's groups are scored but never flagged (both thresholds
#: out of reach), so nothing is quarantined and ``d_min`` stays; and the same with the
#: uncorroborated fallback.
UNFLAGGED = {"coordination_threshold": 1e9, "coordination_isolated_threshold": 1e9}
ROUND_2: dict[str, dict[str, Any]] = {
    name: {"method": {"request_overrides": {**REQUEST_OVERRIDES, **change}}}
    for name, change in {
        "requests-unflagged": UNFLAGGED,
        "requests-unflagged-uncorroborated-fallback": {
            **UNFLAGGED,
            "uncorroborated_delivery": "fallback",
        },
    }.items()
}
ROUNDS = {**REQUESTS, **ROUND_2}

GOAL_AWARE_CONTAMINATION = {"declared": "2026-12-05"}

#: The long-form pass rows and their goals (issue figures; higher is better).
PASS_GOALS = {"clean pass": 0.90, "MIXED pass": 0.80}


def _meets(goal: str, value: float) -> bool:
    """Whether ``value`` meets a goal written as in the scoreboard ("≥ 90%", "≤ 10%")."""
    target = float(goal[1:].strip().rstrip("%")) / 100
    return value >= target - 1e-9 if goal.startswith("≥") else value <= target + 1e-9


def goal_aware_row_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """Main-table rows with a goal on which ``run`` is worse on fit and misses the goal."""
    base = {r["measure"]: r for r in default["rows"]}
    out = []
    for row in run["rows"]:
        goal = row.get("goal") or ""
        a, b = row.get("mirage:fit"), base.get(row["measure"], {}).get("mirage:fit")
        if goal[:1] not in ("≥", "≤") or not isinstance(a, float | int):
            continue
        if not isinstance(b, float | int):
            continue
        worse = a < b - 1e-9 if goal.startswith("≥") else a > b + 1e-9
        if worse and not _meets(goal, a):
            out.append(f"{row['measure']} {b:.1%} → {a:.1%}")
    return out


def goal_aware_contamination(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`GOAL_AWARE_CONTAMINATION`: the gain is the fall in biogen contamination."""
    losses = goal_aware_row_losses(run, default) + family_losses(run, default)
    if garag_gain(run, default) < -1e-9:
        losses.append("GARAG correct passes lower")
    gain, shown = 0.0, []
    for ds in ("biogen-k10", "biogen-k20"):
        for measure, goal in PASS_GOALS.items():
            a = long_value(run, ds, lambda m, s=measure: m == s, "fit")
            b = long_value(default, ds, lambda m, s=measure: m == s, "fit")
            shown.append(f"{ds} {measure} {b:.1%} → {a:.1%}")
            if a < b - 1e-9 and a < goal - 1e-9:
                losses.append(f"{ds} {measure} {b:.1%} → {a:.1%} (goal {goal:.0%})")
        for regime in ("MIXED", "FULL"):
            a, b = contamination(run, ds, regime), contamination(default, ds, regime)
            shown.append(f"{ds} {regime} contamination {b:.1%} → {a:.1%}")
            gain += b - a
            if a > b + 1e-9:
                losses.append(f"{ds} {regime} contamination {b:.1%} → {a:.1%}")
    return shown, losses, gain


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    title = f"rule GOAL_AWARE_CONTAMINATION ({GOAL_AWARE_CONTAMINATION['declared']}), fit split"
    lines = choose(title, ROUNDS, runs, goal_aware_contamination)
    old = choose(
        "beside it, rule NO_LOSS_CONTAMINATION (2026-12-04)", ROUNDS, runs, no_loss_contamination
    )
    return [*lines, "", *old]


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, ROUNDS, report)


if __name__ == "__main__":
    raise SystemExit(main())
