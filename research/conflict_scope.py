"""Conflicts weighed where they touch what is delivered (``MethodSettings.conflict_scope``),
and a rule that can see a long-form gain.

On biogen-dev's fit split, 5 of 25 clean sets of ten honest pages fall back on the tie rule
with one page against one ("1 groups vs 1"): one sentence of S* that no other page vouches for
contradicts one sentence of another page. Under ``corroborated_only="delivery"`` that sentence
is not handed to the generator, so with ``conflict_scope="delivered"`` the tie (or majority)
rule weighs only the conflicts of the part delivery hands on; where delivery leaves S* whole
(short evidence whose answer no second source vouches for), every conflict of S* still counts.

Candidates (changes to ``MirageConfig()``, declared before they ran):

- ``conflict-scope-delivered``;
- ``conflict-scope-delivered-window``: the same with the coordination window of
  ``research/coordination_window.py`` (relevance order, 119 content tokens).

The window's own candidate (``coordination-window-relevance``, run before this rule was
declared) is judged again beside them.

Rule :data:`LONGFORM_GAIN` (declared with the candidates): leave-one-family-out under the
families' rule 2026-12-04 cannot see a long-form gain, since every candidate misses the
long-form floors (biogen-k10 clean pass ≥ 90%). A candidate replaces the default when, on the
fit split,

1. it loses no guarded row (``research.ablation.GUARDED``) and no short-QA row by more than 2
   points (``research.corroborated_first.SHORT_GUARD``);
2. no attack family is worse on any of its figures (poisons alone blocked, wrong answer
   delivered, correct answer only, GARAG passes with the correct answer; NQ and HotpotQA
   together);
3. biogen-k10 and biogen-k20 clean pass plus MIXED pass gain in sum, and neither's MIXED
   contamination (worst family) rises by more than one point.

Among the candidates that qualify, the largest gain is adopted (ties to the earlier). The
fourth corroborated-delivery round's rule is printed beside it.

    python -m research.conflict_scope write
    bash research/conflict_scope_run.sh
    python -m research.conflict_scope report research/results/conflict-scope/*.json
    python -m research.conflict_scope report research/results/conflict-scope-2/*.json
    python -m research.conflict_scope report research/results/conflict-scope-3/*.json
"""

from __future__ import annotations

from typing import Any

from research.ablation import guarded_losses
from research.candidate_cli import candidates_main
from research.coordination_window import WINDOW
from research.corroborated_first import DEFAULT_RUN, report, short_losses
from research.longform_candidates import long_value

SCOPE: dict[str, dict[str, Any]] = {
    "conflict-scope-delivered": {"method": {"conflict_scope": "delivered"}},
    "conflict-scope-delivered-window": {
        "method": {
            "conflict_scope": "delivered",
            **WINDOW["coordination-window-relevance"]["method"],
        }
    },
}
ORDER = (DEFAULT_RUN, *SCOPE, "coordination-window-relevance")
#: The second round (declared after the first's figures, before it ran; same rule), on the
#: default the first adopted (the relevance window): a conflict counts only between the
#: delivered part and a claim outside S*. In the first round a sentence of S* that delivery
#: leaves out stood on the rejected side against the part, so S*'s own disagreements, which
#: r_contr already weighs, could tie (biogen-k20 clean pass on report 83.3% → 75.0%).
ROUND_2: dict[str, dict[str, Any]] = {
    "conflict-scope-delivered-outside": {"method": {"conflict_scope": "delivered"}},
}
ORDER_2 = (DEFAULT_RUN, *ROUND_2)
#: The third round (declared after the second's figures, before it ran; same rule and
#: baseline): the second round's one family loss was a question_appended poison set whose
#: delivered part was the glued-on question, five copies of "who played the oldest brother in
#: 7th heaven" without its "?", corroborating each other. A sentence made only of the query's
#: words asserts no answer (``restatements_vouch=False``), alone and with the delivered scope.
ROUND_3: dict[str, dict[str, Any]] = {
    "query-restatements-vouch-nothing": {"method": {"restatements_vouch": False}},
    "conflict-scope-delivered-assertions": {
        "method": {"conflict_scope": "delivered", "restatements_vouch": False}
    },
}
ORDER_3 = (DEFAULT_RUN, *ROUND_3)
LONGFORM_GAIN = {"declared": "2026-12-04", "contamination_margin": 0.01}
FAMILY_FIGURES = (
    ("blocked", True),
    ("wrong", False),
    ("correct_only", True),
    ("pass_correct", True),
)
GAIN_ROWS = tuple(
    (ds, m) for ds in ("biogen-k10", "biogen-k20") for m in ("clean pass", "MIXED pass")
)


