"""Two sources that answer the question with different facts: a gate rule beside NLI.

A poisoned passage is written to answer the question: it restates it ("The Eiffel Tower,
designed by …, is 410 metres tall") and puts its own fact in the answer's place. The honest
passage restates the question too, with the true fact. The NLI model rarely calls such a pair
a contradiction (its wording differs everywhere else: `research/results/conflict_pairs.txt`
measures recall near 10% at a 5% false-alarm rate). This rule reads the answer slot directly: two verified
claims from different sources that each hold at least ``min_share`` of the question's content
words, one of them a word of what it asks (:func:`relation_stems`), are both *about the
answer*; if they name facts of the kind the question asks for (:func:`question_kinds`:
numbers, months or proper names, none of them in the question) with no fact of that kind in
common, they answer the question differently, and the gate blocks. The question itself (the
kinds of fact that answer it, its relation words, the words it already holds) is read by
:mod:`mirage_core.question_reading`.

Facts are tokens typed by :func:`mirage_core.factcheck.fact_tokens` (a name is a capitalized
token that does not open the sentence and is not a stopword; a possessive "'s" is dropped, so
"Beckett's play" names Beckett). With ``answer_subjects`` (the default) the first word is a name
too when the next word is one of what the question asks: "Michelangelo painted The Last
Supper" names who painted it. With ``answer_names="last_word"`` (the default) a name is a
run of such tokens (:func:`mirage_core.factcheck.name_phrases`) read by its last word outside
the question, its most specific: "the New York Mets" and "the New York Yankees" name
different teams, though they share two words. A fact the question already holds ("When did Apollo 11
land?") names the question, not the answer, and is left out, whole or by its 5-character stem.
With ``answer_times="year"`` a question that asks *when* is answered by a year (a whole number of
three or four digits) or a month, not by any number: the scores and counts of a match report
name no time. The two claims must also share a word of what the question asks: "Lincoln was born in
Kentucky" and "he issued the Emancipation Proclamation" both restate "The president who issued
the Emancipation Proclamation was born in which state?", about different parts of it.

*Context* (``MirageConfig.answer_conflict_context``): an encyclopedic page names its subject
once, in its first sentence, and refers back to it ("The dynastic capital was Vienna" on the
Habsburg Monarchy's page). With ``"lead+previous"`` a claim counts the words of its page's
first claim and of the claim before it towards the question's share (:func:`topic_context`);
the word of what the question asks must still be its own. ``"lead+previous statements"`` skips
claims that are questions when it picks the lead and the claim before: a question asserts
nothing about the page's subject, and an FAQ page headed by the very question it answers would
otherwise lend every one of its sentences the question's words, so that each name the page
mentions reads as an answer.

Measured on real pairs (the same file): it calls 7–11% of PoisonedRAG's answer-bearing
gold-vs-poison claim pairs and under 1% of agreeing clean pairs; most gold claims are
encyclopedic sentences that do not restate the question. On the scoreboard it mostly stops
fabricated evidence whose passages disagree in the details they invent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast, get_args

import numpy as np

from mirage_core.claim_filter import is_question
from mirage_core.claims import STOPWORDS, content_tokens
from mirage_core.fact_forms import added_forms, fact_form, fold
from mirage_core.factcheck import fact_tokens, leading_words, name_phrases
from mirage_core.method_settings import AnswerConflictContext
from mirage_core.question_reading import (
    YEAR,
    asked_stems,
    question_kinds,
    question_words,
    relation_stems,
)
from mirage_core.relevance import stem, stems
from mirage_core.types import Claim

__all__ = [
    "AnswerConflict",
    "answer_conflicts",
    "answer_facts",
    "find_answer_conflicts",
    "question_kinds",
    "question_words",
    "relation_stems",
    "topic_context",
]


@dataclass(frozen=True)
class AnswerConflict:
    """Claims ``left`` and ``right`` (claim indices, different sources) both restate the
    question and name different ``kind`` facts: ``left_facts`` against ``right_facts``.
    ``left_context`` / ``right_context``: that claim restates the question only with its
    page's context (:func:`topic_context`), not with its own words."""

    left: int
    right: int
    kind: str
    left_facts: tuple[str, ...]
    right_facts: tuple[str, ...]
    left_context: bool = False
    right_context: bool = False

    def describe(self, claims: Sequence[Claim]) -> str:
        a, b = claims[self.left], claims[self.right]
        read = [
            i for i, on in ((self.left, self.left_context), (self.right, self.right_context)) if on
        ]
        return (
            f"claims {self.left} ({a.source}) and {self.right} ({b.source}) both answer the "
            f"question"
            + (
                f" (claim{'s' if len(read) > 1 else ''} {' and '.join(map(str, read))} with "
                "the page's first claim and the one before)"
                if read
                else ""
            )
            + f" and name different {self.kind}s: "
            f"{', '.join(self.left_facts)} vs {', '.join(self.right_facts)}"
        )


