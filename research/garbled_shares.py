"""How much of each passage is misspelt: :func:`mirage_core.garbled.garbled_share` over the
scoreboard's sets, fit split only, by regime (a diagnostic; it changes nothing).

CLEAN passages are honest text (a PoisonedRAG set's CLEAN regime is its gold passage); FULL
passages are the attack's own; MIXED holds both (GARAG's: the gold and its typo'd copies).

    python -m research.garbled_shares [--out research/results/garbled_shares.txt]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks import families as fam
from benchmarks.scoreboard import BIOGEN_DEFAULT, biogen, family_dataset, gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.splits import split_queries
from mirage_core.garbled import garbled_share

CUTS = (0.15, 0.2, 0.25, 0.3)


def datasets() -> dict[str, Callable[[], Dataset]]:
    out: dict[str, Callable[[], Dataset]] = {
        "gpe-k5": lambda: gpe(5, 200, 0),
        "gpe-k10": lambda: gpe(10, 100, 0),
        "gpe-snip-k5": lambda: gpe_snippets(5, 200, 0),
        "shortqa": lambda: load_shortqa(seed=0),
        "biogen-k20": lambda: biogen(Path(BIOGEN_DEFAULT), 20, None, 0),
    }
    for base in ("poisonedrag-nq", "poisonedrag-hotpotqa"):
        for family in fam.FAMILIES:
            name = family_dataset(base, family)
            n = 100 if family == "gpt4" else 20
            out[name] = lambda name=name, n=n: load_dataset(name, limit=n, seed=0)
    return out


def fit_instances(name: str, ds: Dataset) -> list:
    """The fit split's instances, split as the scoreboard splits them (a PoisonedRAG set
    without its CLEAN regime; its gold-alone inputs follow their question's side)."""
    ranked = [
        i for i in ds.instances if not (name.startswith("poisonedrag") and i.regime == "clean")
    ]
    fit, _ = split_queries([i.qid for i in ranked], 0.5, 0)
    keep = set(fit)
    return [i for i in ds.instances if i.qid in keep]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="research/results/garbled_shares.txt")
    args = p.parse_args(argv)
    cuts = " | ".join(f"≥ {c:.2f}" for c in CUTS)
    lines = [
        "`python -m research.garbled_shares`: share of a passage's lower-case words that are "
        "misspelt (mirage_core.garbled), fit split; passages with fewer than 8 such words "
        "are not judged",
        "",
        f"| dataset | regime | passages judged | median | p99 | max | {cuts} |",
        "|---|---|---|---|---|---|" + "---|" * len(CUTS),
    ]
    for name, load in datasets().items():
        instances = fit_instances(name, load())
        for regime in ("clean", "mixed", "full"):
            shares = [
                garbled_share(p.text) for i in instances if i.regime == regime for p in i.passages
            ]
            vals = np.array([s for s in shares if s is not None])
            if not len(vals):
                continue
            q = np.percentile(vals, [50, 99, 100])
            above = " | ".join(f"{np.mean(vals >= c):.1%}" for c in CUTS)
            lines.append(
                f"| {name} | {regime.upper()} | {len(vals)} | {q[0]:.3f} | {q[1]:.3f} | "
                f"{q[2]:.3f} | {above} |"
            )
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
