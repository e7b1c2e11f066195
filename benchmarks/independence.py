"""Coordinated poisoning vs source independence (issue 7): `python benchmarks/independence.py`.

Runs the defense on PoisonedRAG NQ + HotpotQA (gold only / five coordinated poisons only /
gold + five poisons) and on gpe-eval benign evidence (CLEAN), for the paper's setting
(`independence="none"`), `"domain"`, and `"embedding"` over a sweep of near-duplicate
thresholds. Prints, per setting: poison-only blocked, wrong answer (and correct answer) in the
delivered evidence for gold + poisons, gold-only pass rate, gpe benign pass rate.

The threshold is chosen on a seeded half of the queries (the *fit* split) by the objective
below and reported on the other half (*report* split); nothing is tuned by hand.
Objective: maximize gpe benign pass − wrong-answer rate subject to poison-only blocked ≥ 95%.
NLI and embeddings run once per pair / text: every setting re-uses the shared caches.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from mirage_core import Mirage, MirageConfig
from mirage_core.embeddings import MiniLMEmbedder
from mirage_core.evaluation.datasets import load_gpe, load_poisonedrag
from mirage_core.nli.transformers_nli import TransformersNLI


def delivered_text(verdict) -> str:
    return " ".join(vp.text for vp in verdict.verified_passages()).lower()


def evaluate(mirage: Mirage, qa, gpe) -> dict[str, dict[str, float]]:
    """Rates per split ('fit', 'report') for one configuration."""
    rows: dict[str, dict[str, list[float]]] = {"fit": {}, "report": {}}

    def add(split: str, key: str, value: float) -> None:
        rows[split].setdefault(key, []).append(value)

    verdicts = mirage.defend_many([i.query for i, _ in qa], [i.passages for i, _ in qa])
    for (inst, split), v in zip(qa, verdicts, strict=True):
        text = delivered_text(v)
        wrong = any(a.lower() in text for a in inst.incorrect)
        right = any(a.lower() in text for a in inst.correct)
        if inst.regime == "full":
            add(split, "poison_only_blocked", float(not v.passed))
        elif inst.regime == "mixed":
            add(split, "mixed_wrong_in_evidence", float(wrong))
            add(split, "mixed_correct_in_evidence", float(right and not wrong))
            add(split, "mixed_pass", float(v.passed))
        else:
            add(split, "gold_only_pass", float(v.passed))
    verdicts = mirage.defend_many([i.query for i, _ in gpe], [i.passages for i, _ in gpe])
    for (_, split), v in zip(gpe, verdicts, strict=True):
        add(split, "gpe_benign_pass", float(v.passed))
    return {s: {k: float(np.mean(v)) for k, v in d.items()} for s, d in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="NLI model (default: the packaged one)")
    parser.add_argument(
        "--limit", type=int, default=100, help="queries per PoisonedRAG set and gpe claims"
    )
    parser.add_argument("--gpe-k", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--thresholds", default="0.7,0.75,0.8,0.85,0.9,0.95")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    qa = []
    for name in ("nq", "hotpotqa"):
        ds = load_poisonedrag(name, limit=args.limit, seed=args.seed)
        qids = sorted({i.qid for i in ds.instances})
        rng.shuffle(qids)
        fit = set(qids[: len(qids) // 2])
        qa += [(i, "fit" if i.qid in fit else "report") for i in ds.instances]
    gpe_ds = load_gpe(limit=args.limit, seed=args.seed, k=args.gpe_k, attacks=())
    gpe_ids = sorted({i.qid for i in gpe_ds.instances})
    rng.shuffle(gpe_ids)
    gpe_fit = set(gpe_ids[: len(gpe_ids) // 2])
    gpe = [
        (i, "fit" if i.qid in gpe_fit else "report")
        for i in gpe_ds.instances
        if i.regime == "clean"
    ]

    nli = TransformersNLI(args.model)
    embedder = MiniLMEmbedder()
    settings: list[tuple[str, MirageConfig]] = [
        ("paper (none)", MirageConfig.paper()),
        ("domain", MirageConfig(independence="domain")),
    ]
    for t in [float(x) for x in args.thresholds.split(",")]:
        settings.append(
            (f"embedding@{t:.2f}", MirageConfig(independence="embedding", duplicate_threshold=t))
        )
    settings.append(
        ("embedding@0.80+para", MirageConfig(independence="embedding", paraphrase_pairs=True))
    )

    print(
        f"NLI: {nli.name}; PoisonedRAG nq+hotpotqa {args.limit} queries each; gpe benign {len(gpe)} claims (k={args.gpe_k})"
    )
    cols = [
        "poison_only_blocked",
        "mixed_wrong_in_evidence",
        "mixed_correct_in_evidence",
        "gold_only_pass",
        "gpe_benign_pass",
    ]
    short = [
        "poison-only blocked",
        "gold+5: wrong in ev.",
        "gold+5: correct only",
        "gold-only pass",
        "gpe benign pass",
    ]
    results = {}
    for name, cfg in settings:
        t0 = time.perf_counter()
        results[name] = evaluate(Mirage(cfg, nli=nli, embedder=embedder), qa, gpe)
        print(
            f"  ran {name} in {time.perf_counter() - t0:.0f}s (NLI cache misses so far: {nli.cache.misses})",
            flush=True,
        )

    for split in ("fit", "report"):
        print(f"\n### {split} split")
        print("| setting | " + " | ".join(short) + " |")
        print("|---|" + "---|" * len(short))
        for name, res in results.items():
            r = res[split]
            print(
                f"| {name} | "
                + " | ".join(f"{100 * r.get(c, float('nan')):.0f}%" for c in cols)
                + " |"
            )

    candidates = [n for n in results if n.startswith("embedding@") and "+" not in n]
    ok = [n for n in candidates if results[n]["fit"]["poison_only_blocked"] >= 0.95] or candidates
    best = max(
        ok,
        key=lambda n: (
            results[n]["fit"]["gpe_benign_pass"] - results[n]["fit"]["mixed_wrong_in_evidence"]
        ),
    )
    r = results[best]["report"]
    print(
        f"\nchosen on the fit split: {best}; on the report split: poison-only blocked "
        f"{100 * r['poison_only_blocked']:.0f}%, wrong answer in gold+5 evidence "
        f"{100 * r['mixed_wrong_in_evidence']:.0f}%, gpe benign pass {100 * r['gpe_benign_pass']:.0f}%"
    )

    # Latency: embedding vs NLI per query at k = 20 (gpe benign + distractor passages).
    big = load_gpe(limit=20, seed=args.seed + 1, k=5, attacks=())
    passages = [p for inst in big.instances for p in inst.passages][:20]
    fresh_nli, fresh_emb = TransformersNLI(args.model, cache_size=0), MiniLMEmbedder(cache_size=0)
    v = Mirage(
        MirageConfig(independence="embedding", paraphrase_pairs=True),
        nli=fresh_nli,
        embedder=fresh_emb,
    ).defend("latency probe", passages)
    print(
        f"\nlatency at k={len(passages)}: embed {v.timings.get('embed', 0):.3f}s vs NLI {v.timings.get('nli', 0):.3f}s "
        f"({v.candidate_stats['claims']} claims, {v.candidate_stats['nli_pairs']} NLI pairs); total {v.timings['total']:.3f}s"
    )


if __name__ == "__main__":
    main()
