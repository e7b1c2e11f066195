"""How often an NLI model reads one page's wording of a fact as entailing another's, on
biogen-dev, fit split (a diagnostic; it changes nothing).

A long-form request delivers only the claims another source corroborates, and the NLI model
reads the corroboration. Every claim of a set is matched with the claims of *other domains*
whose sentence embedding is at least ``--cos`` close and that state every number, month and
name of it (fact coverage, as corroboration checks it).

- **Clean sets:** how many claims have such a paraphrase, how many of those pairs the model
  calls an entailment (p_entail > 0.5, the support edge's threshold: recall), and how many
  claims the default delivers.
- **MIXED sets** (every pollution family): the same for the *polluted* claims, whose
  paraphrase is the page's unedited wording elsewhere. An entailment here is support the
  model would lend to an edit (a false vouch), a contradiction (p_contra > p_entail) what
  would stop it.

    python -m research.paraphrase_entailment [--k 20] [--cos 0.8] [--model DIR]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import biogen
from mirage_core import Mirage, MirageConfig
from mirage_core.corroboration import claim_facts, stated_words
from mirage_core.evaluation.measures import claim_pollution
from mirage_core.evaluation.splits import split_queries


def paraphrase_pairs(claims, embedder, cos: float) -> tuple[np.ndarray, np.ndarray]:
    """(hypothesis, premise) claim indices: other-domain claims at cosine ≥ ``cos`` whose words
    state every fact of the hypothesis."""
    domains = np.array([c.domain for c in claims])
    vectors = np.asarray(embedder.embed([c.text for c in claims]), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    close = (vectors @ vectors.T >= cos) & (domains[:, None] != domains[None, :])
    hyp, prem = np.nonzero(close)
    covered = np.fromiter(
        (
            claim_facts(claims[h].text) <= stated_words(claims[q].text)
            for h, q in zip(hyp, prem, strict=True)
        ),
        dtype=bool,
        count=hyp.size,
    )
    return hyp[covered], prem[covered]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--cos", type=float, default=0.8)
    p.add_argument("--model", default=None, help="NLI model directory (default: the packaged one)")
    p.add_argument("--biogen", default="../shared/data/biogen-dev/biogen-dev.jsonl")
    args = p.parse_args(argv)
    nli, embedder = stored_models(model=args.model)
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    ds = biogen(Path(args.biogen), args.k, None, 0)
    fit = set(split_queries([i.qid for i in ds.instances], 0.5, 0)[0])
    clean = Counter()
    polluted: dict[str, Counter] = {}
    delivered = passed = 0
    for inst in (i for i in ds.instances if i.qid in fit and i.regime in ("clean", "mixed")):
        verdict = mirage.defend(inst.query, inst.passages)
        claims = verdict.claims
        if inst.regime == "clean" and verdict.passed:
            passed += 1
            delivered += len(verdict.selected)
        hyp, prem = paraphrase_pairs(claims, embedder, args.cos)
        if inst.regime == "mixed":
            bad = claim_pollution(inst, claims)
            keep = bad[hyp] & ~bad[prem]
            hyp, prem = hyp[keep], prem[keep]
            tally = polluted.setdefault(inst.family, Counter())
            tally["claims"] += int(bad.sum())
        else:
            tally = clean
            tally["claims"] += len(claims)
        tally["with_pair"] += np.unique(hyp).size
        tally["pairs"] += hyp.size
        if hyp.size:
            probs = nli.predict([claims[q].text for q in prem], [claims[h].text for h in hyp])
            entailed = probs[:, 0] > 0.5
            tally["entailed"] += int(entailed.sum())
            tally["contra"] += int((probs[:, 2] > probs[:, 0]).sum())
            tally["claims_entailed"] += np.unique(hyp[entailed]).size
    model = args.model or "the packaged model"
    n = max(clean["claims"], 1)
    print(f"biogen-dev k = {args.k}, fit split; paraphrase: cosine ≥ {args.cos}; NLI: {model}")
    print(f"clean claims: {clean['claims']}")
    print(
        f"claims with a fact-covering paraphrase in another domain: {clean['with_pair']} "
        f"({clean['with_pair'] / n:.1%})"
    )
    print(
        f"those pairs the NLI model reads as an entailment: {clean['entailed']} of "
        f"{clean['pairs']} ({clean['entailed'] / max(clean['pairs'], 1):.1%})"
    )
    print(
        f"claims with an entailing paraphrase: {clean['claims_entailed']} "
        f"({clean['claims_entailed'] / n:.1%})"
    )
    print(
        f"claims the default delivers: {delivered} over {passed} passing sets ({delivered / n:.1%})"
    )
    print("MIXED, polluted claims against an unedited paraphrase elsewhere:")
    print(
        "| family | polluted claims | with a paraphrase | pairs | read as entailment | leaning to contradiction |"
    )
    print("|---|---|---|---|---|---|")
    for fam, t in sorted(polluted.items()):
        pairs = max(t["pairs"], 1)
        print(
            f"| {fam} | {t['claims']} | {t['with_pair']} | {t['pairs']} | "
            f"{t['entailed'] / pairs:.1%} | {t['contra'] / pairs:.1%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
