"""How far apart are adaptive poisons? `python -m research.adaptive_poisons`.

For each PoisonedRAG set (NQ, HotpotQA; 100 queries each) and each poison variant (the
original LLM-written poisons, then the rule-based ``paraphrase``, ``synonym`` and ``dispersed``
rewrites of :mod:`mirage_core.evaluation.adaptive`), the mean pairwise cosine of a query's five
poisons with the offline all-MiniLM-L6-v2 embedder, and their mean pairwise word-3-gram
containment outside the query's words (:func:`mirage_core.coordination.lexical_matrix`); the
same for honest multi-outlet coverage: the benign passages of one gpe-eval claim (k = 10 and
the first five, first 1,200 characters each). Also checks that every rewritten poison keeps the
incorrect answer and never carries the correct one.

Output committed as research/results/adaptive_poisons.txt.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from mirage_core.coordination import lexical_matrix
from mirage_core.evaluation.measures import contains_answer
from research.coordination_data import (
    VARIANTS,
    DiskCachedEmbedder,
    honest_sets,
    mean_pairwise_cosine,
    planted_sets,
)


def _lexical(query: str, texts: list[str]) -> float:
    m = lexical_matrix(texts, query)
    iu = np.triu_indices(len(texts), k=1)
    return float(m[iu].mean())


def _row(label: str, cos: list[float], lex: list[float]) -> str:
    c, lx = np.asarray(cos), np.asarray(lex)
    return (
        f"| {label} | {len(c)} | {c.mean():.3f} | {np.median(c):.3f} | "
        f"{np.percentile(c, 10):.3f}–{np.percentile(c, 90):.3f} | {lx.mean():.3f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="queries per PoisonedRAG set")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    t0 = time.perf_counter()
    emb = DiskCachedEmbedder()
    planted = planted_sets(args.limit)
    honest = honest_sets()
    print(
        "Mean pairwise cosine (all-MiniLM-L6-v2) and word-3-gram containment outside the query "
        "of a query's five poisons, vs honest coverage of one gpe-eval claim."
    )
    print()
    print("| passages | groups | mean cosine | median | p10–p90 | mean 3-gram containment |")
    print("|---|---|---|---|---|---|")
    checks: dict[str, list[int]] = {}
    from mirage_core.evaluation.poisonedrag import load_poisonedrag

    answers = {}
    for name in ("nq", "hotpotqa"):
        ds = load_poisonedrag(name, limit=args.limit)
        for inst in ds.instances:
            answers[f"{name}:{inst.qid}"] = (inst.correct, inst.incorrect)
    for name in ("nq", "hotpotqa"):
        for variant in VARIANTS:
            cos, lex = [], []
            kept = lost = leaked = 0
            for ev in planted:
                if ev.source != name or ev.variant != variant:
                    continue
                texts = [t for t, p in zip(ev.texts, ev.planted, strict=True) if p]
                cos.append(mean_pairwise_cosine(emb.embed(texts)))
                lex.append(_lexical(ev.query, texts))
                correct, incorrect = answers[ev.key]
                for t in texts:
                    kept += contains_answer(t, incorrect)
                    lost += not contains_answer(t, incorrect)
                    leaked += contains_answer(t, correct) and not contains_answer(ev.query, correct)
            checks[f"{name} {variant}"] = [kept, lost, leaked]
            print(_row(f"PoisonedRAG {name} — {variant} poisons", cos, lex))
    for k in (10, 5):
        cos, lex = [], []
        for ev in honest:
            texts = ev.texts[:k]
            cos.append(mean_pairwise_cosine(emb.embed(texts)))
            lex.append(_lexical(ev.query, texts))
        print(_row(f"gpe-eval honest coverage, k = {k}", cos, lex))
    print()
    print(
        "Answer checks (poisons stating the incorrect answer / not stating it / also stating "
        "the correct one, which the question does not name):"
    )
    for label, (kept, lost, leaked) in checks.items():
        print(f"  {label}: {kept} / {lost} / {leaked}")
    print()
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
