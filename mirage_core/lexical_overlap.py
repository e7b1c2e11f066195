"""Shared phrasing between passages: word shingles outside the query's words and their
pairwise containment, the ``lexical`` coordination signal (:mod:`mirage_core.group_signals`).

A shingle is a word n-gram (3 by default) that carries at least one word outside the query and
the stopwords: syndicated copies and templated poisons share such phrasing, while honest outlets
share the facts and the query's words, not sentences. Two passages' overlap is the containment
of the smaller one's shingles in the other's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from mirage_core.claims import STOPWORDS

__all__ = ["lexical_matrix", "shingles"]

_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_][^\W_]*(?:['’][^\W\d_]+)?")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _words(text: str) -> list[str]:
    """Ordered lowercase word tokens (numbers normalized like :func:`content_tokens`)."""
    low = unicodedata.normalize("NFKC", text).lower()
    out = []
    for m in _WORD.finditer(low):
        tok = m.group(0).replace("’", "'")
        out.append(tok.replace(",", "") if _NUMBER.fullmatch(tok) else tok)
    return out


def shingles(text: str, query_words: frozenset[str], n: int = 3) -> frozenset[tuple[str, ...]]:
    """Word ``n``-grams of ``text`` that carry at least one word outside the query and the
    stopwords: a shingle made of the query's own words ("of chicago fire") is what any page on
    the topic says, while "a total of" is phrasing."""
    toks = _words(text)
    grams = zip(*(toks[i:] for i in range(n)), strict=False)
    return frozenset(
        g for g in grams if any(t not in query_words and t not in STOPWORDS for t in g)
    )


def _containment(a: frozenset, b: frozenset) -> float:
    small = min(len(a), len(b))
    return len(a & b) / small if small else 0.0


def lexical_matrix(texts: Sequence[str], query: str, n: int = 3) -> np.ndarray:
    """Pairwise shingle containment ``|A ∩ B| / min(|A|, |B|)`` (0 on the diagonal)."""
    qw = frozenset(_words(query))
    sh = [shingles(t, qw, n) for t in texts]
    m = len(texts)
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            out[i, j] = out[j, i] = _containment(sh[i], sh[j])
    return out
