"""The gate as the method's seed states it: S* is delivered without a contradicting minority that
corroborated independent sources clearly outweigh, and blocked when the evidence is contested.

Candidates (changes to ``MirageConfig()``, declared before any of them ran):

- ``gate-majority``: each conflict weighed on its own (``conflict_rule="majority"``, r_contr over
  S*), corroboration by NLI support;
- ``gate-majority-paraphrase``: the same, and a claim of another group at least as close in
  embedding space as the paraphrase pairing's own threshold (0.75) corroborates too.

Choice rule (:data:`RULE`): leave-one-family-out under ``benchmarks.families``' rule
2026-12-04 among the candidates and the default, in :data:`ORDER` (ties go to the earlier);
the configuration picked in the most folds replaces the default if it loses no guarded row of
``research.ablation.GUARDED`` on the fit split against the default's run.

    python -m research.gate_candidates write
    bash research/ablation_run.sh
    python -m research.gate_candidates report research/results/ablation/{smaller-with-floor,gate-*}.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from benchmarks import families as fam
from research.ablation import CANDIDATES, _candidate, guarded_losses
from research.longform_candidates import held_out_table, load_runs

CHANGES: dict[str, dict[str, Any]] = {
    "gate-majority": {"method": {"conflict_rule": "majority", "contradiction_scope": "selected"}},
    "gate-majority-paraphrase": {
        "method": {
            "conflict_rule": "majority",
            "contradiction_scope": "selected",
            "paraphrase_support": 0.75,
        }
    },
}
#: Declared after the first two ran (same rule, its own choice among the candidates and the
#: default): the majority gate with paraphrase corroboration, where near-duplicate passages
#: are one source (``independence="embedding"``), so that planted paraphrases of one another
#: cannot corroborate each other.
LATER: dict[str, dict[str, Any]] = {
    "gate-majority-paraphrase-independent": {
        "independence": "embedding",
        "method": CHANGES["gate-majority-paraphrase"]["method"],
    },
}
#: The run of the default these candidates change (research/ablation.py's adopted one).
DEFAULT_RUN = "smaller-with-floor"
ORDER = ("gate-majority", "gate-majority-paraphrase", DEFAULT_RUN)
LATER_ORDER = ("gate-majority-paraphrase-independent", DEFAULT_RUN)
RULE = {"declared": "2026-12-04", "families_rule": fam.RULE_2026_12_04.declared}


def write() -> None:
    CANDIDATES.mkdir(parents=True, exist_ok=True)
    for name, change in {**CHANGES, **LATER}.items():
        (CANDIDATES / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")


def report(runs: dict[str, dict[str, Any]], order: tuple[str, ...] = ORDER) -> list[str]:
    rule = next(r for r in fam.RULES if r.declared == RULE["families_rule"])
    candidates = [_candidate(runs[name], name) for name in order if name in runs]
    held = fam.leave_one_family_out(candidates, rule)
    picks = Counter(h.pick for h in held)
    lines = [
        f"rule {RULE['declared']}: leave-one-family-out under rule {rule.declared} among "
        f"{', '.join(order)} (ties to the earlier); the most-picked replaces the default when it "
        "loses no guarded row on fit",
        "",
        *held_out_table(held),
        "",
    ]
    best, n = picks.most_common(1)[0]
    losses = guarded_losses(runs[best], runs[DEFAULT_RUN]) if best != DEFAULT_RUN else []
    lines.append(f"picked in most folds: {best} ({n} of {len(held)})")
    lines.append(
        "guarded rows worse on fit: " + ("; ".join(losses) or "none")
        if best != DEFAULT_RUN
        else "the default stays"
    )
    adopted = best != DEFAULT_RUN and not losses
    lines.append(f"decision: {'adopt ' + best if adopted else 'the default stays'}")
    return lines


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
    if any(name in runs for name in LATER):
        lines += ["", *report(runs, LATER_ORDER)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
