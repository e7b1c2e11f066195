"""What ``copy_overlap`` (:mod:`mirage_core.edited_copies`) keeps out of a request's delivery,
on the sixth request round's all-read paraphrase candidate
(``requests-paraphrase-veto-all-read``), biogen-dev fit split (a diagnostic; no choice made).

Per overlap threshold (none, 0.6, 0.5, 0.4, 0.3) and per regime / pollution family: passing
sets, and the polluted claims among the claims delivered.

    python -m research.copy_overlap_probe [--k 10,20]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import biogen
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.measures import claim_pollution
from mirage_core.evaluation.splits import split_queries
from research.corroborated_first import CANDIDATES

THRESHOLDS = (None, 0.6, 0.5, 0.4, 0.3)
BASE = "requests-paraphrase-veto-all-read"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", default="10,20")
    p.add_argument("--biogen", default="../shared/data/biogen-dev/biogen-dev.jsonl")
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    base = json.loads((CANDIDATES / f"{BASE}.json").read_text())
    print(f"# python -m research.copy_overlap_probe --k {args.k} (candidate {BASE}, fit split)")
    for k in (int(x) for x in args.k.split(",")):
        ds = biogen(Path(args.biogen), k, None, 0)
        fit = split_queries([i.qid for i in ds.instances], 0.5, 0)[0]
        sets = [i for i in ds.instances if i.qid in fit]
        print(f"\n## k = {k}\n\n| regime | " + " | ".join(f"θ = {t}" for t in THRESHOLDS) + " |")
        print("|---" * (1 + len(THRESHOLDS)) + "|")
        cells: dict[str, list[str]] = defaultdict(list)
        for theta in THRESHOLDS:
            change = json.loads(json.dumps(base))
            if theta is not None:
                change["method"]["request_overrides"]["copy_overlap"] = theta
            mirage = Mirage(MirageConfig.from_dict(change), nli=nli, embedder=embedder)
            tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
            for inst in sets:
                verdict = mirage.defend(inst.query, inst.passages)
                row = inst.regime if inst.regime == "clean" else f"{inst.regime} {inst.family}"
                t = tally[row]
                t[1] += 1
                if verdict.passed:
                    polluted = claim_pollution(inst, verdict.claims)
                    delivered = list(verdict.selected)
                    t[0] += 1
                    t[2] += int(polluted[delivered].sum())
                    t[3] += len(delivered)
            for row, (passed, n, bad, total) in sorted(tally.items()):
                cells[row].append(
                    f"pass {passed}/{n}; {bad}/{total} polluted ({bad / max(total, 1):.1%})"
                )
        for row, values in cells.items():
            print(f"| {row} | " + " | ".join(values) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
