"""Per-claim labels and answer matching, the measures of the benchmark that need no LLM judge.

A claim is polluted when its character span in its passage overlaps an edited span
(:func:`claim_pollution`); a clean claim is corroborated when a clean claim of another source
supports it in the claim graph (:func:`corroborated_clean`); a text contains an answer when the
answer appears in it case-insensitively, at word boundaries and not inside a longer number
(:func:`contains_answer`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from mirage_core.evaluation.instances import Instance
from mirage_core.types import Claim
from mirage_core.verdict import Verdict

__all__ = ["claim_pollution", "contains_answer", "corroborated_clean"]


def claim_pollution(instance: Instance, claims: Sequence[Claim]) -> np.ndarray:
    """For each claim: does its span overlap a polluted span of its passage?"""
    spans = instance.spans
    out = np.zeros(len(claims), dtype=bool)
    for i, c in enumerate(claims):
        for s, e in spans[c.passage_index] if c.passage_index < len(spans) else ():
            if s < c.end and c.start < e:
                out[i] = True
                break
    return out


def corroborated_clean(verdict: Verdict, polluted: np.ndarray) -> np.ndarray:
    """Clean claims supported (w_supp > 0) by a clean claim of another source."""
    n = len(verdict.claims)
    out = np.zeros(n, dtype=bool)
    g = verdict.graph
    if n == 0 or len(g) == 0:
        return out
    groups = np.array([c.group for c in verdict.claims], dtype=object)
    p, h = np.asarray(g.premise), np.asarray(g.hypothesis)
    ok = (np.asarray(g.w_supp) > 0) & ~polluted[p] & (groups[p] != groups[h])
    out[h[ok]] = True
    return out & ~polluted


_ARTICLE = re.compile(r"^(?:the|an?)\s+")


def _answer_pattern(answer: str) -> str:
    """``answer`` (normalized) at word boundaries, and not inside a longer number."""
    left = r"\b" if answer[0].isalnum() else ""
    right = r"\b" if answer[-1].isalnum() else ""
    if answer[0].isdigit():
        left += r"(?<!\d[.,])"
    if answer[-1].isdigit():
        right += r"(?![.,]\d)"
    return left + re.escape(answer) + right


def contains_answer(text: str, answers: Iterable[str], besides: Iterable[str] = ()) -> bool:
    """Case-insensitive containment of any answer, at word boundaries ("no" is not in "known"),
    and an answer that begins or ends with a digit not inside a longer number ("2" is not in
    "6.2" or "2,000").

    An answer that lies inside one of ``besides`` (the planted "The Richmond" inside the correct
    "Richmond River", "April" inside "March and April") is looked for only outside the mentions
    of that answer: a page that states the correct answer does not state the planted one."""
    low = " ".join(text.lower().split())
    others = [b for b in (" ".join(str(b).lower().split()) for b in besides) if b]
    for a in answers:
        a = " ".join(str(a).lower().split())
        if not a:
            continue
        pattern = _answer_pattern(a)
        core = _answer_pattern(_ARTICLE.sub("", a) or a)  # "the richmond" lies in "richmond river"
        hay = low
        for b in sorted(
            (b for b in others if b != a and re.search(core, b)), key=len, reverse=True
        ):
            hay = re.sub(_answer_pattern(b), " ", hay)
        if re.search(pattern, hay):
            return True
    return False
