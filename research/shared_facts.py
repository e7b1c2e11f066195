"""Whether independent sources stating a common fact tells honest evidence from planted
evidence (a diagnostic; it changes nothing).

    python -m research.shared_facts > research/results/shared_facts.txt

A *shared fact* is a fact token (:func:`mirage_core.corroboration.claim_facts`: a number, a
month, a name) that two or more independent sources state and the query does not. Read without
the NLI model, it is a corroboration of far higher recall than NLI support. Two tables, fit
split, the default config:

1. Sets the coordination signals quarantine whole (S* empty): the shared facts of all their
   passages, for honest shortqa pages and for the poisons alone of every attack family. Would
   "the sources corroborate several facts besides the answer" release the honest sets?
2. Passing verdicts whose S* spans two or more sources: how many share no fact. Would
   "nothing corroborated, fall back", read as "a pass needs one fact that two sources of S*
   state", catch attack passes at an honest cost the scoreboard can carry?
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from benchmarks import families as fam
from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import PINNED_QUESTIONS, PRAG_SETS, family_dataset, gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.corroboration import claim_facts
from mirage_core.evaluation.calibrate import dataset_split
from mirage_core.evaluation.datasets import Dataset, load_dataset
from mirage_core.evaluation.harness import contains_answer


def shared_facts(query: str, texts: Sequence[tuple[str, str]]) -> int:
    """How many facts outside ``query`` at least two of the ``(source, text)`` items state."""
    asked = claim_facts(query) | {w.lower() for w in query.split()}
    sources: dict[str, set[str]] = defaultdict(set)
    for source, text in texts:
        for fact in claim_facts(text) - asked:
            sources[fact].add(source)
    return sum(1 for s in sources.values() if len(s) >= 2)


def fit_sets(ds: Dataset, regime: str) -> Iterable:
    fit = dataset_split(ds, 0.5, 0)[0]
    return (i for i in ds.instances if i.regime == regime and i.qid in fit)


def family_sets() -> Iterable[tuple[str, Dataset]]:
    for base in PRAG_SETS:
        for family in fam.FAMILIES:
            name = family_dataset(base, family)
            pinned = None if family == "gpt4" else PINNED_QUESTIONS
            yield name, load_dataset(name, limit=50, seed=0, pinned=pinned)


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    families = list(family_sets())

    print("# Shared facts: two or more independent sources stating a fact the query does not\n")
    print("Fit split, default config; `python -m research.shared_facts`.\n")
    print("## 1. Sets the coordination signals quarantine whole (S* empty)\n")
    print("share of the sets with at least t shared facts among all their passages\n")
    whole: dict[str, list[int]] = {"shortqa CLEAN (honest)": [], "poisons alone, every family": []}
    sets = [("shortqa CLEAN (honest)", load_shortqa(seed=0), "clean")]
    sets += [("poisons alone, every family", ds, "full") for _, ds in families]
    for label, ds, regime in sets:
        for inst in fit_sets(ds, regime):
            verdict = mirage.defend(inst.query, inst.passages)
            if verdict.decision == "verified" or verdict.selected:
                continue
            texts = [(p.domain or p.source or str(i), p.text) for i, p in enumerate(inst.passages)]
            whole[label].append(shared_facts(inst.query, texts))
    ts = range(2, 10)
    print("| evidence | sets | " + " | ".join(f"t = {t}" for t in ts) + " |")
    print("|---|---|" + "---|" * len(ts))
    for label, counts in whole.items():
        xs = np.array(counts)
        cells = " | ".join(f"{np.mean(xs >= t) * 100:.0f}%" for t in ts)
        print(f"| {label} | {len(xs)} | {cells} |")

    print("\n## 2. Passing verdicts whose S* spans two or more sources\n")
    print("| evidence | regime | sets | passed | S* on ≥ 2 sources | of them no shared fact |")
    print("|---|---|---|---|---|---|")
    rows = [
        ("shortqa", load_shortqa(seed=0), ("clean", "mixed", "full")),
        ("gpe-k5", gpe(5, 200, 0), ("clean", "full")),
        ("gpe-snip-k5", gpe_snippets(5, 200, 0), ("clean", "full")),
        ("gpe-k10", gpe(10, 100, 0), ("clean", "full")),
    ]
    rows += [(name, ds, ("mixed", "full")) for name, ds in families]
    for name, ds, regimes in rows:
        for regime in regimes:
            n = passed = several = unshared = wrong = wrong_unshared = 0
            for inst in fit_sets(ds, regime):
                n += 1
                verdict = mirage.defend(inst.query, inst.passages)
                if verdict.decision != "verified":
                    continue
                passed += 1
                kept = [verdict.claims[i] for i in verdict.selected]
                delivered = " ".join(c.text for c in kept)
                is_wrong = regime == "mixed" and contains_answer(
                    delivered, inst.incorrect, besides=inst.correct
                )
                wrong += is_wrong
                if len({c.domain for c in kept}) < 2:
                    continue
                several += 1
                if shared_facts(inst.query, [(c.domain, c.text) for c in kept]) == 0:
                    unshared += 1
                    wrong_unshared += is_wrong
            note = f"; wrong answer delivered {wrong}, of them no shared fact {wrong_unshared}"
            tail = note if regime == "mixed" else ""
            print(f"| {name} | {regime} | {n} | {passed} | {several} | {unshared}{tail} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
