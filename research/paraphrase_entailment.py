"""How often the packaged NLI model reads one page's wording of a fact as entailing another's,
on biogen-dev's clean pages, fit split (a diagnostic; it changes nothing).

A long-form request delivers only the claims another source corroborates, and the NLI model
reads the corroboration. Here every claim of a clean set is matched with the claims of *other
domains* whose sentence embedding is at least ``--cos`` close and that state every number,
month and name of it (fact coverage, as corroboration checks it). The script prints how many
claims have such a paraphrase, how many of those pairs the model calls an entailment
(p_entail > 0.5, the support edge's threshold), and how many claims the default delivers.

    python -m research.paraphrase_entailment [--k 20] [--cos 0.8]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import biogen
from mirage_core import Mirage, MirageConfig
from mirage_core.corroboration import claim_facts
from mirage_core.evaluation.calibrate import split_queries
from mirage_core.factcheck import fact_tokens


def _words(text: str) -> frozenset[str]:
    return frozenset(t for t, _ in fact_tokens(text))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--cos", type=float, default=0.8)
    p.add_argument("--biogen", default="../shared/data/biogen-dev/biogen-dev.jsonl")
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    ds = biogen(Path(args.biogen), args.k, None, 0)
    fit = set(split_queries([i.qid for i in ds.instances], 0.5, 0)[0])
    totals = dict.fromkeys(("claims", "with_pair", "pairs", "entailed", "claims_entailed"), 0)
    delivered = passed = 0
    for inst in (i for i in ds.instances if i.qid in fit and i.regime == "clean"):
        verdict = mirage.defend(inst.query, inst.passages)
        claims = verdict.claims
        if verdict.passed:
            passed += 1
            delivered += len(verdict.selected)
        domains = np.array([c.domain for c in claims])
        vectors = np.asarray(embedder.embed([c.text for c in claims]), dtype=np.float64)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        close = (vectors @ vectors.T >= args.cos) & (domains[:, None] != domains[None, :])
        hyp, prem = np.nonzero(close)  # prem's sentence as a paraphrase of hyp's
        covered = np.fromiter(
            (
                claim_facts(claims[h].text) <= _words(claims[q].text)
                for h, q in zip(hyp, prem, strict=True)
            ),
            dtype=bool,
            count=hyp.size,
        )
        hyp, prem = hyp[covered], prem[covered]
        totals["claims"] += len(claims)
        totals["with_pair"] += np.unique(hyp).size
        totals["pairs"] += hyp.size
        if hyp.size:
            probs = nli.predict([claims[q].text for q in prem], [claims[h].text for h in hyp])
            entailed = probs[:, 0] > 0.5
            totals["entailed"] += int(entailed.sum())
            totals["claims_entailed"] += np.unique(hyp[entailed]).size
    n = max(totals["claims"], 1)
    print(f"biogen-dev k = {args.k}, clean sets of the fit split; paraphrase: cosine ≥ {args.cos}")
    print(f"claims: {totals['claims']}")
    print(
        f"claims with a fact-covering paraphrase in another domain: {totals['with_pair']} "
        f"({totals['with_pair'] / n:.1%})"
    )
    print(
        f"those pairs the NLI model reads as an entailment: {totals['entailed']} of "
        f"{totals['pairs']} ({totals['entailed'] / max(totals['pairs'], 1):.1%})"
    )
    print(
        f"claims with an entailing paraphrase: {totals['claims_entailed']} "
        f"({totals['claims_entailed'] / n:.1%})"
    )
    print(
        f"claims the default delivers: {delivered} over {passed} passing sets ({delivered / n:.1%})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
