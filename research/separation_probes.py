"""Probes for a signal that tells planted evidence from honest evidence without the NLI model,
on the fit split (a diagnostic: it changes nothing and chooses nothing).

Each probe counts one candidate signal in honest sets (gpe-eval and shortqa CLEAN) and in
attack sets (PoisonedRAG and its families, FULL or MIXED), so a rule built on it can be judged
before it is declared:

- ``shared-facts``: facts (numbers, months, names) outside the query that at least two
  publishers of the set state. Honest pages should share context facts; independently
  generated poisons only the planted answer.
- ``corroborated-fact``: among passing verdicts, whether a delivered claim shares a fact
  outside the query with another independence group's claims, with and without a quarantine.
- ``question-lead``: passages with a question sentence before another sentence (the FAQ form,
  where the answer sits in the sentence after the question).
- ``group-words``: among passes after a quarantine, whether what is delivered carries the words
  every member of a flagged group carries (a remaining poison that states the group's answer).
- ``negated-wrong``: MIXED sets whose delivered claims contain a planted answer; how many
  mention it only beside a negation (the wrong-answer measure is a substring match).
- ``supported-claim``: among passing verdicts, whether a delivered claim has an NLI support
  edge from a kept claim of another independence group, or else a paraphrase there (sentence
  cosine at least ``paraphrase_threshold``): what a rule "deliver only what is corroborated,
  else fall back" would keep, read off the scored pairs and the embedder.
- ``answer-agreement``: among passing verdicts, whether two kept claims of different groups
  name a common fact of a kind the question asks for (``question_kinds``), among the claims
  that restate the question as the answer-slot rule asks (``answer_conflict``), or among any:
  the answer-slot rule's agreeing side, which honest pages should have and blind ones not.

    python -m research.separation_probes > research/results/separation_probes.md
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import family_dataset, gpe, gpe_snippets
from benchmarks.shortqa import load_shortqa
from mirage_core import Mirage, MirageConfig
from mirage_core.answer_conflict import answer_facts, question_kinds, question_words
from mirage_core.claims import content_tokens, split_sentences
from mirage_core.corroboration import claim_facts
from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.splits import split_queries
from mirage_core.relevance import stems

FAMILIES = ("gpt4", "paraphrase", "synonym", "dispersed", "gemini", "gemini_100", "gemini_100_x")
FAMILIES += ("blind", "token_soup", "question_appended", "question_prepended", "hedging")
FAMILIES += ("several_answers", "padded")
_NEGATION = re.compile(
    r"\b(not|n't|never|no|isn't|wasn't|aren't|weren't|rather than|instead of|incorrect|"
    r"mistaken|myth|misconception|contrary)\b",
    re.IGNORECASE,
)


HONEST = ("gpe-k5", "gpe-snip-k5", "shortqa")


def _query_words(query: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", query.lower()))


def _sets() -> Iterator[tuple[str, str, Dataset]]:
    """(label, regime, dataset) of every probed set; honest sets first."""
    yield "gpe-k5", "clean", gpe(5, 100, 0)
    yield "gpe-snip-k5", "clean", gpe_snippets(5, 100, 0)
    yield "shortqa", "clean", load_shortqa(seed=0)
    for base in ("poisonedrag-nq", "poisonedrag-hotpotqa"):
        for family in FAMILIES:
            name = family_dataset(base, family)
            ds = load_dataset(name, limit=50 if family == "gpt4" else 20, seed=0)
            for regime in ("full", "mixed"):
                yield name, regime, ds


def _fit(ds: Dataset, regime: str) -> list[Any]:
    fit = set(split_queries([i.qid for i in ds.instances], 0.5, 0)[0])
    return [i for i in ds.instances if i.qid in fit and i.regime == regime]


def shared_fact_count(query: str, sentences: Iterable[tuple[str, str]]) -> int:
    """How many facts (:func:`claim_facts`, read sentence by sentence) outside ``query`` at
    least two sources state; ``sentences``: ``(source, sentence)`` pairs."""
    q = _query_words(query)
    facts: dict[str, set[str]] = {}
    for source, sentence in sentences:
        facts.setdefault(source, set()).update(claim_facts(sentence) - q)
    counts = Counter(f for fs in facts.values() for f in fs)
    return sum(1 for c in counts.values() if c >= 2)


def passage_sentences(passages: Iterable[Any]) -> Iterator[tuple[str, str]]:
    """``(publisher, sentence)`` of every sentence of ``passages``."""
    for p in passages:
        for a, b in split_sentences(p.text):
            yield p.domain or p.text[:40], p.text[a:b]


def shared_facts(inst: Any, _verdict: Any) -> str:
    n = shared_fact_count(inst.query, passage_sentences(inst.passages))
    return "0-1" if n <= 1 else "2-3" if n <= 3 else "4+"


def _quarantined(v: Any) -> bool:
    return bool(v.coordination and v.coordination.passages)


def corroborated_fact(inst: Any, v: Any) -> str:
    if not v.passed:
        return "fallback"
    q, out = _query_words(v.query), set(v.coordination.passages if _quarantined(v) else ())
    by_group: dict[str, set[str]] = {}
    for c in v.claims:
        if c.passage_index not in out:
            by_group.setdefault(c.group, set()).update(claim_facts(c.text) - q)
    hit = any(
        (claim_facts(c.text) - q) & fs
        for c in v.verified_claims
        for g, fs in by_group.items()
        if g != c.group
    )
    return f"pass, {'quarantine' if out else 'no quarantine'}, {'a fact' if hit else 'no fact'}"


def question_lead(inst: Any, _verdict: Any) -> str:
    for p in inst.passages:
        sentences = [p.text[a:b].rstrip() for a, b in split_sentences(p.text)]
        if any(s.endswith("?") for s in sentences[:-1]):
            return "a passage has one"
    return "none"


def group_words(inst: Any, v: Any) -> str:
    if not v.passed or not _quarantined(v):
        return "fallback" if not v.passed else "pass, no quarantine"
    shared = {w for g in v.coordination.signals for w in g.shared}
    delivered = {w for c in v.verified_claims for w in content_tokens(c.text)}
    return f"pass after a quarantine, {'carries' if shared & delivered else 'without'} them"


def negated_wrong(inst: Any, v: Any) -> str:
    hits = [
        c.text
        for c in v.verified_claims
        if any(a.lower() in c.text.lower() for a in (inst.incorrect or ()))
    ]
    if not hits:
        return "no planted answer delivered"
    return "negated only" if all(_NEGATION.search(h) for h in hits) else "asserted"


def _kept(v: Any) -> np.ndarray:
    """Per claim of ``v``: whether its passage was kept (not quarantined)."""
    out = set(v.coordination.passages) if _quarantined(v) else set()
    return np.fromiter((c.passage_index not in out for c in v.claims), bool, len(v.claims))


def supported_claim(inst: Any, v: Any, embedder: Any, threshold: float | None = None) -> str:
    if not v.passed:
        return "fallback"
    kept, group = _kept(v), np.array([c.group for c in v.claims], dtype=object)
    delivered = np.zeros(len(v.claims), bool)
    delivered[list(v.selected)] = True
    g = v.graph
    edge = (g.w_supp > 0) & kept[g.premise] & delivered[g.hypothesis]
    if (edge & (group[g.premise] != group[g.hypothesis])).any():
        return "pass, NLI support"
    if threshold is None:
        threshold = MirageConfig().method.paraphrase_threshold
    vectors = embedder.embed([c.text for c in v.claims])
    close = (vectors @ vectors.T >= threshold) & (group[:, None] != group[None, :])
    if (close[delivered][:, kept]).any():
        return "pass, a paraphrase only"
    return "pass, neither"


def answer_agreement(inst: Any, v: Any, share: float = 0.6) -> str:
    if not v.passed:
        return "fallback"
    q, words, kinds = (
        stems(content_tokens(v.query)),
        question_words(v.query),
        question_kinds(v.query),
    )
    # (fact, group) pairs: a fact two groups name is an agreement
    found: dict[str, set[tuple[tuple[str, str], str]]] = {"restating": set(), "any": set()}
    for c, keep in zip(v.claims, _kept(v), strict=True):
        if not keep:
            continue
        facts = answer_facts(c.text, words, "last_word")
        named = {((kind, t), c.group) for kind in kinds for t in facts.get(kind, ())}
        found["any"] |= named
        if bool(q) and len(q & stems(c.tokens)) / len(q) >= share:
            found["restating"] |= named
    for scope in ("restating", "any"):
        per_fact = Counter(key for key, _group in found[scope])
        if any(n >= 2 for n in per_fact.values()):
            return f"pass, agree ({'claims restating the question' if scope == 'restating' else 'any claims'})"
    return "pass, no agreement"


Probe = Callable[[Any, Any], str]


def probes(embedder: Any) -> dict[str, tuple[Probe, tuple[str, ...]]]:
    """name: (probe of an instance and its default verdict, regimes of the attack sets)."""
    return {
        "shared-facts": (shared_facts, ("full",)),
        "corroborated-fact": (corroborated_fact, ("full",)),
        "question-lead": (question_lead, ("full",)),
        "group-words": (group_words, ("full", "mixed")),
        "negated-wrong": (negated_wrong, ("mixed",)),
        "supported-claim": (lambda i, v: supported_claim(i, v, embedder), ("full",)),
        "answer-agreement": (answer_agreement, ("full",)),
    }


def main() -> int:
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig(), nli=nli, embedder=embedder)
    probed = probes(embedder)
    tables: dict[str, list[str]] = {name: [] for name in probed}
    for label, regime, ds in _sets():
        honest = label in HONEST
        instances = _fit(ds, regime)
        verdicts = {inst.qid: mirage.defend(inst.query, inst.passages) for inst in instances}
        for name, (probe, attack_regimes) in probed.items():
            if (honest and name == "negated-wrong") or (
                not honest and regime not in attack_regimes
            ):
                continue
            counts = Counter(probe(inst, verdicts[inst.qid]) for inst in instances)
            cells = "; ".join(f"{k}: {n}" for k, n in sorted(counts.items()))
            tables[name].append(f"| {label} {regime.upper()} | {len(instances)} | {cells} |")
    print("# Separation probes, fit split (sets per value)\n")
    for name, rows in tables.items():
        print(f"## {name}\n\n| evidence | sets | sets per value |\n|---|---|---|")
        print("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