def family_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """Attack-family figures (NQ and HotpotQA together, fit) on which ``run`` is worse."""

    def figures(r: dict[str, Any]) -> dict[tuple[str, str], float]:
        return {
            (row["family"], m): row[m]
            for row in r["families"]
            if row["system"] == "mirage" and row["split"] == "fit" and row["set"] == "both"
            for m, _ in FAMILY_FIGURES
            if row.get(m) is not None
        }

    mine, base = figures(run), figures(default)
    higher = dict(FAMILY_FIGURES)
    out = []
    for (family, m), b in sorted(base.items()):
        a = mine.get((family, m))
        if a is None:
            out.append(f"{family} {m} (missing)")
        elif (a < b - 1e-9) if higher[m] else (a > b + 1e-9):
            out.append(f"{family} {m} {b:.1%} → {a:.1%}")
    return out


def longform_gain(run: dict[str, Any], default: dict[str, Any]) -> tuple[float, list[str]]:
    """(the fit-split gain in biogen clean + MIXED pass, contamination rises past the margin)."""
    gain = 0.0
    for ds, measure in GAIN_ROWS:
        a = long_value(run, ds, lambda m, s=measure: m == s, "fit")
        b = long_value(default, ds, lambda m, s=measure: m == s, "fit")
        gain += (a or 0.0) - (b or 0.0)
    rises = []
    for ds in ("biogen-k10", "biogen-k20"):
        a = long_value(run, ds, lambda m: m.startswith("MIXED contamination"), "fit")
        b = long_value(default, ds, lambda m: m.startswith("MIXED contamination"), "fit")
        if a is not None and b is not None and a > b + LONGFORM_GAIN["contamination_margin"]:
            rises.append(f"{ds} MIXED contamination {b:.1%} → {a:.1%}")
    return gain, rises


def gain_rule(runs: dict[str, dict[str, Any]], order: tuple[str, ...]) -> list[str]:
    default = runs[DEFAULT_RUN]
    lines = [
        f"rule {LONGFORM_GAIN['declared']} (long-form gain without a family loss), fit split",
        "",
    ]
    best, best_gain = DEFAULT_RUN, 0.0
    for name in order[1:]:
        if name not in runs:
            continue
        run = runs[name]
        losses = guarded_losses(run, default) + short_losses(run, default)
        fam_losses = family_losses(run, default)
        gain, rises = longform_gain(run, default)
        ok = not losses and not fam_losses and not rises and gain > 1e-9
        lines.append(
            f"- {name}: long-form gain {gain * 100:+.1f} points; guarded / short-QA losses: "
            f"{'; '.join(losses) or 'none'}; family losses: {'; '.join(fam_losses) or 'none'}; "
            f"contamination rises: {'; '.join(rises) or 'none'} → "
            f"{'qualifies' if ok else 'does not qualify'}"
        )
        if ok and gain > best_gain + 1e-9:
            best, best_gain = name, gain
    lines.append(f"\ndecision: {'adopt ' + best if best != DEFAULT_RUN else 'the default stays'}")
    return lines


def _choice(runs: dict[str, dict[str, Any]]) -> list[str]:
    """The latest round present in ``runs``: the gain rule, then the fourth round's beside it."""
    rounds = (ORDER_3, ROUND_3), (ORDER_2, ROUND_2), (ORDER, SCOPE)
    order_of = next(o for o, r in rounds if any(name in runs for name in r))
    order = tuple(n for n in order_of if n in runs)
    lines = gain_rule(runs, order)
    lines += ["", "the fourth corroborated-delivery round's rule, beside it", ""]
    return lines + report(runs, order, short_guard=True)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, {**SCOPE, **ROUND_2, **ROUND_3}, _choice)


if __name__ == "__main__":
    raise SystemExit(main())
