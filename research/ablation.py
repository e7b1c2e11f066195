"""Does each part of the default decision earn its place? One knob off at a time, chosen by
leave-one-family-out.

Each ablation is the default with one signal, rule or fitted knob switched off (or set to its
plainest value). For each, the declared rule :data:`EARNS` is applied: leave-one-family-out
(:func:`benchmarks.families.leave_one_family_out`) between the ablated configuration and the
default, under rule ``2026-12-04`` of ``benchmarks.families``, the ablated one listed first, so
that a tie goes to the smaller decision. The knob earns its place when the default is picked
in more than half of the folds; otherwise the smaller decision is as good on families it was
not chosen on, and the knob goes.

    python -m research.ablation write                  # research/candidates/ablation/*.json
    bash research/ablation_run.sh                      # one scoreboard run per ablation
    python -m research.ablation report research/results/ablation/*.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks import families as fam

CANDIDATES = Path("research/candidates/ablation")

#: The declared earning rule: the default must win more than this share of the folds.
EARNS = {"declared": "2026-12-04", "rule": fam.RULE_2026_12_04.declared, "share": 0.5}

#: Ablation name -> the change to ``MirageConfig()`` (config fields; ``method`` for internals).
ABLATIONS: dict[str, dict[str, Any]] = {
    "no-coordination": {"coordination": "none"},
    "no-isolated-scoring": {"method": {"coordination_isolated_threshold": 1e9}},
    "no-length-floor": {"method": {"coordination_min_tokens": 0.0}},
    "no-absorb": {"method": {"coordination_absorb_margin": None}},
    "no-self-conflict-release": {"method": {"coordination_self_conflict": None}},
    "quarantine-excludes": {"method": {"coordinated_min_support": None}},
    "no-quarantine-d-min": {"method": {"coordinated_d_min": None}},
    "no-answer-conflict": {"answer_conflict": None},
    "no-tie-block": {"block_on_tie": False},
    "no-independence": {"independence": "none"},
    "no-fact-check": {"method": {"fact_check": False}},
    "no-relevance": {"method": {"relevance": "none"}},
    "no-claim-filter": {"method": {"claim_filter": False}},
    "kappa-0.5": {"method": {"kappa": 0.5}},
    "symmetry-each": {"method": {"contradiction_symmetry": "each"}},
}


def write() -> None:
    CANDIDATES.mkdir(parents=True, exist_ok=True)
    for name, change in {"default": {}, **ABLATIONS}.items():
        (CANDIDATES / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")


def _candidate(run: dict[str, Any], name: str) -> fam.Candidate:
    (c,) = [c for c in fam.candidates_from_scoreboard(run) if c.name.endswith("default")]
    c.name = name
    return c


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    rule = next(r for r in fam.RULES if r.declared == EARNS["rule"])
    every = list(fam.FAMILIES)
    default = _candidate(runs["default"], "default")
    lines = [
        f"earning rule {EARNS['declared']}: leave-one-family-out under rule {rule.declared}, "
        "ablated configuration first (ties go to it); the knob earns its place when the "
        f"default wins more than {EARNS['share']:.0%} of the folds",
        "",
        "| ablation | floors missed (fit) | mean blocked − wrong fit / report | LOFO: default "
        "picked | LOFO mean blocked / wrong / correct only (report) | earns |",
        "|---|---|---|---|---|---|",
    ]

    def row(name: str, c: fam.Candidate, picked: str, held: list[fam.HeldOut] | None) -> str:
        report_rule = fam.Rule(rule.declared, rule.floors, rule.ceilings, choose_split="report")
        missed = ", ".join(fam.floors_missed(c, rule, every)) or "none"
        fit, rep = fam.mean_score(c, every, rule), fam.mean_score(c, every, report_rule)
        s = fam.summary(held) if held is not None else None
        lofo = (
            " / ".join(_pc(s[m]["mean"][0]) for m in ("blocked", "wrong", "correct_only"))
            if s
            else "—"
        )
        return f"| {name} | {missed} | {_pc(fit)} / {_pc(rep)} | {picked} | {lofo} |"

    lines.append(row("default", default, "—", fam.leave_one_family_out([default], rule)) + " — |")
    for name, run in runs.items():
        if name == "default":
            continue
        ablated = _candidate(run, name)
        held = fam.leave_one_family_out([ablated, default], rule)
        wins = sum(h.pick == "default" for h in held)
        earns = wins > EARNS["share"] * len(held)
        lines.append(
            row(name, ablated, f"{wins} of {len(held)}", held) + f" {'yes' if earns else 'no'} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("write", help="write one candidate JSON per ablation")
    r = sub.add_parser("report", help="the earning table from scoreboard JSON files")
    r.add_argument("runs", nargs="+")
    args = p.parse_args(argv)
    if args.cmd == "write":
        write()
        return 0
    runs = {Path(f).stem: json.loads(Path(f).read_text()) for f in args.runs}
    if "default" not in runs:
        p.error("one of the runs must be default.json")
    print("\n".join(report(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