_POSSESSIVE = re.compile(r"['’]s$")


def answer_facts(
    text: str,
    question_words: set[str],
    names: str = "word",
    subject_of: set[str] | None = None,
    forms: str = "tokens",
) -> dict[str, frozenset[str]]:
    """The facts of each kind ``text`` names that ``question_words`` (the question's tokens and
    content stems) do not. ``names="last_word"``: a name is its last word outside the
    question ("New York Mets" → "mets"), not each of its words. ``subject_of``: stems of what
    the question asks (:func:`relation_stems`); a capitalized first word followed by one of
    them is a name too (:func:`_subject`). ``forms="equivalent"``: each fact in the form
    :func:`mirage_core.fact_forms.fact_form` compares it in (``question_words`` are then
    expected folded too)."""
    if names not in ("word", "last_word"):
        raise ValueError(f"names must be 'word' or 'last_word', got {names!r}")
    equivalent = forms == "equivalent"
    found: dict[str, set[str]] = {}
    for token, kind in fact_tokens(text):
        if kind is None or (kind == "name" and names == "last_word"):
            continue
        token = _POSSESSIVE.sub("", token) or token
        if equivalent:
            token = fact_form(token, text)
        if token in question_words or (kind == "name" and _not_a_name(token, question_words)):
            continue
        found.setdefault(kind, set()).add(token)
    if names == "last_word":
        for phrase in name_phrases(text):
            words = [_POSSESSIVE.sub("", t) or t for t in phrase]
            if equivalent:
                words = [fold(t) for t in words]
            kept = [t for t in words if not _not_a_name(t, question_words)]
            if kept:
                found.setdefault("name", set()).add(kept[-1])
    subject = _subject(text, subject_of) if subject_of else None
    if subject is not None and equivalent:
        subject = fold(subject)
    if subject is not None and not _not_a_name(subject, question_words):
        found.setdefault("name", set()).add(subject)
    return {k: frozenset(v) for k, v in found.items()}


def _subject(text: str, asked: set[str]) -> str | None:
    """The sentence's first word, lower-cased, when it is capitalized, no number or month, and
    followed by a word of what the question asks: the subject of that relation ("Michelangelo
    painted The Last Supper" for "who painted the Last Supper"). A first word is otherwise no
    name (it is capitalized whatever it is); one that does what the question asks names who
    or what did it."""
    lead = leading_words(text, 2)
    if len(lead) < 2 or not lead[0][:1].isupper() or stem(lead[1].lower()) not in asked:
        return None
    if fact_tokens(lead[0])[0][1] is not None:  # a number or a month
        return None
    token = lead[0].lower()
    return _POSSESSIVE.sub("", token) or token


def of_kind(facts: dict[str, frozenset[str]] | dict[str, set[str]], kind: str) -> set[str]:
    """The facts of ``kind`` among ``facts`` (:func:`answer_facts`); ``"year"``: the numbers
    that can be years (:data:`YEAR`)."""
    if kind == "year":
        return {t for t in facts.get("number", ()) if YEAR.fullmatch(t)}
    return set(facts.get(kind, ()))


def _not_a_name(token: str, question_words: set[str]) -> bool:
    """A capitalized token that names nothing the answer could: a word of the question (whole
    or by its stem) or a stopword."""
    return token in question_words or token in STOPWORDS or stem(token) in question_words


CONTEXT_MODES: tuple[str, ...] = get_args(AnswerConflictContext)


