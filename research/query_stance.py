"""Whether sources take opposite stances on a statement query (a diagnostic; it changes
nothing).

    python -m research.query_stance > research/results/query_stance.txt

gpe-eval's queries are statements to check, and its attack pages argue the opposite of the
truth while its honest pages state it. If the NLI model read each source's stance towards the
query (some source entails the statement, another contradicts it), evidence where the two meet
would be contested on exactly what was asked. For each set of gpe-k5's fit split, each
passage's stance is read two ways, with the query as the hypothesis: the whole passage as the
premise (truncated to the model's 256 tokens), and each of its claims (the strongest claim
decides: entail or contradict at p ≥ 0.5, else neutral). The table gives, per regime, how
often the evidence is contested, and what blocking contested evidence would do to the pass
rate and to the polluted share of delivered claims; then the stances of honest and attack
passages.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import gpe
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.measures import claim_pollution
from mirage_core.evaluation.splits import split_queries
from mirage_core.pollution import PollutedPassage

THRESHOLD = 0.5
REGIMES = ("clean", "mixed", "full")


def stance(entail: float, contra: float) -> str:
    """ "E", "C" or "N" for the strongest entailment and contradiction read."""
    if entail >= THRESHOLD and entail >= contra:
        return "E"
    return "C" if contra >= THRESHOLD else "N"


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    ds = gpe(5, 200, 0)
    fit = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)[0]
    sets = [i for i in ds.instances if i.qid in fit]
    verdicts = [mirage.defend(i.query, i.passages) for i in sets]
    whole = nli.predict(
        [p.text for i in sets for p in i.passages], [i.query for i in sets for _ in i.passages]
    )
    by_claim = nli.predict(
        [c.text for v in verdicts for c in v.claims],
        [i.query for i, v in zip(sets, verdicts, strict=True) for _ in v.claims],
    )
    print("`python -m research.query_stance` (gpe-k5, fit split, default config)\n")
    w = c = 0
    for reading in ("whole passage", "strongest claim"):
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        polluted: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(4))
        kinds: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for inst, verdict in zip(sets, verdicts, strict=True):
            n = len(inst.passages)
            if reading == "whole passage":
                stances = [stance(r[0], r[2]) for r in whole[w : w + n]]
                w += n
            else:
                rows = by_claim[c : c + len(verdict.claims)]
                c += len(verdict.claims)
                stances = []
                for p in range(n):
                    mine = [
                        r
                        for r, cl in zip(rows, verdict.claims, strict=True)
                        if cl.passage_index == p
                    ]
                    stances.append(
                        stance(
                            max((r[0] for r in mine), default=0.0),
                            max((r[2] for r in mine), default=0.0),
                        )
                    )
            for item, s in zip(inst.items, stances, strict=True):
                kinds[(inst.regime, "attack" if isinstance(item, PollutedPassage) else "honest")][
                    s
                ] += 1
            contested = "E" in stances and "C" in stances
            tally = counts[inst.regime]
            tally["sets"] += 1
            tally["contested"] += contested
            if verdict.decision == "verified":
                tally["pass"] += 1
                tally["pass contested"] += contested
                labels = claim_pollution(inst, verdict.claims)
                index = {id(cl): k for k, cl in enumerate(verdict.claims)}
                delivered = [index[id(cl)] for cl in verdict.verified_claims]
                bad = float(labels[delivered].sum()) if delivered else 0.0
                polluted[inst.regime] += [bad, len(delivered), 0, 0]
                if not contested:
                    polluted[inst.regime] += [0, 0, bad, len(delivered)]
        print(f"## stance read from the {reading}\n")
        print(
            "| regime | sets | contested | pass | pass, contested blocked | polluted share of delivered claims | the same, contested blocked |"
        )
        print("|---|---|---|---|---|---|---|")
        for r in REGIMES:
            t, p = counts[r], polluted[r]
            print(
                f"| {r} | {t['sets']} | {t['contested'] / t['sets']:.1%} | {t['pass'] / t['sets']:.1%} "
                f"| {(t['pass'] - t['pass contested']) / t['sets']:.1%} | {p[0] / max(p[1], 1):.1%} "
                f"| {p[2] / max(p[3], 1):.1%} |"
            )
        print("\n| passages | entail | neutral | contradict |\n|---|---|---|---|")
        for (r, kind), k in sorted(kinds.items()):
            total = sum(k.values())
            print(
                f"| {r}, {kind} | {k['E'] / total:.1%} | {k['N'] / total:.1%} | {k['C'] / total:.1%} |"
            )
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
