"""Does an NLI model tell real conflicts from real agreement? Threshold-free, on real pairs.

The clean-evidence issue's last goal asks the conflict detector to call question-relevant
gold-vs-poison claim pairs contradictions at a low rate of contradictions among clean pairs of
the same kind of questions. The scoreboard reports that rate at the engine's κ and pair
prefilter (τ, pair budget); this script asks the model alone, on every pair, so that two
models (or two input forms) can be compared before any threshold is fit:

- **conflicts**: the answer-bearing gold-vs-poison claim pairs of PoisonedRAG gold + 5 (NQ and
  HotpotQA): a clean claim that states the correct answer (and not the poison's) against a
  poison claim that states the poison's answer (and not the correct one) — the scoreboard's
  last row, every pair, whatever its token overlap;
- **agreement**: gpe-eval CLEAN (k = 5 and 10), each passage's most query-relevant claim
  (lexical relevance ≥ 0.5) against every other passage's, all pairs of different sources
  (at most ``--max-clean`` per split, seeded sample).

Each pair is scored in both directions and combined as the shipped default does (mean of the
two p_contra). Reported per split: the median of conflicts and of agreement pairs, the share of
each called at κ 0.5 / 0.8, and the conflicts' recall at the thresholds that call 5% and 1% of
the agreement pairs. A second table asks the same of the answer-slot rule
(:mod:`mirage_core.answer_conflict`, no model): the share of each kind of pair it calls at each
``--shares`` value of ``MirageConfig.answer_conflict``, alone and together with the NLI model at
κ 0.8 (either calls the pair); a third, the rule with each claim's page context
(``answer_conflict_context="lead+previous"``: the page's first claim and the claim before it
count towards restating the question). Claims come from the default ``MirageConfig()``'s
claim extraction (the NLI scores of the defense run that labels them are never used). Benchmark data measures the
model here; nothing is fit.

    python -m research.conflict_pairs [--models DIR ...] \
        > research/results/conflict_pairs.txt
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from benchmarks._pair_store import PACKAGED_VECTORS, PersistentEmbedder
from benchmarks.scoreboard import add_dataset_args, answer_bearing, dataset_loaders
from mirage_core.answer_conflict import answer_conflicts, topic_context
from mirage_core.config import MirageConfig
from mirage_core.evaluation.harness import run_benchmark
from mirage_core.evaluation.splits import split_queries
from mirage_core.nli.base import CallableNLI
from mirage_core.types import Claim


class Pair(NamedTuple):
    """A claim and a claim from another source, for one query, with each claim's page context
    (:func:`mirage_core.answer_conflict.topic_context`)."""

    query: str
    left: Claim
    right: Claim
    left_context: frozenset[str]
    right_context: frozenset[str]


def _neutral(premises: list[str], hypotheses: list[str]) -> np.ndarray:
    # claims and their labels do not depend on the NLI scores: skip the model
    return np.tile(np.array([0.0, 1.0, 0.0]), (len(premises), 1))


def add_pair_args(p: argparse.ArgumentParser) -> None:
    """The options :func:`collect_pairs` reads: the scoreboard's dataset options and
    ``--max-clean``."""
    add_dataset_args(p)
    p.add_argument("--max-clean", type=int, default=2000, help="agreement pairs per split")


def collect_pairs(args: argparse.Namespace) -> dict[str, tuple[list[Pair], list[Pair]]]:
    """``split -> (conflict pairs, agreement pairs)`` (see the module docstring)."""
    from mirage_core.embeddings import MiniLMEmbedder

    args.only = "gpe-k5,gpe-k10,poisonedrag-nq,poisonedrag-hotpotqa"
    embedder = PersistentEmbedder(
        MiniLMEmbedder(), Path(args.store).with_name("vectors.sqlite"), PACKAGED_VECTORS
    )
    out: dict[str, tuple[list[Pair], list[Pair]]] = {"fit": ([], []), "report": ([], [])}
    for name, load in dataset_loaders(args).items():
        ds = load()
        if not name.startswith("gpe"):  # as the scoreboard: its split is over these queries
            ds.instances = [i for i in ds.instances if i.regime != "clean"]
        fit = set(split_queries([i.qid for i in ds.instances], 0.5, args.seed)[0])
        wanted = "clean" if name.startswith("gpe") else "mixed"
        ds.instances = [i for i in ds.instances if i.regime == wanted]
        res = run_benchmark(
            ds,
            CallableNLI(_neutral),
            config=MirageConfig(),
            systems=["mirage"],
            cold_cache=False,
            embedder=embedder,
        )
        for rec in res.records:
            v = rec.verdicts["mirage"]
            ctx = topic_context(v.claims)
            conflicts, agreement = out["fit" if rec.qid in fit else "report"]

            def pair(a: int, b: int, rec=rec, v=v, ctx=ctx) -> Pair:
                return Pair(rec.query, v.claims[a], v.claims[b], ctx[a], ctx[b])

            if wanted == "mixed":
                gold, poison = answer_bearing(rec, v.claims)
                conflicts.extend(pair(g, p) for g in gold for p in poison)
                continue
            best: dict[str, tuple[float, int]] = {}
            for i, c in enumerate(v.claims):
                rel = float(v.relevance[i]) if v.relevance is not None else 1.0
                if rel >= 0.5 and rel > best.get(c.source, (-1.0, -1))[0]:
                    best[c.source] = (rel, i)
            top = [i for _, i in best.values()]
            agreement.extend(
                pair(top[a], top[b]) for a in range(len(top)) for b in range(a + 1, len(top))
            )
        print(f"{name}: {len(ds.instances)} sets", file=sys.stderr, flush=True)
    rng = random.Random(args.seed)
    for sp, (conflicts, agreement) in out.items():
        if len(agreement) > args.max_clean:
            out[sp] = (conflicts, rng.sample(agreement, args.max_clean))
    return out


def p_contra(nli: object, pairs: list[Pair]) -> np.ndarray:
    """Mean of the two directions' p_contra of each pair."""
    if not pairs:
        return np.zeros(0)
    a = [p.left.text for p in pairs]
    b = [p.right.text for p in pairs]
    probs = np.asarray(nli.predict(a + b, b + a))  # type: ignore[attr-defined]
    n = len(pairs)
    return (probs[:n, 2] + probs[n:, 2]) / 2


