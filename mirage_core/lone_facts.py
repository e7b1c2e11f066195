"""Lone facts: a delivered claim names no fact of the asked kind that only its own source states.

A page planted among honest ones ("The Titanic sank in 1913, when …" beside four pages that
say 1912) restates the question in its own words, so neither the NLI model nor the answer-slot
rule (:mod:`mirage_core.answer_conflict`) reliably reads it against the honest sentences, and
nothing coordinates for the coordination signals to flag: the gate passes, and the swapped
answer reaches the generator beside the true one. What sets it apart is corroboration fact by
fact: its answer is the one fact of the evidence that no second source states.

With ``MethodSettings.lone_facts="hold_back"`` a passing verdict holds back every delivered
claim that names a fact of a kind the query asks for (:func:`~mirage_core.question_reading.question_kinds`:
numbers, months, names; a fact the query itself holds is not an answer) that no claim of
another independent source (domain or independence group) states, in any form
(:func:`~mirage_core.fact_forms.added_forms` under ``fact_forms="equivalent"``). Quarantined
passages state nothing. A claim that names no such fact is not held back: it has no answer to
disagree on. The verdict falls back when every delivered claim is held back.

It applies only where the delivered claims span two independent sources or more: a lone page
that a quarantine lets answer alone (``coordinated_d_min``) has no second source to state its
facts, and is delivered as the quarantine decided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from mirage_core.answer_conflict import answer_facts, of_kind
from mirage_core.fact_forms import added_forms
from mirage_core.gate import GateDecision
from mirage_core.gate_state import GateState
from mirage_core.question_reading import (
    asked_stems,
    question_kinds,
    question_words,
    relation_stems,
)
from mirage_core.records import RuleOutcome
from mirage_core.relevance import stems
from mirage_core.sources import source_unit
from mirage_core.types import Claim

__all__ = ["hold_back_lone_facts", "lone_facts", "named_facts"]


def lone_facts(
    query: str,
    claims: Sequence[Claim],
    delivered: Sequence[int],
    quarantined: np.ndarray,
    unit_of,
    *,
    times: str = "number",
    names: str = "last_word",
    subjects: bool = True,
    forms: str = "equivalent",
    outvoted: bool = False,
    answers_only: bool = False,
) -> dict[int, tuple[str, ...]]:
    """Each claim of ``delivered`` that names a fact of a kind ``query`` asks for which no
    claim of another source (``unit_of(claim)``; quarantined claims left out) states, with
    those facts in sorted order. With ``outvoted``, a fact of a kind counts only where the
    kept claims name a fact of that kind that two sources or more state. The facts are read
    as the answer-slot rule reads them (:func:`~mirage_core.answer_conflict.answer_facts`,
    with ``names``, ``subjects`` and ``forms`` as it takes them). With ``answers_only``, only
    claims that hold a word of what the query asks (:func:`relation_stems`, as the answer-slot
    rule asks of a claim that answers it) are held back, or outvote: a detail beside the
    answer is left alone."""
    kinds = question_kinds(query, times)
    if not kinds or not delivered:
        return {}
    words = question_words(query, forms)
    subject_of = relation_stems(query) if subjects else None
    facts: dict[int, dict[str, frozenset[str]]] = {}

    def facts_of(i: int) -> dict[str, frozenset[str]]:
        if i not in facts:
            facts[i] = answer_facts(claims[i].text, words, names, subject_of, forms)
        return facts[i]

    # what each source states: every fact its kept claims name, in every form they give it
    stated: dict[object, set[str]] = {}
    for i, claim in enumerate(claims):
        if quarantined[i]:
            continue
        said = stated.setdefault(unit_of(claim), set())
        for found in facts_of(i).values():
            said |= found
        if forms == "equivalent":
            said |= added_forms(claim.text)
    sources = Counter(t for said in stated.values() for t in said)  # fact -> sources stating it
    asked = asked_stems(query)

    def answers(i: int) -> bool:
        return not answers_only or bool(asked & stems(claims[i].tokens))

    if outvoted:  # the kinds the evidence answers with a fact two sources state
        kept = [i for i in range(len(claims)) if not quarantined[i] and answers(i)]
        kinds = tuple(
            kind
            for kind in kinds
            if any(sources[t] >= 2 for i in kept for t in of_kind(facts_of(i), kind))
        )
    out: dict[int, tuple[str, ...]] = {}
    for i in delivered:
        if not answers(i):
            continue
        own = stated.get(unit_of(claims[i]), set())
        named = {t for kind in kinds for t in of_kind(facts_of(i), kind)}
        lone = sorted(t for t in named if sources[t] == (t in own))  # no other source states t
        if lone:
            out[i] = tuple(lone)
    return out


def hold_back_lone_facts(
    decision: GateDecision, state: GateState, quarantined: np.ndarray
) -> GateDecision:
    """``decision`` without the delivered claims that name a lone fact (module doc), as
    ``lone_facts`` reads them; a fallback when none is left (``"answers"``: unchanged, with an
    outcome that says so). Unchanged when it does not pass, when the setting is ``"deliver"``
    or when what it delivers comes from one source."""
    cfg = state.config
    m = cfg.method
    if decision.decision != "verified" or m.lone_facts == "deliver":
        return decision
    unit_of = source_unit(cfg)
    claims = state.claims
    if len({unit_of(claims[i]) for i in decision.delivered}) < 2:
        return decision
    lone = lone_facts(
        state.evidence.query,
        claims,
        decision.delivered,
        quarantined,
        unit_of,
        times=m.answer_times,
        names=m.answer_names,
        subjects=m.answer_subjects,
        forms=m.fact_forms,
        outvoted=m.lone_facts in ("outvoted", "answers"),
        answers_only=m.lone_facts == "answers",
    )
    if not lone:
        return decision
    kept = tuple(i for i in decision.delivered if i not in lone)
    held = tuple(sorted(lone.items()))
    named = named_facts(held)
    if not kept and m.lone_facts == "answers":  # it only narrows: no side is outvoted by all
        outcome = RuleOutcome(
            "lone_facts",
            False,
            f"every verified claim names a fact no other source states, none held back: {named}",
        )
        return replace(
            decision,
            reason=f"{decision.reason}; {outcome.reason}",
            outcomes=(*decision.outcomes, outcome),
        )
    decision = replace(decision, lone_facts=held)
    what = f"claims that name a fact no other source states held back: {named}"
    if not kept:
        outcome = RuleOutcome(
            "lone_facts", True, f"every verified claim names a fact no other source states: {named}"
        )
        return decision.blocked_by(outcome)
    outcome = RuleOutcome("lone_facts", False, what)
    return replace(
        decision,
        reason=f"{decision.reason}; {what}",
        delivered=kept,
        outcomes=(*decision.outcomes, outcome),
    )


def named_facts(held: Sequence[tuple[int, Sequence[str]]]) -> str:
    """Claims and their lone facts as the verdict's reason names them: "[3] 1925; [5] may"."""
    return "; ".join(f"[{i}] {', '.join(facts)}" for i, facts in held)
