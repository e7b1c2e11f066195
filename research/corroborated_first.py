"""Corroboration where the evidence has it: only corroborated claims are delivered, where the
sources behind them reach ``d_min`` (``MethodSettings.corroborated_only``). Three rounds:
``"selection"`` (S* chosen among corroborated claims), ``"delivery"`` (the gate weighs the
whole S*, a passing verdict delivers its corroborated part), then delivery that keeps the
answer sentence, under a short-QA guard. Each round's candidates and rule were declared before
it ran (``docs/decisions.md``, 2026-12-04).

Candidates (changes to ``MirageConfig()``, declared before any of them ran):

- ``corroborated-first``: a claim is corroborated by NLI support from another independence
  group whose sentence states every number, month and name of it (``fact_coverage``);
- ``corroborated-first-paraphrase``: the same, and a claim of another group at MiniLM cosine
  ≥ 0.8 corroborates as NLI support does (still under fact coverage);
- ``corroborated-first-contested``: ``corroborated-first`` with r_contr counted over S* and the
  claims that contradict it (``contradiction_scope="contested"``), not over every edge.

Choice rule (:data:`RULE`): leave-one-family-out under ``benchmarks.families``' rule 2026-12-04
among the default and the candidates, in :data:`ORDER` (the default first, so a tie keeps it);
the configuration picked in the most folds replaces the default if it loses no guarded row of
``research.ablation.GUARDED`` on the fit split against the default's run. The long-form rows
at k = 20 (biogen-k20, gpe-longform) are printed beside it, not ruled on.

    bash research/corroborated_first_run.sh
    python -m research.corroborated_first report research/results/corroborated-first/*.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import families as fam
from research.ablation import _candidate, _pc, guarded_losses
from research.longform_candidates import held_out_table, load_runs, long_value, short_row

CANDIDATES = Path("research/candidates")
FACTS = {"corroborated_only": "selection", "fact_coverage": True}
CHANGES: dict[str, dict[str, Any]] = {
    "corroborated-first": {"method": FACTS},
    "corroborated-first-paraphrase": {"method": {**FACTS, "paraphrase_support": 0.8}},
    "corroborated-first-contested": {"method": {**FACTS, "contradiction_scope": "contested"}},
}
#: Declared while the three above ran, before any of their figures was seen (only the README's
#: Eiffel example had been run: its honest "The tower was completed in 1889" names no tower,
#: so under sentence fact coverage it corroborates nothing): a supporter's facts may come from
#: anywhere in its passage.
LATER: dict[str, dict[str, Any]] = {
    "corroborated-first-passage-facts": {"method": {**FACTS, "fact_scope": "passage"}},
}
#: The second round (declared after the first four ran, before any of these did): the gate
#: weighs the ordinary S*, so every conflict it holds still blocks, and a passing verdict
#: delivers only S*'s corroborated part (``corroborated_only="delivery"``). The first round
#: showed why: an S* chosen among corroborated claims drops the lone gold passage that
#: contradicts five poisons corroborating each other, and the answer-slot rule no longer sees
#: the conflict (PoisonedRAG NQ gold + 5, wrong answer 6% → 12% on fit). Same rule, its own
#: choice among the default and these three.
DELIVERY = {"corroborated_only": "delivery", "fact_coverage": True}
ROUND_2: dict[str, dict[str, Any]] = {
    "corroborated-delivery": {"method": DELIVERY},
    "corroborated-delivery-paraphrase": {"method": {**DELIVERY, "paraphrase_support": 0.8}},
    "corroborated-delivery-passage-facts": {"method": {**DELIVERY, "fact_scope": "passage"}},
}
#: The short-QA guard (declared after the second round's full scoreboard, before the third
#: round ran): no row of the short-QA sections of the scoreboard more than 2 points worse than
#: the default's on fit, as the long-form issue asks; ``GUARDED`` held only the clean pass of
#: short evidence, and the second round's pick lost the correct answer in 20 of 100 honest
#: shortqa sets on fit. (row, higher is better)
SHORT_GUARD: tuple[tuple[str, bool], ...] = (
    ("gpe-k5 CLEAN pass", True),
    ("gpe-k5 FULL pass", False),
    ("gpe-k5 MIXED polluted share of delivered claims", False),
    ("gpe-k5 CLEAN corroborated claims delivered", True),
    ("poisonedrag-nq poisons alone blocked", True),
    ("poisonedrag-nq gold+5: wrong answer in evidence", False),
    ("poisonedrag-nq gold+5: correct answer only", True),
    ("poisonedrag-hotpotqa poisons alone blocked", True),
    ("poisonedrag-hotpotqa gold+5: wrong answer in evidence", False),
    ("poisonedrag-hotpotqa gold+5: correct answer only", True),
    ("shortqa CLEAN pass", True),
    ("shortqa CLEAN correct answer in evidence", True),
    ("shortqa poisons alone blocked", True),
    ("shortqa honest+5: wrong answer in evidence", False),
    ("shortqa honest+5: correct answer only", True),
)
SHORT_MARGIN = 0.02

#: The third round (declared with :data:`SHORT_GUARD`, before it ran): delivery that keeps the
#: answer sentence (``corroborated_relevant``: only when a corroborated claim is among S*'s
#: most query-relevant ones), and delivery on NLI corroboration alone (no fact coverage: the
#: scoreboard's own sense of a corroborated claim), each alone and together. The second
#: round's pick is judged again beside them.
ROUND_3: dict[str, dict[str, Any]] = {
    "corroborated-delivery-relevant": {"method": {**DELIVERY, "corroborated_relevant": True}},
    "corroborated-delivery-nli": {"method": {"corroborated_only": "delivery"}},
    "corroborated-delivery-nli-relevant": {
        "method": {"corroborated_only": "delivery", "corroborated_relevant": True}
    },
}
#: The fourth round (declared after the third's figures, before it ran; same rule as the
#: third): the third round's relevant-delivery candidates lost the answer because the
#: corroborated part was the question itself: shortqa pages restate the query as a heading
#: ("Who wrote Waiting for Godot?"), one page's question "entails" another's, and a question
#: holds every query word, so it is S*'s most relevant claim. A question asserts nothing:
#: here it neither corroborates nor is corroborated (``questions_vouch=False``).
ROUND_4: dict[str, dict[str, Any]] = {
    "corroborated-delivery-relevant-assertions": {
        "method": {**DELIVERY, "corroborated_relevant": True, "questions_vouch": False}
    },
    "corroborated-delivery-nli-relevant-assertions": {
        "method": {
            "corroborated_only": "delivery",
            "corroborated_relevant": True,
            "questions_vouch": False,
        }
    },
}
DEFAULT_RUN = "default"
ORDER = (DEFAULT_RUN, *CHANGES, *LATER)
ORDER_2 = (DEFAULT_RUN, *ROUND_2)
ORDER_3 = (DEFAULT_RUN, "corroborated-delivery", *ROUND_3)
ORDER_4 = (DEFAULT_RUN, *ROUND_4)
RULE = {"declared": "2026-12-04", "families_rule": fam.RULE_2026_12_04.declared}

#: Printed beside the choice (fit / report): (kind, dataset, measure prefix).
SHOWN: tuple[tuple[str, str, str], ...] = (
    ("short", "gpe-k5", "CLEAN pass"),
    ("short", "shortqa", "CLEAN pass"),
    ("short", "poisonedrag-nq", "poisons alone blocked"),
    ("short", "poisonedrag-nq", "gold+5: wrong answer in evidence"),
    ("long", "biogen-k10", "clean pass"),
    ("long", "biogen-k10", "MIXED pass"),
    ("long", "biogen-k10", "MIXED contamination"),
    ("long", "biogen-k20", "clean pass"),
    ("long", "biogen-k20", "MIXED pass"),
    ("long", "biogen-k20", "MIXED contamination"),
    ("long", "biogen-k20", "FULL contamination"),
    ("long", "gpe-longform", "clean pass"),
    ("long", "gpe-longform", "MIXED contamination"),
)


def write() -> None:
    for name, change in {**CHANGES, **LATER, **ROUND_2, **ROUND_3, **ROUND_4}.items():
        (CANDIDATES / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")


def _shown(run: dict[str, Any], kind: str, ds: str, measure: str, split: str) -> float | None:
    if kind == "short":
        return short_row(run, f"{ds} {measure}", split)
    return long_value(run, ds, lambda m: m.startswith(measure), split)


def short_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """The :data:`SHORT_GUARD` rows on which ``run`` is more than 2 points worse on fit."""
    out = []
    for measure, higher_is_better in SHORT_GUARD:
        a, b = short_row(run, measure, "fit"), short_row(default, measure, "fit")
        if a is None or b is None:
            continue
        worse = (b - a) if higher_is_better else (a - b)
        if worse > SHORT_MARGIN + 1e-9:
            out.append(f"{measure} {_pc(b)} → {_pc(a)}")
    return out


def report(
    runs: dict[str, dict[str, Any]],
    order_of: tuple[str, ...] = ORDER,
    short_guard: bool = False,
) -> list[str]:
    rule = next(r for r in fam.RULES if r.declared == RULE["families_rule"])
    order = [name for name in order_of if name in runs]
    candidates = [_candidate(runs[name], name) for name in order]
    held = fam.leave_one_family_out(candidates, rule)
    picks = Counter(h.pick for h in held)
    lines = [
        f"rule {RULE['declared']}: leave-one-family-out under rule {rule.declared} among "
        f"{', '.join(order)} (ties to the earlier); the most-picked replaces the default when it "
        "loses no guarded row on fit",
        "",
        "| measure (worst family for contamination) | " + " | ".join(order) + " |",
        "|---|" + "---|" * len(order),
    ]
    for kind, ds, measure in SHOWN:
        cells = [
            " / ".join(_pc(_shown(runs[n], kind, ds, measure, sp)) for sp in ("fit", "report"))
            for n in order
        ]
        lines.append(f"| {ds} {measure} (fit / report) | " + " | ".join(cells) + " |")
    lines += ["", *held_out_table(held), ""]
    for name in order[1:]:
        alone = fam.leave_one_family_out([candidates[0], _candidate(runs[name], name)], rule)
        n = sum(h.pick == name for h in alone)
        losses = "; ".join(_losses(runs, name, short_guard)) or "none"
        lines.append(
            f"- {name}: picked over the default in {n} of {len(alone)} folds; "
            f"guarded rows worse on fit: {losses}"
        )
    best, n = picks.most_common(1)[0]
    losses = _losses(runs, best, short_guard) if best != DEFAULT_RUN else []
    lines.append(f"\npicked in most folds: {best} ({n} of {len(held)})")
    adopted = best != DEFAULT_RUN and not losses
    if short_guard:
        # the third round's rule: leave-one-family-out among the default and the candidates
        # that lose no guarded row, short-QA guard included
        kept = [c for c in candidates[1:] if not _losses(runs, c.name, short_guard)]
        held = fam.leave_one_family_out([candidates[0], *kept], rule)
        best, n = Counter(h.pick for h in held).most_common(1)[0]
        lines.append(
            f"among the default and the candidates that lose no guarded row "
            f"({', '.join(c.name for c in kept) or 'none'}): {best} ({n} of {len(held)})"
        )
        adopted = best != DEFAULT_RUN
    lines.append(f"decision: {'adopt ' + best if adopted else 'the default stays'}")
    return lines


def _losses(runs: dict[str, dict[str, Any]], name: str, short_guard: bool) -> list[str]:
    losses = guarded_losses(runs[name], runs[DEFAULT_RUN])
    return losses + short_losses(runs[name], runs[DEFAULT_RUN]) if short_guard else losses


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("write", help="write the candidates' JSON")
    r = sub.add_parser("report", help="the choice, from scoreboard JSON files")
    r.add_argument("runs", nargs="+")
    args = p.parse_args(argv)
    if args.cmd == "write":
        write()
        return 0
    runs = load_runs(args.runs)
    if DEFAULT_RUN not in runs:
        p.error(f"one of the runs must be {DEFAULT_RUN}.json")
    lines = report(runs)
    if any(name in runs for name in ROUND_2):
        lines += ["", "second round", "", *report(runs, ORDER_2)]
    if any(name in runs for name in ROUND_3):
        lines += ["", "third round, with the short-QA guard", ""]
        lines += report(runs, ORDER_3, short_guard=True)
    if any(name in runs for name in ROUND_4):
        lines += ["", "fourth round, with the short-QA guard", ""]
        lines += report(runs, ORDER_4, short_guard=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
