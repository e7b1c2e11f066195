"""Does each part of the default decision earn its place? One knob off at a time, chosen by
leave-one-family-out.

Each ablation is the default with one signal, rule or fitted knob switched off (or set to its
plainest value). For each, the declared rule :data:`EARNS` is applied: leave-one-family-out
(:func:`benchmarks.families.leave_one_family_out`) between the ablated configuration and the
default, under rule ``2026-12-04`` of ``benchmarks.families``, the ablated one listed first, so
that a tie goes to the smaller decision. The knob earns its place when the default is picked
in more than half of the folds; otherwise the smaller decision is as good on families it was
not chosen on, and the knob goes.

Each candidate file is a change to ``MirageConfig()`` as it was when the ablations ran (the
default of ``docs/decisions.md``'s entry "each part of the decision earns its place"), whose
results are in ``research/results/ablation/``; ``default.json`` there is that default.

    python -m research.ablation write                  # research/candidates/ablation/*.json
    bash research/ablation_run.sh                      # one scoreboard run per ablation
    python -m research.ablation report research/results/ablation/*.json

Later rounds: ``write --round N``, ``bash research/ablation_run.sh N`` and the report of
``research/results/ablation-N/``; ``report-full`` applies
:data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` to full scoreboard runs. The fourth
round writes its smaller candidates from its single ablations' runs (``smaller``) and judges
them on full scoreboard runs by :data:`NO_LOSS_SIMPLER` (``report-simpler``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks import families as fam
from research.longform_candidates import load_runs, long_value, short_row

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
    "kappa-published": {"method": {"kappa": 0.5}},
    "symmetry-each": {"method": {"contradiction_symmetry": "each"}},
}


#: Rows of the other quality issue's data a part's removal must not make worse on the fit
#: split (a change that wins on the attack families and loses on long-form or short-QA
#: evidence is not made): (kind, dataset, measure prefix, higher is worse).
GUARDED: tuple[tuple[str, str, str, bool], ...] = (
    ("short", "gpe-k5", "CLEAN pass", False),
    ("short", "shortqa", "CLEAN pass", False),
    ("long", "biogen-k10", "clean pass", False),
    ("long", "biogen-k10", "MIXED pass", False),
    ("long", "biogen-k10", "MIXED contamination", True),
    ("long", "biogen-k10", "FULL contamination", True),
)

#: The parts that did not earn their place under :data:`EARNS` and lose no guarded row on fit,
#: switched off together (declared after the single ablations, before this one ran). It
#: replaces the default when leave-one-family-out under the same rule, this configuration
#: first, picks it in at least half of the folds and it loses no guarded row on fit.
SMALLER: dict[str, Any] = {
    "method": {
        "coordination_min_tokens": 0.0,
        "coordinated_min_support": None,
        "fact_check": False,
        "claim_filter": False,
    }
}


#: :data:`SMALLER` with the embedding model's length floor kept: without it, three agreeing
#: one-line pages (the test suite's clean evidence, the specification that agreeing
#: independent sources pass) are quarantined as planted copies and the gate falls back. The
#: default is this configuration (``docs/decisions.md``); :data:`SMALLER`'s row stays in the
#: report.
SMALLER_WITH_FLOOR: dict[str, Any] = {
    "method": {k: v for k, v in SMALLER["method"].items() if k != "coordination_min_tokens"}
}


#: The second round, on the default the first one adopted (declared before it ran; same
#: earning rule and guarded rows): the parts that are still in the decision, each switched
#: off. Those that do not earn their place and lose no guarded row are switched off together,
#: the length floor excepted (the one-line specification above), and that configuration
#: replaces the default under :data:`SMALLER`'s adoption rule.
ROUND_2 = {
    name: change
    for name, change in ABLATIONS.items()
    if name not in ("no-fact-check", "no-claim-filter", "quarantine-excludes")
}
CANDIDATES_2 = Path("research/candidates/ablation-2")


#: The third round, on the default without the coordination length floor (declared before it
#: ran; same earning rule and guarded rows): every part of the second round still in the
#: decision, and two added since, the signal window (``coordination_window``) and fact
#: coverage in corroboration (``fact_coverage``). The self-conflict release is off for
#: questions already, and the garbled-passage rule is left out: the earning rule's score has
#: no GARAG figure, the one figure that rule moves. Adoption as in the second round, and the
#: configuration that switches the non-earning parts off must then also qualify on the full
#: scoreboard under ``research.quarantine_conflicts.NO_LOSS_GAIN_GARAG``.
ROUND_3 = {
    **{
        name: change
        for name, change in ROUND_2.items()
        if name not in ("no-length-floor", "no-self-conflict-release")
    },
    "no-signal-window": {"method": {"coordination_window": None}},
    "no-fact-coverage": {"method": {"fact_coverage": False}},
}
CANDIDATES_3 = Path("research/candidates/ablation-3")

#: The third round's parts that did not earn their place and lost no guarded row on fit
#: (``research/results/ablation-3/earning.md``: ``no-relevance`` and ``no-tie-block``),
#: switched off together (declared after the single ablations, before this one ran).
SMALLER_3: dict[str, Any] = {"block_on_tie": False, "method": {"relevance": "none"}}

#: The fourth round, on today's default (declared 2026-12-06, before any of it ran; same
#: earning rule and guarded rows): every part of the third round, and the parts adopted since
#: that no round has ablated: names told apart by their last word (``answer_names``), a
#: sentence's first word read as a name (``answer_subjects``), facts compared in their
#: equivalent forms (``fact_forms``), and the corroborated delivery itself
#: (``corroborated_only``). The garbled-passage rule is left out as in the third round (the
#: earning score has no GARAG figure). Since the third round a request runs no coordination
#: (``request_overrides``), so the coordination parts can no longer move a biogen row.
ROUND_4 = {
    **ROUND_3,
    "answer-names-word": {"method": {"answer_names": "word"}},
    "no-answer-subjects": {"method": {"answer_subjects": False}},
    "fact-forms-tokens": {"method": {"fact_forms": "tokens"}},
    "no-corroborated-delivery": {"method": {"corroborated_only": "none"}},
}
CANDIDATES_4 = Path("research/candidates/ablation-4")

#: Declared with :data:`ROUND_4`, before it ran. ``smaller`` switches off together every part
#: that does not earn its place and loses no guarded row; ``smaller-keep-weighting`` the same
#: but relevance weighting and the tie block, whose removal together lost gpe-k10 clean pass on
#: the full scoreboard in the third round (a row the ablation datasets do not hold). Each is
#: written once the single ablations are read (:func:`smaller_of`), and judged first by the
#: earning table's adoption rule, then on the full scoreboard by :data:`NO_LOSS_SIMPLER`; the
#: first of the two, in that order, that passes both replaces the default.
SMALLER_4_KEPT = ("no-relevance", "no-tie-block")

#: A rule for a change that only deletes (declared 2026-12-06, before the fourth round ran): on
#: the fit split of two full runs against the committed scoreboard, nothing lost of any kind
#: (every row of the main table with a goal, every attack-family figure, biogen clean and MIXED
#: pass, every long-form contamination figure, claims delivered per passing clean query); the
#: gain is the number of parts switched off. A part that earns nothing on the families and
#: costs nothing anywhere is a fitted constant the decision does not need.
NO_LOSS_SIMPLER = {"declared": "2026-12-06"}


def write_round(folder: Path, ablations: dict[str, dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, change in {"default": {}, **ablations}.items():
        (folder / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")


def write() -> None:
    CANDIDATES.mkdir(parents=True, exist_ok=True)
    named = {
        "default": {},
        **ABLATIONS,
        "smaller": SMALLER,
        "smaller-with-floor": SMALLER_WITH_FLOOR,
    }
    for name, change in named.items():
        (CANDIDATES / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")


def _candidate(run: dict[str, Any], name: str) -> fam.Candidate:
    (c,) = [c for c in fam.candidates_from_scoreboard(run) if c.name.endswith("default")]
    c.name = name
    return c


def _pc(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def guarded_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """The :data:`GUARDED` rows on which ``run`` is worse than ``default`` on the fit split."""

    def value(r: dict[str, Any], kind: str, ds: str, measure: str) -> float | None:
        if kind == "short":
            return short_row(r, f"{ds} {measure}", "fit")
        return long_value(r, ds, lambda m: m.startswith(measure), "fit")

    out = []
    for kind, ds, measure, higher_is_worse in GUARDED:
        a, b = value(run, kind, ds, measure), value(default, kind, ds, measure)
        if a is None or b is None:
            if a is not b:
                out.append(f"{ds} {measure} (missing)")
            continue
        if (a > b + 1e-9) if higher_is_worse else (a < b - 1e-9):
            out.append(f"{ds} {measure} {_pc(b)} → {_pc(a)}")
    return out


def earns(
    runs: dict[str, dict[str, Any]], name: str
) -> tuple[list[fam.HeldOut], int, bool, list[str]]:
    """For ablation ``name``: leave-one-family-out under :data:`EARNS`'s rule between it and the
    default (it first), the folds that pick the default, whether the knob it switches off earns
    its place, and the guarded rows it loses on fit."""
    rule = next(r for r in fam.RULES if r.declared == EARNS["rule"])
    default = _candidate(runs["default"], "default")
    held = fam.leave_one_family_out([_candidate(runs[name], name), default], rule)
    wins = sum(h.pick == "default" for h in held)
    return (
        held,
        wins,
        wins > EARNS["share"] * len(held),
        guarded_losses(runs[name], runs["default"]),
    )


def merge_changes(changes: list[dict[str, Any]]) -> dict[str, Any]:
    """One config change made of several (``method`` fields merged)."""
    out: dict[str, Any] = {}
    for change in changes:
        for key, value in change.items():
            if key == "method":
                out.setdefault("method", {}).update(value)
            else:
                out[key] = value
    return out


def smaller_of(runs: dict[str, dict[str, Any]], ablations: dict[str, dict[str, Any]]) -> dict:
    """The fourth round's ``smaller`` candidates from its single ablations' runs: the parts that
    do not earn their place and lose no guarded row, switched off together (and the same
    without :data:`SMALLER_4_KEPT`). Empty when no part qualifies."""
    dropped = []
    for name in ablations:
        if name not in runs:
            raise SystemExit(f"no run of {name}: run every ablation first")
        _, _, earned, losses = earns(runs, name)
        if not earned and not losses:
            dropped.append(name)
    out = {}
    if dropped:
        out["smaller"] = merge_changes([ablations[n] for n in dropped])
    kept = [n for n in dropped if n not in SMALLER_4_KEPT]
    if kept and kept != dropped:
        out["smaller-keep-weighting"] = merge_changes([ablations[n] for n in kept])
    return out


def simpler(runs: dict[str, dict[str, Any]], names: list[str]) -> list[str]:
    """:data:`NO_LOSS_SIMPLER` on full scoreboard runs (``default``: the committed one), the
    candidates judged in the declared order; the first that qualifies is adopted."""
    from research.relevant_pairs import every_loss  # it imports this module, through others

    lines = [f"rule NO_LOSS_SIMPLER ({NO_LOSS_SIMPLER['declared']}), fit split", ""]
    adopted = None
    for name in names:
        if name not in runs:
            continue
        change = json.loads((CANDIDATES_4 / f"{name}.json").read_text())
        parts = len(change.get("method", {})) + sum(k != "method" for k in change)
        losses = every_loss(runs[name], runs["default"])
        ok = not losses and parts > 0
        lines.append(
            f"- {name}: {parts} parts switched off; losses: {'; '.join(losses) or 'none'} → "
            f"{'qualifies' if ok else 'does not qualify'}"
        )
        if ok and adopted is None:
            adopted = name
    lines.append(f"\ndecision: {'adopt ' + adopted if adopted else 'the default stays'}")
    return lines


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    rule = next(r for r in fam.RULES if r.declared == EARNS["rule"])
    every = list(fam.FAMILIES)
    default = _candidate(runs["default"], "default")
    lines = [
        f"earning rule {EARNS['declared']}: leave-one-family-out under rule {rule.declared}, "
        "ablated configuration first (ties go to it); the knob earns its place when the "
        f"default wins more than {EARNS['share']:.0%} of the folds",
        "",
        "| ablation | floors missed (fit) | gpe-k5 / shortqa clean pass, biogen-k10 MIXED "
        "contamination (fit; report) | mean blocked − wrong fit / report | LOFO: default "
        "picked | LOFO mean blocked / wrong / correct only (report) | earns | guarded rows "
        "worse (fit) |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def clean(run: dict[str, Any], split: str) -> str:
        gpe, shortqa = (short_row(run, f"{d} CLEAN pass", split) for d in ("gpe-k5", "shortqa"))
        contam = long_value(run, "biogen-k10", lambda m: m.startswith("MIXED contam"), split)
        return " / ".join(_pc(x) for x in (gpe, shortqa, contam))

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
        figures = "; ".join(clean(runs[name], sp) for sp in ("fit", "report"))
        return f"| {name} | {missed} | {figures} | {_pc(fit)} / {_pc(rep)} | {picked} | {lofo} |"

    base = fam.leave_one_family_out([default], rule)
    lines.append(row("default", default, "—", base) + " — | — |")
    for name, run in runs.items():
        if name == "default":
            continue
        ablated = _candidate(run, name)
        held, wins, earned, lost = earns(runs, name)
        if name.startswith(
            "smaller"
        ):  # adopted when picked in at least half the folds, nothing lost
            verdict = "adopted" if wins <= (1 - EARNS["share"]) * len(held) else "not adopted"
        else:
            verdict = "yes" if earned else "no"
        losses = "; ".join(lost) or "none"
        if name.startswith("smaller") and losses != "none":
            verdict = "not adopted"
        lines.append(
            row(name, ablated, f"{wins} of {len(held)}", held) + f" {verdict} | {losses} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="write one candidate JSON per ablation")
    w.add_argument("--round", type=int, default=1, choices=(1, 2, 3, 4))
    r = sub.add_parser("report", help="the earning table from scoreboard JSON files")
    r.add_argument("runs", nargs="+")
    f = sub.add_parser("report-full", help="NO_LOSS_GAIN_GARAG on full scoreboard runs")
    f.add_argument("runs", nargs="+")
    m = sub.add_parser("smaller", help="write the fourth round's smaller candidates")
    m.add_argument("runs", nargs="+", help="the fourth round's single ablation runs")
    s4 = sub.add_parser("report-simpler", help="NO_LOSS_SIMPLER on full scoreboard runs")
    s4.add_argument("runs", nargs="+")
    args = p.parse_args(argv)
    if args.cmd == "smaller":
        written = smaller_of(load_runs(args.runs), ROUND_4)
        for name, change in written.items():
            (CANDIDATES_4 / f"{name}.json").write_text(json.dumps(change, indent=1) + "\n")
            print(f"{CANDIDATES_4 / name}.json: {json.dumps(change)}")
        if not written:
            print("every part earns its place or loses a guarded row: no smaller candidate")
        return 0
    if args.cmd == "report-simpler":
        print("\n".join(simpler(load_runs(args.runs), ["smaller", "smaller-keep-weighting"])))
        return 0
    if args.cmd == "report-full":
        from research.quarantine_conflicts import no_loss_gain  # it imports this module

        runs = load_runs(args.runs)
        names = [n for n in runs if n != "default"]
        print("\n".join(no_loss_gain(runs, names, complete_rows=True, with_garag=True)))
        return 0
    if args.cmd == "write":
        if args.round == 1:
            write()
        else:
            rounds = {
                2: (CANDIDATES_2, ROUND_2),
                3: (CANDIDATES_3, ROUND_3 | {"smaller": SMALLER_3}),
                4: (CANDIDATES_4, ROUND_4),
            }
            write_round(*rounds[args.round])
        return 0
    runs = load_runs(args.runs)
    if "default" not in runs:
        p.error("one of the runs must be default.json")
    print("\n".join(report(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
