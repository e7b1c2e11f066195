"""Who vouches for the polluted claims a request delivers: another polluted claim, or clean
ones only (a diagnostic on biogen-dev's fit split, default config; it changes nothing).

    python -m research.polluted_supporters > research/results/polluted_supporters.md

For every polluted claim delivered under MIXED or FULL pollution at k = 10 and 20, the
cross-source NLI support edges into it are read off the verdict's graph, and the claim is
counted by its supporters: at least one polluted, clean ones only, or none (a paraphrase). The
listing after the table gives each claim with its supporters and both directions' p_entail /
p_contra.
"""

from __future__ import annotations

from collections import Counter

from benchmarks._pair_store import stored_models
from mirage_core import MirageConfig
from mirage_core.evaluation.harness import run_benchmark
from research.request_corroboration import _biogen_split

KINDS = ("polluted supporter", "clean supporters only", "no NLI supporter")


def main() -> int:
    nli, embedder = stored_models()
    counts: Counter[tuple[int, str, str]] = Counter()
    listing: list[str] = []
    for k in (10, 20):
        res = run_benchmark(
            _biogen_split(k, "fit"),
            nli,
            config=MirageConfig(),
            systems=["mirage"],
            cold_cache=False,
            embedder=embedder,
        )
        for rec in res.records:
            if rec.regime not in ("mixed", "full") or rec.polluted is None:
                continue
            verdict = rec.verdicts["mirage"]
            edges = verdict.edges
            for i in rec.routes["mirage"].delivered:
                if not rec.polluted[i]:
                    continue
                own = verdict.claims[i].source
                into = [
                    e
                    for e in edges
                    if e.hypothesis == i
                    and e.w_supp > 0
                    and verdict.claims[e.premise].source != own
                ]
                if any(rec.polluted[e.premise] for e in into):
                    kind = KINDS[0]
                else:
                    kind = KINDS[1] if into else KINDS[2]
                counts[(k, rec.regime, kind)] += 1
                listing.append(
                    f"- k = {k}, {rec.regime}, `{rec.family}`, {kind}: "
                    f"{verdict.claims[i].text[:160]!r}"
                )
                for e in into:
                    back = next(
                        (x for x in edges if x.premise == i and x.hypothesis == e.premise), None
                    )
                    rev = f"{back.p_entail:.2f} / {back.p_contra:.2f}" if back else "—"
                    mark = "polluted" if rec.polluted[e.premise] else "clean"
                    listing.append(
                        f"  - ⇐ ({mark}; p_entail / p_contra {e.p_entail:.2f} / "
                        f"{e.p_contra:.2f}, reverse {rev}) {verdict.claims[e.premise].text[:160]!r}"
                    )
    print("# Who vouches for the polluted claims a request delivers (biogen-dev, fit)\n")
    print(
        "`python -m research.polluted_supporters` (default config; MIXED and FULL, every "
        "pollution family)\n"
    )
    print("| k | regime | polluted claims delivered | " + " | ".join(KINDS) + " |")
    print("|---|---|---|" + "---|" * len(KINDS))
    for k in (10, 20):
        for regime in ("mixed", "full"):
            row = [counts[(k, regime, kind)] for kind in KINDS]
            print(f"| {k} | {regime.upper()} | {sum(row)} | " + " | ".join(map(str, row)) + " |")
    print("\n## The claims and their supporters\n")
    print("\n".join(listing))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
