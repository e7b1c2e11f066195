"""NLI pairs and engine time against k: ``python -m benchmarks.perf_engine [--model NAME_OR_PATH]``.

Real evidence: for seeded gpe-eval claims, the claim is the query and its own evidence
(benign pages, related distractors, the attack passages written against it) comes first, then
benign pages of other claims of its category, up to k passages (1,200 characters each, as the
scoreboard reads them). Two parts, every figure of a part from one run:

1. **Pairs** (no model: a counting backend): for k = 5, 10, 20, 50 and the pair budget m =
   ``partners_per_claim`` in 1, 2, 3, 4, 8 and none (every candidate pair): claims, directed
   NLI pairs per query and per claim, and the growth of pairs from k = 5.
2. **Time** (the real models, NLI and embedding caches off so every pair and passage is a
   forward pass): for the default budget and none, ``defend()`` p50 / p95 over the queries,
   the NLI and embedder shares of the time, and the engine overhead = defend time / the two
   models' time (everything else: claims, pairs, graph, selection, gate).

3. **Runtimes side by side** (``--runtimes torch,onnx,onnx-int8``; ``--runtimes-only`` runs
   this part alone and writes ``<out>-runtimes.md`` and ``<out>-runtimes.png``): the default
   config on torch fp32, ONNX Runtime fp32 and ONNX Runtime with the static int8 NLI graph,
   caches off, interleaved query by query: ``defend()`` p50 / p95 per k, the models' share,
   defend p50 over torch fp32's NLI forward time, cold start and peak resident memory in a
   fresh process, and the installed size without torch (``benchmarks/perf_runtimes.py``).

Timings are one run on a shared machine: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from pathlib import Path

import numpy as np

from benchmarks._pair_store import PersistentNLI, model_digest
from benchmarks.perf_runtimes import ALIASES, install_sizes, runtime_lines, runtime_table
from benchmarks.perf_runtimes import plot as plot_runtimes
from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.evaluation.gpe import _gpe_passage, find_gpe_file

KS = (5, 10, 20, 50)
BUDGETS: tuple[int | None, ...] = (1, 2, 3, 4, 8, None)


def queries(n: int, k_max: int, seed: int) -> list[tuple[str, list[Passage]]]:
    """``n`` seeded (query, evidence) items, each with at least ``k_max`` passages."""
    rows = [json.loads(line) for line in find_gpe_file().open(encoding="utf-8")]
    benign_by_cat: dict[str, list[dict]] = {}
    for row in rows:
        env = row["evidence_environment"]
        benign_by_cat.setdefault(row["category"], []).extend(env.get("benign") or [])
    rng = random.Random(seed)
    rng.shuffle(rows)
    out = []
    for row in rows:
        env = row["evidence_environment"]
        attacks = [ev for evs in (env.get("poisoned") or {}).values() for ev in evs]
        own = list(env.get("benign") or []) + list(env.get("related_distractor") or []) + attacks
        own_ids = {id(ev) for ev in own}
        fill = [ev for ev in benign_by_cat[row["category"]] if id(ev) not in own_ids]
        passages, seen = [], set()
        for ev in own + fill:
            p = _gpe_passage(ev, 1200)
            if p.text.strip() and p.text not in seen:
                seen.add(p.text)
                passages.append(p)
            if len(passages) == k_max:
                break
        if len(passages) == k_max and row.get("original_claim"):
            out.append((str(row["original_claim"]), passages))
        if len(out) == n:
            break
    return out


class CountingNLI:
    """Returns 'neutral' for every pair: the pair counts without the model."""

    def predict(self, premises, hypotheses):
        return np.tile([0.1, 0.8, 0.1], (len(premises), 1))


def pair_table(items, ks, budgets) -> dict:
    table: dict = {}
    for k in ks:
        for m in budgets:
            mirage = Mirage(MirageConfig(partners_per_claim=m), nli=CountingNLI())
            verdicts = mirage.defend_many([q for q, _ in items], [p[:k] for _, p in items])
            claims = np.array([v.candidate_stats["claims"] for v in verdicts], dtype=float)
            directed = np.array([2 * v.candidate_stats["nli_pairs"] for v in verdicts], float)
            table[(k, m)] = {
                "claims": float(claims.mean()),
                "pairs_per_query": float(directed.mean()),
                "pairs_per_claim": float(directed.sum() / max(claims.sum(), 1)),
            }
    return table


def _jaccard(a: set[int], b: set[int]) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets agree (1.0)."""
    return len(a & b) / len(a | b) if a | b else 1.0