def topic_context(claims: Sequence[Claim], mode: str = "lead+previous") -> list[frozenset[str]]:
    """Per claim (by position in ``claims``): the content tokens of its page's first claim and
    of the claim before it on that page (``mode="lead+previous"``); the same read over the
    page's claims that are not questions (``"lead+previous statements"``); or nothing
    (``"claim"``). Claims of one page are taken in the order ``claims`` lists them (extraction
    order)."""
    if mode not in CONTEXT_MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, CONTEXT_MODES))}, got {mode!r}")
    if mode == "claim":
        return [frozenset()] * len(claims)
    statements_only = mode == "lead+previous statements"
    lead: dict[int, frozenset[str]] = {}
    last: dict[int, frozenset[str]] = {}
    out = []
    for c in claims:
        page = c.passage_index
        out.append(lead.get(page, frozenset()) | last.get(page, frozenset()))
        if statements_only and is_question(c.text):
            continue
        lead.setdefault(page, c.tokens)
        last[page] = c.tokens
    return out


def answer_conflicts(
    query: str,
    claims: Sequence[Claim],
    indices: Sequence[int],
    min_share: float,
    scope: str = "claim",
    context: Sequence[frozenset[str]] | None = None,
    names: str = "word",
    times: str = "number",
    subjects: bool = False,
    forms: str = "tokens",
) -> list[AnswerConflict]:
    """Every conflicting pair (:func:`find_answer_conflicts` without a limit)."""
    return find_answer_conflicts(
        query, claims, indices, min_share, scope, context, names, times, subjects, forms
    )[0]


