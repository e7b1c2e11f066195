"""How much of a long-form set independent sources corroborate: an upper bound on what
delivering only corroborated claims can pass, fit split only (a diagnostic; it changes nothing
and chooses nothing).

Each row delivers a passing verdict's corroborated part whatever S*'s most relevant claims are
(``corroborated_relevant=False``), and the ``fallback`` rows block where no corroborated part
reaches ``d_min``. Down the rows, corroboration gets easier to reach: every cross-source pair
scored (no pair budget), then support without fact coverage; and, with the pair budget, a
paraphrase (embedding cosine) counted as support, fact by fact and without fact coverage. The clean pass of the last rows bounds what a rule "deliver
corroborated claims, else fall back" can pass on this evidence with this NLI model.

    python -m research.corroboration_bound [--set gpe-longform|biogen-k10|biogen-k20] [--rows N]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import BIOGEN_DEFAULT, biogen, gpe_longform, longform_figures
from mirage_core import MirageConfig
from mirage_core.evaluation.harness import run_benchmark
from mirage_core.evaluation.splits import split_queries

_PART = {"corroborated_relevant": False}
_FALLBACK = _PART | {"uncorroborated_delivery": "fallback"}
_EVERY_PAIR = {"partners_per_claim": None, "max_pairs": None}

#: (name, changes to the default), in the order corroboration gets easier to reach.
ROWS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("default", {}),
    ("corroborated part, else S* whole", _PART),
    ("corroborated part, else fallback", _FALLBACK),
    ("+ every pair", _FALLBACK | _EVERY_PAIR),
    (
        "+ every pair, support without fact coverage",
        _FALLBACK | _EVERY_PAIR | {"fact_coverage": False},
    ),
    (
        "+ paraphrase support (cosine ≥ 0.7), fact by fact",
        _FALLBACK | {"paraphrase_support": 0.7, "paraphrase_pairs": True},
    ),
    (
        "+ paraphrase support (cosine ≥ 0.7), without fact coverage",
        _FALLBACK | {"fact_coverage": False, "paraphrase_support": 0.7, "paraphrase_pairs": True},
    ),
)


def _dataset(name: str):
    if name == "gpe-longform":
        return gpe_longform(50, 0)
    k = int(name.removeprefix("biogen-k"))
    path = Path(__file__).resolve().parents[1] / BIOGEN_DEFAULT
    return biogen(path, k, None, 0)


def _pc(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--set", default="gpe-longform", help="gpe-longform, biogen-k10 or biogen-k20")
    p.add_argument("--rows", type=int, default=len(ROWS), help="the first N rows only")
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    ds = _dataset(args.set)
    fit, _ = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)
    ds.instances = [i for i in ds.instances if i.qid in fit]
    rows = ROWS[: args.rows]
    part = "" if len(rows) == len(ROWS) else f", first {len(rows)} rows (`--rows {len(rows)}`)"
    print(f"# Corroboration bound: {args.set}, fit split ({len(fit)} queries){part}\n")
    print(
        "| delivery | clean pass | MIXED pass | worst MIXED contamination | "
        "worst FULL contamination | claims delivered per passing clean query |"
    )
    print("|---|---|---|---|---|---|")
    for name, changes in rows:
        config = MirageConfig().replace(**changes)
        res = run_benchmark(
            ds, nli, config=config, systems=["mirage"], cold_cache=False, embedder=embedder
        )
        f = longform_figures(res.records, "mirage")
        worst = {
            r: max(
                (v for k, v in f.items() if k.startswith(f"{r} contamination") and v is not None),
                default=None,
            )
            for r in ("MIXED", "FULL")
        }
        per = f["claims delivered per passing clean query"]
        of = f["claims per passing clean query"]
        delivered = "—" if per is None else f"{per:.1f} of {of:.1f}"
        print(
            f"| {name} (`{json.dumps(changes)}`) | {_pc(f['clean pass'])} | {_pc(f['MIXED pass'])} "
            f"| {_pc(worst['MIXED'])} | {_pc(worst['FULL'])} | {delivered} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