def agreement_table(items, ks, budgets, model, store) -> dict:
    """How often the budgeted verdict equals the unbudgeted one: the route, and the mean
    Jaccard similarity of the two S* (whatever the route); the real model's scores are kept
    in the scoreboard's pair store."""
    from mirage_core.embeddings import MiniLMEmbedder
    from mirage_core.nli.transformers_nli import TransformersNLI

    inner = TransformersNLI(model)
    nli = PersistentNLI(inner, store, model_digest(inner.name))
    embedder = MiniLMEmbedder()  # torch, as the NLI model: the scoreboard's runtime
    out: dict = {}
    for k in ks:
        qs, ps = [q for q, _ in items], [p[:k] for _, p in items]
        ref = Mirage(MirageConfig(partners_per_claim=None), nli=nli, embedder=embedder).defend_many(
            qs, ps
        )
        for m in budgets:
            got = Mirage(
                MirageConfig(partners_per_claim=m), nli=nli, embedder=embedder
            ).defend_many(qs, ps)
            same_route = [a.decision == b.decision for a, b in zip(got, ref, strict=True)]
            jaccard = [
                _jaccard(set(a.selected), set(b.selected)) for a, b in zip(got, ref, strict=True)
            ]
            out[(k, m)] = {
                "route_agreement": float(np.mean(same_route)),
                "selected_jaccard": float(np.mean(jaccard)),
                "passed": float(np.mean([v.passed for v in got])),
            }
        out[(k, None)] = {"passed": float(np.mean([v.passed for v in ref]))}
    return out


def time_table(items, ks, budgets, model) -> dict:
    from mirage_core.embeddings import MiniLMEmbedder
    from mirage_core.nli.transformers_nli import TransformersNLI

    nli = TransformersNLI(model, cache_size=0)  # every pair is a real forward pass
    nli.predict(["warm up the model"], ["the model is warm"])
    # torch too (the runtime comparison is perf_runtimes'); no cache, or the engine that runs
    # first on a query would embed its passages for the other
    embedder = MiniLMEmbedder(cache_size=0)
    embedder.embed(["warm up the embedder"])
    out: dict = {}
    for k in ks:
        engines = {
            m: Mirage(MirageConfig(partners_per_claim=m), nli=nli, embedder=embedder)
            for m in budgets
        }
        total: dict = {m: [] for m in budgets}
        forward: dict = {m: [] for m in budgets}
        embedding: dict = {m: [] for m in budgets}
        for q, passages in items:
            for m, mirage in engines.items():  # interleaved: load drifts hit every budget alike
                verdict = mirage.defend(q, passages[:k])
                total[m].append(verdict.timings["total"])
                forward[m].append(verdict.timings.get("nli", 0.0))
                embedding[m].append(verdict.timings.get("embed", 0.0))
        for m in budgets:
            spent, nli_s, embed_s = (float(np.sum(x[m])) for x in (total, forward, embedding))
            out[(k, m)] = {
                "defend_p50_s": float(np.percentile(total[m], 50)),
                "defend_p95_s": float(np.percentile(total[m], 95)),
                "nli_share": nli_s / spent,
                "embed_share": embed_s / spent,
                "overhead": spent / max(nli_s + embed_s, 1e-9),
            }
    return out