def rule_calls(pairs: list[Pair], share: float, context: bool = False) -> np.ndarray:
    """Whether the answer-slot rule at ``MirageConfig.answer_conflict = share`` calls each pair
    (both claims on the question, disjoint facts of one kind); ``context``: each claim also
    counts its page context (``answer_conflict_context="lead+previous"``)."""
    return np.array(
        [
            bool(
                answer_conflicts(
                    p.query,
                    [p.left, p.right],
                    [0, 1],
                    share,
                    context=[p.left_context, p.right_context] if context else None,
                )
            )
            for p in pairs
        ],
        dtype=bool,
    )


def report(name: str, conflicts: np.ndarray, agreement: np.ndarray) -> str:
    cells = [name, str(conflicts.size), str(agreement.size)]
    cells.append(f"{np.median(conflicts):.2f} / {np.median(agreement):.2f}")
    for k in (0.5, 0.8):
        cells.append(f"{np.mean(conflicts >= k):.1%} / {np.mean(agreement >= k):.1%}")
    for fp in (0.05, 0.01):
        thr = float(np.quantile(agreement, 1 - fp))
        cells.append(f"{np.mean(conflicts >= thr):.1%} (≥ {thr:.2f})")
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_pair_args(p)
    p.add_argument("--shares", default="0.5,0.6,0.7,0.8", help="answer-slot rule shares to report")
    p.add_argument(
        "--models",
        nargs="*",
        default=[""],
        help="NLI model folders ('' or none: the packaged one)",
    )
    args = p.parse_args(argv)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from mirage_core.nli.transformers_nli import TransformersNLI

    pairs = collect_pairs(args)
    print(
        "| model / split | conflicts | agreement | median p_contra (conflicts / agreement) "
        "| called at κ 0.5 | called at κ 0.8 | conflict recall at 5% agreement called "
        "| at 1% |"
    )
    print("|---|---|---|---|---|---|---|---|")
    scored: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
    for model in args.models:
        nli = TransformersNLI(model or None, batch_size=64, torch_threads=args.threads)
        label = model or Path(nli.name).name
        for sp in ("fit", "report"):
            conflicts, agreement = pairs[sp]
            scored[(label, sp)] = (p_contra(nli, conflicts), p_contra(nli, agreement))
            print(report(f"{label} / {sp}", *scored[(label, sp)]))
            sys.stdout.flush()
    shares = [float(x) for x in args.shares.split(",") if x]
    print()
    print(
        "| answer-slot rule (share) / split | conflicts called | agreement called "
        + "".join(
            f"| rule or {label} at κ 0.8: conflicts / agreement "
            for label, sp in scored
            if sp == "fit"
        )
        + "|"
    )
    print("|---|---|---|" + "---|" * sum(1 for _, sp in scored if sp == "fit"))
    for share in shares:
        for sp in ("fit", "report"):
            conflicts, agreement = pairs[sp]
            rc, ra = rule_calls(conflicts, share), rule_calls(agreement, share)
            cells = [
                f"{share:g} / {sp}",
                f"{rc.mean():.1%} of {rc.size}",
                f"{ra.mean():.1%} of {ra.size}",
            ]
            for (_label, s2), (pc, pa) in scored.items():
                if s2 == sp:
                    cells.append(
                        f"{(rc | (pc >= 0.8)).mean():.1%} / {(ra | (pa >= 0.8)).mean():.1%}"
                    )
            print("| " + " | ".join(cells) + " |")
    print()
    print(
        '| answer-slot rule (share), answer_conflict_context="lead+previous" / split '
        "| conflicts called | agreement called |"
    )
    print("|---|---|---|")
    for share in shares:
        for sp in ("fit", "report"):
            conflicts, agreement = pairs[sp]
            rc = rule_calls(conflicts, share, context=True)
            ra = rule_calls(agreement, share, context=True)
            print(
                f"| {share:g} / {sp} | {rc.mean():.1%} of {rc.size} | {ra.mean():.1%} of {ra.size} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
