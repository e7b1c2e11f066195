"""Choose the default configuration from scoreboard runs, on the fit split only.

Each candidate is one ``benchmarks/scoreboard.py --config CANDIDATE.json`` run (the NLI pair
store makes them cheap). The rule, declared before looking at the report split:

- objective J = ½ · gpe-eval (CLEAN pass − FULL pass, mean over k)
              + ½ · PoisonedRAG (poisons alone blocked − wrong answer in gold + 5 evidence,
                mean over NQ and HotpotQA),
  i.e. the clean-evidence issue's and the coordinated-poisoning issue's trade-offs, weighted
  equally;
- a floor: gpe-eval CLEAN pass ≥ 80% at every k, on the 1,200-character pages and on the
  short query snippets (``gpe-snip-k*``: one or two sentences per page, as chunked retrievers
  return them) alike (a defense that blocks more than one clean query in five is one users
  switch off);
- the candidate with the highest fit-split J among those over the floor; if none is, the one
  with the highest CLEAN pass.

Amended (2026-12-01, after the ``coordinated_d_min`` candidates were run): J left out one of the
coordinated-poisoning issue's goals, "gold + 5 poisons: the evidence holds the correct answer
only". A gate that blocks gold + 5 outright scores as well on J as one that delivers the gold
passage alone, so J could not see the difference between them. The rule that decides is now

- J2 = J + ½ · PoisonedRAG correct-answer-only share (mean over NQ and HotpotQA),

with the same floor. Both picks are printed; ties go to the candidate listed first.

Amended again (2026-12-01, after a sweep of the coordination model's thresholds had been run):
J2 rewards what the defense delivers on poisoned evidence (the correct answer alone) but
nothing it delivers on clean evidence, so it kept preferring lower coordination thresholds,
which quarantine more honest passages: at each step fewer wrong answers, and fewer corroborated
clean claims delivered (68.7% → 51.4% of them on the fit split between the thresholds 3.773 and
2.0), with the clean pass unchanged because the gate passes what remains. A filter that drops
whatever looks alike ends where RAGDefender is (16–17%). The mirror term of the correct-answer
one is added with the same weight:

- J3 = J2 + ½ · gpe-eval CLEAN corroborated claims delivered (mean over k),

with the same floor. J3 decides; the J2 and J picks are printed too.

Amended a third time (2026-12-01, after the isolated-signal and κ candidates had been run, when
five of them came within 0.9 points of J3 of each other): J3 differences under ``TIE`` (1 point)
are ties. One query of a 50-query PoisonedRAG split moves a rate by 2 points and J3 by 0.5; the
report split reorders such candidates freely. Among the candidates over the floor within
``TIE`` of the best J3, the one with the highest fit-split gpe-eval CLEAN pass (pages, mean over
k) is chosen, then the highest J3: the clean-evidence issue comes first. The plain J3 pick is
printed too.

Amended a fourth time (2026-12-01, after the answer-slot sweep had run): J3 picked share 0.4,
which buys its J3 by blocking honest evidence (clean pages 90% → 85.5% and snippets 96.5% →
89.5% on the fit split; on the report split, seen before this amendment was written, 82% → 68%).
The product's rule is that a change which lowers the clean-evidence figures is not done; the
floor now says so. With ``--baseline=NAME`` (the shipped default's run), a candidate whose
fit-split gpe-eval CLEAN pass (pages or snippets, mean over k) is more than ``TIE`` below the
baseline's is under the floor as well.

Amended a fifth time (2026-12-02, after the ``ntcr2.748`` candidate had run): J3 picked it over
the shipped default for the corroborated clean claims it delivers (74% against 57% on the fit
split), while it met fewer of the scoreboard's goals (9 of 36 on the fit split against 12: wrong
answers in NQ gold + 5 8% → 16%, correct answer only 38% → 26%, gpe-eval MIXED polluted share at
k = 5 37% → 46%). The product's rule is that a change which lowers the scoreboard's figures is
not done. With ``--baseline=NAME``, a candidate that meets fewer goals on the fit split than the
baseline is under the floor as well. Said plainly: written after seeing that candidate's figures.

Amended a sixth time (2026-12-02, after the scoreboard gained shortqa, the only honest
multi-source evidence for short questions, and the shipped default had run on it: clean pass
76.7% on the fit split, 63% of the honest sets flagged by the coordination signals; no
candidate had run on it). A run that has the shortqa rows counts shortqa as one more dataset
of each term it has a figure for: the clean term's mean (CLEAN pass − attack-only pass, its
attack-only pass being 1 − poisons alone blocked) is over gpe-eval's k and shortqa, the
PoisonedRAG terms' means (poisons alone blocked − wrong answer with the honest evidence; correct
answer only) over NQ, HotpotQA and shortqa; with ``--baseline``, a shortqa CLEAN pass more
than ``TIE`` below the baseline's is under the floor too, and goals met are counted over the
rows both runs have. Runs without shortqa are scored as before, so compare runs of one kind
only. As first written, shortqa's CLEAN pass also joined the absolute floor (80%); the first
candidate run (``iso-lcanc0.474``) showed what that does when the shipped default itself is
under it (76.7%): no candidate is over the floor, and the fallback picks the highest clean
pass alone, whatever the other figures. The absolute floor is therefore gpe-eval's, as before;
shortqa's clean pass is held by the baseline check.

Amended a seventh time (2026-12-02, after the ``sq-ct3.0`` candidate had run): J3 picked it (the
coordination threshold 3.0 instead of 2.5; +122.3 against +120.2 on the fit split) and it met
as many goals (12), by a swap: wrong answers in NQ gold + 5 rose from 8% to 14% (a goal lost)
while shortqa's honest + 5 wrong answers fell from 13.3% to 10.0% (one query: a goal gained).
It was worse than the default on 11 rows that have a goal (every MIXED polluted share, NQ's
wrong and correct-only answers and four of the adaptive rows) and better on 2; the delivered
corroborated claims J3 rewards have no goal. With ``--baseline``, a candidate that is worse
than the baseline on more goal rows than it is better on (fit split, rows both runs have) is
under the floor as well. Said plainly: written after seeing that candidate's figures.

    python -m research.choose_default [--baseline=NAME] NAME=RUN.json [NAME=RUN.json ...] \
        > research/results/scoreboard-choice.md
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

FLOOR = 0.8
TIE = 0.01


def _rows(path: str) -> dict[str, dict[str, Any]]:
    return {r["measure"]: r for r in json.load(open(path))["rows"]}


def _goal_rows(rows: dict[str, dict[str, Any]], split: str):
    """(measure, goal, value) of the rows with a "≥ X%" / "≤ X%" goal and a value, the NLI
    pair rows left out as the scoreboard's "goals met" row leaves them out."""
    for name, row in rows.items():
        goal, value = row.get("goal", "—"), row.get(f"mirage:{split}")
        if goal != "—" and value is not None and f"mirage:{split}:pairs" not in row:
            yield name, goal, value


