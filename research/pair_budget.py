"""The NLI pair budget, chosen on the scoreboard: quality and NLI pairs at m partners per claim.

    python -m research.pair_budget --out research/results/pair_budget

Runs the default ``MirageConfig()`` with ``partners_per_claim`` = m for every m of ``--ms``
("none" = every candidate pair, the reference) on the scoreboard's inputs (same datasets, same
seeded fit/report split, same pair store), and prints for each m: every scoreboard row, its
difference from the unbudgeted reference, the largest difference over the rows, and the NLI
pairs sent per query and per claim.

The rule: the default m is the smallest m that loses no quality on the *fit* split — no row
with a goal is worse than the reference by more than 2 points ("worse" = lower for a ≥ goal,
higher for a ≤ goal); the report split is shown for the record. The first run of this script
declared a two-sided rule (every row, goal or not, within 2 points either way); it picked
m = 8, which does not bind on this evidence, because a small budget *improves* several rows
(fewer false-contradiction pairs: gpe k = 10 CLEAN pass +4 points at m = 3). Both rules'
picks are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._pair_store import PACKAGED_VECTORS, PersistentEmbedder, PersistentNLI, model_digest
from benchmarks.scoreboard import add_dataset_args, dataset_loaders, run_all, score_rows
from mirage_core.config import MirageConfig

TOLERANCE = 0.02  # two points, on every row


def pair_stats(records: dict[str, list[Any]], old_budget: int = 8) -> dict[str, Any]:
    """NLI pairs per query and per claim, per dataset, from the verdicts' candidate stats;
    ``old_binds`` counts queries where the old budget (``old_budget`` × claims pairs) would
    have cut candidates."""
    out: dict[str, Any] = {}
    for name, recs in records.items():
        claims = pairs = prefiltered = queries = binds = 0
        for rec in recs:
            v = rec.verdicts.get("mirage")
            if v is None:
                continue
            st = v.candidate_stats
            claims += st["claims"]
            pairs += st["nli_pairs"]
            prefiltered += st["prefiltered_pairs"]
            queries += 1
            binds += st["prefiltered_pairs"] > old_budget * st["claims"]
        out[name] = {
            "queries": queries,
            "claims_per_query": claims / max(queries, 1),
            "directed_pairs_per_query": 2 * pairs / max(queries, 1),
            "directed_pairs_per_claim": 2 * pairs / max(claims, 1),
            "candidates_per_query": prefiltered / max(queries, 1),
            "old_budget_binds": binds,
        }
    return out


def measure_runs(args: argparse.Namespace) -> tuple[dict[str, dict[str, Any]], str]:
    """One scoreboard run of the default config per m: its rows and its pair counts."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.embeddings import MiniLMEmbedder
    from mirage_core.nli.transformers_nli import TransformersNLI

    inner = TransformersNLI(args.model, batch_size=64, torch_threads=args.threads)
    nli = PersistentNLI(inner, args.store, model_digest(inner.name))
    embedder = PersistentEmbedder(
        MiniLMEmbedder(), Path(args.store).with_name("vectors.sqlite"), PACKAGED_VECTORS
    )
    loaders = dataset_loaders(args)
    ms = [None if m == "none" else int(m) for m in args.ms.split(",")]
    if ms[0] is not None:
        raise SystemExit("--ms must start with 'none' (the unbudgeted reference)")
    runs: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for m in ms:
        config = MirageConfig().replace(partners_per_claim=m, partner_ranking=args.ranking)
        records = run_all(loaders, nli, config, ["mirage"], embedder, args.batch_size, args.seed)
        _, rows = score_rows(records, ["mirage"], args.seed)
        runs[str(m).lower()] = {"rows": rows, "pairs": pair_stats(records)}
        print(f"m = {m}: done, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        del records
    return runs, nli.digest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="research/results/pair_budget", help="output prefix")
    p.add_argument("--ms", default="none,1,2,3,4,8", help="partners per claim to compare")
    p.add_argument(
        "--ranking",
        default="overlap",
        choices=("overlap", "embedding"),
        help="partner_ranking of the budgeted runs (overlap)",
    )
    p.add_argument(
        "--from-json",
        default=None,
        help="render the tables from the runs saved in this JSON file (no run)",
    )
    add_dataset_args(p)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        runs: dict[str, dict[str, Any]] = saved["runs"]
        digest = saved.get("model_digest", "of the run that wrote the JSON")
    else:
        runs, digest = measure_runs(args)
    ref = runs["none"]["rows"]
    names = list(runs)
    lines = [
        "| measure | " + " | ".join(f"m={m} fit / report" for m in names) + " |",
        "|" + "---|" * (1 + len(names)),
    ]
    worst: dict[str, dict[str, float]] = {m: {"fit": 0.0, "report": 0.0} for m in names}
    # the largest loss on a row with a goal (one-sided: improvements do not count)
    loss: dict[str, dict[str, float]] = {m: {"fit": 0.0, "report": 0.0} for m in names}
    for i, row in enumerate(ref):
        cells = []
        for m in names:
            r = runs[m]["rows"][i]
            parts = []
            for sp in ("fit", "report"):
                value, base = r.get(f"mirage:{sp}"), row.get(f"mirage:{sp}")
                if value is None or base is None:
                    parts.append("—")
                    continue
                worst[m][sp] = max(worst[m][sp], abs(value - base))
                goal = str(row.get("goal", "—"))
                if goal.startswith(("≥", "≤")):
                    sign = 1.0 if goal.startswith("≥") else -1.0
                    loss[m][sp] = max(loss[m][sp], sign * (base - value))
                delta = "" if m == "none" else f" ({100 * (value - base):+.1f})"
                parts.append(f"{100 * value:.1f}{delta}")
            cells.append(" / ".join(parts))
        lines.append(f"| {row['measure']} | " + " | ".join(cells) + " |")
    lines.append(
        "| largest difference from m=none (points) | "
        + " | ".join(f"{100 * worst[m]['fit']:.1f} / {100 * worst[m]['report']:.1f}" for m in names)
        + " |"
    )
    lines.append(
        "| largest loss on a row with a goal (points) | "
        + " | ".join(f"{100 * loss[m]['fit']:.1f} / {100 * loss[m]['report']:.1f}" for m in names)
        + " |"
    )
    pair_lines = [
        "| dataset | "
        + " | ".join(f"m={m}: directed pairs per query / per claim" for m in names)
        + " | claims per query |",
        "|" + "---|" * (2 + len(names)),
    ]
    for ds in runs["none"]["pairs"]:
        cells = [
            f"{runs[m]['pairs'][ds]['directed_pairs_per_query']:.1f} / "
            f"{runs[m]['pairs'][ds]['directed_pairs_per_claim']:.2f}"
            for m in names
        ]
        claims = runs["none"]["pairs"][ds]["claims_per_query"]
        pair_lines.append(f"| {ds} | " + " | ".join(cells) + f" | {claims:.1f} |")
    budgeted = [m for m in names if m != "none"]
    within = [m for m in budgeted if worst[m]["fit"] <= TOLERANCE + 1e-12]
    two_sided = min(within, key=int) if within else "none"
    keeps = [m for m in budgeted if loss[m]["fit"] <= TOLERANCE + 1e-12]
    chosen = min(keeps, key=int) if keeps else "none"
    binds = {ds: st["old_budget_binds"] for ds, st in runs["none"]["pairs"].items()}
    text = "\n".join(
        [
            *lines,
            "",
            *pair_lines,
            "",
            f"rule: the smallest m that loses at most {100 * TOLERANCE:.0f} points on every row "
            f"with a goal (fit split) → **m = {chosen}** (the first run's two-sided rule, every "
            f"row within {100 * TOLERANCE:.0f} points either way: m = {two_sided})",
            "queries where the old budget (8 × claims pairs) would have cut candidates: "
            + ", ".join(f"{ds} {n}" for ds, n in binds.items()),
        ]
    )
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = " ".join(argv if argv is not None else sys.argv[1:])
    out.with_suffix(".md").write_text(
        "# NLI pair budget on the scoreboard\n\n"
        f"`python -m research.pair_budget {cmd}`"
        + (" (the tables of the saved runs, re-rendered)" if args.from_json else "")
        + "\n\n"
        "Each cell: the row's figure on the fit / report split (%), in brackets its difference "
        "from m = none (every candidate pair), in points. Default `MirageConfig()` otherwise, "
        f"partners ranked by {args.ranking}; "
        f"model digest {digest}; seed {args.seed}.\n\n" + text + "\n"
    )
    out.with_suffix(".json").write_text(
        json.dumps(
            {
                "runs": runs,
                "model_digest": digest,
                "worst": worst,
                "loss": loss,
                "chosen": chosen,
                "wall_s": round(time.perf_counter() - t0, 1),
            },
            indent=1,
            default=lambda x: float(x) if isinstance(x, np.floating) else str(x),
        )
        + "\n"
    )
    print(f"wrote {out.with_suffix('.md')} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
