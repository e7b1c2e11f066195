"""A request for an account delivers only claims an independent source corroborates, or falls
back.

A request's verdict delivers the part of S* that a second independence group vouches for
(``corroborated_only="delivery"``), when that part spans ``d_min`` sources. Where it does not,
``uncorroborated_delivery="selected"`` hands on S* whole, every claim of it unvouched: on
held-out bios that is the pass whose evidence was as polluted as plain RAG's. On the
scoreboard's biogen sets no passing request takes that branch (every pass, fit and report,
delivers its corroborated part), so the branch is untested by the data and open on any other.

Candidate ``requests-corroborated-only``: the request overrides with
``uncorroborated_delivery="fallback"``: a request whose corroborated part does not reach
``d_min`` falls back ("no independent source corroborates …"). Questions are unchanged.

Rule (:data:`NO_LOSS_GUARANTEE`, declared before the candidate ran): on the fit split of a
full run against the committed scoreboard, nothing lost of any kind (the loss set of
``NO_LOSS_FEWER_PAIRS``, ``NO_LOSS_SIMPLER`` and ``NO_LOSS_FASTER``), and the guarantee the
change adds holds where it is measured: no passing request verdict of biogen-k10 / k20
(fit, every regime) delivers a claim that the verdict does not mark corroborated. Why a new
rule: the change adds a guarantee rather than a figure; a guarantee the data never tests
cannot show a gain, and a rule that asks for one would keep the hole open.

    python -m research.request_corroboration write
    bash research/run_full_round.sh research/results/request-corroboration \\
        research/candidates/requests-corroborated-only.json
    python -m research.request_corroboration report research/results/request-corroboration/*.json

``fewer-pages`` (a diagnostic after the decision, no choice made) shows where the branch
matters: biogen-dev at fewer pages than the scoreboard's (k = 3, 5; both splits), defended
with S* whole and with the fallback.

    python -m research.request_corroboration fewer-pages \
        > research/results/request-corroboration/fewer-pages.md
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.candidate_cli import Judgement, candidates_main, choose
from research.relevant_pairs import every_loss

NO_LOSS_GUARANTEE = {"declared": "2026-12-06", "sets": ("biogen-k10", "biogen-k20")}

CANDIDATES: dict[str, dict[str, Any]] = {
    "requests-corroborated-only": {
        "request_overrides": {**REQUEST_OVERRIDES, "uncorroborated_delivery": "fallback"}
    }
}


def _biogen(k: int):
    """biogen-dev at ``k`` pages, every query."""
    from benchmarks.scoreboard import BIOGEN_DEFAULT, biogen

    return biogen(Path(__file__).resolve().parents[1] / BIOGEN_DEFAULT, k, None, 0)


def _biogen_split(k: int, split: str):
    """biogen-dev at ``k`` pages, the queries of one split."""
    from mirage_core.evaluation.splits import split_queries

    ds = _biogen(k)
    fit, _ = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)
    ds.instances = [i for i in ds.instances if (i.qid in fit) == (split == "fit")]
    return ds


@cache
def unvouched_deliveries(config_json: str) -> tuple[int, int]:
    """(passing request verdicts, those delivering a claim not marked corroborated) on the
    rule's biogen sets, fit split, every regime, under ``config_json``."""
    from benchmarks._pair_store import stored_models
    from mirage_core import Mirage, MirageConfig

    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig.from_dict(json.loads(config_json)), nli=nli, embedder=embedder)
    passes = unvouched = 0
    for name in NO_LOSS_GUARANTEE["sets"]:
        for inst in _biogen_split(int(name.removeprefix("biogen-k")), "fit").instances:
            verdict = mirage.defend(inst.query, inst.passages)
            if verdict.decision != "verified":
                continue
            passes += 1
            vouched = verdict.corroborated
            unvouched += vouched is None or not all(vouched[i] for i in verdict.selected)
    return passes, unvouched


