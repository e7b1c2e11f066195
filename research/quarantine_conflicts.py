"""A quarantine that excludes, in the contradiction mass too (``quarantined_conflicts``).

The shipped example (``examples/data/eiffel_tower.jsonl``: four reference pages and one that
moves the tower to 1925) falls back with the polluted page quarantined: its claims are kept
out of S*, but their contradictions with S* still count in r_contr (0.605, ``"count"``). With
``quarantined_conflicts="ignore"`` a quarantined passage's conflicts leave r_contr too, as
its claims leave S*.

Candidates (changes to ``MirageConfig()``, declared before they ran):

- ``quarantine-conflicts-ignored``;
- ``quarantine-conflicts-ignored-full-d-min``: the same, and a quarantine no longer lowers
  ``d_min`` (``coordinated_d_min=None``).

Rule :data:`NO_LOSS_GAIN` (declared with them): on the fit split, a candidate replaces the
default when it loses nothing and gains somewhere:

1. no guarded row and no short-QA row more than 2 points worse (as ``LONGFORM_GAIN``);
2. no attack family's figure worse (NQ and HotpotQA together);
3. neither biogen-k10's nor biogen-k20's clean or MIXED pass lower, and neither's MIXED
   contamination (worst family) more than a point higher;
4. a gain: biogen clean + MIXED pass higher in sum, or the families' blocked − wrong + correct
   only higher in sum.

Among those that qualify, the largest sum of both gains is adopted (ties to the earlier).

    python -m research.quarantine_conflicts write
    bash research/quarantine_conflicts_run.sh
    python -m research.quarantine_conflicts report research/results/quarantine-conflicts/*.json
    python -m research.quarantine_conflicts every-row \
        research/results/quarantine-conflicts/full-default.json \
        research/results/quarantine-conflicts/full-quarantine-conflicts-ignored.json

The candidate runs left out gpe-k10 and the query snippets (gpe-snip); the full scoreboard
runs of the default and of the adopted candidate (``full-*.json``) are read on every row of
the main table: the rule as amended below (2026-12-04, complete rows).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from research.ablation import guarded_losses
from research.candidate_cli import Judgement, candidates_main, choose
from research.conflict_scope import GAIN_ROWS, family_losses, longform_gain
from research.corroborated_first import DEFAULT_RUN, short_losses
from research.longform_candidates import long_value

QUARANTINE: dict[str, dict[str, Any]] = {
    "quarantine-conflicts-ignored": {"method": {"quarantined_conflicts": "ignore"}},
    "quarantine-conflicts-ignored-full-d-min": {
        "method": {"quarantined_conflicts": "ignore", "coordinated_d_min": None}
    },
}
ORDER = (DEFAULT_RUN, *QUARANTINE)
NO_LOSS_GAIN = {"declared": "2026-12-04"}
#: :data:`NO_LOSS_GAIN` as amended (complete rows) whose family gain also counts GARAG's
#: "passes with the correct answer" (a goal the issue sets; the gain left it out).
NO_LOSS_GAIN_GARAG = {"declared": "2026-12-05"}


def _fit_gain(
    run: dict[str, Any], default: dict[str, Any], value: Callable[[dict[str, Any]], float]
) -> float:
    """Sum of ``value`` over the attack-family rows (fit, NQ and HotpotQA together), ``run``
    minus ``default``."""

    def total(r: dict[str, Any]) -> float:
        return sum(
            value(row)
            for row in r["families"]
            if row["system"] == "mirage" and row["split"] == "fit" and row["set"] == "both"
        )

    return total(run) - total(default)


def family_gain(run: dict[str, Any], default: dict[str, Any]) -> float:
    """Sum over attack families (fit, NQ and HotpotQA together) of blocked − wrong + correct
    only, ``run`` minus ``default``."""
    return _fit_gain(
        run,
        default,
        lambda row: (
            (row.get("blocked") or 0.0)
            - (row.get("wrong") or 0.0)
            + (row.get("correct_only") or 0.0)
        ),
    )


def garag_gain(run: dict[str, Any], default: dict[str, Any]) -> float:
    """Sum over sets (fit, NQ and HotpotQA together) of GARAG's evidence passing with the
    correct answer, ``run`` minus ``default``."""
    return _fit_gain(run, default, lambda row: row.get("pass_correct") or 0.0)


def pass_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    out = []
    for ds, measure in GAIN_ROWS:
        a = long_value(run, ds, lambda m, s=measure: m == s, "fit")
        b = long_value(default, ds, lambda m, s=measure: m == s, "fit")
        if a is not None and b is not None and a < b - 1e-9:
            out.append(f"{ds} {measure} {b:.1%} → {a:.1%}")
    return out


def no_loss_gain(
    runs: dict[str, dict[str, Any]],
    names: Sequence[str],
    complete_rows: bool = False,
    with_garag: bool = False,
) -> list[str]:
    """:data:`NO_LOSS_GAIN` over ``names``: against the candidate runs' guarded and short-QA
    rows, or, with ``complete_rows`` (the rule as amended), every row of two full runs; with
    ``with_garag`` (:data:`NO_LOSS_GAIN_GARAG`), GARAG's correct passes count in the gain."""
    title = (
        f"rule NO_LOSS_GAIN, complete rows ({NO_LOSS_GAIN['declared']}), fit split"
        if complete_rows
        else f"rule {NO_LOSS_GAIN['declared']} (no loss, a gain), fit split"
    )
    if with_garag:
        title = (
            f"rule NO_LOSS_GAIN_GARAG ({NO_LOSS_GAIN_GARAG['declared']}): complete rows, "
            "GARAG's correct passes in the family gain, fit split"
        )

    def judge(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
        if complete_rows:
            losses = complete_row_losses(run, default)
        else:
            losses = guarded_losses(run, default) + short_losses(run, default)
            losses += family_losses(run, default) + pass_losses(run, default)
        long_gain, rises = longform_gain(run, default)
        fam_gain = family_gain(run, default) + (garag_gain(run, default) if with_garag else 0.0)
        shown = f"long-form gain {long_gain * 100:+.1f}, family gain {fam_gain * 100:+.1f} points"
        return [shown], losses + rises, long_gain + fam_gain

    return choose(title, names, runs, judge)


def complete_row_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """What ``run`` loses against ``default`` on two full runs, fit split: every row of the
    main table with a goal, every attack-family figure, biogen clean and MIXED pass."""
    return every_row_losses(run, default) + family_losses(run, default) + pass_losses(run, default)


def complete_rows_main(
    doc: str, candidates: dict[str, dict[str, Any]]
) -> Callable[[list[str] | None], int]:
    """The command line (``write`` / ``report``) of a round decided by :data:`NO_LOSS_GAIN`
    as amended (complete rows), against the committed scoreboard."""

    def report(runs: dict[str, dict[str, Any]]) -> list[str]:
        return no_loss_gain(runs, list(candidates), complete_rows=True)

    def main(argv: list[str] | None = None) -> int:
        return candidates_main(argv, doc, candidates, report)

    return main


def model_round_main(doc: str, names: Sequence[str]) -> Callable[[list[str] | None], int]:
    """The command line (``report``) of a round whose candidates are NLI models, not configs
    (``write`` has no config to write), decided by :data:`NO_LOSS_GAIN_GARAG` against the
    committed scoreboard."""

    def report(runs: dict[str, dict[str, Any]]) -> list[str]:
        return no_loss_gain(runs, list(names), complete_rows=True, with_garag=True)

    def main(argv: list[str] | None = None) -> int:
        return candidates_main(argv, doc, {}, report)

    return main


def every_row_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """Rows of the scoreboard's main table with a goal on which ``run`` is worse on fit
    (``≥`` goals: lower; ``≤`` goals: higher): the complete-rows reading of
    :data:`NO_LOSS_GAIN`, for two full scoreboard runs."""
    base = {r["measure"]: r for r in default["rows"]}
    out = []
    for row in run["rows"]:
        b = base.get(row["measure"])
        goal = row.get("goal") or ""
        a_fit, b_fit = row.get("mirage:fit"), (b or {}).get("mirage:fit")
        if not isinstance(a_fit, float | int) or not isinstance(b_fit, float | int):
            continue
        worse = (a_fit < b_fit - 1e-9) if goal.startswith("≥") else (a_fit > b_fit + 1e-9)
        if goal[:1] in ("≥", "≤") and worse:
            out.append(f"{row['measure']} {b_fit:.1%} → {a_fit:.1%}")
    return out


def _every_row(sub: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    f = sub.add_parser("every-row", help="rows lost between two full scoreboard runs (fit)")
    f.add_argument("default")
    f.add_argument("candidate")

    def run(args: argparse.Namespace) -> int:
        candidate, default = (
            json.loads(Path(x).read_text()) for x in (args.candidate, args.default)
        )
        losses = every_row_losses(candidate, default)
        print(f"rows of the full scoreboard worse on fit: {'; '.join(losses) or 'none'}")
        return 0

    return {"every-row": run}


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        argv, __doc__, QUARANTINE, lambda runs: no_loss_gain(runs, ORDER[1:]), _every_row
    )


def garag_round(argv: list[str] | None, doc: str, candidates: dict[str, dict[str, Any]]) -> int:
    """The command line of a round judged by :data:`NO_LOSS_GAIN_GARAG` against the committed
    scoreboard (``write`` / ``report``)."""

    def report(runs: dict[str, dict[str, Any]]) -> list[str]:
        return no_loss_gain(runs, list(candidates), complete_rows=True, with_garag=True)

    return candidates_main(argv, doc, candidates, report)


if __name__ == "__main__":
    raise SystemExit(main())