def goals_met(rows: dict[str, dict[str, Any]], split: str, measures: set[str] | None = None) -> int:
    """How many of the scoreboard's goals the default meets (its "goals met" row);
    ``measures``: count only these rows."""
    met = 0
    for name, goal, value in _goal_rows(rows, split):
        if measures is not None and name not in measures:
            continue
        op, _, number = goal.partition(" ")
        bound = float(number.rstrip("%")) / 100
        met += value >= bound - 1e-12 if op == "≥" else value <= bound + 1e-12
    return met


def goal_moves(
    rows: dict[str, dict[str, Any]], base: dict[str, dict[str, Any]], split: str
) -> tuple[int, int]:
    """(goal rows where ``rows`` is worse than ``base``, goal rows where it is better), over
    the goal rows both have."""
    worse = better = 0
    for name, goal, value in _goal_rows(rows, split):
        ref = base.get(name, {}).get(f"mirage:{split}")
        if ref is None or abs(value - ref) < 1e-9:
            continue
        if goal.startswith("≥") == (value > ref):
            better += 1
        else:
            worse += 1
    return worse, better


def figures(rows: dict[str, dict[str, Any]], split: str) -> dict[str, float]:
    def get(measure: str) -> float | None:
        row = rows.get(measure)
        return None if row is None else row.get(f"mirage:{split}")

    gpe = sorted({m.split(" ")[0] for m in rows if m.startswith("gpe-k")})
    prag = [d for d in ("poisonedrag-nq", "poisonedrag-hotpotqa") if f"{d} gold+5 pass" in rows]
    snip = sorted({m.split(" ")[0] for m in rows if m.startswith("gpe-snip-k")})
    clean = [get(f"{d} CLEAN pass") for d in gpe]
    snip_clean = [get(f"{d} CLEAN pass") for d in snip]
    gap = [get(f"{d} CLEAN pass") - get(f"{d} FULL pass") for d in gpe]
    poison = [
        get(f"{d} poisons alone blocked") - get(f"{d} gold+5: wrong answer in evidence")
        for d in prag
    ]
    only = [get(f"{d} gold+5: correct answer only") for d in prag]
    short = get("shortqa CLEAN pass")
    if short is not None:  # the sixth amendment
        blocked = get("shortqa poisons alone blocked")
        gap.append(short - (1.0 - blocked))
        poison.append(blocked - get("shortqa honest+5: wrong answer in evidence"))
        only.append(get("shortqa honest+5: correct answer only"))
    j = 0.5 * sum(gap) / len(gap) + 0.5 * sum(poison) / len(poison)
    out = {
        "J": j,
        "J2": j + 0.5 * sum(x or 0.0 for x in only) / len(only),
        "correct_only": sum(x or 0.0 for x in only) / len(only),
        "clean_min": min(clean + snip_clean),
        "short_clean": float("nan") if short is None else short,
        "clean": sum(clean) / len(clean),
        "snip_clean": sum(snip_clean) / len(snip_clean) if snip_clean else float("nan"),
        "full": sum(get(f"{d} FULL pass") for d in gpe) / len(gpe),
        "blocked": sum(get(f"{d} poisons alone blocked") for d in prag) / len(prag),
        "wrong": sum(get(f"{d} gold+5: wrong answer in evidence") for d in prag) / len(prag),
        # what the defense still delivers of honest, corroborated evidence when the gate passes
        "retention": _mean([get(f"{d} CLEAN corroborated claims delivered") for d in gpe]),
    }
    out["J3"] = out["J2"] + 0.5 * (0.0 if math.isnan(out["retention"]) else out["retention"])
    return out


