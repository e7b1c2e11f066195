"""Does another source's whole passage vouch for a claim where no sentence of it does? Support
read with the passage as the premise, against today's sentence-to-sentence support, fit split
only (a diagnostic; it changes nothing and chooses nothing).

Honest pages seldom restate each other sentence by sentence: a fact one page states in one
sentence, another spreads over two, or names its subject once and then writes "the tower". The
NLI model then reads no support between any two sentences, the claim stays uncorroborated, and
"deliver what an independent source corroborates, else fall back" blocks most honest short
evidence (`research/results/corroboration_bound-gpe-longform.md`). This counts, per set, how
much of S* (the default's selection) another independence group corroborates:

- ``sentence``: today's reading: an NLI support edge (p_entail > 0.5) from a claim of another
  group, whose sentence states every fact of the claim (fact coverage);
- ``passage``: the NLI model reads each passage of another group whole as the premise of the
  claim (truncated with the pair to 256 tokens), p_entail > 0.5, and the passage states every
  fact of the claim;
- ``either``: one or the other.

Per dataset and regime: the sets the default passes; of those, the share with at least one
corroborated claim in S* (what "corroborated, else fall back" would still pass: high is good
on honest evidence, low on attack-only evidence); the share of S*'s claims corroborated; and
where the protocol edited a passage, the share of S*'s polluted claims corroborated (support
that vouches for an edit) and the polluted share of what each reading would deliver.

    python -m research.passage_support [--sets NAME,...] > research/results/passage_support.md
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import gpe, gpe_longform
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.corroboration import claim_facts, corroborate, stated_words
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.instances import Dataset, Instance
from mirage_core.evaluation.measures import claim_pollution
from mirage_core.evaluation.splits import split_queries
from mirage_core.graph import SourcedGraph
from mirage_core.verdict import Verdict

READINGS = ("sentence", "passage", "either")

#: name → loader; the scoreboard's sizes and seed, but a family's first 20 questions only (the
#: scoreboard's pinned ones; it runs 50)
SETS: dict[str, Callable[[], Dataset]] = {
    "gpe-longform": lambda: gpe_longform(50, 0),
    "gpe-k5": lambda: gpe(5, 200, 0),
    "shortqa": lambda: load_shortqa(seed=0),
    "poisonedrag-nq": lambda: load_dataset("poisonedrag-nq", limit=50, seed=0),
    "poisonedrag-hotpotqa": lambda: load_dataset("poisonedrag-hotpotqa", limit=50, seed=0),
    **{
        f"{base}:{family}": (lambda n=f"{base}:{family}": load_dataset(n, limit=20, seed=0))
        for base in ("poisonedrag-nq", "poisonedrag-hotpotqa")
        for family in ("blind", "gemini_100_x", "gemini", "token_soup")
    },
}


def sentence_support(verdict: Verdict) -> np.ndarray:
    """Per claim: supported (w_supp > 0) by a claim of another group whose sentence states
    every fact of it (the engine's :func:`~mirage_core.corroboration.corroborate` with fact
    coverage, the quarantine aside)."""
    _, groups = np.unique([c.group for c in verdict.claims], return_inverse=True)
    sourced = SourcedGraph(verdict.graph, groups, verdict.support)
    return corroborate(verdict.claims, sourced, fact_coverage=True).counts > 0


def passage_support(nli, instance: Instance, verdict: Verdict, claims: Sequence[int]) -> np.ndarray:
    """Per claim of ``claims``: some passage of another group entails it (p_entail > 0.5) and
    states every fact of it."""
    out = np.zeros(len(verdict.claims), dtype=bool)
    passages = instance.passages
    group_of = {c.passage_index: c.group for c in verdict.claims}
    pairs, owners = [], []
    for i in claims:
        c = verdict.claims[i]
        facts = claim_facts(c.text)
        for j, passage in enumerate(passages):
            if j == c.passage_index or group_of.get(j, passage.domain) == c.group:
                continue
            if facts <= stated_words(passage.text):
                pairs.append((passage.text, c.text))
                owners.append(i)
    if pairs:
        probs = np.asarray(nli.predict([a for a, _ in pairs], [b for _, b in pairs]))
        for i, p in zip(owners, probs[:, 0].tolist(), strict=True):
            if p > 0.5:
                out[i] = True
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", default=",".join(SETS), help="comma-separated names of SETS")
    args = p.parse_args(argv)
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    print("# Support read with the whole passage as premise, fit split\n")
    print("`python -m research.passage_support`; default config; S* = the default's selection.\n")
    print(
        "| set | regime | sets | passed | passed with a corroborated claim: sentence / passage "
        "/ either | S* claims corroborated: sentence / passage / either | polluted S* claims "
        "corroborated: sentence / passage / either | polluted share delivered if only "
        "corroborated: sentence / passage / either |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        ds = SETS[name]()
        fit, _ = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)
        by_regime: dict[str, list[Instance]] = {}
        for inst in ds.instances:
            if inst.qid in fit:
                by_regime.setdefault(inst.regime, []).append(inst)
        for regime, sets in sorted(by_regime.items()):
            passed = 0
            with_corr = dict.fromkeys(READINGS, 0)
            n_sel, corr = 0, dict.fromkeys(READINGS, 0)
            n_pol, pol_corr = 0, dict.fromkeys(READINGS, 0)
            for inst in sets:
                verdict = mirage.defend(inst.query, inst.passages)
                if verdict.decision != "verified":
                    continue
                passed += 1
                sel = list(verdict.selected)
                sentence = sentence_support(verdict)
                passage = passage_support(nli, inst, verdict, sel)
                reading = {"sentence": sentence, "passage": passage, "either": sentence | passage}
                polluted = claim_pollution(inst, verdict.claims)
                n_sel += len(sel)
                n_pol += int(polluted[sel].sum())
                for r, v in reading.items():
                    with_corr[r] += bool(v[sel].any())
                    corr[r] += int(v[sel].sum())
                    pol_corr[r] += int((v & polluted)[sel].sum())

            def pc(a: int, b: int) -> str:
                return "—" if b == 0 else f"{100 * a / b:.1f}%"

            print(
                f"| {name} | {regime} | {len(sets)} | {passed} | "
                + " / ".join(pc(with_corr[r], passed) for r in READINGS)
                + " | "
                + " / ".join(pc(corr[r], n_sel) for r in READINGS)
                + " | "
                + " / ".join(pc(pol_corr[r], n_pol) for r in READINGS)
                + " | "
                + " / ".join(pc(pol_corr[r], corr[r]) for r in READINGS)
                + " |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
