"""Engine overhead and NLI growth: `python benchmarks/perf_engine.py [--model NAME_OR_PATH]`.

For k = 5, 10, 20, 50 real web passages (gpe-eval benign + distractor evidence, pooled over
claims of one category so topics overlap as in retrieval), prints: claims, cross-source pairs,
pairs kept by the τ prefilter, pairs sent to NLI, NLI forward time alone on those pairs vs the
whole `defend()` time (ratio = engine overhead; goal ≤ 1.15), time per stage, and the growth
of NLI pairs from k=5 to k=50 with and without the pair budget. Every figure of a row comes
from the same run; the NLI cache is off so both timings are real forward passes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import time
from pathlib import Path

from mirage_core import Mirage, MirageConfig, Passage


def chunk(sentences: list[str], max_chars: int = 1000) -> str:
    """Whole sentences up to ``max_chars``: a retrieval-sized chunk of a web page."""
    out, size = [], 0
    for sent in sentences:
        if out and size + len(sent) > max_chars:
            break
        out.append(sent)
        size += len(sent) + 1
    return " ".join(out)


def gpe_passages(seed: int, n: int) -> list[Passage]:
    spec = importlib.util.find_spec("gpe")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("gpe-eval is not installed: pip install --no-deps gpe-eval")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "gpe.jsonl"
    rows = [json.loads(line) for line in path.open()]
    rng = random.Random(seed)
    rng.shuffle(rows)
    category = rows[0]["category"]
    out: list[Passage] = []
    # Every evidence item of a claim (benign, distractors, and the attack passages, which are
    # written to match it) is on one topic, as a real top-k is; further claims of the same
    # category fill up to n.
    rows.sort(key=lambda r: r["category"] != category)
    for row in rows:
        env = row["evidence_environment"]
        attacks = [ev for evs in (env.get("poisoned") or {}).values() for ev in evs]
        for ev in env["benign"] + env.get("related_distractor", []) + attacks:
            text = chunk(ev.get("contents") or [])
            if text.strip():
                out.append(
                    Passage(
                        text, source=ev.get("url") or ev["evidence_id"], score=1.0 / (1 + len(out))
                    )
                )
        if len(out) >= n:
            break
    return out[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="NLI model (default: the packaged one)")
    parser.add_argument("--ks", default="5,10,20,50")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from mirage_core.nli.transformers_nli import TransformersNLI

    ks = [int(k) for k in args.ks.split(",")]
    pool = gpe_passages(args.seed, max(ks))
    query = "benchmark query"
    nli = TransformersNLI(args.model, cache_size=0)  # no cache: every pair is a real forward pass
    nli.predict(["warm up the model"], ["the model is warm"])
    budgets = {
        "default": MirageConfig(),
        "ppc=2": MirageConfig(pairs_per_claim=2),
        "no budget": MirageConfig(pairs_per_claim=None, max_pairs=None),
    }
    print(
        f"model: {nli.name}; passages: gpe-eval evidence (benign, distractor, attack) of one claim at a time, one category"
    )
    header = (
        f"{'k':>3} {'config':>9} {'claims':>6} {'x-src':>7} {'τ-kept':>6} {'NLI':>5} "
        f"{'nli_alone_s':>11} {'defend_s':>8} {'ratio':>6}  stages (ms)"
    )
    print(header)
    growth: dict[str, dict[int, int]] = {name: {} for name in budgets}
    for k in ks:
        passages = pool[:k]
        for name, cfg in budgets.items():
            mirage = Mirage(cfg, nli=nli)
            t0 = time.perf_counter()
            verdict = mirage.defend(query, passages)
            defend_s = time.perf_counter() - t0
            stats = verdict.candidate_stats
            prem = [verdict.claims[e.premise].text for e in verdict.edges]
            hyp = [verdict.claims[e.hypothesis].text for e in verdict.edges]
            t1 = time.perf_counter()
            nli.predict(prem, hyp)
            nli_s = time.perf_counter() - t1
            growth[name][k] = len(prem)
            stages = " ".join(
                f"{s}={verdict.timings.get(s, 0) * 1000:.0f}"
                for s in ("claims", "pairs", "nli", "graph", "select", "gate")
            )
            ratio = defend_s / nli_s if nli_s > 0 else float("nan")
            print(
                f"{k:>3} {name:>9} {stats['claims']:>6} {stats['cross_source_pairs']:>7} "
                f"{stats['prefiltered_pairs']:>6} {len(prem):>5} {nli_s:>11.3f} {defend_s:>8.3f} {ratio:>6.3f}  {stages}"
            )
    lo, hi = min(ks), max(ks)
    for name, g in growth.items():
        if g.get(lo):
            print(
                f"NLI calls k={lo}→{hi} ({name}): {g[lo]} → {g[hi]} = ×{g[hi] / g[lo]:.1f} for ×{hi / lo:.0f} passages"
            )


if __name__ == "__main__":
    main()