def _mean(values: list[float | None]) -> float:
    have = [v for v in values if v is not None]
    return sum(have) / len(have) if have else float("nan")


def _pc(x: float) -> str:
    return "—" if math.isnan(x) else f"{100 * x:.1f}%"


def main(argv: list[str]) -> int:
    baseline = None
    if argv and argv[0].startswith("--baseline="):
        baseline, argv = argv[0].split("=", 1)[1], argv[1:]
    runs = dict(a.split("=", 1) for a in argv)
    if baseline is not None and baseline not in runs:
        raise SystemExit(f"--baseline {baseline!r} is not one of the candidates")
    rows = {name: _rows(path) for name, path in runs.items()}
    fit = {name: figures(r, "fit") for name, r in rows.items()}
    report = {name: figures(r, "report") for name, r in rows.items()}
    met = {name: goals_met(r, "fit") for name, r in rows.items()}

    def keeps_baseline(n: str) -> bool:
        # the fourth amendment: no lower clean pass than the shipped default's (within TIE);
        # the fifth: no fewer goals met than the shipped default (fit split), counted (sixth)
        # over the rows both have
        if baseline is None:
            return True
        b = fit[baseline]
        keys = ["clean", "snip_clean"]
        if not math.isnan(fit[n]["short_clean"]) and not math.isnan(b["short_clean"]):
            keys.append("short_clean")
        clean = all(fit[n][k] >= b[k] - TIE - 1e-9 for k in keys)
        common = set(rows[n]) & set(rows[baseline])
        worse, better = goal_moves(rows[n], rows[baseline], "fit")  # the seventh
        return (
            clean
            and goals_met(rows[n], "fit", common) >= goals_met(rows[baseline], "fit", common)
            and worse <= better
        )

    over = [n for n in runs if fit[n]["clean_min"] >= FLOOR and keeps_baseline(n)]

    def pick(key: str) -> str:
        if not over:
            return max(runs, key=lambda n: fit[n]["clean_min"])
        return max(over, key=lambda n: fit[n][key])

    def tie_broken(pool: list[str]) -> tuple[str, list[str]]:
        # J3 within TIE of the best of the pool is a tie, broken by the fit-split clean pass
        best = max(pool, key=lambda n: fit[n]["J3"])
        tied = [n for n in pool if fit[n]["J3"] >= fit[best]["J3"] - TIE]
        return max(tied, key=lambda n: (fit[n]["clean"], fit[n]["J3"])), tied

    by_j3, by_j2, by_j = pick("J3"), pick("J2"), pick("J")
    chosen, tied = tie_broken(over) if over else (by_j3, [])
    print(
        "Candidates (fit split decides; report split shown for the record). J = ½·gpe (CLEAN − "
        "FULL pass) + ½·PoisonedRAG (poisons alone blocked − wrong answer in gold + 5); floor: "
        f"gpe CLEAN pass ≥ {FLOOR:.0%} at every k, pages and snippets. J2 = J + "
        "½·PoisonedRAG correct answer only (gold + 5). J3 (decides) = J2 + ½·gpe CLEAN "
        f"corroborated claims delivered; J3 within {100 * TIE:g} point of the best is a tie, "
        "broken by the higher gpe CLEAN pass (fit split)."
        + (
            ""
            if baseline is None
            else f" Under the floor too: a gpe CLEAN pass (pages or snippets, mean over k) more "
            f"than {100 * TIE:g} point below the shipped default's (`{baseline}`), or fewer "
            "goals met (fit split) than it, or worse than it on more goal rows than better "
            "(seventh amendment)."
        )
        + (
            " Runs with shortqa rows count shortqa in each term and in the baseline's clean "
            "pass (sixth amendment)."
            if any(not math.isnan(fit[n]["short_clean"]) for n in runs)
            else ""
        )
        + "\n"
    )
    print(
        "| candidate | J3 fit | J3 report | J2 fit | J2 report | J fit | J report "
        "| gpe CLEAN pass fit / report "
        "| gpe snippets CLEAN pass fit / report | gpe FULL pass fit / report "
        "| poisons alone blocked fit / report | wrong answer (gold + 5) fit / report "
        "| correct answer only (gold + 5) fit / report "
        "| gpe CLEAN corroborated claims delivered fit / report "
        "| shortqa CLEAN pass fit / report | goals met fit / report |"
    )
    print("|---" * 16 + "|")
    for n in runs:
        f, r = fit[n], report[n]
        mark = (
            " **(chosen)**"
            if n == chosen
            else (" (tied)" if n in tied else "" if n in over else " (under the floor)")
        )
        print(
            f"| `{n}`{mark} | {100 * f['J3']:+.1f} | {100 * r['J3']:+.1f} "
            f"| {100 * f['J2']:+.1f} | {100 * r['J2']:+.1f} "
            f"| {100 * f['J']:+.1f} | {100 * r['J']:+.1f} "
            f"| {100 * f['clean']:.1f}% / {100 * r['clean']:.1f}% "
            f"| {_pc(f['snip_clean'])} / {_pc(r['snip_clean'])} "
            f"| {100 * f['full']:.1f}% / {100 * r['full']:.1f}% "
            f"| {100 * f['blocked']:.1f}% / {100 * r['blocked']:.1f}% "
            f"| {100 * f['wrong']:.1f}% / {100 * r['wrong']:.1f}% "
            f"| {100 * f['correct_only']:.1f}% / {100 * r['correct_only']:.1f}% "
            f"| {_pc(f['retention'])} / {_pc(r['retention'])} "
            f"| {_pc(f['short_clean'])} / {_pc(r['short_clean'])} "
            f"| {met[n]} / {goals_met(rows[n], 'report')} |"
        )
    print(
        f"\nchosen (J3, ties to the clean pass): `{chosen}`"
        + ("" if over else " (no candidate reached the floor)")
    )
    print(
        f"the highest J3 alone: `{by_j3}`; the first amendment's rule (J2) picks: `{by_j2}`; "
        f"the original rule (J) picks: `{by_j}`"
    )
    if baseline is not None:
        floor_only = [n for n in runs if fit[n]["clean_min"] >= FLOOR]
        if floor_only:
            third = tie_broken(floor_only)[0]
            print(
                f"without the baseline checks (fourth, fifth, sixth and seventh amendments; no "
                f"--baseline) the rule picks: `{third}`"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
