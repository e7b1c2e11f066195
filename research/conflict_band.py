"""Contradictions just under κ, and whether another source vouches for either side (a
diagnostic; it changes nothing).

    python -m research.conflict_band > research/results/conflict_band.md

Every NLI model that called more contradictions than the packaged one traded honest passes for
blocked attack pages at every κ (``docs/decisions.md``, 2026-12-05), and the reading was that
the separation, if any, lies outside the pair: how many independent sources stand behind each
side. This counts it with the packaged model. For each set of the fit split that the default
passes: the cross-source claim pairs whose two directions' mean p_contra lies in
[:data:`LOW`, κ) (a contradiction a model with more recall, or a lower κ, would add), and for
each such pair how many of its two claims an independent source corroborates (the verdict's
``corroborated``: an NLI support edge stating every fact of the claim). A rule that counted
only conflicts between uncorroborated claims, or only between corroborated ones, would need
the two kinds of evidence to differ here.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import gpe, gpe_snippets
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.splits import split_queries
from research.request_corroboration import _biogen

LOW = 0.5
SETS = {
    "gpe-k5": (lambda: gpe(5, 200, 0), ("clean", "full")),
    "gpe-k10": (lambda: gpe(10, 100, 0), ("clean", "full")),
    "gpe-snip-k5": (lambda: gpe_snippets(5, 200, 0), ("clean", "full")),
    "biogen-k10": (lambda: _biogen(10), ("clean", "full")),
}


def band_pairs(verdict, kappa: float) -> list[tuple[int, int]]:
    """Cross-source claim pairs whose mean p_contra over both scored directions lies in
    [:data:`LOW`, ``kappa``)."""
    g = verdict.graph
    source = np.array([c.source for c in verdict.claims])
    cross = source[g.premise] != source[g.hypothesis]
    lo = np.minimum(g.premise, g.hypothesis)[cross]
    hi = np.maximum(g.premise, g.hypothesis)[cross]
    contra = g.probs[cross, 2]
    pairs: dict[tuple[int, int], list[float]] = {}
    for a, b, p in zip(lo.tolist(), hi.tolist(), contra.tolist(), strict=True):
        pairs.setdefault((a, b), []).append(p)
    return [k for k, ps in pairs.items() if LOW <= float(np.mean(ps)) < kappa]


def main() -> int:
    nli, embedder = stored_models()
    config = MirageConfig()
    mirage = Mirage(config, nli=nli, embedder=embedder)
    print("`python -m research.conflict_band` (fit split, default config)\n")
    print(
        f"passing sets with a cross-source pair at mean p_contra in [{LOW}, κ = "
        f"{config.method.kappa}), and such pairs by how many of their two claims an independent "
        "source corroborates\n"
    )
    print("| evidence | passing sets | with such a pair | pairs | neither | one | both |")
    print("|---|---|---|---|---|---|---|")
    for name, (load, regimes) in SETS.items():
        ds = load()
        fit = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)[0]
        for regime in regimes:
            passing = with_pair = 0
            sides: Counter[int] = Counter()
            for inst in ds.instances:
                if inst.qid not in fit or inst.regime != regime:
                    continue
                verdict = mirage.defend(inst.query, inst.passages)
                if not verdict.passed or verdict.corroborated is None:
                    continue
                passing += 1
                pairs = band_pairs(verdict, config.method.kappa)
                with_pair += bool(pairs)
                for a, b in pairs:
                    sides[int(verdict.corroborated[a]) + int(verdict.corroborated[b])] += 1
            total = sum(sides.values())
            print(
                f"| {name} {regime.upper()} | {passing} | {with_pair} "
                f"({with_pair / max(passing, 1):.0%}) | {total} | {sides[0]} | {sides[1]} | "
                f"{sides[2]} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
