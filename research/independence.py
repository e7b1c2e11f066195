"""Coordinated poisoning vs source independence: `python -m research.independence`.

Runs the defense on PoisonedRAG NQ + HotpotQA (gold only / five coordinated poisons only /
gold + five poisons), on gpe-eval benign evidence (CLEAN) and on gpe-eval MIXED evidence
(`fakegpt` and `poisonedrag` attacks: the cost side of loosening the contradiction gate), for
the paper's setting (`independence="none"`), `"domain"`, the previous single-linkage grouping,
and `"embedding"` (average linkage, tight groups quarantined) over a sweep of near-duplicate
thresholds, then the contradiction-gate knobs (τ, κ, scope) at the best threshold. Prints, per
setting: poison-only blocked, wrong answer (and correct answer) in the delivered evidence for
gold + poisons, gold-only pass rate, gpe benign pass rate, gpe mixed: a polluted passage
delivered.

The threshold is chosen on a seeded half of the queries (the *fit* split) by the objective
below and reported on the other half (*report* split); nothing is tuned by hand.
Objective: maximize gpe benign pass − wrong answers in gold+5 evidence − gpe mixed inputs whose
polluted passage is delivered, subject to poison-only blocked ≥ 95%.
NLI and embeddings run once per pair / text: every setting re-uses the shared caches.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from mirage_core import Mirage, MirageConfig
from mirage_core.embeddings import MiniLMEmbedder
from mirage_core.evaluation.gpe import load_gpe
from mirage_core.evaluation.poisonedrag import load_poisonedrag
from mirage_core.nli.transformers_nli import TransformersNLI

GPE_MIXED_ATTACKS = ("fakegpt", "poisonedrag")
COLS = [
    "poison_only_blocked",
    "mixed_wrong_in_evidence",
    "mixed_correct_in_evidence",
    "gold_only_pass",
    "gpe_benign_pass",
    "gpe_mixed_polluted_delivered",
]
SHORT = [
    "poison-only blocked",
    "gold+5: wrong in ev.",
    "gold+5: correct only",
    "gold-only pass",
    "gpe benign pass",
    "gpe mixed: polluted delivered",
]


def _embedding(threshold: float, linkage: str = "average", **changes) -> MirageConfig:
    return MirageConfig().replace(
        independence="embedding",
        duplicate_threshold=threshold,
        duplicate_linkage=linkage,
        **changes,
    )


def _choose(results: dict, names: list[str]) -> str:
    """Best on the fit split by the objective of the module docstring, among settings that
    block ≥ 95% of poison-only queries (all of them if none does)."""
    fit = {n: results[n]["fit"] for n in names}
    ok = [n for n in names if fit[n]["poison_only_blocked"] >= 0.95] or names
    return max(
        ok,
        key=lambda n: (
            fit[n]["gpe_benign_pass"]
            - fit[n]["mixed_wrong_in_evidence"]
            - fit[n]["gpe_mixed_polluted_delivered"]
        ),
    )


def blocked_benign_reasons(mirage: Mirage, gpe) -> dict[str, dict[str, int]]:
    """Why benign evidence was blocked, per split: one publisher (d_src=1 by design), honest
    passages merged into one near-duplicate group, a tight group quarantined leaving one
    source, a tie, or the contradiction ratio alone."""
    counts: dict[str, dict[str, int]] = {"fit": {}, "report": {}}
    verdicts = mirage.defend_many([i.query for i, _ in gpe], [i.passages for i, _ in gpe])
    for (inst, split), v in zip(gpe, verdicts, strict=True):
        if v.passed:
            continue
        publishers = {p.resolved_domain(k) for k, p in enumerate(inst.passages)}
        groups = v.extras.get("groups", {})
        tight = any(g["tight"] for g in v.extras.get("coordination", []))
        if len(publishers) == 1:
            why = "one publisher"
        elif len(groups) == 1:
            why = "all passages one near-duplicate group"
        elif v.d_src < mirage.config.d_min and tight:
            why = "tight group quarantined, one source left"
        elif "tie" in v.extras:
            why = "tie"
        elif v.r_contr > mirage.config.r_max:
            why = "contradiction ratio"
        else:
            why = "other"
        counts[split][why] = counts[split].get(why, 0) + 1
    return counts


def delivered_text(verdict) -> str:
    return " ".join(vp.text for vp in verdict.verified_passages()).lower()


def evaluate(mirage: Mirage, qa, gpe, gpe_mixed) -> dict[str, dict[str, float]]:
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
    verdicts = mirage.defend_many(
        [i.query for i, _ in gpe_mixed], [i.passages for i, _ in gpe_mixed]
    )
    for (inst, split), v in zip(gpe_mixed, verdicts, strict=True):
        polluted = {k for k, spans in enumerate(inst.spans) if spans}
        delivered = {vp.passage_index for vp in v.verified_passages()}
        add(split, "gpe_mixed_polluted_delivered", float(bool(polluted & delivered)))
    return {s: {k: float(np.mean(v)) for k, v in d.items()} for s, d in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="NLI model (default: the packaged one)")
    parser.add_argument(
        "--limit", type=int, default=100, help="queries per PoisonedRAG set and gpe claims"
    )
    parser.add_argument("--gpe-k", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--thresholds", default="0.7,0.75,0.8,0.85,0.9")
    parser.add_argument(
        "--write-config",
        default=None,
        help="write the chosen setting as a MirageConfig JSON (for `mirage defend --config`)",
    )
    args = parser.parse_args()

    rng = random.Random(args.seed)
    qa = []
    for name in ("nq", "hotpotqa"):
        ds = load_poisonedrag(name, limit=args.limit, seed=args.seed)
        qids = sorted({i.qid for i in ds.instances})
        rng.shuffle(qids)
        fit = set(qids[: len(qids) // 2])
        qa += [(i, "fit" if i.qid in fit else "report") for i in ds.instances]
    gpe_ds = load_gpe(limit=args.limit, seed=args.seed, k=args.gpe_k, attacks=GPE_MIXED_ATTACKS)
    gpe_ids = sorted({i.qid for i in gpe_ds.instances})
    rng.shuffle(gpe_ids)
    gpe_fit = set(gpe_ids[: len(gpe_ids) // 2])
    tagged = [(i, "fit" if i.qid in gpe_fit else "report") for i in gpe_ds.instances]
    gpe = [(i, s) for i, s in tagged if i.regime == "clean"]
    gpe_mixed = [(i, s) for i, s in tagged if i.regime == "mixed"]

    nli = TransformersNLI(args.model)
    embedder = MiniLMEmbedder()
    thresholds = [float(x) for x in args.thresholds.split(",")]
    settings: list[tuple[str, MirageConfig]] = [
        ("paper (none)", MirageConfig.paper()),
        ("domain", MirageConfig(independence="domain")),
    ]
    for t in (0.7, 0.8):  # the previous grouping: single linkage, no quarantine
        settings.append((f"single@{t:.2f}", _embedding(t, "single", coordinated_min_support=0)))
    for t in thresholds:
        settings.append((f"embedding@{t:.2f}", _embedding(t)))
    print(
        f"NLI: {nli.name}; PoisonedRAG nq+hotpotqa {args.limit} queries each; gpe {len(gpe)} "
        f"claims (k={args.gpe_k}): benign, and mixed with {'/'.join(GPE_MIXED_ATTACKS)} "
        f"({len(gpe_mixed)} inputs)"
    )
    results: dict[str, dict[str, dict[str, float]]] = {}
    configs: dict[str, MirageConfig] = {}

    def run(name: str, cfg: MirageConfig) -> None:
        configs[name] = cfg
        t0 = time.perf_counter()
        results[name] = evaluate(Mirage(cfg, nli=nli, embedder=embedder), qa, gpe, gpe_mixed)
        print(
            f"  ran {name} in {time.perf_counter() - t0:.0f}s (NLI cache misses so far: {nli.cache.misses})",
            flush=True,
        )

    for name, cfg in settings:
        run(name, cfg)
    # The threshold first, then the contradiction gate's knobs at that threshold.
    best_t = _choose(results, [f"embedding@{t:.2f}" for t in thresholds])
    t = float(best_t.split("@")[1])
    run(f"{best_t} no quarantine", _embedding(t, coordinated_min_support=0))
    run(f"{best_t}+para", _embedding(t, paraphrase_pairs=True))
    gate_rows = []
    for name, changes in [
        (f"{best_t} τ=0.5", dict(tau=0.5)),
        (f"{best_t} τ=0.6", dict(tau=0.6)),
        (f"{best_t} κ=0.8", dict(kappa=0.8)),
        (f"{best_t} scope=selected", dict(contradiction_scope="selected")),
        (f"{best_t} τ=0.6 scope=selected", dict(tau=0.6, contradiction_scope="selected")),
    ]:
        run(name, _embedding(t, **changes))
        gate_rows.append(name)

    for split in ("fit", "report"):
        print(f"\n### {split} split")
        print("| setting | " + " | ".join(SHORT) + " |")
        print("|---|" + "---|" * len(SHORT))
        for name, res in results.items():
            r = res[split]
            print(
                f"| {name} | "
                + " | ".join(f"{100 * r.get(c, float('nan')):.0f}%" for c in COLS)
                + " |"
            )

    best = _choose(results, [best_t, *gate_rows])
    r = results[best]["report"]
    print(
        f"\nchosen on the fit split: {best}; on the report split: poison-only blocked "
        f"{100 * r['poison_only_blocked']:.0f}%, wrong answer in gold+5 evidence "
        f"{100 * r['mixed_wrong_in_evidence']:.0f}%, gpe benign pass {100 * r['gpe_benign_pass']:.0f}%, "
        f"gpe mixed polluted delivered {100 * r['gpe_mixed_polluted_delivered']:.0f}%"
    )
    reasons = blocked_benign_reasons(Mirage(configs[best], nli=nli, embedder=embedder), gpe)
    for split, counts in reasons.items():
        print(f"why gpe benign evidence was blocked ({best}, {split} split): {counts}")
    if args.write_config:
        configs[best].to_file(args.write_config)
        print(f"wrote the chosen configuration to {args.write_config}")

    # Latency: embedding vs NLI per query at k = 20: a gpe-eval claim as the query, its five
    # benign pages, then the benign pages of the next claims (relevant pairs only go to NLI).
    big = load_gpe(limit=20, seed=args.seed + 1, k=5, attacks=())
    passages = [p for inst in big.instances for p in inst.passages][:20]
    query = big.instances[0].query
    fresh_nli, fresh_emb = TransformersNLI(args.model, cache_size=0), MiniLMEmbedder(cache_size=0)
    fresh_nli.predict(["warm up"], ["the models load before the clock starts"])
    fresh_emb.embed(["warm up"])
    v = Mirage(_embedding(t, paraphrase_pairs=True), nli=fresh_nli, embedder=fresh_emb).defend(
        query, passages
    )
    print(
        f"\nlatency at k={len(passages)}: embed {v.timings.get('embed', 0):.3f}s vs NLI {v.timings.get('nli', 0):.3f}s "
        f"({v.candidate_stats['claims']} claims, {v.candidate_stats['nli_pairs']} NLI pairs); total {v.timings['total']:.3f}s"
    )


if __name__ == "__main__":
    main()
