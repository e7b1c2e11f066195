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

A second table narrows the pair at cosine 0.85 towards "one statement with one value swapped"
(honest pages that report one topic at different dates differ in more than one kind): the
values compared in their equivalent forms (:func:`mirage_core.fact_forms.stated_forms`: "every
2 years" and "every two years" agree); then only one kind differing, every other kind that both
state sharing a value; then also at least one such other kind. And biogen-dev's fit split at
k = 10 joins the sets.
"""

from __future__ import annotations

import re

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.splits import split_queries
from mirage_core.fact_forms import stated_forms
from mirage_core.factcheck import MONTHS
from research.request_corroboration import _biogen

THRESHOLDS = (0.8, 0.85, 0.9)
#: the narrower readings of the second table, at cosine NARROW_AT
NARROWED = ("any kind", "equivalent forms", "one kind", "one kind, another agreeing")
NARROW_AT = 0.85
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


def narrowed(claims, vectors: np.ndarray) -> dict[str, bool]:
    """Per reading of :data:`NARROWED`: whether the claims hold such a pair at cosine ≥
    :data:`NARROW_AT`."""
    values_of = [values(c.text) for c in claims]
    forms = [stated_forms(c.text) for c in claims]
    hit = dict.fromkeys(NARROWED, False)
    for a, b, _ in value_pairs(claims, vectors, NARROW_AT):
        va, vb = values_of[a], values_of[b]
        hit["any kind"] = True
        # a kind differs only if neither side states the other's values in any form
        differ = [
            k for k in va if va[k] and vb[k] and not (va[k] & forms[b]) and not (vb[k] & forms[a])
        ]
        hit["equivalent forms"] |= bool(differ)
        if len(differ) != 1:
            continue
        others = [k for k in va if k not in differ and va[k] and vb[k]]
        if all(va[k] & vb[k] for k in others):
            hit["one kind"] = True
            hit["one kind, another agreeing"] |= bool(others)
    return hit


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    sets = {
        "gpe-k5": (gpe(5, 200, 0), ("clean", "mixed", "full")),
        "gpe-snip-k5": (gpe_snippets(5, 200, 0), ("clean", "full")),
        "shortqa": (load_shortqa(seed=0), ("clean",)),
        "biogen-k10": (_biogen(10), ("clean", "mixed", "full")),
    }
    print("`python -m research.value_conflicts` (fit split, default config)\n")
    print("passing sets with a close cross-source pair of different values, by cosine threshold\n")
    print("| evidence | passing sets | " + " | ".join(f"≥ {t}" for t in THRESHOLDS) + " |")
    print("|---|---|" + "---|" * len(THRESHOLDS))
    honest: list[str] = []
    narrow_rows: list[str] = []
    for name, (ds, regimes) in sets.items():
        fit = split_queries(sorted({i.qid for i in ds.instances}), 0.5, 0)[0]
        for regime in regimes:
            passing = 0
            hits = dict.fromkeys(THRESHOLDS, 0)
            narrow = dict.fromkeys(NARROWED, 0)
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
                for reading, found in narrowed(claims, vectors).items():
                    narrow[reading] += found
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
            narrow_rows.append(
                f"| {name} {regime.upper()} | {passing} | "
                + " | ".join(f"{narrow[r]} ({narrow[r] / max(passing, 1):.0%})" for r in NARROWED)
                + " |"
            )
    print(f"\nthe same pair at cosine ≥ {NARROW_AT}, narrowed (passing sets with one)\n")
    print("| evidence | passing sets | " + " | ".join(NARROWED) + " |")
    print("|---|---|" + "---|" * len(NARROWED))
    print("\n".join(narrow_rows))
    print(f"\nhonest sets' first such pair at cosine ≥ {THRESHOLDS[0]}:\n")
    print("\n".join(honest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
