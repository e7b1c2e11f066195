"""Reading the question for the answer-slot rule (:mod:`mirage_core.answer_conflict`).

Which kinds of fact answer it (:func:`question_kinds`: numbers, months, years or names, read off
its wh-words), what it asks about its topic (:func:`relation_stems`: its content words that are
not part of a name) and the words it already holds (:func:`question_words`: a fact among them
names the question, not its answer).
"""

from __future__ import annotations

import re
from typing import get_args

from mirage_core.claims import content_tokens
from mirage_core.fact_forms import fold
from mirage_core.factcheck import FACT_KINDS, fact_tokens
from mirage_core.method_settings import AnswerTimes
from mirage_core.relevance import stems

__all__ = ["asked_stems", "question_kinds", "question_words", "relation_stems"]


# The kinds of fact that answer a wh-question: "When was it completed?" is answered by a date,
# so two on-question claims that name different places ("located in Paris" / "for the World's
# Fair") answer other questions and do not conflict on this one. "what" / "which" / "why" / "how"
# alone say nothing about the kind; neither does a statement (gpe-eval's queries are claims).
_WH_KINDS: dict[str, tuple[str, ...]] = {
    "who": ("name",),
    "whom": ("name",),
    "whose": ("name",),
    "where": ("name",),
}
_HOW_NUMBER = frozenset(
    {"many", "much", "long", "old", "tall", "far", "high", "big", "large", "often", "deep", "wide"}
)
_DATE_WORDS = frozenset({"year", "years", "date", "month", "day", "century", "decade"})
_GENERIC_WH = frozenset({"what", "which", "why", "how"})
_WORD = re.compile(r"[a-z]+")
#: A number that can be a year: a whole number of three or four digits ("476", "1998").
YEAR = re.compile(r"\d{3,4}")
ANSWER_TIMES: tuple[str, ...] = get_args(AnswerTimes)


def question_kinds(query: str, times: str = "number") -> tuple[str, ...]:
    """The fact kinds that answer ``query``, read off its wh-words: ``when`` → numbers and
    months, ``who`` / ``whom`` / ``whose`` / ``where`` → names, ``how many`` (``much``, ``tall``,
    …) → numbers, ``what`` / ``which year`` (``date``, ``month``, …) → numbers and months; a
    query with another wh-word or none (a statement) → every kind. Several wh-words ("When was
    it built, and who designed it?") give the union of their kinds.

    ``times="year"``: a question that asks *when* is answered by a year or a month, not by any
    number (:data:`YEAR`: a whole number of three or four digits), so "when" and "what year"
    give the kinds ``"year"`` and ``"month"``; "1–1" and "3–0" in a match report say nothing
    about when a team last qualified."""
    if times not in ANSWER_TIMES:
        raise ValueError(f"times must be one of {ANSWER_TIMES}, got {times!r}")
    when = "year" if times == "year" else "number"
    words = _WORD.findall(query.lower())
    kinds: set[str] = set()
    found = False
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "when":
            kinds.update((when, "month"))
        elif w in _WH_KINDS:
            kinds.update(_WH_KINDS[w])
        elif w == "how" and nxt in _HOW_NUMBER:
            kinds.add("number")
        elif w in ("what", "which") and nxt in _DATE_WORDS:
            kinds.update((when, "month"))
        elif w in _GENERIC_WH:
            return FACT_KINDS
        else:
            continue
        found = True
    if not found:
        return FACT_KINDS
    return tuple(k for k in (*FACT_KINDS, "year") if k in kinds)


def relation_stems(query: str) -> set[str]:
    """The stems of ``query``'s content words that are not part of a name: what it asks about
    its topic ("high" in "How high is Mount Everest?"). A sentence that names Mount Everest
    holds two thirds of that question's words without saying how high it is; one that restates
    the question holds a relation word too. For a query without capitals every content word
    counts; a query whose content words are all names has none."""
    names = {t for t, kind in fact_tokens(query) if kind == "name"}
    return stems(content_tokens(query)) - stems(frozenset(names))


def asked_stems(query: str) -> set[str]:
    """The stems a claim must hold one of to answer ``query``: its :func:`relation_stems`,
    or, for a query whose content words are all names, those words' stems."""
    return relation_stems(query) or stems(content_tokens(query))


def question_words(query: str, forms: str = "tokens") -> set[str]:
    """``query``'s tokens and content stems: a fact among them names the question, not its
    answer (:func:`answer_facts`); with ``forms="equivalent"`` folded as that reads facts."""
    words = {t for t, _ in fact_tokens(query)} | stems(content_tokens(query))
    return {fold(w) for w in words} if forms == "equivalent" else words
