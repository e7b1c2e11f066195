"""Whether one NLI direction of a pair can stand for both: ``python -m research.direction_skip``.

The engine scores both directions of every kept pair. A cascade would score one direction
first and the other only where the first is not confidently neutral (p_neutral ≥ τ), saving
the second forward pass of those pairs. This counts, on the fit split of three scoreboard sets
with the default config (every score from the pair store), how many pairs such a cascade would
skip with the longer or the shorter claim as the first premise, and how many of the skipped
reverse directions hold an edge the engine reads (p_entail ≥ 0.5, or p_contra ≥ κ = 0.8).
No choice is made from it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks import scoreboard as sb
from benchmarks._pair_store import stored_models
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.splits import dataset_split

TAUS = (0.9, 0.95, 0.98)
SETS = {
    "gpe-k5": lambda: sb.gpe(5, 200, 0),
    "poisonedrag-nq": lambda: load_dataset("poisonedrag-nq", limit=100, seed=0),
    "biogen-k10": lambda: sb.biogen(Path(sb.BIOGEN_DEFAULT), 10, None, 0),
}


def direction_pairs(engine: Mirage, ds) -> tuple[np.ndarray, np.ndarray]:
    """Both directions' probabilities of every scored pair of the fit split: (longer claim as
    premise, shorter claim as premise), each ``(n, 3)``."""
    fit = set(dataset_split(ds, 0.5, 0)[0])
    longer, shorter = [], []
    for inst in ds.instances:
        if inst.qid not in fit:
            continue
        v = engine.defend(inst.query, inst.passages)
        g = v.graph
        probs = {
            (int(p), int(h)): pr for p, h, pr in zip(g.premise, g.hypothesis, g.probs, strict=True)
        }
        for (p, h), pr in probs.items():
            if p > h or (h, p) not in probs:
                continue
            back = probs[(h, p)]
            first_longer = len(v.claims[p].text) >= len(v.claims[h].text)
            longer.append(pr if first_longer else back)
            shorter.append(back if first_longer else pr)
    return np.array(longer), np.array(shorter)


def main() -> int:
    nli, embedder = stored_models()
    engine = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    print(
        "| set | first premise | τ | pairs skipped | reverse p_entail ≥ 0.5 | reverse p_contra ≥ 0.8 |"
    )
    print("|---|---|---|---|---|---|")
    for name, load in SETS.items():
        longer, shorter = direction_pairs(engine, load())
        for label, first, second in (("longer", longer, shorter), ("shorter", shorter, longer)):
            for tau in TAUS:
                skip = first[:, 1] >= tau
                print(
                    f"| {name} ({len(first)} pairs) | {label} | {tau} | {skip.mean():.1%} | "
                    f"{int((second[skip, 0] >= 0.5).sum())} | {int((second[skip, 2] >= 0.8).sum())} |"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