def plot(pairs: dict, ks: list[int], path: Path) -> None:
    """Directed NLI pairs per query against k, one line per budget (log-log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for m in BUDGETS:
        label = "every candidate pair" if m is None else f"m = {m} partners per claim"
        ax.plot(ks, [pairs[(k, m)]["pairs_per_query"] for k in ks], marker="o", label=label)
    lo = min(ks)
    base = pairs[(lo, None)]["pairs_per_query"]
    ax.plot(ks, [base * k / lo for k in ks], "k:", label="linear in k")
    ax.set(xscale="log", yscale="log", xlabel="passages k", ylabel="directed NLI pairs / query")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.legend(fontsize=8)
    ax.set_title("NLI pairs per query on gpe-eval evidence")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def command_flags() -> str:
    """This run's command-line flags, quoted as a shell would need them (for the result's
    header)."""
    return "".join(" " + shlex.quote(a) for a in sys.argv[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="NLI model (default: the packaged one)")
    parser.add_argument("--ks", default=",".join(map(str, KS)))
    parser.add_argument("--queries", type=int, default=20, help="queries for the pair counts")
    parser.add_argument("--timed-queries", type=int, default=5, help="queries timed per k")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="benchmarks/results/perf_engine")
    parser.add_argument(
        "--agreement-queries", type=int, default=10, help="queries for the verdict agreement"
    )
    parser.add_argument("--store", default="benchmarks/.cache/pairs.sqlite")
    parser.add_argument(
        "--docs-plot", default="docs/assets/perf_engine.png", help="a copy for the docs site"
    )
    parser.add_argument(
        "--runtimes",
        default="torch,onnx,onnx-int8",
        help="runtimes compared (torch, onnx, onnx-plain, onnx-int8; '' skips)",
    )
    parser.add_argument("--runtimes-only", action="store_true", help="only the runtime table")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    runtimes = [ALIASES[r.strip()] for r in args.runtimes.split(",") if r.strip()]
    if args.runtimes_only:
        items = queries(args.timed_queries, max(ks), args.seed)
        rt = runtime_table(items, ks, runtimes)
        rl = runtime_lines(rt, ks, runtimes, len(items), install_sizes())
        print("\n".join(rl))
        out = Path(args.out).with_name(Path(args.out).name + "-runtimes.md")
        plot_runtimes(rt, ks, runtimes, out.with_suffix(".png"))
        if args.docs_plot:
            plot_runtimes(
                rt, ks, runtimes, Path(args.docs_plot).with_name(out.with_suffix(".png").name)
            )
        out.write_text(
            "# Engine time per runtime\n\n`python -m benchmarks.perf_engine --runtimes-only "
            f"--ks {args.ks} --timed-queries {args.timed_queries} --runtimes {args.runtimes}`\n"
            + "\n".join(rl)
            + "\n"
        )
        print(f"wrote {out}")
        return
    default_m = MirageConfig().partners_per_claim
    items = queries(args.queries, max(ks), args.seed)
    name = lambda m: "none" if m is None else str(m)  # noqa: E731

    lines = [
        f"{len(items)} gpe-eval claims (seed {args.seed}) as queries; evidence: the claim's own "
        "pages (benign, distractors, attacks), then benign pages of its category; default "
        f"partners_per_claim = {default_m}",
        "",
        "## NLI pairs (directed) per query / per claim",
        "",
        "| k | claims | " + " | ".join(f"m={name(m)}" for m in BUDGETS) + " |",
        "|" + "---|" * (2 + len(BUDGETS)),
    ]
    pairs = pair_table(items, ks, BUDGETS)
    for k in ks:
        cells = [
            f"{pairs[(k, m)]['pairs_per_query']:.0f} / {pairs[(k, m)]['pairs_per_claim']:.2f}"
            for m in BUDGETS
        ]
        lines.append(f"| {k} | {pairs[(k, None)]['claims']:.0f} | " + " | ".join(cells) + " |")
    lo = min(ks)
    lines += ["", "growth of NLI pairs per query from k = 5:", ""]
    for m in BUDGETS:
        base = pairs[(lo, m)]["pairs_per_query"]
        growth = ", ".join(
            f"k={k} ×{pairs[(k, m)]['pairs_per_query'] / base:.1f}" for k in ks if k != lo
        )
        lines.append(f"- m = {name(m)}: {growth}")
    print("\n".join(lines), flush=True)

    agree_items = items[: args.agreement_queries]
    budgeted = [m for m in BUDGETS if m is not None]
    agree = agreement_table(agree_items, ks, budgeted, args.model, args.store)
    al = [
        "",
        f"## Verdicts with the budget vs every candidate pair ({len(agree_items)} queries, "
        "the real model)",
        "",
        "route agreement / mean Jaccard similarity of S* (the selected claims, whatever the "
        "route); last column: share passed with every pair",
        "",
        "| k | " + " | ".join(f"m={m}" for m in budgeted) + " | passed (m=none) |",
        "|" + "---|" * (2 + len(budgeted)),
    ]
    for k in ks:
        cells = [
            f"{100 * agree[(k, m)]['route_agreement']:.0f}% / {agree[(k, m)]['selected_jaccard']:.2f}"
            for m in budgeted
        ]
        al.append(f"| {k} | " + " | ".join(cells) + f" | {100 * agree[(k, None)]['passed']:.0f}% |")
    print("\n".join(al), flush=True)
    lines += al

    timed = items[: args.timed_queries]
    times = time_table(timed, ks, (default_m, None), args.model)
    tl = [
        "",
        f"## defend() time, {len(timed)} queries per k, the real models (NLI and embedding caches off)",
        "",
        "| k | m | defend p50 (s) | defend p95 (s) | NLI share of time | embedder share | "
        "engine overhead (defend / both models) |",
        "|---|---|---|---|---|---|---|",
    ]
    for k in ks:
        for m in (default_m, None):
            t = times[(k, m)]
            tl.append(
                f"| {k} | {name(m)} | {t['defend_p50_s']:.2f} | {t['defend_p95_s']:.2f} | "
                f"{100 * t['nli_share']:.1f}% | {100 * t['embed_share']:.1f}% | "
                f"{t['overhead']:.3f}× |"
            )
    if runtimes:
        rt = runtime_table(timed, ks, runtimes)
        tl += runtime_lines(rt, ks, runtimes, len(timed), install_sizes())
        plot_runtimes(
            rt, ks, runtimes, Path(args.out).with_name(Path(args.out).name + "-runtimes.png")
        )
    print("\n".join(tl))
    out = Path(args.out)
    plot(pairs, ks, out.with_suffix(".png"))
    if args.docs_plot:
        plot(pairs, ks, Path(args.docs_plot))
    out.with_suffix(".md").write_text(
        "# Engine performance: NLI pairs and time against k\n\n"
        f"`python -m benchmarks.perf_engine{command_flags()}`\n\n"
        f"![NLI pairs per query against k]({out.with_suffix('.png').name})\n\n"
        + "\n".join(lines + tl)
        + "\n"
    )
    out.with_suffix(".json").write_text(
        json.dumps(
            {
                "pairs": {f"k={k},m={name(m)}": v for (k, m), v in pairs.items()},
                "time": {f"k={k},m={name(m)}": v for (k, m), v in times.items()},
                "agreement": {f"k={k},m={name(m)}": v for (k, m), v in agree.items()},
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