def guarantee(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`NO_LOSS_GUARANTEE`: the gain is 1 when the guarantee holds where measured."""
    losses = every_loss(run, default)
    before = unvouched_deliveries(json.dumps(default["config"], sort_keys=True))
    after = unvouched_deliveries(json.dumps(run["config"], sort_keys=True))
    shown = [
        f"passing request verdicts delivering an unvouched claim (biogen fit): "
        f"{before[1]} of {before[0]} → {after[1]} of {after[0]}"
    ]
    if after[1]:
        losses.append(f"the guarantee fails in {after[1]} passing request verdicts")
    return shown, losses, 1.0


def fewer_pages(ks: tuple[int, ...] = (3, 5)) -> list[str]:
    """The long-form figures of a request at ``ks`` pages, S* whole against the fallback."""
    from benchmarks._pair_store import stored_models
    from benchmarks.scoreboard import longform_figures
    from mirage_core import MirageConfig
    from mirage_core.evaluation.harness import run_benchmark

    nli, embedder = stored_models()
    branches = {
        "S* whole": {**REQUEST_OVERRIDES, "uncorroborated_delivery": "selected"},
        "fallback (default)": CANDIDATES["requests-corroborated-only"]["request_overrides"],
    }
    lines = [
        "# A request at fewer pages: S* whole or a fallback where no corroborated part reaches d_min",
        "",
        "`python -m research.request_corroboration fewer-pages` (biogen-dev, the first k pages, "
        "every pollution family; contamination in %, worst family named)",
        "",
        "| k | split | where nothing qualifies | clean pass | MIXED pass | FULL pass | "
        "worst MIXED contamination | worst FULL contamination | polluted claims delivered "
        "(MIXED + FULL, of all delivered) | claims delivered per passing clean query |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for k in ks:
        for split in ("fit", "report"):
            ds = _biogen_split(k, split)
            for name, overrides in branches.items():
                config = MirageConfig().replace(request_overrides=overrides)
                res = run_benchmark(
                    ds, nli, config=config, systems=["mirage"], cold_cache=False, embedder=embedder
                )
                f = longform_figures(res.records, "mirage")
                worst = {}
                for regime in ("MIXED", "FULL"):
                    rows = {
                        key.rsplit(" ", 1)[-1]: v
                        for key, v in f.items()
                        if key.startswith(f"{regime} contamination") and v is not None
                    }
                    family = max(rows, key=rows.get) if rows else None
                    worst[regime] = f"{100 * rows[family]:.1f} ({family})" if family else "—"
                per, of = (
                    f["claims delivered per passing clean query"],
                    f["claims per passing clean query"],
                )
                routes = [r.routes["mirage"] for r in res.records if r.regime in ("mixed", "full")]
                polluted = sum(x.n_polluted for x in routes)
                delivered = sum(len(x.delivered) for x in routes)
                lines.append(
                    f"| {k} | {split} | {name} | {100 * f['clean pass']:.1f}% "
                    f"| {100 * f['MIXED pass']:.1f}% | {100 * (f['FULL pass'] or 0):.1f}% "
                    f"| {worst['MIXED']} | {worst['FULL']} | {polluted} of {delivered} "
                    f"| {'—' if per is None else f'{per:.1f} of {of:.1f}'} |"
                )
    return lines


def _fewer_pages_command(sub: Any) -> dict[str, Any]:
    sub.add_parser("fewer-pages", help="a request at k = 3 and 5 pages, S* whole vs the fallback")

    def run(args: Any) -> int:
        print("\n".join(fewer_pages()))
        return 0

    return {"fewer-pages": run}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    title = f"rule NO_LOSS_GUARANTEE ({NO_LOSS_GUARANTEE['declared']}), fit split"
    return choose(title, list(CANDIDATES), runs, guarantee)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        argv if argv is not None else sys.argv[1:],
        __doc__,
        CANDIDATES,
        report,
        extra=_fewer_pages_command,
    )


if __name__ == "__main__":
    raise SystemExit(main())
