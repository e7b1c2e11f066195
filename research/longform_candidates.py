"""Candidates side by side: the rows both quality rules read, from scoreboard JSON files.

Each file is one ``python -m benchmarks.scoreboard --config CANDIDATE.json --no-paper`` run
(its ``mirage`` column). Prints, fit / report: the short-QA rows, PoisonedRAG, and per long-form
set the clean and MIXED pass, the worst pollution family's contamination and the claims
delivered per passing clean query; then, per rule of ``benchmarks.families``, the floors and
ceilings each candidate misses on the fit split and its mean (poisons alone blocked − wrong
answer delivered) over every attack family.

    python -m research.longform_candidates research/results/longform-candidates/*.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import families as fam

SHORT_ROWS = (
    "gpe-k5 CLEAN pass",
    "shortqa CLEAN pass",
    "gpe-k5 MIXED polluted share of delivered claims",
    "poisonedrag-nq poisons alone blocked",
    "poisonedrag-nq gold+5: wrong answer in evidence",
    "poisonedrag-nq gold+5: correct answer only",
    "poisonedrag-hotpotqa poisons alone blocked",
    "poisonedrag-hotpotqa gold+5: wrong answer in evidence",
    "poisonedrag-hotpotqa gold+5: correct answer only",
    "shortqa poisons alone blocked",
    "shortqa honest+5: wrong answer in evidence",
)
LONG_SETS = ("biogen-k10", "biogen-k20", "gpe-longform")
SPLITS = ("fit", "report")


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def load_runs(paths: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Scoreboard JSON files by their stem (the candidate's name)."""
    return {Path(f).stem: json.loads(Path(f).read_text()) for f in paths}


def held_out_table(held: Sequence[fam.HeldOut]) -> list[str]:
    """Each held-out family's pick and figures (report), then their mean."""
    measures = ("blocked", "wrong", "correct_only")
    lines = ["| held-out family | pick | blocked | wrong | correct only |", "|---|---|---|---|---|"]
    for h in held:
        cells = [fam._pc(h.figures.get(m)) for m in measures]
        lines.append(f"| {h.family} | {h.pick} | " + " | ".join(cells) + " |")
    s = fam.summary(held)
    return [
        *lines,
        "| **mean** | | " + " | ".join(fam._pc(s[m]["mean"][0]) for m in measures) + " |",
    ]


def short_row(run: dict[str, Any], measure: str, split: str) -> float | None:
    return next((r.get(f"mirage:{split}") for r in run["rows"] if r["measure"] == measure), None)


def long_value(run: dict[str, Any], ds: str, pick, split: str) -> float | None:
    vals = [
        r["value"]
        for r in run["longform"]
        if r["dataset"] == ds
        and r["system"] == "mirage"
        and r["split"] == split
        and pick(r["measure"])
        and r["value"] is not None
    ]
    return max(vals) if vals else None


def table(runs: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| measure (fit / report) | " + " | ".join(runs) + " |",
        "|---|" + "---|" * len(runs),
    ]

    def add(name: str, value) -> None:
        cells = [" / ".join(value(run, sp) for sp in SPLITS) for run in runs.values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")

    for m in SHORT_ROWS:
        add(m, lambda run, sp, m=m: _pc(short_row(run, m, sp)))
    for ds in LONG_SETS:
        for m in ("clean pass", "MIXED pass"):
            add(f"{ds} {m}", lambda run, sp, ds=ds, m=m: _pc(long_value(run, ds, m.__eq__, sp)))
        for regime in ("MIXED", "FULL"):
            prefix = f"{regime} contamination"
            add(
                f"{ds} {prefix}, worst family",
                lambda run, sp, ds=ds, p=prefix: _pc(
                    long_value(run, ds, lambda measure, p=p: measure.startswith(p), sp)
                ),
            )
        add(
            f"{ds} claims delivered per passing clean query",
            lambda run, sp, ds=ds: (
                "—"
                if (v := long_value(run, ds, "claims delivered per passing clean query".__eq__, sp))
                is None
                else f"{v:.1f}"
            ),
        )
    return lines


def rule_lines(runs: dict[str, dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for rule in fam.RULES:
        report_rule = fam.Rule(rule.declared, rule.floors, rule.ceilings, choose_split="report")
        lines += [
            "",
            f"rule {rule.declared}",
            "",
            "| candidate | missed on fit | mean blocked − wrong, fit | report |",
            "|---|---|---|---|",
        ]
        for name, run in runs.items():
            (c,) = [c for c in fam.candidates_from_scoreboard(run) if c.name.endswith("default")]
            every = list(c.families)
            fit, report = fam.mean_score(c, every, rule), fam.mean_score(c, every, report_rule)
            missed = ", ".join(fam.floors_missed(c, rule, every)) or "none"
            lines.append(f"| {name} | {missed} | {_pc(fit)}% | {_pc(report)}% |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", help="scoreboard JSON files, one per candidate")
    args = p.parse_args(argv)
    runs = load_runs(args.runs)
    print("\n".join(table(runs) + rule_lines(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
