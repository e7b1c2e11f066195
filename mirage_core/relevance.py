"""How much each claim is about the query, so the gate weighs conflicts by what was asked.

Retrieved pages hold many facts beside the answer. Two outlets may disagree on a side detail
(a date of a related event, who reported what) while agreeing on what the question asks; the
paper's gate counts that conflict as much as one about the answer and blocks. Here each claim
gets a relevance in [0, 1], and the gate weighs an edge by the lower relevance of its two
claims: a conflict is about the question only when both sides are.

Lexical relevance: the share of the query's content words (:func:`~mirage_core.claims.content_tokens`)
a claim holds, matched on a 5-character stem so "completed" meets "completion", divided by
``saturation`` and capped at 1 (a claim that holds half of a question's words is fully on topic
at the default 0.5). A query with no content words makes every claim fully relevant.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mirage_core.claims import content_tokens
from mirage_core.types import Claim

__all__ = ["edge_relevance", "lexical_relevance", "query_share", "stem", "stems"]

_STEM = 5


def stem(token: str) -> str:
    """A content token cut to its 5-character stem (a number stays whole)."""
    return token[:_STEM] if len(token) > _STEM and not token[0].isdigit() else token


def stems(tokens: frozenset[str]) -> set[str]:
    """Content tokens cut to their 5-character stem (numbers whole)."""
    return {stem(t) for t in tokens}


def lexical_relevance(query: str, claims: Sequence[Claim], saturation: float = 0.5) -> np.ndarray:
    """Relevance of each claim to ``query`` in [0, 1] (see the module docstring)."""
    if saturation <= 0:
        raise ValueError("saturation must be > 0")
    return np.minimum(1.0, query_share(query, claims) / saturation)


def query_share(query: str, claims: Sequence[Claim]) -> np.ndarray:
    """The share of ``query``'s content-word stems each claim holds (1 for every claim when the
    query has no content word)."""
    q = stems(content_tokens(query))
    if not q:
        return np.ones(len(claims))
    return np.array([len(q & stems(c.tokens)) / len(q) for c in claims], dtype=np.float64)


def edge_relevance(
    relevance: np.ndarray, premise: np.ndarray, hypothesis: np.ndarray
) -> np.ndarray:
    """Each edge's weight in the gate: the lower relevance of its two claims."""
    return np.minimum(relevance[premise], relevance[hypothesis])
