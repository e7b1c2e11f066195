"""Whether independent sources stating a common fact tells honest evidence from planted
evidence, read two ways the gate could use (a diagnostic; it changes nothing).

    python -m research.shared_facts > research/results/shared_facts.txt

A *shared fact* is a fact token (a number, a month, a name:
:func:`research.separation_probes.shared_fact_count`, which the ``shared-facts`` probe there
counts over every set) outside the query that two or more independent sources state. Read
without the NLI model, it is a corroboration of far higher recall than NLI support. Two tables,
fit split, the default config:

1. Sets the coordination signals quarantine whole (S* empty): the shared facts of all their
   passages, for honest shortqa pages and for the poisons alone of every attack family. Would
   "the sources corroborate several facts besides the answer" release the honest sets?
2. Passing verdicts whose S* spans two or more sources: how many share no fact. Would
   "nothing corroborated, fall back", read as "a pass needs one fact that two sources of S*
   state", catch attack passes at an honest cost the scoreboard can carry?
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from benchmarks import families as fam
from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import PINNED_QUESTIONS, PRAG_SETS, family_dataset, gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.measures import contains_answer
from mirage_core.evaluation.splits import dataset_split
from research.separation_probes import passage_sentences, shared_fact_count

WHOLE_HONEST, WHOLE_POISONS = "shortqa CLEAN (honest)", "poisons alone, every family"


def sets() -> Iterator[tuple[str, Dataset, tuple[str, ...]]]:
    """(name, dataset, regimes read) of every set, each loaded once."""
    yield "shortqa", load_shortqa(seed=0), ("clean", "mixed", "full")
    yield "gpe-k5", gpe(5, 200, 0), ("clean", "full")
    yield "gpe-snip-k5", gpe_snippets(5, 200, 0), ("clean", "full")
    yield "gpe-k10", gpe(10, 100, 0), ("clean", "full")
    for base in PRAG_SETS:
        for family in fam.FAMILIES:
            name = family_dataset(base, family)
            pinned = None if family == "gpt4" else PINNED_QUESTIONS
            yield name, load_dataset(name, limit=50, seed=0, pinned=pinned), ("mixed", "full")


def whole_label(name: str, regime: str) -> str | None:
    """The row of table 1 a set counts in, if any."""
    if (name, regime) == ("shortqa", "clean"):
        return WHOLE_HONEST
    return WHOLE_POISONS if name.startswith("poisonedrag") and regime == "full" else None


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    whole: dict[str, list[int]] = {WHOLE_HONEST: [], WHOLE_POISONS: []}
    rows: list[str] = []
    for name, ds, regimes in sets():
        fit = dataset_split(ds, 0.5, 0)[0]
        for regime in regimes:
            n = passed = several = unshared = wrong = wrong_unshared = 0
            for inst in (i for i in ds.instances if i.regime == regime and i.qid in fit):
                n += 1
                verdict = mirage.defend(inst.query, inst.passages)
                label = whole_label(name, regime)
                if label and verdict.decision != "verified" and not verdict.selected:
                    whole[label].append(
                        shared_fact_count(inst.query, passage_sentences(inst.passages))
                    )
                if verdict.decision != "verified":
                    continue
                passed += 1
                kept = [verdict.claims[i] for i in verdict.selected]
                is_wrong = regime == "mixed" and contains_answer(
                    " ".join(c.text for c in kept), inst.incorrect, besides=inst.correct
                )
                wrong += is_wrong
                if len({c.domain for c in kept}) < 2:
                    continue
                several += 1
                if shared_fact_count(inst.query, [(c.domain, c.text) for c in kept]) == 0:
                    unshared += 1
                    wrong_unshared += is_wrong
            note = f"; wrong answer delivered {wrong}, of them no shared fact {wrong_unshared}"
            tail = note if regime == "mixed" else ""
            rows.append(f"| {name} | {regime} | {n} | {passed} | {several} | {unshared}{tail} |")

    print("# Shared facts: two or more independent sources stating a fact the query does not\n")
    print("Fit split, default config; `python -m research.shared_facts`.\n")
    print("## 1. Sets the coordination signals quarantine whole (S* empty)\n")
    print("share of the sets with at least t shared facts among all their passages\n")
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
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
