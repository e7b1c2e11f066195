"""Where two NLI models route the same evidence differently, and the contradiction behind it.

A model candidate's round says which rows moved; this says which evidence sets did and why.
For one dataset, regime and split of the scoreboard it runs the default ``MirageConfig()`` with
the baseline model and with the candidate on every set, lists the sets whose route differs,
and for each prints the baseline's strongest contradiction edge with both models' p_contra
of that pair (both directions). It then asks whether a threshold moved with the model would
give the contradictions back: κ for the candidate at the share of the clean sets' edges that
the baseline calls at the default κ (fit split, gpe-eval k = 5 and 10), and how many of the
flipped sets' strongest edges reach it. Benchmark data measures the models; nothing is fit.

    python -m research.model_flips --candidate runs/nli-abr-cpu \
        > research/results/model_flips-nli-abr.txt
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks import scoreboard as sb
from benchmarks._pair_store import stored_models
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.splits import split_queries
from mirage_core.graph import symmetric_contra


def split_instances(ds: Any, regime: str, split: str, seed: int) -> list[Any]:
    """The instances of ``regime`` in the scoreboard's ``split`` (fit / report) of ``ds``."""
    fit_ids, _ = split_queries([i.qid for i in ds.instances], 0.5, seed)
    fit = set(fit_ids)
    return [i for i in ds.instances if i.regime == regime and (i.qid in fit) == (split == "fit")]


def strongest_edge(verdict: Any) -> tuple[str, str, float] | None:
    """(premise, hypothesis, p_contra) of the verdict's heaviest contradiction edge."""
    g = verdict.graph
    if not len(g.w_contr) or float(g.w_contr.max()) == 0.0:
        return None
    j = int(np.argmax(g.w_contr))
    claims = verdict.claims
    return claims[g.premise[j]].text, claims[g.hypothesis[j]].text, float(g.probs[j, 2])


def scoreboard_loaders(seed: int) -> dict[str, Any]:
    """The scoreboard's dataset loaders at its default sizes (gpe-eval k = 5 and 10, pages and
    snippets; PoisonedRAG NQ / HotpotQA), so that a set here is the scoreboard's set."""
    p = argparse.ArgumentParser()
    sb.add_dataset_args(p)
    return sb.dataset_loaders(p.parse_args(["--seed", str(seed)]))


def clean_edges(mirage: Mirage, loaders: dict[str, Any], seed: int) -> np.ndarray:
    """The engine's p_contra (both directions combined) of every edge of gpe-eval's clean
    sets, k = 5 and 10, fit split."""
    symmetry = mirage.config.method.contradiction_symmetry
    out = []
    for name in ("gpe-k5", "gpe-k10"):
        for inst in split_instances(loaders[name](), "clean", "fit", seed):
            v = mirage.defend(inst.query, inst.passages)
            if len(v.graph.probs):
                out.append(symmetric_contra(v.graph.probs, symmetry))
    return np.concatenate(out) if out else np.zeros(0)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--candidate", required=True, help="the candidate NLI model folder")
    p.add_argument("--baseline", default=None, help="baseline model folder (the packaged one)")
    p.add_argument("--dataset", default="gpe-snip-k10", help="a scoreboard dataset (gpe-snip-k10)")
    p.add_argument("--regime", default="full")
    p.add_argument("--split", choices=("fit", "report"), default="fit")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    loaders = scoreboard_loaders(args.seed)
    if args.dataset not in loaders:
        p.error(f"--dataset: one of {', '.join(loaders)}")
    sets = split_instances(loaders[args.dataset](), args.regime, args.split, args.seed)

    config = MirageConfig()
    base_nli, embedder = stored_models(model=args.baseline)
    cand_nli, _ = stored_models(model=args.candidate)
    base = Mirage(config, nli=base_nli, embedder=embedder)
    cand = Mirage(config, nli=cand_nli, embedder=embedder)

    flips = []
    for inst in sets:
        a, b = base.defend(inst.query, inst.passages), cand.defend(inst.query, inst.passages)
        if a.decision != b.decision:
            flips.append((inst, a, b))
    name_b = args.baseline or "packaged"
    print(f"`python -m research.model_flips --candidate {args.candidate}`")
    print(f"\n{args.dataset} {args.regime.upper()} {args.split}: {len(sets)} sets, {len(flips)}")
    print(f"routed differently ({name_b} → {args.candidate})\n")

    symmetry = config.method.contradiction_symmetry
    edge_scores = []
    for inst, a, b in flips:
        print(f"- {inst.query[:100]}")
        print(f"  {a.decision} (r_contr {a.r_contr:.2f}) → {b.decision} (r_contr {b.r_contr:.2f})")
        edge = strongest_edge(a)
        if edge is None:
            print(f"  no contradiction edge in the baseline's verdict: {a.reason[:160]}")
            continue
        prem, hyp, p_base = edge
        probs = cand_nli.predict([prem, hyp], [hyp, prem])
        edge_scores.append(float(symmetric_contra(probs, symmetry)[0]))
        print(
            f"  strongest edge: baseline p_contra {p_base:.2f}; candidate "
            f"{probs[0, 2]:.2f} / {probs[1, 2]:.2f} (both directions)"
        )
        print(f"    P: {prem[:180]}")
        print(f"    H: {hyp[:180]}")

    kappa = config.method.kappa
    base_edges, cand_edges = (
        clean_edges(base, loaders, args.seed),
        clean_edges(cand, loaders, args.seed),
    )
    share = float((base_edges >= kappa).mean())
    print(f"\nclean gpe-eval edges, k = 5 and 10, fit: {len(base_edges)}")
    print(f"baseline calls {share:.2%} of them at κ {kappa}")
    if share > 0:
        matched = float(np.quantile(cand_edges, 1 - share))
        reach = sum(s >= matched for s in edge_scores)
        print(f"the candidate calls as many at κ {matched:.3f}; the flipped sets' strongest")
        print(f"baseline edges reach it in the candidate: {reach} of {len(edge_scores)}")
    for q in (0.5, 0.9, 0.99, 0.998):
        print(
            f"quantile {q}: baseline {np.quantile(base_edges, q):.3f}, "
            f"candidate {np.quantile(cand_edges, q):.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
