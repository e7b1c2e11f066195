"""Two sources that fill one slot with different values, read by entailment (a diagnostic;
it changes nothing).

    python -m research.slot_substitution > research/results/slot_substitution.md

The NLI model seldom calls "Pat McCormick played Big Enos" against "the role of Big Enos went
to Paul Williams" a contradiction: the sentences differ everywhere. It reads entailment between
near-copies far better. So each pair of S* claims from different sources that name facts of
the kind the question asks for (:func:`mirage_core.answer_conflict.question_kinds`) with none
in common is read twice by entailment: claim A with its fact replaced by claim B's
(:func:`substituted`), as a hypothesis that B's sentence should entail, and the other way
round. A high p_entail says that B states A's relation with another value: the two claims
fill one slot differently, however little of the question they restate. The answer-conflict
rule reads the slot lexically instead and asks each claim to restate at least 0.6 of the
question.

Per evidence kind (fit split, sets the default passes): the share of sets with such a pair, by
the share of the question each claim restates and by p_entail; the last lines list the honest
pairs found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import PINNED_QUESTIONS, family_dataset, gpe
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.answer_conflict import answer_facts, of_kind, question_kinds, question_words
from mirage_core.claims import content_tokens
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.splits import dataset_split
from mirage_core.factcheck import name_phrases
from mirage_core.relevance import stems
from mirage_core.types import Claim

SHARES = (0.0, 0.2, 0.4)
THRESHOLDS = (0.5, 0.7, 0.9)
#: Substituted hypotheses per claim pair and direction, at most.
MAX_SWAPS = 4


def surface(text: str, token: str, kind: str) -> str | None:
    """The span of ``text`` that states ``token`` (lower-cased, as :func:`answer_facts` gives
    it): for a name, the whole name phrase that holds it; else the token itself."""
    if kind == "name":
        for phrase in name_phrases(text):
            if token in phrase:
                pattern = r"\b" + r"\s".join(re.escape(w) for w in phrase) + r"\b"
                m = re.search(pattern, text, flags=re.IGNORECASE)
                if m:
                    return m.group(0)
    m = re.search(r"(?<![\w.,])" + re.escape(token) + r"(?![\w])", text, flags=re.IGNORECASE)
    if m is None and kind == "number":  # thousands separators were dropped
        m = re.search(r"\d[\d,]*\d|\d", text)
        if m and m.group(0).replace(",", "") != token:
            m = None
    return m.group(0) if m else None


def substituted(a: str, b: str, facts_a: set[str], facts_b: set[str], kind: str) -> list[str]:
    """``a`` with one of its ``kind`` facts replaced by one of ``b``'s, each way it can be."""
    out = []
    for x in sorted(facts_a):
        span_a = surface(a, x, kind)
        if not span_a:
            continue
        for y in sorted(facts_b):
            span_b = surface(b, y, kind)
            if span_b and span_b.lower() != span_a.lower():
                out.append(a.replace(span_a, span_b, 1))
    return out[:MAX_SWAPS]


def slot_pairs(query: str, claims: Sequence[Claim], selected: Sequence[int]):
    """(share, premise, hypothesis) for every substituted hypothesis of every S* pair from
    different sources that names disjoint facts of a kind the question asks for; share is the
    smaller of the two claims' shares of the question's content stems."""
    q = stems(content_tokens(query))
    if not q:
        return []
    words = question_words(query)
    facts = {i: answer_facts(claims[i].text, words, "last_word") for i in selected}
    share = {i: len(q & stems(claims[i].tokens)) / len(q) for i in selected}
    out = []
    for i, j in combinations(selected, 2):
        if claims[i].source == claims[j].source:
            continue
        for kind in question_kinds(query, "year"):
            fi, fj = of_kind(facts[i], kind), of_kind(facts[j], kind)
            if not fi or not fj or fi & fj:
                continue
            s = min(share[i], share[j])
            a, b = claims[i].text, claims[j].text
            out += [(s, b, h, i, j) for h in substituted(a, b, fi, fj, kind)]
            out += [(s, a, h, j, i) for h in substituted(b, a, fj, fi, kind)]
            break
    return out


def evidence() -> dict[str, tuple[list, str]]:
    """Evidence kind → (fit-split instances, whether it is honest / attack)."""
    out = {}
    for base in ("poisonedrag-nq", "poisonedrag-hotpotqa"):
        for fam, regime in (("blind", "full"), ("gemini_100_x", "mixed"), ("gpt4", "mixed")):
            name = family_dataset(base, fam)
            pinned = None if fam == "gpt4" else PINNED_QUESTIONS
            ds = load_dataset(name, limit=50, seed=0, pinned=pinned)
            fit = dataset_split(ds, 0.5, 0)[0]
            sets = [i for i in ds.instances if i.qid in fit and i.regime == regime]
            out[f"{name} {regime.upper()}"] = (sets, "attack")
    sq = load_shortqa(seed=0)
    fit = dataset_split(sq, 0.5, 0)[0]
    out["shortqa CLEAN"] = (
        [i for i in sq.instances if i.qid in fit and i.regime == "clean"],
        "honest",
    )
    g = gpe(5, 200, 0)
    fit = dataset_split(g, 0.5, 0)[0]
    for regime in ("clean", "full"):
        sets = [i for i in g.instances if i.qid in fit and i.regime == regime]
        out[f"gpe-k5 {regime.upper()}"] = (sets, "honest" if regime == "clean" else "attack")
    return out


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    print("`python -m research.slot_substitution` (fit split, default config; sets it passes)\n")
    print(
        "sets with a cross-source S* pair whose substituted claim the other entails, by the "
        "smaller share of the question the two claims restate (rows) and p_entail (columns)\n"
    )
    cols = [f"share ≥ {s}, p ≥ {t}" for s in SHARES for t in THRESHOLDS]
    print("| evidence | passing sets | " + " | ".join(cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    honest_pairs: list[str] = []
    for name, (sets, kind) in evidence().items():
        passing = 0
        hits = dict.fromkeys([(s, t) for s in SHARES for t in THRESHOLDS], 0)
        for inst in sets:
            verdict = mirage.defend(inst.query, inst.passages)
            if verdict.decision != "verified":
                continue
            passing += 1
            found = slot_pairs(inst.query, verdict.claims, verdict.selected)
            if not found:
                continue
            probs = nli.predict([f[1] for f in found], [f[2] for f in found])[:, 0]
            for s in SHARES:
                for t in THRESHOLDS:
                    hits[(s, t)] += any(
                        f[0] >= s and p >= t for f, p in zip(found, probs, strict=True)
                    )
            if kind == "honest":
                best = max(range(len(found)), key=lambda n: probs[n])
                if probs[best] >= THRESHOLDS[0]:
                    s, prem, hyp, _, _ = found[best]
                    honest_pairs.append(
                        f"- {name} ({inst.query[:60]}), share {s:.2f}, p {probs[best]:.2f}: "
                        f"“{prem[:120]}” ⊨ “{hyp[:120]}”"
                    )
        cells = " | ".join(f"{hits[k] / max(passing, 1):.0%}" for k in hits)
        print(f"| {name} | {passing} | {cells} |")
    print("\nhonest sets' strongest pair at p ≥ 0.5:\n")
    print("\n".join(honest_pairs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
