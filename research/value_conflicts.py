"""Close paraphrases from two sources that state different values (a diagnostic; it changes
nothing).

    python -m research.value_conflicts > research/results/value_conflicts.md

Attack pages that invent one event's details give it different dates and sums on each page
("$28 million" / "$35 million" / "$42 million" for one appearance). The NLI model reads some of
those pairs as contradictions and honest pairs of the same kind too (2026-12-05), so this reads
them without it: two claims of different sources whose sentence embeddings are close (cosine
at least a threshold) and that both state a value of one kind (a year, another number, a
month) but share none of that kind. Per set of the fit split that the default passes: is there
such a pair? A rule that blocked those sets would cost the honest sets that have one and stop
the attack sets that have one; the last lines list the honest pairs at the lowest threshold.
"""

from __future__ import annotations

import re

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.splits import split_queries
from mirage_core.factcheck import MONTHS

THRESHOLDS = (0.8, 0.85, 0.9)
_NUMBER = re.compile(r"\$?\d+(?:[.,]\d+)*%?")
_YEAR = re.compile(r"1\d{3}|20\d{2}")


def values(text: str) -> dict[str, set[str]]:
    """The years, other numbers and months ``text`` states."""
    numbers = {x.replace(",", "").lstrip("$") for x in _NUMBER.findall(text)}
    years = {x for x in numbers if _YEAR.fullmatch(x)}
    months = {w for w in re.findall(r"[a-z]+", text.lower()) if w in MONTHS}
    return {"year": years, "number": numbers - years, "month": months}


def value_pairs(claims, vectors: np.ndarray, threshold: float) -> list[tuple[int, int, float]]:
    """Cross-source claim pairs at cosine ≥ ``threshold`` that state values of one kind and
    share none of that kind."""
    values_of = [values(c.text) for c in claims]
    sims = vectors @ vectors.T
    found = []
    for a in range(len(claims)):
        for b in range(a + 1, len(claims)):
            if claims[a].source == claims[b].source or sims[a, b] < threshold:
                continue
            va, vb = values_of[a], values_of[b]
            if any(va[k] and vb[k] and not va[k] & vb[k] for k in va):
                found.append((a, b, float(sims[a, b])))
    return found


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    sets = {
        "gpe-k5": (gpe(5, 200, 0), ("clean", "mixed", "full")),
        "gpe-snip-k5": (gpe_snippets(5, 200, 0), ("clean", "full")),
        "shortqa": (load_shortqa(seed=0), ("clean",)),
    }
    print("`python -m research.value_conflicts` (fit split, default config)\n")
    print("passing sets with a close cross-source pair of different values, by cosine threshold\n")
    print("| evidence | passing sets | " + " | ".join(f"≥ {t}" for t in THRESHOLDS) + " |")
    print("|---|---|" + "---|" * len(THRESHOLDS))
    honest: list[str] = []
    for name, (ds, regimes) in sets.items():
        fit = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)[0]
        for regime in regimes:
            passing = 0
            hits = dict.fromkeys(THRESHOLDS, 0)
            for inst in ds.instances:
                if inst.qid not in fit or inst.regime != regime:
                    continue
                verdict = mirage.defend(inst.query, inst.passages)
                if verdict.decision != "verified":
                    continue
                passing += 1
                claims = verdict.claims
                if len(claims) < 2:
                    continue
                vectors = embedder.embed([c.text for c in claims])
                for t in THRESHOLDS:
                    pairs = value_pairs(claims, vectors, t)
                    hits[t] += bool(pairs)
                    if regime == "clean" and t == THRESHOLDS[0]:
                        honest += [
                            f"- {name}, cosine {s:.2f}: “{claims[a].text[:110]}” / "
                            f"“{claims[b].text[:110]}”"
                            for a, b, s in pairs[:1]
                        ]
            cells = " | ".join(f"{hits[t]} ({hits[t] / max(passing, 1):.0%})" for t in THRESHOLDS)
            print(f"| {name} {regime.upper()} | {passing} | {cells} |")
    print(f"\nhonest sets' first such pair at cosine ≥ {THRESHOLDS[0]}:\n")
    print("\n".join(honest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
