"""Fact tokens (numbers, months, proper names) and the minimal edit that swaps one.

:func:`fact_tokens` is what the answer-slot rule, corroboration's fact coverage and the
coordination signals read. :func:`fact_conflict_kind` tells whether two sentences worded alike
differ, at the same position, in a fact ("born in 1961" / "born in 1975"): alignment is
difflib's, a *short* replaced segment (≤ 3 tokens each side) with a fact token of the same kind
on both sides is a swap, additions alone never are. The engine does not treat such a pair as
a contradiction by itself (its leave-one-family-out value was nil, ``docs/decisions.md``); the
test suite's lexical NLI double and ``research/factcheck_precision.py`` use it.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

__all__ = [
    "FACT_KINDS",
    "MONTHS",
    "MONTH_NAMES",
    "fact_conflict",
    "fact_conflict_kind",
    "fact_tokens",
    "leading_words",
    "name_phrases",
]

#: The kinds of fact token the check compares, in the order it reports them.
FACT_KINDS: tuple[str, ...] = ("number", "month", "name")

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*%?|\w+(?:['’]\w+)?", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
#: Month names, lower-cased, in calendar order: the tokens :func:`fact_tokens` calls ``"month"``.
MONTH_NAMES: tuple[str, ...] = tuple(
    "january february march april may june july august september october november december".split()
)
MONTHS = frozenset(MONTH_NAMES)
_MAX_SEGMENT = 3


def _kind(token: str, sentence_initial: bool) -> str | None:
    if _NUMBER.fullmatch(token):
        return "number"
    low = token.lower()
    if low in MONTHS:
        return "month"
    if token[:1].isupper() and not sentence_initial:
        return "name"
    return None


def fact_tokens(sentence: str) -> list[tuple[str, str | None]]:
    """``sentence``'s tokens, lower-cased (thousands separators dropped), each with its fact
    kind (``"number"``, ``"month"``, ``"name"``: capitalized and not sentence-initial) or
    ``None``."""
    out = []
    for i, m in enumerate(_TOKEN.finditer(sentence)):
        tok = m.group(0)
        out.append((tok.lower().replace(",", ""), _kind(tok, i == 0)))
    return out


def leading_words(sentence: str, n: int) -> list[str]:
    """``sentence``'s first ``n`` tokens as written (the tokens :func:`fact_tokens` reads)."""
    return [m.group(0) for _, m in zip(range(n), _TOKEN.finditer(sentence), strict=False)]


def name_phrases(sentence: str) -> list[tuple[str, ...]]:
    """``sentence``'s proper names, lower-cased: runs of name tokens (:func:`fact_tokens`'
    ``"name"``) separated by one space, so "New York Mets" is one name and "Marshfield,
    Missouri" two."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    end = 0
    for i, m in enumerate(_TOKEN.finditer(sentence)):
        is_name = _kind(m.group(0), i == 0) == "name"
        if run and not (is_name and sentence[end : m.start()] == " "):
            out.append(tuple(run))
            run = []
        if is_name:
            run.append(m.group(0).lower())
        end = m.end()
    if run:
        out.append(tuple(run))
    return out


def fact_conflict(
    a: str, b: str, kinds: tuple[str, ...] = FACT_KINDS, min_similarity: float = 0.0
) -> bool:
    """True when ``a`` and ``b`` differ in a number, month or proper name (of ``kinds``) at
    the same place."""
    return fact_conflict_kind(a, b, kinds, min_similarity) is not None


def fact_conflict_kind(
    a: str, b: str, kinds: tuple[str, ...] = FACT_KINDS, min_similarity: float = 0.0
) -> str | None:
    """The kind of fact (``"number"``, ``"month"``, ``"name"``) ``a`` and ``b`` differ in at
    the same place, or ``None``. Only ``kinds`` are looked at, and only when at least
    ``min_similarity`` of the shorter sentence's tokens align with the other (difflib's
    matching blocks): a minimal edit leaves the rest of the sentence in place, two different
    sentences that share a topic do not."""
    ta, tb = fact_tokens(a), fact_tokens(b)
    if not ta or not tb:
        return None
    matcher = SequenceMatcher(a=[t for t, _ in ta], b=[t for t, _ in tb], autojunk=False)
    if min_similarity > 0:
        # Matched tokens over the shorter sentence: an edit that also adds a clause ("is 410
        # metres tall and was designed by …") still leaves the shorter one intact.
        matched = sum(size for _, _, size in matcher.get_matching_blocks())
        if matched / min(len(ta), len(tb)) < min_similarity:
            return None
    words_a, words_b = {t for t, _ in ta}, {t for t, _ in tb}
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 > _MAX_SEGMENT or j2 - j1 > _MAX_SEGMENT:
            continue
        # A fact token counts only if the other sentence never states it: "born in Hawaii in
        # 1961" vs "born in 1961 … in 2009" aligns 1961 with 2009, but both say 1961.
        kinds_a = {k for t, k in ta[i1:i2] if k and t not in words_b}
        kinds_b = {k for t, k in tb[j1:j2] if k and t not in words_a}
        for kind in FACT_KINDS:
            if kind in kinds and kind in kinds_a and kind in kinds_b:
                return kind
    return None