def find_answer_conflicts(
    query: str,
    claims: Sequence[Claim],
    indices: Sequence[int],
    min_share: float,
    scope: str = "claim",
    context: Sequence[frozenset[str]] | None = None,
    names: str = "word",
    times: str = "number",
    subjects: bool = False,
    forms: str = "tokens",
    limit: int | None = None,
) -> tuple[list[AnswerConflict], int]:
    """Every pair of ``claims[indices]`` from different sources that holds at least
    ``min_share`` of ``query``'s content words each (one of its :func:`relation_stems` among
    them, and one such word in common) and names disjoint facts of one kind the question asks
    for (:func:`question_kinds`; the first that differs), in index order.

    ``context``: extra tokens per claim of ``claims`` (:func:`topic_context`) that count
    towards the query's share, not towards the word of what it asks.

    ``scope="passage"``: a fact in common is looked for between each claim and the *other*
    claim's whole passage (every claim of ``claims`` with its ``passage_index``), so "The
    symbol comes from aurum, the Latin word for gold" does not conflict with "gold (Au,
    element 79)" when its own page says Au in another sentence. Measured on the scoreboard
    (``docs/decisions.md``), it spares no more honest evidence on the fit split
    and lets more planted answers through: the honest page names *some* fact of the planted
    claim somewhere (the wrong answer, "close to the border with Kenya", or the subject the
    poison names beside it), so ``"claim"`` is the default.

    ``names``: how two names are told apart (:func:`answer_facts`). ``times``: what answers a
    question that asks when (:func:`question_kinds`). ``subjects``: a claim's capitalized first
    word followed by a word of what the question asks names an answer (:func:`_subject`).

    A query with no content word gives no pair: no claim can be told to restate it.

    Returns the first ``limit`` pairs in index order (all for ``None``) and how many there
    are: evidence whose claims all restate the question can hold a conflict for nearly every
    pair of them, and one is enough to block."""
    if scope not in ("claim", "passage"):
        raise ValueError(f"scope must be 'claim' or 'passage', got {scope!r}")
    if len(indices) < 2 or not content_tokens(query):
        return [], 0
    if context is not None and len(context) != len(claims):
        raise ValueError(f"context has {len(context)} entries for {len(claims)} claims")
    q = stems(content_tokens(query))
    own = {i: stems(claims[i].tokens) for i in indices}
    seen = {i: own[i] | stems(context[i]) for i in indices} if context is not None else own
    share = [len(q & seen[i]) / len(q) for i in indices]
    asked = asked_stems(query)
    on_question = [
        i for i, s in zip(indices, share, strict=True) if s >= min_share and asked & own[i]
    ]
    if len(on_question) < 2:
        return [], 0
    # a claim that restates the question only with its page's context (the verdict says so)
    via_context = {i: len(q & own[i]) / len(q) < min_share for i in on_question}
    words = question_words(query, forms)
    subject_of = relation_stems(query) if subjects else None
    facts = [answer_facts(claims[i].text, words, names, subject_of, forms) for i in on_question]
    # the forms each claim states its facts in beyond its tokens ("330 metres": 1083 feet): a
    # fact of one claim among the other's is a fact in common (its plain words are not: a
    # fact is a fact of both only when both name it)
    stated = [added_forms(claims[i].text) for i in on_question] if forms == "equivalent" else None
    pages: dict[int, dict[str, set[str]]] = {}  # scope "passage": each page's facts
    if scope == "passage":
        known = dict(zip(on_question, facts, strict=True))  # read once, not twice
        for i, c in enumerate(claims):
            of_claim = (
                known[i] if i in known else answer_facts(c.text, words, names, subject_of, forms)
            )
            page = pages.setdefault(c.passage_index, {})
            for kind, found_here in of_claim.items():
                page.setdefault(kind, set()).update(found_here)
    n = len(on_question)
    sources = np.array([claims[i].source for i in on_question], dtype=object)
    # the words of what the question asks that each claim holds: a pair must share one
    asked_list = sorted(asked)
    holds = np.array([[a in own[i] for a in asked_list] for i in on_question], dtype=np.int32)
    # pairs (upper triangle) from different sources, about one thing the question asks, that
    # no earlier kind has called yet
    open_pairs = np.triu((sources[:, None] != sources[None, :]) & (holds @ holds.T > 0), k=1)
    kinds = question_kinds(query, times)
    found_a: list[np.ndarray] = []  # per kind: the pairs it calls (a pair is called once)
    found_b: list[np.ndarray] = []
    found_kind: list[np.ndarray] = []  # index into kinds
    for k, kind in enumerate(kinds):
        vocab: dict[str, int] = {}
        rows, cols = [], []
        for r, f in enumerate(facts):
            for token in of_kind(f, kind):
                rows.append(r)
                cols.append(vocab.setdefault(token, len(vocab)))
        if not vocab:
            continue
        prows, pcols = [], []  # scope "passage": the facts of each claim's whole page
        for r, i in enumerate(on_question if scope == "passage" else ()):
            for token in of_kind(pages[claims[i].passage_index], kind):
                prows.append(r)
                pcols.append(vocab.setdefault(token, len(vocab)))
        named = np.zeros((n, len(vocab)), dtype=np.int32)
        named[rows, cols] = 1
        has = cast(np.ndarray, named.any(axis=1))  # one bool per row (numpy's hints allow a scalar)
        if scope == "passage":
            on_page = np.zeros((n, len(vocab)), dtype=np.int32)
            on_page[prows, pcols] = 1
            shared = named @ on_page.T + on_page @ named.T  # a claim's facts on the other's page
        elif stated is not None:
            also = named.copy()  # each claim's facts and the other forms it states of them
            for r, forms_of in enumerate(stated):
                also[r, [vocab[t] for t in forms_of if t in vocab]] = 1
            shared = named @ also.T + also @ named.T
        else:
            shared = named @ named.T
        # both name a fact of this kind, and none in common: one matrix product, no pair loop
        hit = open_pairs & has[:, None] & has[None, :] & (shared == 0)
        a_hit, b_hit = np.nonzero(hit)
        found_a.append(a_hit)
        found_b.append(b_hit)
        found_kind.append(np.full(a_hit.size, k))
        open_pairs &= ~hit
    if not found_a:
        return [], 0
    a_all, b_all, k_all = (np.concatenate(c) for c in (found_a, found_b, found_kind))
    order = np.lexsort((b_all, a_all))  # index order; no pair is called by two kinds
    total = int(order.size)
    picked = order if limit is None else order[:limit]  # records only for what is kept
    out = []
    for a, b, kind in ((int(a_all[j]), int(b_all[j]), kinds[k_all[j]]) for j in picked):
        fa, fb = of_kind(facts[a], kind), of_kind(facts[b], kind)
        left, right = on_question[a], on_question[b]
        out.append(
            AnswerConflict(
                left,
                right,
                kind,
                tuple(sorted(fa)),
                tuple(sorted(fb)),
                via_context[left],
                via_context[right],
            )
        )
    return out, total
